package cli

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
	"github.com/kzadmin/kzadmin/cmd/kzadmin/throttle"
)

// noteOut is where messages beside a command's result go: stdout for a
// person, stderr under -o json, whose stdout is the JSON alone.
func (a *app) noteOut() io.Writer {
	if a.jsonOutput() {
		return a.errOut
	}
	return a.out
}

// setThrottles throttles the replication of a plan's moves at rate B/s
// before it starts, as kafka-reassign-partitions --execute --throttle does:
// on each topic with a move (the plan's, and those of reassignments in
// progress) the replicas read from as leaders and the new ones as
// followers, and the rate on every broker involved.
func (a *app) setThrottles(ctx context.Context, b backend.Backend, moves []backend.Reassignment, rate int64) error {
	view, err := b.Describe(ctx, backend.DescribeRequest{All: true})
	if err != nil {
		return fmt.Errorf("--throttle: read the cluster: %w", err)
	}
	plan := map[throttle.Partition][]int32{}
	for _, m := range moves {
		plan[throttle.Partition{Topic: m.Topic, Partition: m.Partition}] = m.Replicas
	}
	current := map[throttle.Partition][]int32{}
	ongoing := map[throttle.Partition]throttle.Ongoing{}
	for _, t := range view.Topics {
		for _, p := range t.Partitions {
			tp := throttle.Partition{Topic: t.Name, Partition: p.ID}
			current[tp] = p.Replicas
			if len(p.Adding) > 0 || len(p.Removing) > 0 {
				ongoing[tp] = throttle.Ongoing{Replicas: p.Replicas, Adding: p.Adding}
			}
		}
	}
	planned, err := throttle.Moves(plan, current, ongoing)
	if err != nil {
		return fmt.Errorf("--throttle: %w", err)
	}
	topics := throttle.TopicConfigs(planned)
	for _, topic := range slices.Sorted(maps.Keys(topics)) {
		if err := a.alterForThrottle(ctx, b, backend.AlterConfigsRequest{EntityType: "topics", Name: topic,
			Set: topics[topic], DryRun: a.g.DryRun}); err != nil {
			return err
		}
	}
	for _, id := range throttle.Brokers(planned) {
		if err := a.alterForThrottle(ctx, b, backend.AlterConfigsRequest{EntityType: "brokers", Name: strconv.Itoa(int(id)),
			Set: throttle.BrokerConfigs(rate), DryRun: a.g.DryRun}); err != nil {
			return err
		}
	}
	if !a.g.DryRun {
		fmt.Fprintf(a.noteOut(), "The inter-broker throttle limit was set to %d B/s\n", rate)
	}
	return nil
}

// clearThrottles removes every reassignment throttle, as
// kafka-reassign-partitions --verify does once a plan is complete: the
// rates from every broker (the cluster's and the plan's) and the
// throttled replicas from the plan's topics. Only configs that are set are
// deleted.
func (a *app) clearThrottles(ctx context.Context, b backend.Backend, moves []backend.Reassignment) error {
	view, err := b.Describe(ctx, backend.DescribeRequest{Topics: topicsOfMoves(moves)})
	if err != nil {
		return fmt.Errorf("clear throttles: read the cluster: %w", err)
	}
	brokers := map[string]bool{}
	for _, br := range view.Brokers {
		brokers[strconv.Itoa(int(br.ID))] = true
	}
	for _, m := range moves {
		for _, r := range m.Replicas {
			brokers[strconv.Itoa(int(r))] = true
		}
	}
	brokerNames := slices.SortedFunc(maps.Keys(brokers), func(x, y string) int {
		nx, _ := strconv.Atoi(x)
		ny, _ := strconv.Atoi(y)
		return nx - ny
	})
	topics := topicsOfMoves(moves)
	slices.Sort(topics)
	fmt.Fprintf(a.noteOut(), "Clearing broker-level throttles on broker%s %s\n", pluralS(len(brokerNames)), strings.Join(brokerNames, ","))
	if err := a.deleteThrottleConfigs(ctx, b, "brokers", brokerNames, throttle.BrokerKeys()); err != nil {
		return err
	}
	fmt.Fprintf(a.noteOut(), "Clearing topic-level throttles on topic%s %s\n", pluralS(len(topics)), strings.Join(topics, ","))
	return a.deleteThrottleConfigs(ctx, b, "topics", topics, throttle.TopicKeys())
}

// deleteThrottleConfigs deletes, from each entity, those of keys it sets.
func (a *app) deleteThrottleConfigs(ctx context.Context, b backend.Backend, entityType string, names, keys []string) error {
	configs, err := b.DescribeConfigs(ctx, entityType, names)
	if err != nil {
		return fmt.Errorf("clear throttles: %w", err)
	}
	for _, c := range configs {
		if c.Err != nil {
			return fmt.Errorf("clear throttles: %s %s: %w", entityType, c.Name, c.Err)
		}
		var set []string
		for _, k := range keys {
			if _, ok := c.Overrides[k]; ok {
				set = append(set, k)
			}
		}
		if len(set) == 0 {
			continue
		}
		if err := a.alterForThrottle(ctx, b, backend.AlterConfigsRequest{EntityType: entityType, Name: c.Name,
			Delete: set, DryRun: a.g.DryRun}); err != nil {
			return err
		}
	}
	return nil
}

// alterForThrottle applies one throttle change; a dry run prints it.
func (a *app) alterForThrottle(ctx context.Context, b backend.Backend, req backend.AlterConfigsRequest) error {
	res, err := b.AlterConfigs(ctx, req)
	if err != nil {
		return fmt.Errorf("throttle %s %s: %w", strings.TrimSuffix(req.EntityType, "s"), req.Name, err)
	}
	if req.DryRun && !a.jsonOutput() {
		a.printWrites(res.Writes)
	}
	return nil
}

// pluralS is "s" unless n is 1.
func pluralS(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
