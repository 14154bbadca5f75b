package cli

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
)

// describeFilters are kafka-topics' partition filters.
type describeFilters struct {
	underReplicated, unavailable, atMinISR, underMinISR, withOverrides bool
}

func (f describeFilters) partitionFilter() bool {
	return f.underReplicated || f.unavailable || f.atMinISR || f.underMinISR
}

func (a *app) topicsDescribe() *cobra.Command {
	var pattern string
	var excludeInternal, ifExists bool
	var f describeFilters
	cmd := &cobra.Command{
		Use:   "describe [--topic REGEX] [filters]",
		Short: "Describe topics: partitions, leaders, ISR, configs",
		Long: `Describe the topics --topic matches (all by default). A topic whose znode
cannot be read is shown with its error, and the others are still shown; the
command then exits 1.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.withBackend(cmd, func(ctx context.Context, b backend.Backend) error {
				topics, err := a.matchTopics(ctx, b, pattern, excludeInternal)
				if err != nil {
					return err
				}
				if len(topics) == 0 && pattern != "" {
					return noSuchTopic(pattern, ifExists)
				}
				names := make([]string, len(topics))
				for i, t := range topics {
					names[i] = t.Name
				}
				view, err := b.Describe(ctx, backend.DescribeRequest{Topics: names, Configs: true})
				if err != nil {
					return err
				}
				return a.printDescribe(view, f)
			})
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&pattern, "topic", "", "regular expression the topic names must match")
	fl.BoolVar(&excludeInternal, "exclude-internal", false, "leave out internal topics")
	fl.BoolVar(&ifExists, "if-exists", false, "succeed if no topic matches")
	fl.BoolVar(&f.underReplicated, "under-replicated-partitions", false, "only partitions whose ISR is smaller than their replica set")
	fl.BoolVar(&f.unavailable, "unavailable-partitions", false, "only partitions whose leader is not available")
	fl.BoolVar(&f.atMinISR, "at-min-isr-partitions", false, "only partitions whose ISR size equals min.insync.replicas")
	fl.BoolVar(&f.underMinISR, "under-min-isr-partitions", false, "only partitions whose ISR is smaller than min.insync.replicas")
	fl.BoolVar(&f.withOverrides, "topics-with-overrides", false, "only topics that have config overrides")
	return cmd
}

// partitionFacts are what the filters and the NOTE column look at.
type partitionFacts struct {
	underReplicated, unavailable, atMinISR, underMinISR bool
	offline                                             []int32
}

func facts(p backend.Partition, live map[int32]bool, minISR int) partitionFacts {
	var pf partitionFacts
	for _, r := range p.Replicas {
		if !live[r] {
			pf.offline = append(pf.offline, r)
		}
	}
	target := len(p.Replicas) - len(p.Removing)
	pf.underReplicated = len(p.ISR) < target
	pf.unavailable = p.Leader < 0 || !live[p.Leader]
	pf.atMinISR = p.Err == nil && len(p.ISR) == minISR
	pf.underMinISR = p.Leader < 0 || len(p.ISR) < minISR
	return pf
}

func (f describeFilters) keep(pf partitionFacts) bool {
	return f.underReplicated && pf.underReplicated || f.unavailable && pf.unavailable ||
		f.atMinISR && pf.atMinISR || f.underMinISR && pf.underMinISR
}

// minISR is the topic's min.insync.replicas: its override, else the
// cluster-wide dynamic default, else Kafka's default 1.
func minISR(t backend.Topic, defaults map[string]string) int {
	for _, v := range []string{t.Configs["min.insync.replicas"], defaults["min.insync.replicas"]} {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
			return n
		}
	}
	return 1
}

func liveSet(v *backend.ClusterView) map[int32]bool {
	live := map[int32]bool{}
	for _, b := range v.Brokers {
		live[b.ID] = true
	}
	return live
}

func (a *app) printDescribe(v *backend.ClusterView, f describeFilters) error {
	var shown []backend.Topic
	for _, t := range v.Topics {
		if !f.withOverrides || len(t.Configs) > 0 {
			shown = append(shown, t)
		}
	}
	if a.jsonOutput() {
		if err := a.printJSON(describeJSON(v, shown, f)); err != nil {
			return err
		}
	} else {
		for _, w := range v.Warnings {
			fmt.Fprintf(a.errOut, "Warning: %s\n", w)
		}
		if f.partitionFilter() {
			a.printFilteredPartitions(v, shown, f)
		} else {
			for _, t := range shown {
				a.printTopic(v, t)
			}
		}
	}
	var bad []string
	for _, t := range shown {
		if t.Err != nil {
			bad = append(bad, t.Name)
		}
	}
	if len(bad) > 0 {
		return reported{fmt.Errorf("%s could not be read: %s", plural(len(bad), "topic", "topics"), strings.Join(bad, ", "))}
	}
	return nil
}

func (a *app) printTopic(v *backend.ClusterView, t backend.Topic) {
	if t.Err != nil {
		fmt.Fprintf(a.out, "Topic: %s\tError: %v\n", t.Name, t.Err)
		return
	}
	rf := 0
	if len(t.Partitions) > 0 {
		rf = len(t.Partitions[0].Replicas) - len(t.Partitions[0].Removing)
	}
	id := t.ID
	if id == "" {
		id = "none"
	}
	head := fmt.Sprintf("Topic: %s\tTopicId: %s\tPartitionCount: %d\tReplicationFactor: %d\tConfigs: %s",
		t.Name, id, len(t.Partitions), rf, configList(t.Configs))
	if t.ConfigErr != nil {
		head += fmt.Sprintf("\tConfigError: %v", t.ConfigErr)
	}
	if t.MarkedForDeletion {
		head += "\tMarkedForDeletion: true"
	}
	fmt.Fprintln(a.out, head)
	elr := anyELR(t.Partitions)
	tab := newTable(a.out, withELRHeader(elr, "  PARTITION", "LEADER", "REPLICAS", "ISR")...)
	live, min := liveSet(v), minISR(t, v.BrokerDefaults)
	for _, p := range t.Partitions {
		tab.row(withELRCells(elr, p, note(p, facts(p, live, min), v), "  "+strconv.Itoa(int(p.ID)), leaderText(p), ids(p.Replicas), ids(p.ISR))...)
	}
	tab.flush()
}

// anyELR reports whether some partition has an ELR or a last-known ELR:
// only then does the table show the columns (Kafka 3.9's kafka-topics
// prints "Elr:" and "LastKnownElr:" on every line; most clusters run
// without ELR).
func anyELR(ps []backend.Partition) bool {
	for _, p := range ps {
		if len(p.ELR) > 0 || len(p.LastKnownELR) > 0 {
			return true
		}
	}
	return false
}

// withELRHeader appends the ELR columns (when shown) and NOTE.
func withELRHeader(elr bool, cols ...string) []string {
	if elr {
		cols = append(cols, "ELR", "LAST-KNOWN-ELR")
	}
	return append(cols, "NOTE")
}

// withELRCells appends p's ELR cells (when shown) and the note.
func withELRCells(elr bool, p backend.Partition, note string, cells ...string) []string {
	if elr {
		cells = append(cells, ids(p.ELR), ids(p.LastKnownELR))
	}
	return append(cells, note)
}

func (a *app) printFilteredPartitions(v *backend.ClusterView, topics []backend.Topic, f describeFilters) {
	live := liveSet(v)
	elr := false
	for _, t := range topics {
		elr = elr || anyELR(t.Partitions)
	}
	tab := newTable(a.out, withELRHeader(elr, "TOPIC", "PARTITION", "LEADER", "REPLICAS", "ISR")...)
	for _, t := range topics {
		if t.Err != nil {
			tab.row(withELRCells(elr, backend.Partition{}, "error: "+t.Err.Error(), t.Name, "-", "-", "-", "-")...)
			continue
		}
		min := minISR(t, v.BrokerDefaults)
		for _, p := range t.Partitions {
			if pf := facts(p, live, min); f.keep(pf) {
				tab.row(withELRCells(elr, p, note(p, pf, v), t.Name, strconv.Itoa(int(p.ID)), leaderText(p), ids(p.Replicas), ids(p.ISR))...)
			}
		}
	}
	tab.flush()
}

func leaderText(p backend.Partition) string {
	if p.Leader < 0 {
		return "none"
	}
	return strconv.Itoa(int(p.Leader))
}

// note says what is unusual about a partition.
func note(p backend.Partition, pf partitionFacts, v *backend.ClusterView) string {
	var parts []string
	switch {
	case p.Err != nil && strings.Contains(p.Err.Error(), "does not exist"):
		parts = append(parts, "no state yet (the controller has not created it)")
	case p.Err != nil:
		parts = append(parts, "state unreadable: "+p.Err.Error())
	}
	if len(p.Adding) > 0 {
		parts = append(parts, "adding "+ids(p.Adding))
	}
	if len(p.Removing) > 0 {
		parts = append(parts, "removing "+ids(p.Removing))
	}
	if len(pf.offline) > 0 {
		parts = append(parts, "offline "+ids(pf.offline))
	}
	return strings.Join(parts, "; ")
}

func configList(cfg map[string]string) string {
	keys := make([]string, 0, len(cfg))
	for k := range cfg {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + cfg[k]
	}
	return strings.Join(parts, ",")
}

type partitionJSON struct {
	Partition    int32   `json:"partition"`
	Leader       int32   `json:"leader"`
	LeaderEpoch  int32   `json:"leader_epoch"`
	Replicas     []int32 `json:"replicas"`
	ISR          []int32 `json:"isr"`
	Adding       []int32 `json:"adding_replicas,omitempty"`
	Removing     []int32 `json:"removing_replicas,omitempty"`
	ELR          []int32 `json:"eligible_leader_replicas,omitempty"`
	LastKnownELR []int32 `json:"last_known_elr,omitempty"`
	Offline      []int32 `json:"offline_replicas,omitempty"`
	Error        string  `json:"error,omitempty"`
}

type topicJSON struct {
	Name              string            `json:"name"`
	ID                string            `json:"topic_id,omitempty"`
	Internal          bool              `json:"internal"`
	MarkedForDeletion bool              `json:"marked_for_deletion"`
	Configs           map[string]string `json:"configs"`
	Partitions        []partitionJSON   `json:"partitions"`
	Error             string            `json:"error,omitempty"`
	ConfigError       string            `json:"config_error,omitempty"`
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func describeJSON(v *backend.ClusterView, topics []backend.Topic, f describeFilters) any {
	live := liveSet(v)
	out := struct {
		Topics   []topicJSON `json:"topics"`
		Warnings []string    `json:"warnings,omitempty"`
	}{Topics: []topicJSON{}, Warnings: v.Warnings}
	for _, t := range topics {
		tj := topicJSON{Name: t.Name, ID: t.ID, Internal: t.Internal, MarkedForDeletion: t.MarkedForDeletion,
			Configs: t.Configs, Partitions: []partitionJSON{}, Error: errText(t.Err), ConfigError: errText(t.ConfigErr)}
		min := minISR(t, v.BrokerDefaults)
		for _, p := range t.Partitions {
			pf := facts(p, live, min)
			if f.partitionFilter() && !f.keep(pf) {
				continue
			}
			tj.Partitions = append(tj.Partitions, partitionJSON{Partition: p.ID, Leader: p.Leader, LeaderEpoch: p.LeaderEpoch,
				Replicas: p.Replicas, ISR: nonNil(p.ISR), Adding: p.Adding, Removing: p.Removing, ELR: p.ELR,
				LastKnownELR: p.LastKnownELR, Offline: pf.offline, Error: errText(p.Err)})
		}
		if f.partitionFilter() && len(tj.Partitions) == 0 && t.Err == nil {
			continue
		}
		out.Topics = append(out.Topics, tj)
	}
	return out
}

func nonNil(s []int32) []int32 {
	if s == nil {
		return []int32{}
	}
	return slices.Clone(s)
}
