package controller

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// createTopicsEvent is a create round of the Admin (zkadmin.CreateCommitter)
// waiting for the loop.
type createTopicsEvent struct {
	ctx    context.Context
	multis []zkadmin.CreateMulti
	reply  chan []zkadmin.MultiOutcome
}

func (*createTopicsEvent) state() State { return StateTopicChange }

func (e *createTopicsEvent) preempt() { e.reply <- allFailed(len(e.multis), errNotActive) }

// allFailed is n outcomes, each err.
func allFailed(n int, err error) []zkadmin.MultiOutcome {
	out := make([]zkadmin.MultiOutcome, n)
	for i := range out {
		out[i].Err = err
	}
	return out
}

// errNotActive answers a create multi when this node is not the active
// controller (any more); the admin handlers answer NOT_CONTROLLER.
var errNotActive = fmt.Errorf("create topics: not the active controller: %w", zkadmin.ErrControllerMoved)

// CommitCreates implements zkadmin.CreateCommitter: the Admin's multis, each
// with its new topics' partition and state znodes appended behind the
// epoch fence, sent in order and pipelined by the event loop, which then
// brings the partitions online from what it wrote, without the watch
// firing and the reads of the ordinary path (onTopicChange). When its own
// znodes cannot go in (too large a multi, a znode of an earlier topic of
// the name left behind), the Admin's ops are applied alone and the topics
// take the ordinary path.
func (c *Controller) CommitCreates(ctx context.Context, multis []zkadmin.CreateMulti) []zkadmin.MultiOutcome {
	ev := &createTopicsEvent{ctx: ctx, multis: multis, reply: make(chan []zkadmin.MultiOutcome, 1)}
	if !c.queue.push(ev) {
		return allFailed(len(multis), errNotActive)
	}
	r, err := wait(ctx, ev.reply)
	if err != nil {
		return allFailed(len(multis), err)
	}
	return r
}

// createdMulti is one multi of a create round as the loop sends it.
type createdMulti struct {
	zkadmin.CreateMulti
	// plain: the Admin's ops alone, the topics to come online through the
	// ordinary path; else own are the partition and state znodes appended.
	plain  bool
	own    []zkadmin.Op
	tps    []TopicPartition
	plans  []initPlan
	failed map[TopicPartition]error
}

// onCreateTopics applies a create round (see CommitCreates): it plans
// every multi's partition states, sends the multis pipelined, answers the
// Admin, and then brings the landed topics online together.
func (c *Controller) onCreateTopics(e *createTopicsEvent) error {
	ls := c.leader
	if ls == nil {
		e.reply <- allFailed(len(e.multis), errNotActive)
		return nil
	}
	multis, err := c.planCreateRound(ls, e.multis)
	if err != nil {
		out := allFailed(len(e.multis), zkadmin.ErrNotAttempted)
		out[0].Err = err
		e.reply <- out
		return nil
	}
	out := zkadmin.Pipeline(len(multis), zkadmin.DefaultBatchInFlight, func(i int) *zkadmin.PendingMulti {
		if multis[i].plain {
			return c.zk.MultiAsync(e.ctx, multis[i].Ops...)
		}
		return c.zk.FencedMultiAsync(e.ctx, ls.zkVersion, slices.Concat(multis[i].Ops, multis[i].own)...)
	})
	adopt, moved := c.settleCreateRound(e.ctx, ls, multis, out)
	// The creator learns of its multis at once: what follows is in memory
	// and cannot fail, and its answer waits for the snapshot this event
	// publishes anyway, so its own bookkeeping overlaps the adoption.
	e.reply <- out
	if moved != nil {
		return moved
	}
	c.adoptCreateRound(ls, multis, adopt)
	return nil
}

// planCreateRound decides the partition states of each multi's topics.
// A multi whose topics cannot take this path, or whose states would make
// it too large, is sent plain.
func (c *Controller) planCreateRound(ls *leaderState, round []zkadmin.CreateMulti) ([]createdMulti, error) {
	multis := make([]createdMulti, len(round))
	for i, m := range round {
		cm := createdMulti{CreateMulti: m, failed: map[TopicPartition]error{}}
		var err error
		cm.tps, cm.plans, err = c.planCreated(ls, m.Topics, cm.failed)
		if err != nil {
			return nil, err
		}
		cm.own, _, _ = initOps(cm.plans)
		cm.plain = cm.plans == nil || c.zk.MultiSize(slices.Concat(m.Ops, cm.own)) > zkadmin.DefaultBatchBytes
		multis[i] = cm
	}
	return multis, nil
}

// settleCreateRound turns the round's outcomes into the Admin's answer, in
// place, and says which multis landed with their states (adopt). A multi
// refused for one of the controller's own ops is written again without
// them; a lost reply is resolved by the topic id; once the controller has
// moved, every later multi answers so (moved).
func (c *Controller) settleCreateRound(ctx context.Context, ls *leaderState, multis []createdMulti,
	out []zkadmin.MultiOutcome) (adopt []bool, moved error) {
	adopt = make([]bool, len(multis))
	for i := range multis {
		m, o := &multis[i], &out[i]
		var me *zkadmin.MultiError
		switch err := o.Err; {
		case moved != nil:
			o.Res, o.Err = nil, moved
		case err == nil:
			adopt[i] = !m.plain
		case errors.Is(err, zkadmin.ErrControllerMoved):
			moved, o.Res = err, nil
		case !m.plain && errors.As(err, &me) && me.Index >= len(m.Ops):
			// The multis after it failed with it (createChain): what the
			// Admin wrote can still go in alone, in its place.
			c.log.Warn().Err(err).Msg("the new topics' partition znodes failed in their create; creating the topics alone")
			o.Res, o.Err = c.zk.Multi(ctx, m.Ops...)
		case !m.plain && errors.Is(err, zkadmin.ErrConnectionLoss) && c.createLanded(ls, m.Topics[0]):
			o.Err, adopt[i] = nil, true
		}
		if len(o.Res) > len(m.Ops) {
			o.Res = o.Res[:len(m.Ops)]
		}
	}
	return adopt, moved
}

// adoptCreateRound brings the topics of the landed multis online together,
// so that each broker gets one LeaderAndIsr for the round rather than one
// per multi.
func (c *Controller) adoptCreateRound(ls *leaderState, multis []createdMulti, adopt []bool) {
	var topics []zkadmin.PlannedTopic
	var tps []TopicPartition
	var plans []initPlan
	failed := map[TopicPartition]error{}
	for i := range multis {
		if !adopt[i] {
			continue
		}
		m := &multis[i]
		topics = append(topics, m.Topics...)
		tps = append(tps, m.tps...)
		plans = append(plans, m.plans...)
		maps.Copy(failed, m.failed)
	}
	if len(topics) == 0 {
		return
	}
	c.adoptCreated(ls, topics, tps, plans, failed)
	// Arming the topics' watches is a read: it runs off the loop, so that
	// this event's snapshot, which the creator waits for, goes out first
	// and the next create is not held back (topic_list.go).
	ls.refresh.unwatched = append(ls.refresh.unwatched, topics...)
	c.refreshTopics(ls)
}

// createdWatchEvent carries the reads that armed the data watches of
// topics a create multi made, in the leadership that made them.
type createdWatchEvent struct {
	gen    *leaderState
	topics []zkadmin.PlannedTopic
	reads  []zkadmin.GetResult
}

func (*createdWatchEvent) state() State { return StateTopicChange }

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
