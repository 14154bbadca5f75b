package controller

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/kzadmin/kzadmin/controller/brokerchan"
	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// errLimitFenceLost marks a partition whose topic znode was not written
// because the partition-limit fence of an API reassignment failed its
// check (a creator committed since the counts were read); the caller reads
// the cluster again and retries.
var errLimitFenceLost = errors.New("the partition counts changed while the reassignment was checked")

// writeFence is the partition-limit fence of an API reassignment: what
// was read with the counts. Each multi of the write sets /brokers/topics
// (null data, as every creator's fenced write does) expecting the version
// read plus the multis already committed, so a creator committing in
// between breaks the chain; and checks the dynamic limits' version.
type writeFence struct {
	topics        bool
	topicsVersion int32
	configVersion int32 // < 0: no dynamic limits znode to check
}

// ops returns the fence ops of a write's multi after committed others.
func (f *writeFence) ops(committed int) []zkadmin.Op {
	var out []zkadmin.Op
	if f.topics {
		out = append(out, zkadmin.SetOp(znodes.TopicsPath, nil, f.topicsVersion+int32(committed)))
	}
	if f.configVersion >= 0 {
		out = append(out, zkadmin.CheckOp(znodes.ConfigEntityPath(znodes.EntityBrokers, znodes.DefaultEntityName),
			f.configVersion))
	}
	return out
}

// onPartitionReassignment is Kafka's onPartitionReassignment (reference
// §2.6) for many partitions at once: each phase runs once for all of them
// (one topic znode write per topic, one batch of state writes, one request
// batch) instead of once per partition, with the same outcome per
// partition. rs holds each partition's new assignment R (RS, AR, RR).
//
//	U   the topic znode gets R (fenced; with fence, the API path's
//	    partition-limit fence, in the same multis), the context too,
//	    and replicas R no longer has (the adding replicas of a superseded
//	    reassignment) are stopped and deleted. Below IBP 2.7-IV2 (leaders
//	    write the ISR to ZooKeeper themselves) the state znodes are watched.
//	A   the target is not yet in the ISR: bump the leader epoch and send
//	    LeaderAndIsr to the original replicas and (isNew) the adding ones,
//	    which become NewReplica.
//	B   it is: complete the reassignment (completeReassignments).
//
// It returns the partitions that failed, with why (the API answers
// UNKNOWN_SERVER_ERROR, or retries those failing with errLimitFenceLost;
// the legacy znode drops them). The error is set only when the controller
// must stop (moved).
func (c *Controller) onPartitionReassignment(ls *leaderState, rs map[TopicPartition]election.ReplicaAssignment,
	fence *writeFence) (map[TopicPartition]error, error) {
	failed := map[TopicPartition]error{}
	tps := slices.SortedFunc(maps.Keys(rs), compareTPs)
	if err := c.updateCurrentReassignment(ls, tps, rs, fence, failed); err != nil {
		return failed, err
	}
	tps = slices.DeleteFunc(tps, func(tp TopicPartition) bool { return failed[tp] != nil })
	if !c.ibp.AlterPartitionSupported() {
		c.watchReassignIsr(ls, tps)
	}
	reads, err := c.currentStates(ls, tps, true)
	if err != nil {
		return failed, err
	}
	var start, complete []TopicPartition
	for i, tp := range tps {
		if reassignmentComplete(ls.cc.partition(tp).assign, reads[i].lai) {
			complete = append(complete, tp)
		} else {
			start = append(start, tp)
		}
	}
	if err := c.startReassignments(ls, start, failed); err != nil {
		return failed, err
	}
	return failed, c.completeReassignments(ls, complete, failed)
}

// updateCurrentReassignment is phase U: write the new assignments to the
// topic znodes (the whole topic from the context, as Kafka does), then to
// the context, then stop the replicas no longer assigned.
func (c *Controller) updateCurrentReassignment(ls *leaderState, tps []TopicPartition,
	rs map[TopicPartition]election.ReplicaAssignment, fence *writeFence, failed map[TopicPartition]error) error {
	next := map[string]map[int32]election.ReplicaAssignment{}
	for _, tp := range tps {
		if sameAssignment(ls.cc.partition(tp).assign, rs[tp]) {
			continue
		}
		if next[tp.Topic] == nil {
			next[tp.Topic] = map[int32]election.ReplicaAssignment{}
		}
		next[tp.Topic][tp.Partition] = rs[tp]
	}
	topicErrs, err := c.writeTopicAssignments(ls, next, fence)
	if err != nil {
		return err
	}
	var unneeded []replicaKey
	for _, tp := range tps {
		n, changed := next[tp.Topic][tp.Partition]
		if !changed {
			continue
		}
		if werr := topicErrs[tp.Topic]; werr != nil {
			failed[tp] = werr
			continue
		}
		p := ls.cc.partition(tp)
		for _, r := range p.assign.Replicas {
			if !slices.Contains(n.Replicas, r) {
				unneeded = append(unneeded, replicaKey{tp, r})
			}
		}
		p.assign = cloneAssignment(n)
		c.markDirty(tp)
	}
	return c.stopRemovedReplicas(ls, unneeded)
}

// startReassignments is phases A1 and A2 in one request batch: the leader
// epoch is bumped (same leader and ISR) so that the replicas accept the new
// replica list, the original replicas get LeaderAndIsr and the adding ones
// LeaderAndIsr with isNew, and the adding replicas become NewReplica. Kafka
// sends A2's NewReplica LeaderAndIsr in a second batch, identical to A1's
// for those brokers, which they ignore (same leader epoch); one batch
// sends it once.
func (c *Controller) startReassignments(ls *leaderState, tps []TopicPartition, failed map[TopicPartition]error) error {
	if len(tps) == 0 {
		return nil
	}
	done, bumpFailed, err := c.bumpLeaderEpochs(ls, tps)
	if err != nil {
		return err
	}
	b := c.newBatch(ls)
	var adding []replicaKey
	for _, tp := range tps {
		if ferr := bumpFailed[tp]; ferr != nil {
			failed[tp] = ferr
			c.log.Error().Err(ferr).Str("partition", tp.String()).Msg("reassignment: leader epoch not bumped")
			continue
		}
		p := ls.cc.partition(tp)
		lai := done[tp]
		b.AddLeaderAndIsr(p.assign.Origin(), tp, lai, p.assign, false)
		b.AddLeaderAndIsr(p.assign.Adding, tp, lai, p.assign, true)
		for _, r := range p.assign.Adding {
			adding = append(adding, replicaKey{tp, r})
		}
	}
	c.replicasToNew(ls, b, adding)
	c.send(ls, b)
	c.log.Info().Int("partitions", len(tps)-len(bumpFailed)).Msg("reassignment started: waiting for the target replicas to join the ISR")
	return nil
}

// completeReassignments is phase B for partitions whose target replicas
// are all in the ISR:
//
//	B1 adding replicas -> OnlineReplica
//	B2 the context's assignment becomes the target (no adding, no removing)
//	B3 a leader outside the target or offline is replaced (Reassign
//	   election, whose failures are only logged, as in Kafka); an online
//	   one in the target keeps leading with its epoch bumped and
//	   LeaderAndIsr to the target replicas
//	B4 removing replicas -> OfflineReplica (StopReplica, out of the ISR)
//	B5 removing replicas -> deleted (StopReplica with delete) -> NonExistent
//	B6 the topic znodes get the final assignment
//	B7 the partitions leave /admin/reassign_partitions (deleted when empty)
//	B8 UpdateMetadata for them to every broker, then deletions of their
//	   topics waiting for the reassignment resume
//
// A partition whose epoch bump (B3) or topic write (B6) fails stops there,
// as Kafka's exception does.
func (c *Controller) completeReassignments(ls *leaderState, tps []TopicPartition, failed map[TopicPartition]error) error {
	if len(tps) == 0 {
		return nil
	}
	cc := ls.cc
	var adding []replicaKey
	for _, tp := range tps {
		for _, r := range cc.partition(tp).assign.Adding {
			adding = append(adding, replicaKey{tp, r})
		}
	}
	c.replicasToOnline(ls, adding)
	removing := map[TopicPartition][]int32{}
	for _, tp := range tps {
		p := cc.partition(tp)
		removing[tp] = p.assign.Removing
		p.assign = election.ReplicaAssignment{Replicas: p.assign.Target()}
		c.markDirty(tp)
	}
	if err := c.moveReassignedLeaders(ls, tps, failed); err != nil {
		return err
	}
	tps = slices.DeleteFunc(slices.Clone(tps), func(tp TopicPartition) bool { return failed[tp] != nil })
	var removed []replicaKey
	for _, tp := range tps {
		for _, r := range removing[tp] {
			removed = append(removed, replicaKey{tp, r})
		}
	}
	if err := c.stopRemovedReplicas(ls, removed); err != nil {
		return err
	}
	done, err := c.recordCompletedReassignments(ls, tps, failed)
	if err != nil {
		return err
	}
	c.sendUpdateMetadata(ls, cc.brokerIDs(), done...)
	c.log.Info().Int("partitions", len(done)).Msg("reassignment completed")
	var topics []string
	for _, tp := range done {
		if !slices.Contains(topics, tp.Topic) {
			topics = append(topics, tp.Topic)
		}
	}
	return c.resumeDeletion(ls, topics...)
}

// recordCompletedReassignments is phases B6 and B7: the final assignments
// go to the topic znodes, and the partitions whose znode write succeeded
// leave the legacy request (when it lists them with that target). It
// returns those partitions.
func (c *Controller) recordCompletedReassignments(ls *leaderState, tps []TopicPartition,
	failed map[TopicPartition]error) ([]TopicPartition, error) {
	final := map[string]map[int32]election.ReplicaAssignment{}
	for _, tp := range tps {
		if final[tp.Topic] == nil {
			final[tp.Topic] = map[int32]election.ReplicaAssignment{}
		}
		final[tp.Topic][tp.Partition] = ls.cc.partition(tp).assign
	}
	topicErrs, err := c.writeTopicAssignments(ls, final, nil)
	if err != nil {
		return nil, err
	}
	targets := map[TopicPartition][]int32{}
	for _, tp := range tps {
		if werr := topicErrs[tp.Topic]; werr != nil {
			failed[tp] = werr
			continue
		}
		targets[tp] = ls.cc.partition(tp).assign.Replicas
	}
	err = c.removeFromZkReassignment(ls, func(tp TopicPartition, replicas []int32) bool {
		t, ok := targets[tp]
		return ok && slices.Equal(t, replicas)
	})
	return slices.SortedFunc(maps.Keys(targets), compareTPs), err
}

// moveReassignedLeaders is phase B3 (Kafka's
// moveReassignedPartitionLeaderIfRequired) for partitions whose context
// assignment is already the target.
func (c *Controller) moveReassignedLeaders(ls *leaderState, tps []TopicPartition, failed map[TopicPartition]error) error {
	var elect, bump []TopicPartition
	for _, tp := range tps {
		p := ls.cc.partition(tp)
		if p.lead == nil {
			failed[tp] = fmt.Errorf("partition %s: no leadership to move", tp)
			continue
		}
		online := election.ReplicaOnline(ls.cc, p.lead.Leader, tp)
		if decideLeaderMove(p.assign.Replicas, p.lead.Leader, online) == moveElect {
			elect = append(elect, tp)
		} else {
			bump = append(bump, tp)
		}
	}
	if len(elect) > 0 {
		notElected, err := c.partitionsToOnline(ls, elect, election.Reassign())
		if err != nil {
			return err
		}
		for tp, ferr := range notElected {
			c.log.Warn().Err(ferr).Str("partition", tp.String()).Msg("reassignment: no leader elected among the target replicas")
		}
	}
	if len(bump) == 0 {
		return nil
	}
	done, bumpFailed, err := c.bumpLeaderEpochs(ls, bump)
	if err != nil {
		return err
	}
	b := c.newBatch(ls)
	for _, tp := range bump {
		if ferr := bumpFailed[tp]; ferr != nil {
			failed[tp] = ferr
			continue
		}
		p := ls.cc.partition(tp)
		b.AddLeaderAndIsr(p.assign.Replicas, tp, done[tp], p.assign, false)
	}
	c.send(ls, b)
	return nil
}

// stopRemovedReplicas is Kafka's stopRemovedReplicasOfReassignedPartition:
// the replicas go OfflineReplica (StopReplica without delete, out of the
// ISR, LeaderAndIsr to the others), then ReplicaDeletionStarted
// (StopReplica with delete; responses are not waited for),
// ReplicaDeletionSuccessful and NonExistentReplica (out of the context).
func (c *Controller) stopRemovedReplicas(ls *leaderState, replicas []replicaKey) error {
	if len(replicas) == 0 {
		return nil
	}
	if err := c.replicasToOffline(ls, replicas); err != nil {
		return err
	}
	b := c.newBatch(ls)
	var started []replicaKey
	for _, rk := range replicas {
		p := ls.cc.partition(rk.tp)
		if p == nil {
			continue
		}
		if err := election.CheckReplicaTransition(rk.tp, rk.replica, p.replicaState(rk.replica), election.ReplicaDeletionStarted); err != nil {
			c.log.Debug().Err(err).Msg("invalid replica transition skipped")
			continue
		}
		b.AddStopReplica([]int32{rk.replica}, rk.tp, true)
		p.setReplicaState(rk.replica, election.ReplicaDeletionStarted)
		started = append(started, rk)
	}
	c.send(ls, b)
	for _, rk := range started {
		p := ls.cc.partition(rk.tp)
		p.setReplicaState(rk.replica, election.ReplicaDeletionSuccessful)
		p.assign = withoutReplica(p.assign, rk.replica)
		delete(p.replicas, rk.replica)
		c.markDirty(rk.tp)
	}
	return nil
}

// replicasToNew is the replica state machine's NewReplica transition into
// batch b: a replica of a partition with leadership gets LeaderAndIsr with
// the current state and isNew (refused if it is the leader).
func (c *Controller) replicasToNew(ls *leaderState, b *brokerchan.Batch, replicas []replicaKey) {
	for _, rk := range replicas {
		p := ls.cc.partition(rk.tp)
		if p == nil {
			continue
		}
		if err := election.CheckReplicaTransition(rk.tp, rk.replica, p.replicaState(rk.replica), election.NewReplica); err != nil {
			c.log.Debug().Err(err).Msg("invalid replica transition skipped")
			continue
		}
		send, err := election.CheckNewReplica(rk.tp, rk.replica, p.lead)
		if err != nil {
			c.log.Error().Err(err).Msg("replica not moved to NewReplica")
			continue
		}
		if send {
			b.AddLeaderAndIsr([]int32{rk.replica}, rk.tp, *p.lead, p.assign, true)
		}
		p.setReplicaState(rk.replica, election.NewReplica)
	}
}

// bumpLeaderEpochs is Kafka's updateLeaderEpoch for many partitions: same
// leader and ISR, leader epoch + 1, written conditionally on the version
// (taken as currentStates does), re-read and retried on BADVERSION. done
// holds the written states, which are cached; failed why the others were
// not (no state znode, or one written by a newer controller).
func (c *Controller) bumpLeaderEpochs(ls *leaderState, tps []TopicPartition) (
	done map[TopicPartition]election.LeaderAndIsr, failed map[TopicPartition]error, err error) {
	env := c.env(ls)
	settings := settingsCache{}
	done, failed, err = c.updateStates(ls, tps, "the leader epoch bump",
		func(tp TopicPartition, cur *election.LeaderAndIsr) stateUpdate {
			next, err := election.BumpLeaderEpoch(env, tp, cur)
			if err == nil {
				next, err = c.withELR(ls, tp, cur, next, settings)
			}
			return stateUpdate{next: next, write: true, err: err}
		})
	for tp, lai := range done {
		c.setLeadership(ls, tp, lai)
	}
	return done, failed, err
}

// writeTopicAssignments rewrites the topic znodes named in next from the
// context, with next's assignments in place (fenced setData at any
// version, as Kafka's setTopicAssignment). Without fence the topics go in
// batched multis; with it, in multis that each carry fence's ops
// (writeWithFence). It returns each topic's failure (errLimitFenceLost for
// those the fence kept from being written); the error is set only when
// nothing more can be written.
func (c *Controller) writeTopicAssignments(ls *leaderState, next map[string]map[int32]election.ReplicaAssignment,
	fence *writeFence) (map[string]error, error) {
	failed := map[string]error{}
	var names []string
	var ops []zkadmin.Op
	written := map[string]znodes.TopicAssignment{}
	for _, name := range slices.Sorted(maps.Keys(next)) {
		t := ls.cc.topics[name]
		a := topicAssignmentOf(t, next[name])
		data, err := a.Encode()
		if err != nil {
			failed[name] = fmt.Errorf("encode topic %s: %w", name, err)
			continue
		}
		names, written[name] = append(names, name), a
		ops = append(ops, zkadmin.SetOp(znodes.TopicPath(name), data, zkadmin.AnyVersion))
	}
	var errs []error
	var err error
	if fence == nil {
		errs, err = c.writeIndependent(ls, ops)
	} else {
		errs, err = c.writeWithFence(ls, ops, fence)
	}
	if err != nil {
		return nil, err
	}
	for i, name := range names {
		if errs[i] != nil {
			failed[name] = errs[i]
			continue
		}
		ls.cc.topics[name].znode = written[name]
	}
	return failed, nil
}

// writeIndependent writes ops with fencedWrite and returns each op's error.
func (c *Controller) writeIndependent(ls *leaderState, ops []zkadmin.Op) ([]error, error) {
	res, err := c.fencedWrite(ls.ctx, ls, ops)
	if err != nil {
		return nil, err
	}
	errs := make([]error, len(ops))
	for i := range res {
		if res[i].Err != nil {
			errs[i] = fmt.Errorf("write %s: %w", res[i].Path, res[i].Err)
		}
	}
	return errs, nil
}

// writeWithFence writes ops in fenced multis of bounded size, one after
// the other, each behind fence's ops for the multis committed so far. An
// op that fails is dropped (its error recorded) and its multi retried;
// once a fence op fails, the ops not yet written get errLimitFenceLost.
func (c *Controller) writeWithFence(ls *leaderState, ops []zkadmin.Op, fence *writeFence) ([]error, error) {
	errs := make([]error, len(ops))
	batches := opBatches(ops, zkadmin.DefaultBatchOps, zkadmin.DefaultBatchBytes)
	committed := 0
	for b, idx := range batches {
		for len(idx) > 0 {
			fops := fence.ops(committed)
			all := slices.Clone(fops)
			for _, i := range idx {
				all = append(all, ops[i])
			}
			_, err := c.zk.FencedMulti(ls.ctx, ls.zkVersion, all...)
			if err == nil {
				committed++
				break
			}
			var me *zkadmin.MultiError
			switch {
			case errors.Is(err, zkadmin.ErrControllerMoved) || !errors.As(err, &me) || me.Index < 0:
				return nil, fmt.Errorf("fenced write: %w", err)
			case me.Index < len(fops):
				for _, rest := range batches[b:] {
					for _, i := range rest {
						if errs[i] == nil {
							errs[i] = errLimitFenceLost
						}
					}
				}
				return errs, nil
			}
			bad := me.Index - len(fops)
			errs[idx[bad]] = fmt.Errorf("write %s: %w", me.Op.Path, me.Err)
			idx = slices.Delete(idx, bad, bad+1)
		}
	}
	return errs, nil
}

// opBatches splits ops (their indexes) into runs of at most maxOps ops and
// about maxBytes of request.
func opBatches(ops []zkadmin.Op, maxOps, maxBytes int) [][]int {
	var out [][]int
	var cur []int
	size := 0
	for i, op := range ops {
		n := len(op.Path) + len(op.Data) + 64
		if len(cur) > 0 && (len(cur) == maxOps || size+n > maxBytes) {
			out, cur, size = append(out, cur), nil, 0
		}
		cur, size = append(cur, i), size+n
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

func cloneAssignment(a election.ReplicaAssignment) election.ReplicaAssignment {
	return election.ReplicaAssignment{
		Replicas: slices.Clone(a.Replicas), Adding: slices.Clone(a.Adding), Removing: slices.Clone(a.Removing),
	}
}

func compareTPs(a, b TopicPartition) int {
	if a.Topic != b.Topic {
		if a.Topic < b.Topic {
			return -1
		}
		return 1
	}
	return int(a.Partition) - int(b.Partition)
}
