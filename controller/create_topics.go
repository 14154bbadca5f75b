package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// createTopicsEvent is a create multi of the Admin (zkadmin.CreateCommitter)
// waiting for the loop.
type createTopicsEvent struct {
	ctx    context.Context
	ops    []zkadmin.Op
	topics []zkadmin.PlannedTopic
	reply  chan createTopicsReply
}

type createTopicsReply struct {
	res []zkadmin.OpResult
	err error
}

func (*createTopicsEvent) state() State { return StateTopicChange }

func (e *createTopicsEvent) preempt() { e.reply <- createTopicsReply{err: errNotActive} }

// errNotActive answers a create multi when this node is not the active
// controller (any more); the admin handlers answer NOT_CONTROLLER.
var errNotActive = fmt.Errorf("create topics: not the active controller: %w", zkadmin.ErrControllerMoved)

// CommitCreates implements zkadmin.CreateCommitter: the Admin's multi, with
// each new topic's partition and state znodes appended behind the epoch
// fence, applied by the event loop, which then brings the partitions
// online from what it wrote, without the watch firing and the reads of
// the ordinary path (onTopicChange). When its own znodes cannot go in
// (too large a multi, a znode of an earlier topic of the name left
// behind), the Admin's ops are applied alone and the topics take the
// ordinary path.
func (c *Controller) CommitCreates(ctx context.Context, ops []zkadmin.Op, topics []zkadmin.PlannedTopic) ([]zkadmin.OpResult, error) {
	ev := &createTopicsEvent{ctx: ctx, ops: ops, topics: topics, reply: make(chan createTopicsReply, 1)}
	if !c.queue.push(ev) {
		return nil, errNotActive
	}
	r, err := wait(ctx, ev.reply)
	if err != nil {
		return nil, err
	}
	return r.res, r.err
}

// onCreateTopics applies a create multi (see CommitCreates).
func (c *Controller) onCreateTopics(e *createTopicsEvent) error {
	ls := c.leader
	if ls == nil {
		e.reply <- createTopicsReply{err: errNotActive}
		return nil
	}
	failed := map[TopicPartition]error{}
	tps, plans, err := c.planCreated(ls, e.topics, failed)
	if err != nil {
		e.reply <- createTopicsReply{err: err}
		return nil
	}
	own, _, _ := initOps(plans)
	all := slices.Concat(e.ops, own)
	if plans == nil || c.zk.MultiSize(all) > zkadmin.DefaultBatchBytes {
		return c.createPlain(e)
	}
	res, err := c.zk.FencedMulti(e.ctx, ls.zkVersion, all...)
	var me *zkadmin.MultiError
	switch {
	case err == nil:
	case errors.Is(err, zkadmin.ErrControllerMoved):
		e.reply <- createTopicsReply{err: err}
		return err
	case errors.As(err, &me) && me.Index >= len(e.ops):
		c.log.Warn().Err(err).Msg("the new topics' partition znodes failed in their create; creating the topics alone")
		return c.createPlain(e)
	case errors.Is(err, zkadmin.ErrConnectionLoss) && c.createLanded(ls, e.topics[0]):
	default:
		if len(res) > len(e.ops) {
			res = res[:len(e.ops)]
		}
		e.reply <- createTopicsReply{res: res, err: err}
		return nil
	}
	// The creator learns of its multi at once: what follows is in memory
	// and cannot fail, and its answer waits for the snapshot this event
	// publishes anyway, so its own bookkeeping overlaps the adoption.
	if len(res) > len(e.ops) {
		res = res[:len(e.ops)]
	}
	e.reply <- createTopicsReply{res: res}
	c.adoptCreated(ls, e.topics, tps, plans, failed)
	// Arming the topics' watches is a read: it runs off the loop, so that
	// this event's snapshot, which the creator waits for, goes out first
	// and the next create is not held back (topic_list.go).
	ls.refresh.unwatched = append(ls.refresh.unwatched, e.topics...)
	c.refreshTopics(ls)
	return nil
}

// createdWatchEvent carries the reads that armed the data watches of
// topics a create multi made, in the leadership that made them.
type createdWatchEvent struct {
	gen    *leaderState
	topics []zkadmin.PlannedTopic
	reads  []zkadmin.GetResult
}

func (*createdWatchEvent) state() State { return StateTopicChange }

// createPlain applies the Admin's ops alone, as the Admin would; the
// topics then come online through the ordinary path.
func (c *Controller) createPlain(e *createTopicsEvent) error {
	res, err := c.zk.Multi(e.ctx, e.ops...)
	e.reply <- createTopicsReply{res: res, err: err}
	return nil
}

// planCreated decides the initial leadership of every partition of topics.
// plans is nil when the topics cannot take this path: one is already in
// the context (a deletion not yet seen through, say), or a replica is the
// controller's own id (onTopicChange re-places those).
func (c *Controller) planCreated(ls *leaderState, topics []zkadmin.PlannedTopic,
	failed map[TopicPartition]error) ([]TopicPartition, []initPlan, error) {
	replicas := map[TopicPartition][]int32{}
	var tps []TopicPartition
	for _, t := range topics {
		if ls.cc.topics[t.Name] != nil {
			return nil, nil, nil
		}
		for p, rs := range t.Assignment {
			if slices.Contains(rs, c.nodeID) {
				return nil, nil, nil
			}
			tp := TopicPartition{Topic: t.Name, Partition: int32(p)}
			tps = append(tps, tp)
			replicas[tp] = rs
		}
	}
	sortPartitions(tps)
	plans, err := planInit(c.env(ls), tps, func(tp TopicPartition) []int32 { return replicas[tp] }, failed)
	if err != nil || len(plans) == 0 {
		return nil, nil, err
	}
	return tps, plans, nil
}

// createLanded reports whether a create multi whose reply was lost was
// applied, by the id its first topic's znode carries (the multi is all or
// nothing).
func (c *Controller) createLanded(ls *leaderState, t zkadmin.PlannedTopic) bool {
	data, _, err := c.zk.Get(ls.ctx, znodes.TopicPath(t.Name))
	if err != nil {
		return false
	}
	a, err := znodes.DecodeTopicAssignment(t.Name, data)
	return err == nil && a.TopicID == t.ID
}

// adoptCreated is onNewPartitionCreation for topics whose partition states
// the create multi wrote: the topics enter the context, their partitions
// and replicas go New, the planned partitions go Online with the states
// written, and the brokers are told.
func (c *Controller) adoptCreated(ls *leaderState, topics []zkadmin.PlannedTopic, tps []TopicPartition,
	plans []initPlan, failed map[TopicPartition]error) {
	for _, t := range topics {
		a := znodes.TopicAssignment{Partitions: make(map[int32][]int32, len(t.Assignment)), TopicID: t.ID}
		for p, rs := range t.Assignment {
			a.Partitions[int32(p)] = rs
		}
		ls.cc.putTopic(t.Name, a)
		c.markDirty(TopicPartition{Topic: t.Name})
	}
	var replicas []replicaKey
	for _, tp := range tps {
		p := ls.cc.partition(tp)
		c.setPartitionState(tp, p, election.NewPartition)
		for _, r := range p.assign.Replicas {
			replicas = append(replicas, replicaKey{tp, r})
		}
	}
	c.setReplicasState(ls, replicas, election.NewReplica)
	b := c.newBatch(ls)
	c.applyInit(ls, b, plans, make([]zkadmin.OpResult, len(plans)), failed)
	c.send(ls, b)
	c.replicasToOnline(ls, replicas)
	names := make([]string, len(topics))
	for i, t := range topics {
		names[i] = t.Name
	}
	ls.creates.add(names)
	c.log.Info().Strs("topics", names).Int("partitions", len(tps)).Int("offline", len(failed)).
		Msg("new topics created with their partition states")
}

// watchCreatedAsync reads each new topic's znode off the loop, arming
// its data watch as the ordinary path's read does (partition additions
// arrive through it), and queues the reads (onCreatedWatch). The watches
// count as armed meanwhile, so no read on the loop arms a second one.
func (c *Controller) watchCreatedAsync(ls *leaderState, topics []zkadmin.PlannedTopic) {
	paths := make([]string, len(topics))
	for i, t := range topics {
		paths[i] = znodes.TopicPath(t.Name)
		ls.watches.armed[watchKey{paths[i], watchData}] = true
	}
	ls.wg.Go(func() {
		// The Admin's reads of the new topics (zkadmin's topic cache) left
		// the same watches on this session: a WatchedReader answers from
		// them instead of asking again.
		var reads []zkadmin.GetResult
		if w, err := c.zk.Watched(ls.ctx); err == nil {
			reads = w.GetManyW(ls.ctx, paths, c.inFlight)
		} else {
			reads = make([]zkadmin.GetResult, len(paths))
			for i, p := range paths {
				reads[i] = zkadmin.GetResult{Path: p, Err: err}
			}
		}
		c.queue.push(&createdWatchEvent{gen: ls, topics: topics, reads: reads})
	})
}

// onCreatedWatch takes the watches watchCreatedAsync armed. A topic whose
// znode changed since its create, or whose read failed, is handled as a
// modification (which re-reads it, arming the watch).
func (c *Controller) onCreatedWatch(e *createdWatchEvent) error {
	ls := e.gen
	if ls != c.leader {
		return nil // a new leadership read everything afresh
	}
	for i, r := range e.reads {
		key := watchKey{r.Path, watchData}
		if r.Watch == nil {
			ls.watches.fired(key)
		} else {
			ls.watches.forward(key, r.Watch)
		}
		if r.Err == nil && r.Stat.Version == 0 {
			continue
		}
		if err := c.onPartitionModifications(ls, e.topics[i].Name); err != nil {
			return err
		}
	}
	return nil
}
