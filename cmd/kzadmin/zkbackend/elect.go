package zkbackend

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// DefaultUncleanTimeout bounds the wait for an unclean election.
const DefaultUncleanTimeout = time.Minute

const uncleanKey = "unclean.leader.election.enable"

// ElectLeaders runs a preferred election through the legacy znode, or an
// unclean one through the topic config (see electUnclean).
func (b *Backend) ElectLeaders(ctx context.Context, req backend.ElectionRequest) (*backend.ElectionResult, error) {
	if req.Type == backend.Designated {
		return nil, usageError("designated elections need --bootstrap-server: ZooKeeper has no znode that names " +
			"a desired leader; ElectLeaders v3 does")
	}
	c, err := b.admin.ReadCluster(ctx, zkadmin.ReadOptions{AllTopics: req.Partitions == nil,
		Topics: topicsOf(req.Partitions), States: true, Configs: true})
	if err != nil {
		return nil, err
	}
	switch req.Type {
	case backend.Preferred:
		return b.electPreferred(ctx, c, req)
	case backend.Unclean:
		return b.electUnclean(ctx, c, req)
	}
	return nil, fmt.Errorf("unknown election type %q", req.Type)
}

func topicsOf(tps []backend.TopicPartition) []string {
	var out []string
	for _, tp := range tps {
		out = append(out, tp.Topic)
	}
	return out
}

// electPreferred writes /admin/preferred_replica_election. Without a list
// it asks for every partition whose leader is not its preferred replica.
func (b *Backend) electPreferred(ctx context.Context, c *zkadmin.Cluster, req backend.ElectionRequest) (*backend.ElectionResult, error) {
	tps := req.Partitions
	out := &backend.ElectionResult{}
	if tps == nil {
		for _, t := range c.Topics {
			for _, p := range t.Partitions {
				if p.StateRead && p.Err == nil && len(p.Replicas) > 0 && p.State.Leader != p.Replicas[0] {
					tps = append(tps, backend.TopicPartition{Topic: t.Name, Partition: p.ID})
				}
			}
		}
		if len(tps) == 0 {
			out.Notes = append(out.Notes, "Every partition is led by its preferred replica; nothing to elect.")
			out.Writes.DryRun = req.DryRun
			return out, nil
		}
	}
	res, err := b.admin.ElectPreferredLeaders(ctx, toZnodes(tps), req.DryRun)
	if err != nil {
		return nil, convertErr(err)
	}
	out.Writes = writes(res.Ops, req.DryRun, res.Attempts)
	out.Requested = fromZnodes(res.Partitions)
	out.Notes = append(out.Notes, fmt.Sprintf("Wrote %s; Kafka's controller runs the election and deletes the znode.",
		znodes.PreferredReplicaElectionPath))
	return out, nil
}

// electUnclean elects leaders for offline partitions from outside the ISR.
// ZooKeeper has no request znode for that; what Kafka's ZK controller does
// offer is to run the election when a topic's unclean.leader.election.enable
// is switched on (its config change notification triggers it). So for each
// topic concerned: set the override to true (with a notification), wait
// until the partitions have leaders, and restore the previous override.
func (b *Backend) electUnclean(ctx context.Context, c *zkadmin.Cluster, req backend.ElectionRequest) (*backend.ElectionResult, error) {
	offline, notes := offlinePartitions(c, req.Partitions)
	out := &backend.ElectionResult{Requested: offline, Notes: notes}
	if len(offline) == 0 {
		out.Notes = append(out.Notes, "No offline partition; nothing to elect.")
		out.Writes.DryRun = req.DryRun
		return out, nil
	}
	topics := map[string]map[string]string{} // topic -> its overrides before
	for _, tp := range offline {
		topics[tp.Topic] = c.Topic(tp.Topic).Config
	}
	names := sortedKeys(topics)
	progress := req.Progress
	if progress == nil {
		progress = func(string) {}
	}
	for _, t := range names {
		res, err := b.admin.AlterConfigs(ctx, zkadmin.ConfigAlteration{EntityType: znodes.EntityTopics, EntityName: t,
			Set: map[string]string{uncleanKey: "true"}, DryRun: req.DryRun})
		if err != nil {
			return nil, convertErr(err)
		}
		w := writes(res.Ops, req.DryRun, res.Attempts)
		out.Writes.DryRun, out.Writes.Ops = req.DryRun, append(out.Writes.Ops, w.Ops...)
		progress(fmt.Sprintf("Set %s=true on topic %s to let Kafka's controller elect out-of-sync replicas.", uncleanKey, t))
	}
	if req.DryRun {
		out.Notes = append(out.Notes, fmt.Sprintf("Would then wait for leaders and restore %s on %s.", uncleanKey,
			strings.Join(names, ", ")))
		return out, nil
	}
	elected, waitErr := b.waitLeaders(ctx, offline, req.Timeout)
	out.Elected = elected
	if err := b.restoreUnclean(ctx, topics, progress); err != nil {
		return out, err
	}
	if waitErr != nil {
		return out, waitErr
	}
	return out, nil
}

// offlinePartitions picks the requested (or all) partitions without a
// leader; requested ones that have a leader are noted.
func offlinePartitions(c *zkadmin.Cluster, want []backend.TopicPartition) ([]backend.TopicPartition, []string) {
	wanted := map[backend.TopicPartition]bool{}
	for _, tp := range want {
		wanted[tp] = true
	}
	var offline []backend.TopicPartition
	var notes []string
	for _, t := range c.Topics {
		for _, p := range t.Partitions {
			tp := backend.TopicPartition{Topic: t.Name, Partition: p.ID}
			if want != nil && !wanted[tp] {
				continue
			}
			delete(wanted, tp)
			switch {
			case !p.StateRead || p.Err != nil:
				notes = append(notes, fmt.Sprintf("%s: no readable partition state; skipped", tp))
			case p.State.Leader == znodes.NoLeader:
				offline = append(offline, tp)
			case want != nil:
				notes = append(notes, fmt.Sprintf("%s: has leader %d; no election needed", tp, p.State.Leader))
			}
		}
	}
	for tp := range wanted {
		notes = append(notes, fmt.Sprintf("%s: no such partition", tp))
	}
	sort.Strings(notes)
	return offline, notes
}

// waitLeaders polls the partition states until each has a leader.
func (b *Backend) waitLeaders(ctx context.Context, tps []backend.TopicPartition, timeout time.Duration) ([]backend.TopicPartition, error) {
	if timeout <= 0 {
		timeout = DefaultUncleanTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		c, err := b.admin.ReadCluster(ctx, zkadmin.ReadOptions{Topics: topicsOf(tps), States: true})
		var elected []backend.TopicPartition
		if err == nil {
			for _, tp := range tps {
				if t := c.Topic(tp.Topic); t != nil && leader(t, tp.Partition) >= 0 {
					elected = append(elected, tp)
				}
			}
			if len(elected) == len(tps) {
				return elected, nil
			}
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return elected, fmt.Errorf("%d of %d partitions still have no leader after %v (are any of their replicas alive?)",
				len(tps)-len(elected), len(tps), timeout)
		}
	}
}

func leader(t *zkadmin.Topic, p int32) int32 {
	for _, part := range t.Partitions {
		if part.ID == p && part.StateRead && part.Err == nil {
			return part.State.Leader
		}
	}
	return znodes.NoLeader
}

// restoreUnclean puts each topic's previous override back, even when the
// command's ctx has ended: leaving the flag on would be a lasting change.
func (b *Backend) restoreUnclean(ctx context.Context, before map[string]map[string]string, progress func(string)) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	var errs []error
	for _, t := range sortedKeys(before) {
		prev, had := before[t][uncleanKey]
		alt := zkadmin.ConfigAlteration{EntityType: znodes.EntityTopics, EntityName: t}
		switch {
		case !had:
			alt.Delete = []string{uncleanKey}
		case prev != "true":
			alt.Set = map[string]string{uncleanKey: prev}
		default:
			continue
		}
		if _, err := b.admin.AlterConfigs(ctx, alt); err != nil {
			errs = append(errs, fmt.Errorf("restore %s on topic %s: %w", uncleanKey, t, convertErr(err)))
			continue
		}
		progress(fmt.Sprintf("Restored %s on topic %s.", uncleanKey, t))
	}
	return errors.Join(errs...)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// usageError is a request this backend cannot make; the CLI exits 2.
type usageError string

func (e usageError) Error() string { return string(e) }

// UsageError marks the error for the CLI.
func (usageError) UsageError() bool { return true }
