package controller

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// Partition reassignment (controller reference §2.6): where reassignments
// come from. The legacy /admin/reassign_partitions znode (its creation),
// the AlterPartitionReassignments API (reassign_api.go), failover, broker
// startup, and an AlterPartition that completes a target's ISR all end in
// onPartitionReassignment (reassign_flow.go).
//
// Kafka's partitionsBeingReassigned is not kept as a set: it equals the
// partitions whose context assignment has adding or removing replicas
// outside an event, because a partition enters it and reaches a
// non-moving assignment only inside one event.

// StateAlterPartitionReassignment is Kafka's ControllerState 5, for
// reassignment events.
const StateAlterPartitionReassignment State = 5

// reassignZnodeEvent is Kafka's ZkPartitionReassignment event as the
// controller queues it itself, after deleting /admin/reassign_partitions:
// processing it re-arms the watch (and starts a request created since).
type reassignZnodeEvent struct{ gen *leaderState }

func (*reassignZnodeEvent) state() State { return StateAlterPartitionReassignment }

// onReassignZnodeEvent processes a queued reassignZnodeEvent; a transient
// failure queues it again, since the watch may not be armed.
func (c *Controller) onReassignZnodeEvent(e *reassignZnodeEvent) error {
	ls := c.leader
	if ls == nil || e.gen != ls {
		return nil
	}
	_, err := c.onReassignZnode(ls)
	if err != nil && transient(err) {
		time.AfterFunc(electRetryBackoff, func() { c.queue.push(e) })
	}
	return err
}

// onReassignZnodeWatch handles a firing of the exists watch on
// /admin/reassign_partitions. As in Kafka, only the creation of the znode
// starts reassignments: a data change (the controller rewriting it as
// partitions complete, or anyone else) only re-arms the watch. A deletion
// re-arms it and picks up a request created again since.
func (c *Controller) onReassignZnodeWatch(ls *leaderState, t zkadmin.EventType) error {
	if t == zkadmin.EventNodeDataChanged {
		if _, err := ls.watches.exists(ls.ctx, c.zk, znodes.ReassignPartitionsPath); err != nil {
			return fmt.Errorf("watch %s: %w", znodes.ReassignPartitionsPath, err)
		}
		return nil
	}
	_, err := c.onReassignZnode(ls)
	return err
}

// onReassignZnode is Kafka's processZkPartitionReassignment: when the znode
// exists (the check arms the watch), every partition it lists is
// reassigned to its replicas, unvalidated, superseding any reassignment in
// progress; the partitions that fail are removed from the znode. It
// returns the partitions whose reassignment started or completed.
func (c *Controller) onReassignZnode(ls *leaderState) (map[TopicPartition]bool, error) {
	path := znodes.ReassignPartitionsPath
	ok, err := ls.watches.exists(ls.ctx, c.zk, path)
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", path, err)
	}
	if !ok {
		return nil, nil
	}
	entries, err := c.readZkReassignment(ls)
	if err != nil {
		return nil, err
	}
	rs := map[TopicPartition]election.ReplicaAssignment{}
	for _, e := range entries {
		tp := TopicPartition{Topic: e.Topic, Partition: e.Partition}
		rs[tp], _ = buildReassignment(c.assignmentOf(ls, tp), e.Replicas, false)
	}
	results, err := c.triggerReassignments(ls, rs, nil)
	if err != nil {
		return nil, err
	}
	started, failed := map[TopicPartition]bool{}, map[TopicPartition]error{}
	for tp, rerr := range results {
		if rerr == nil {
			started[tp] = true
		} else {
			failed[tp] = rerr
		}
	}
	if len(failed) > 0 {
		c.log.Warn().Str("failed", fmt.Sprint(failed)).Msg("reassignment through ZooKeeper failed for some partitions")
		err := c.removeFromZkReassignment(ls, func(tp TopicPartition, _ []int32) bool { return failed[tp] != nil })
		if err != nil {
			return nil, err
		}
	}
	if len(entries) > 0 {
		c.log.Info().Int("partitions", len(started)).Int("failed", len(failed)).Msg("reassignment requested through " + path)
	}
	return started, nil
}

// readZkReassignment reads the legacy znode's entries; none when it is
// gone, and none (logged) when it does not decode, as Kafka treats an
// invalid request as empty.
func (c *Controller) readZkReassignment(ls *leaderState) ([]znodes.ReassignmentEntry, error) {
	path := znodes.ReassignPartitionsPath
	data, _, err := c.zk.Get(ls.ctx, path)
	if errors.Is(err, zkadmin.ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	r, err := znodes.DecodeReassignPartitions(data)
	if err != nil {
		c.log.Warn().Err(err).Msg("ignoring partition reassignment due to invalid json")
		return nil, nil
	}
	return zkReassignEntries(r), nil
}

// removeFromZkReassignment is Kafka's maybeRemoveFromZkReassignment: the
// entries of /admin/reassign_partitions for which remove is true are
// dropped; the znode is rewritten (fenced; created again if it vanished)
// or, when nothing is left, deleted (fenced), and a reassignZnodeEvent
// queued to re-arm the watch. An undecodable znode counts as empty, so it
// is deleted, as in Kafka. Unlike Kafka, an unchanged znode is not
// rewritten.
func (c *Controller) removeFromZkReassignment(ls *leaderState, remove func(TopicPartition, []int32) bool) error {
	path := znodes.ReassignPartitionsPath
	ok, _, err := c.zk.Exists(ls.ctx, path)
	if err != nil || !ok {
		return err
	}
	entries, err := c.readZkReassignment(ls)
	if err != nil {
		return err
	}
	keep, dropped := filterZkReassignment(entries, remove)
	if len(keep) == 0 {
		res, err := c.fencedWrite(ls.ctx, ls, []zkadmin.Op{zkadmin.DeleteOp(path, zkadmin.AnyVersion)})
		if err != nil {
			return err
		}
		if res[0].Err != nil && !errors.Is(res[0].Err, zkadmin.ErrNoNode) {
			return fmt.Errorf("delete %s: %w", path, res[0].Err)
		}
		c.log.Info().Msg("no more partitions to reassign through " + path + "; deleted it")
		c.queue.push(&reassignZnodeEvent{gen: ls})
		return nil
	}
	if !dropped {
		return nil
	}
	data, err := znodes.ReassignPartitions{Partitions: keep}.Encode()
	if err != nil {
		return err
	}
	res, err := c.fencedWrite(ls.ctx, ls, []zkadmin.Op{zkadmin.SetOp(path, data, zkadmin.AnyVersion)})
	if err == nil && errors.Is(res[0].Err, zkadmin.ErrNoNode) {
		res, err = c.fencedWrite(ls.ctx, ls, []zkadmin.Op{zkadmin.CreateOp(path, data, zkadmin.Persistent)})
	}
	if err != nil {
		return err
	}
	if res[0].Err != nil {
		return fmt.Errorf("rewrite %s: %w", path, res[0].Err)
	}
	return nil
}

// triggerReassignments is Kafka's maybeTriggerPartitionReassignment: a
// partition of a topic queued for deletion, or one the controller has no
// assignment for, is UNKNOWN_TOPIC_OR_PARTITION; the others are
// reassigned, and those that fail are UNKNOWN_SERVER_ERROR. Every
// partition of rs has an entry, nil on success (errLimitFenceLost is
// passed on for the API path to retry). The error is set only when the
// controller must stop.
func (c *Controller) triggerReassignments(ls *leaderState, rs map[TopicPartition]election.ReplicaAssignment,
	fence *writeFence) (map[TopicPartition]error, error) {
	results := map[TopicPartition]error{}
	todo := map[TopicPartition]election.ReplicaAssignment{}
	for tp, r := range rs {
		p := ls.cc.partition(tp)
		if ls.cc.deleting[tp.Topic] || p == nil || len(p.assign.Replicas) == 0 {
			results[tp] = errPartitionDoesNotExist
			continue
		}
		todo[tp] = r
	}
	failed, err := c.onPartitionReassignment(ls, todo, fence)
	if err != nil {
		return nil, err
	}
	for tp := range todo {
		results[tp] = nil
		if ferr := failed[tp]; errors.Is(ferr, errLimitFenceLost) {
			results[tp] = ferr
		} else if ferr != nil {
			c.log.Error().Err(ferr).Str("partition", tp.String()).Msg("error completing reassignment of partition")
			results[tp] = &reassignError{code: kerr.UnknownServerError.Code}
		}
	}
	return results, nil
}

// assignmentOf is the partition's assignment, empty when unknown (Kafka's
// partitionFullReplicaAssignment).
func (c *Controller) assignmentOf(ls *leaderState, tp TopicPartition) election.ReplicaAssignment {
	if p := ls.cc.partition(tp); p != nil {
		return p.assign
	}
	return election.ReplicaAssignment{}
}

// initReassignments is failover step 10: requests in the legacy znode
// first, then every other partition whose assignment shows a reassignment
// in progress (those the API started) is resumed.
func (c *Controller) initReassignments(ls *leaderState) error {
	started, err := c.onReassignZnode(ls)
	if err != nil {
		return err
	}
	return c.resumeReassignments(ls, func(tp TopicPartition, _ election.ReplicaAssignment) bool { return !started[tp] })
}

// resumeReassignmentsOn is what broker startup does (Kafka's
// onBrokerStartup): reassignments whose target names one of the new
// brokers are resumed, so that a replica added on a broker that was down
// gets its LeaderAndIsr now.
func (c *Controller) resumeReassignmentsOn(ls *leaderState, brokers []int32) error {
	return c.resumeReassignments(ls, func(_ TopicPartition, a election.ReplicaAssignment) bool {
		return slices.ContainsFunc(a.Target(), func(r int32) bool { return slices.Contains(brokers, r) })
	})
}

// resumeReassignments is Kafka's maybeResumeReassignments: each partition
// being reassigned for which resume is true goes through
// onPartitionReassignment again with its current assignment (bumping the
// leader epoch and resending LeaderAndIsr, or completing it).
func (c *Controller) resumeReassignments(ls *leaderState, resume func(TopicPartition, election.ReplicaAssignment) bool) error {
	rs := map[TopicPartition]election.ReplicaAssignment{}
	for _, tp := range ls.cc.partitionsWhere(func(tp TopicPartition, p *partition) bool {
		return p.assign.IsBeingReassigned() && resume(tp, p.assign)
	}) {
		rs[tp] = cloneAssignment(ls.cc.partition(tp).assign)
	}
	if len(rs) == 0 {
		return nil
	}
	failed, err := c.onPartitionReassignment(ls, rs, nil)
	for _, tp := range slices.SortedFunc(maps.Keys(failed), compareTPs) {
		c.log.Error().Err(failed[tp]).Str("partition", tp.String()).Msg("reassignment not resumed")
	}
	return err
}

// completeReassignmentsAfterIsrChange is Kafka's maybeCompleteReassignment
// after an AlterPartition: every partition of the request that was
// answered without error, is being reassigned, and now has its whole
// target in the ISR completes its reassignment.
func (c *Controller) completeReassignmentsAfterIsrChange(ls *leaderState, entries []apEntry) error {
	rs := map[TopicPartition]election.ReplicaAssignment{}
	for _, en := range entries {
		if en.code != 0 || en.name == "" {
			continue
		}
		tp := TopicPartition{Topic: en.name, Partition: en.partition}
		p := ls.cc.partition(tp)
		if p == nil || !p.assign.IsBeingReassigned() || !reassignmentComplete(p.assign, p.lead) {
			continue
		}
		c.log.Info().Str("partition", tp.String()).Ints32("target", p.assign.Target()).
			Msg("target replicas have all caught up with the leader")
		rs[tp] = cloneAssignment(p.assign)
	}
	if len(rs) == 0 {
		return nil
	}
	failed, err := c.onPartitionReassignment(ls, rs, nil)
	for _, tp := range slices.SortedFunc(maps.Keys(failed), compareTPs) {
		c.log.Error().Err(failed[tp]).Str("partition", tp.String()).Msg("reassignment not completed")
	}
	return err
}

// watchReassignIsr arms a data watch on the state znodes of reassigning
// partitions, for brokers below IBP 2.7-IV2, which write ISR changes to
// ZooKeeper instead of sending AlterPartition (Kafka's
// PartitionReassignmentIsrChangeHandler). A failed read leaves no watch;
// the reassignment is then completed by the next resumption.
func (c *Controller) watchReassignIsr(ls *leaderState, tps []TopicPartition) {
	var paths []string
	for _, tp := range tps {
		path := znodes.PartitionStatePath(tp.Topic, tp.Partition)
		if ls.watches.needs(watchKey{path, watchData}) {
			paths = append(paths, path)
		}
	}
	for _, r := range ls.watches.getMany(ls.ctx, c.zk, paths, c.inFlight) {
		if r.Err != nil && !errors.Is(r.Err, zkadmin.ErrNoNode) {
			c.log.Warn().Err(r.Err).Str("path", r.Path).Msg("reassignment: state znode not watched")
		}
	}
}

// onReassignIsrChange is Kafka's PartitionReassignmentIsrChange: the state
// znode of a partition changed (only watched below IBP 2.7-IV2). While the
// partition is being reassigned, the state is read again (re-arming the
// watch) and the reassignment completes once its target is in the ISR.
// Otherwise the firing is ignored and the watch left unarmed, as Kafka
// unregisters its handler at completion.
func (c *Controller) onReassignIsrChange(ls *leaderState, tp TopicPartition) error {
	p := ls.cc.partition(tp)
	if p == nil || !p.assign.IsBeingReassigned() {
		return nil
	}
	path := znodes.PartitionStatePath(tp.Topic, tp.Partition)
	data, stat, err := ls.watches.get(ls.ctx, c.zk, path)
	if errors.Is(err, zkadmin.ErrNoNode) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	s, err := znodes.DecodePartitionState(tp.Topic, tp.Partition, data)
	if err != nil {
		c.log.Error().Err(err).Msg("reassignment: state znode does not decode")
		return nil
	}
	cur := leaderAndIsrFrom(s, stat.Version)
	if !reassignmentComplete(p.assign, &cur) {
		return nil
	}
	failed, err := c.onPartitionReassignment(ls, map[TopicPartition]election.ReplicaAssignment{tp: cloneAssignment(p.assign)}, nil)
	if ferr := failed[tp]; ferr != nil {
		c.log.Error().Err(ferr).Str("partition", tp.String()).Msg("reassignment not completed")
	}
	return err
}
