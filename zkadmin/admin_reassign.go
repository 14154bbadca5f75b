package zkadmin

import (
	"context"
	"fmt"
	"strings"

	"github.com/kzadmin/kzadmin/znodes"
)

// ReassignmentResult says what StartReassignment or CancelReassignments
// wrote (or would write).
type ReassignmentResult struct {
	// Current holds each requested partition's replicas before (for a
	// rollback plan); Requested is what was written to the znode.
	Current   []znodes.ReassignmentEntry
	Requested []znodes.ReassignmentEntry
	// NotActive lists partitions a cancel found no reassignment for.
	NotActive []znodes.TopicPartition
	Ops       []Op
	Attempts  int
}

// StartReassignment writes the legacy /admin/reassign_partitions request
// (version 1, Kafka's format), which Kafka's ZK-mode controller, and
// kzadmin's, carry out. It refuses while such a request is in flight
// (Kafka's tool did the same) and checks every target: the partition
// exists, its topic is not queued for deletion, the replicas are distinct
// live brokers. The replicas each broker would gain count against
// max.broker.partitions, and the request is written under the limit fence,
// because the controller adds those replicas without asking anyone.
func (a *Admin) StartReassignment(ctx context.Context, entries []znodes.ReassignmentEntry, dryRun bool) (*ReassignmentResult, error) {
	out := &ReassignmentResult{}
	plan := func(ctx context.Context, c *Cluster) ([]Op, error) {
		if err := checkNoLegacyReassignment(c); err != nil {
			return nil, err
		}
		current, err := checkReassignment(c, entries)
		if err != nil {
			return nil, err
		}
		var cur, target [][]int32
		for i, e := range entries {
			cur, target = append(cur, current[i].Replicas), append(target, e.Replicas)
		}
		if err := c.Limits().CheckReassignment(cur, target); err != nil {
			return nil, fromPlacement("cluster", fmt.Sprintf("reassigning %d partitions", len(entries)), err)
		}
		out.Current, out.Requested = current, entries
		fence, err := a.fenceOps(ctx, c)
		if err != nil {
			return nil, err
		}
		ops, err := a.reassignOps(ctx, entries)
		return append(fence, ops...), err
	}
	res, err := a.writeLoop(ctx, "start reassignment", ReadOptions{AllTopics: true}, dryRun, plan)
	if err != nil {
		return nil, err
	}
	out.Ops, out.Attempts = res.ops, res.attempts
	return out, nil
}

// CancelReassignments stops the reassignments in progress of the given
// partitions by re-targeting each at its original replicas, as Kafka's
// cancel (AlterPartitionReassignments with no target) does: through the
// legacy znode, the controller builds the reassignment from the current
// state, finds the target already in sync, and removes the replicas it had
// been adding. Partitions with nothing in progress are reported in
// NotActive. It cannot cancel while a legacy request is in flight, since
// Kafka's controller only reacts to the creation of that znode.
func (a *Admin) CancelReassignments(ctx context.Context, tps []znodes.TopicPartition, dryRun bool) (*ReassignmentResult, error) {
	out := &ReassignmentResult{}
	topics := make([]string, 0, len(tps))
	for _, tp := range tps {
		topics = append(topics, tp.Topic)
	}
	plan := func(ctx context.Context, c *Cluster) ([]Op, error) {
		if err := checkNoLegacyReassignment(c); err != nil {
			return nil, err
		}
		out.Current, out.Requested, out.NotActive = nil, nil, nil
		for _, tp := range tps {
			t := c.Topic(tp.Topic)
			if t == nil || t.Err != nil || !t.Assignment.IsReassigning(tp.Partition) {
				out.NotActive = append(out.NotActive, tp)
				continue
			}
			out.Current = append(out.Current, znodes.ReassignmentEntry{Topic: tp.Topic, Partition: tp.Partition,
				Replicas: t.Assignment.Partitions[tp.Partition]})
			out.Requested = append(out.Requested, znodes.ReassignmentEntry{Topic: tp.Topic, Partition: tp.Partition,
				Replicas: t.Assignment.OriginalReplicas(tp.Partition)})
		}
		if len(out.Requested) == 0 {
			return nil, nil
		}
		return a.reassignOps(ctx, out.Requested)
	}
	res, err := a.writeLoop(ctx, "cancel reassignment", ReadOptions{Topics: topics}, dryRun, plan)
	if err != nil {
		return nil, err
	}
	out.Ops, out.Attempts = res.ops, res.attempts
	return out, nil
}

func (a *Admin) reassignOps(ctx context.Context, entries []znodes.ReassignmentEntry) ([]Op, error) {
	data, err := znodes.ReassignPartitions{Partitions: entries}.Encode()
	if err != nil {
		return nil, err
	}
	ops, err := a.parentOps(ctx, znodes.ReassignPartitionsPath)
	if err != nil {
		return nil, err
	}
	return append(ops, CreateOp(znodes.ReassignPartitionsPath, data, Persistent)), nil
}

func checkNoLegacyReassignment(c *Cluster) error {
	switch {
	case c.Reassignment != nil:
		return adminErr(KindReassignmentInProgress, "cluster", "There is an existing assignment running: "+
			"%s holds %d partitions (%s); Kafka's controller removes each when it completes.",
			znodes.ReassignPartitionsPath, len(c.Reassignment.Partitions), entryNames(c.Reassignment.Partitions))
	case c.ReassignmentErr != nil:
		return adminErr(KindReassignmentInProgress, "cluster", "There is an existing assignment running: "+
			"%s exists but does not decode (%v); Kafka's controller ignores it and leaves it there, so remove it first.",
			znodes.ReassignPartitionsPath, c.ReassignmentErr)
	}
	return nil
}

// checkReassignment validates the requested targets and returns each
// partition's current replicas.
func checkReassignment(c *Cluster, entries []znodes.ReassignmentEntry) ([]znodes.ReassignmentEntry, error) {
	if len(entries) == 0 {
		return nil, adminErr(KindInvalidRequest, "cluster", "The partition reassignment lists no partitions.")
	}
	seen := map[znodes.TopicPartition]bool{}
	current := make([]znodes.ReassignmentEntry, len(entries))
	for i, e := range entries {
		tp := znodes.TopicPartition{Topic: e.Topic, Partition: e.Partition}
		if seen[tp] {
			return nil, adminErr(KindInvalidRequest, e.Topic,
				"Partition reassignment list cannot contain duplicate topic partitions: %s", tp)
		}
		seen[tp] = true
		t, err := existingPartition(c, tp)
		if err != nil {
			return nil, err
		}
		if t.MarkedForDeletion {
			return nil, adminErr(KindMarkedForDeletion, e.Topic, "Topic '%s' is queued for deletion; "+
				"its partitions cannot be reassigned.", e.Topic).withCode(CodeUnknownTopicOrPartition)
		}
		if err := checkTargetReplicas(c, tp, e.Replicas); err != nil {
			return nil, err
		}
		current[i] = znodes.ReassignmentEntry{Topic: e.Topic, Partition: e.Partition, Replicas: t.Assignment.Partitions[e.Partition]}
	}
	return current, nil
}

// existingPartition returns tp's topic, refusing unknown partitions and
// topics whose znode does not decode.
func existingPartition(c *Cluster, tp znodes.TopicPartition) (*Topic, error) {
	t := c.Topic(tp.Topic)
	if t == nil {
		return nil, adminErr(KindUnknownTopic, tp.Topic, "Topic '%s' does not exist.", tp.Topic)
	}
	if t.Err != nil {
		return nil, malformed(tp.Topic, "use partition "+tp.String(), t.Err)
	}
	if _, ok := t.Assignment.Partitions[tp.Partition]; !ok {
		return nil, adminErr(KindUnknownTopic, tp.Topic, "The partition %s does not exist.", tp)
	}
	return t, nil
}

func checkTargetReplicas(c *Cluster, tp znodes.TopicPartition, replicas []int32) error {
	if len(replicas) == 0 {
		return adminErr(KindInvalidReplicaAssignment, tp.Topic, "Empty replica list specified in partition reassignment (%s).", tp)
	}
	if d, dup := firstDuplicate(replicas); dup {
		return adminErr(KindInvalidReplicaAssignment, tp.Topic,
			"Duplicate replica assignment found for partition %s: broker %d appears twice in %s.", tp, d, joinIDs(replicas))
	}
	for _, b := range replicas {
		if _, ok := c.Broker(b); !ok {
			live := make([]int32, len(c.Brokers))
			for i, br := range c.Brokers {
				live[i] = br.ID
			}
			return adminErr(KindInvalidReplicaAssignment, tp.Topic, "Replica assignment of %s has brokers that are not "+
				"alive. Replica list: %s, live broker list: %s", tp, joinIDs(replicas), joinIDs(live))
		}
	}
	return nil
}

func entryNames(entries []znodes.ReassignmentEntry) string {
	names := make([]string, 0, len(entries))
	for i, e := range entries {
		if i == 10 {
			names = append(names, fmt.Sprintf("and %d more", len(entries)-10))
			break
		}
		names = append(names, znodes.TopicPartition{Topic: e.Topic, Partition: e.Partition}.String())
	}
	return strings.Join(names, ", ")
}
