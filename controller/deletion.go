package controller

// Topic deletion, wired in. The deletion package's Manager decides (Kafka's
// TopicDeletionManager as a state machine, reference §7); this file feeds
// it the controller's events and deletion_effects.go carries out what it
// returns. Everything here runs on the event loop.
//
// Where the hooks sit, in Kafka's order:
//   - failover step 6 (loadDeletions): a fresh Manager, the markers read
//     (arming the /admin/delete_topics child watch), their topics queued
//     in the context so that the state machines' startup treats them as
//     Kafka's does (no elections for them, leader -2 in UpdateMetadata);
//   - failover step 11 (startDeletions): the markers go to the Manager,
//     which resumes every deletion from what ZooKeeper holds;
//   - /admin/delete_topics changed: Markers;
//   - TopicChange (afterTopicChange): queued topics that vanished are
//     resumed (the Manager forgets them and removes their markers), and
//     markers kept because their topic was not yet known are re-read;
//   - broker startup and replicas going offline: BrokersStarted and
//     ReplicasOffline (reference §2.1 step 7 and onReplicasBecomeOffline
//     step 5);
//   - StopReplica(delete=true) answers, retry timers: their own events;
//   - a reassignment that ends: resumeDeletion (and, as a safety net, a
//     poll while a queued topic waits for one).
//
// The context's deleting set (Kafka's topicsToBeDeleted) mirrors
// Manager.Queued after every step, so every rule keyed on it (no
// elections, leader -2, reverted partition additions, hidden from
// Metadata through TopicView.Deleting) follows the Manager.

import (
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/brokerchan"
	"github.com/kzadmin/kzadmin/deletion"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// StateTopicDeletion is Kafka's ControllerState value for deletion events.
const StateTopicDeletion State = 4

// Pauses of the deletion wiring's own timers.
const (
	// markerRetryBackoff: a marker removal failed for a reason other than
	// its topic being present; /admin/delete_topics is read again after it.
	markerRetryBackoff = time.Second
	// reassignPollInterval: while a queued topic waits for a reassignment,
	// it is re-evaluated this often, in case nothing else resumes it.
	reassignPollInterval = 2 * time.Second
)

// deletionState is one leadership's deletion manager and the bookkeeping
// around it. Owned by the loop; a new leadership gets a new one.
type deletionState struct {
	mgr *deletion.Manager
	// failoverMarkers are the markers read at failover step 6, stepped at
	// step 11.
	failoverMarkers []string
	// recheckMarkers: a guarded marker removal found its topic present (the
	// marker raced ahead of TopicChange); re-read after the next one.
	recheckMarkers bool
	// markerRetry: a re-read of the markers is scheduled.
	markerRetry bool
	// pollArmed: a Resume poll is scheduled for topics waiting on a
	// reassignment.
	pollArmed bool
}

// deletionCluster is the context as the Manager reads it.
type deletionCluster struct{ *clusterContext }

// TopicExists implements deletion.Cluster.
func (d deletionCluster) TopicExists(topic string) bool { return d.topics[topic] != nil }

// Assignment implements deletion.Cluster: each partition's full replica
// list, adding and removing replicas included.
func (d deletionCluster) Assignment(topic string) map[int32][]int32 {
	t := d.topics[topic]
	if t == nil {
		return nil
	}
	out := make(map[int32][]int32, len(t.parts))
	for id, p := range t.parts {
		out[id] = p.assign.Replicas
	}
	return out
}

// Reassigning implements deletion.Cluster: a partition with adding or
// removing replicas is being reassigned (Kafka's partitionsBeingReassigned
// holds exactly those, for API-driven reassignments and, since 2.4, the
// znode-driven ones too).
func (d deletionCluster) Reassigning(topic string) bool {
	t := d.topics[topic]
	if t == nil {
		return false
	}
	for _, p := range t.parts {
		if len(p.assign.Adding)+len(p.assign.Removing) > 0 {
			return true
		}
	}
	return false
}

// Electing implements deletion.Cluster: elections run inside one event
// and skip queued topics, as Kafka 3.x's do.
func (deletionCluster) Electing(string) bool { return false }

// loadDeletions is failover step 6: a fresh Manager, the markers read with
// their watch armed, and (with deletion enabled) the topics they name
// queued in the context ahead of the state machines' startup.
func (c *Controller) loadDeletions(ls *leaderState) error {
	d := &deletionState{mgr: deletion.New(deletion.Options{DisableDeletion: !c.conf.DeleteTopicEnable})}
	ls.del = d
	names, err := c.readMarkers(ls)
	if err != nil {
		return err
	}
	d.failoverMarkers = names
	if !d.mgr.Enabled() {
		return nil
	}
	for _, n := range names {
		if ls.cc.topics[n] != nil {
			ls.cc.deleting[n] = true
		}
	}
	return nil
}

// startDeletions is failover step 11 (tryTopicDeletion): the markers read
// at step 6 go to the Manager, which queues their topics and resumes.
func (c *Controller) startDeletions(ls *leaderState) error {
	if ls.del == nil {
		return nil
	}
	names := ls.del.failoverMarkers
	ls.del.failoverMarkers = nil
	if len(names) > 0 {
		c.log.Info().Int("markers", len(names)).Msg("resuming topic deletions")
	}
	return c.stepDeletion(ls, deletion.Markers{Topics: names})
}

// readMarkers lists /admin/delete_topics, arming its child watch. A
// missing parent is created (brokers create it at startup; without it no
// watch could be armed).
func (c *Controller) readMarkers(ls *leaderState) ([]string, error) {
	names, err := ls.watches.children(ls.ctx, c.zk, znodes.DeleteTopicsPath)
	if errors.Is(err, zkadmin.ErrNoNode) {
		if _, err := c.zk.CreateRecursive(ls.ctx, znodes.DeleteTopicsPath, nil, zkadmin.Persistent); err != nil &&
			!errors.Is(err, zkadmin.ErrNodeExists) {
			return nil, fmt.Errorf("create %s: %w", znodes.DeleteTopicsPath, err)
		}
		names, err = ls.watches.children(ls.ctx, c.zk, znodes.DeleteTopicsPath)
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", znodes.DeleteTopicsPath, err)
	}
	return names, nil
}

// onDeleteTopicsChange handles a change of /admin/delete_topics's children
// (Kafka's TopicDeletion event).
func (c *Controller) onDeleteTopicsChange(ls *leaderState) error {
	if ls.del == nil {
		return nil
	}
	names, err := c.readMarkers(ls)
	if err != nil {
		return err
	}
	return c.stepDeletion(ls, deletion.Markers{Topics: names})
}

// stepDeletion feeds one event to the Manager and carries out its
// effects. A RemoveTopics effect's outcome is fed back at once, within
// the same event, so that no other event sees the topic both gone from
// the context and still queued. Afterwards the context's deleting set
// mirrors the Manager.
func (c *Controller) stepDeletion(ls *leaderState, ev deletion.Event) error {
	d := ls.del
	if d == nil {
		return nil
	}
	cl := deletionCluster{ls.cc}
	for ev != nil {
		fx := &deletionEffects{c: c, ls: ls}
		err := deletion.Apply(ls.ctx, d.mgr.Step(cl, ev), fx)
		c.syncDeleting(ls)
		if err != nil {
			return err
		}
		ev = fx.next
	}
	c.pollReassigning(ls)
	c.updateDeletionGauges(ls)
	return nil
}

// syncDeleting makes the context's deleting set the Manager's queue.
func (c *Controller) syncDeleting(ls *leaderState) {
	cc, mgr := ls.cc, ls.del.mgr
	for name := range cc.deleting {
		if !mgr.Queued(name) {
			delete(cc.deleting, name)
			c.markDirty(TopicPartition{Topic: name})
		}
	}
	for _, name := range mgr.Topics() {
		if !cc.deleting[name] && cc.topics[name] != nil {
			cc.deleting[name] = true
			c.markDirty(TopicPartition{Topic: name})
		}
	}
}

// afterTopicChange runs after a TopicChange handler (err is its result):
// queued topics that left the context behind the Manager's back are
// re-evaluated (it forgets them and removes their markers), and markers
// kept because their topic was not yet known are read again.
func (c *Controller) afterTopicChange(ls *leaderState, err error) error {
	if err != nil || ls == nil || ls.del == nil {
		return err
	}
	var vanished []string
	for _, name := range ls.del.mgr.Topics() {
		if ls.cc.topics[name] == nil {
			vanished = append(vanished, name)
		}
	}
	if len(vanished) > 0 {
		if err := c.stepDeletion(ls, deletion.Resume{Topics: vanished}); err != nil {
			return err
		}
	}
	if !ls.del.recheckMarkers {
		return nil
	}
	ls.del.recheckMarkers = false
	return c.onDeleteTopicsChange(ls)
}

// deletionBrokersStarted: brokers (re)registered. Queued topics with
// replicas on them are retried (Kafka's resumeDeletionForTopics).
func (c *Controller) deletionBrokersStarted(ls *leaderState, ids []int32) error {
	if ls.del == nil || len(ls.del.mgr.Topics()) == 0 {
		return nil
	}
	return c.stepDeletion(ls, deletion.BrokersStarted{Brokers: ids})
}

// deletionReplicasOffline: replicas went offline. Those of queued topics
// fail (Kafka's failReplicaDeletion); their broker's return resumes them.
func (c *Controller) deletionReplicasOffline(ls *leaderState, replicas []replicaKey) error {
	if ls.del == nil {
		return nil
	}
	var rs []deletion.Replica
	for _, rk := range replicas {
		if ls.del.mgr.Queued(rk.tp.Topic) {
			rs = append(rs, deletion.Replica{TopicPartition: rk.tp, Broker: rk.replica})
		}
	}
	if len(rs) == 0 {
		return nil
	}
	return c.stepDeletion(ls, deletion.ReplicasOffline{Replicas: rs})
}

// resumeDeletion re-evaluates queued topics (none: all of them). Call it
// when a reassignment or an election touching them ends (Kafka's
// resumeDeletionForTopics after a reassignment completes).
func (c *Controller) resumeDeletion(ls *leaderState, topics ...string) error {
	if ls.del == nil || len(ls.del.mgr.Topics()) == 0 {
		return nil
	}
	return c.stepDeletion(ls, deletion.Resume{Topics: topics})
}

// pollReassigning schedules one Resume while a queued topic waits for a
// reassignment, so its deletion resumes even if nothing else says the
// reassignment ended.
func (c *Controller) pollReassigning(ls *leaderState) {
	d := ls.del
	if d.pollArmed {
		return
	}
	cl := deletionCluster{ls.cc}
	for _, name := range d.mgr.Topics() {
		if cl.Reassigning(name) {
			d.pollArmed = true
			time.AfterFunc(reassignPollInterval, func() {
				c.queue.push(&deletionEvent{gen: ls, ev: deletion.Resume{}, poll: true})
			})
			return
		}
	}
}

// deletionInput is an event for the deletion manager produced off the loop.
type deletionInput interface {
	event
	leadership() *leaderState
}

// deletionEvent carries a timer's event (Retry, the reassignment poll, a
// marker re-read) into the loop.
type deletionEvent struct {
	gen *leaderState
	ev  deletion.Event // nil: re-read the markers
	// poll marks the reassignment poll's Resume.
	poll bool
}

func (*deletionEvent) state() State               { return StateTopicDeletion }
func (e *deletionEvent) leadership() *leaderState { return e.gen }

// stopReplicaEvent is the outcome of a StopReplica sent with
// deletePartition=true: the response, or the error that ended the request
// (the broker's channel closed, or it had none).
type stopReplicaEvent struct {
	gen    *leaderState
	broker int32
	epoch  int64 // the broker's epoch when the request was sent
	req    *kmsg.StopReplicaRequest
	resp   *kmsg.StopReplicaResponse
	err    error
}

func (*stopReplicaEvent) state() State               { return StateTopicDeletion }
func (e *stopReplicaEvent) leadership() *leaderState { return e.gen }

// onDeletionInput handles deletion events; those of an older leadership
// are dropped.
func (c *Controller) onDeletionInput(e deletionInput) error {
	ls := c.leader
	if ls == nil || e.leadership() != ls || ls.del == nil {
		return nil
	}
	switch e := e.(type) {
	case *deletionEvent:
		if e.poll {
			ls.del.pollArmed = false
		}
		if e.ev == nil {
			ls.del.markerRetry = false
			return c.onDeleteTopicsChange(ls)
		}
		return c.stepDeletion(ls, e.ev)
	case *stopReplicaEvent:
		return c.onStopReplicaOutcome(ls, e)
	}
	return nil
}

// onStopReplicaOutcome turns a StopReplica outcome into the Manager's
// event, counting only partitions sent with delete=true whose topic's
// deletion has started (reference §5.7). A request that never got an
// answer fails its partitions, unless the broker died or bounced since:
// ReplicasOffline and BrokersStarted have dealt with those already.
func (c *Controller) onStopReplicaOutcome(ls *leaderState, e *stopReplicaEvent) error {
	mgr := ls.del.mgr
	if e.err != nil || e.resp == nil {
		if b, ok := ls.cc.brokers[e.broker]; !ok || b.Epoch != e.epoch {
			return nil
		}
		cause := e.err
		if cause == nil {
			cause = errors.New("no StopReplica response")
		}
		failed := map[TopicPartition]error{}
		for _, tp := range deletedInRequest(e.req) {
			if mgr.Started(tp.Topic) {
				failed[tp] = cause
			}
		}
		if len(failed) == 0 {
			return nil
		}
		return c.stepDeletion(ls, deletion.StopReplicaResponse{Broker: e.broker, Failed: failed})
	}
	r := brokerchan.ParseStopReplicaResponse(e.broker, e.req, e.resp, mgr.Started)
	if !r.Relevant() {
		return nil
	}
	if r.Err != nil {
		c.log.Warn().Err(r.Err).Int32("broker", e.broker).Msg("StopReplica for topic deletion refused")
	}
	return c.stepDeletion(ls, deletion.StopReplicaResponse{Broker: r.Broker, Deleted: r.Deleted, Failed: r.Failed})
}

// deletedInRequest lists the partitions a StopReplica asked to delete.
func deletedInRequest(req *kmsg.StopReplicaRequest) []TopicPartition {
	var out []TopicPartition
	for _, t := range req.Topics {
		switch {
		case req.Version >= 3:
			for _, p := range t.PartitionStates {
				if p.Delete {
					out = append(out, TopicPartition{Topic: t.Topic, Partition: p.Partition})
				}
			}
		case !req.DeletePartitions:
		case req.Version == 0:
			out = append(out, TopicPartition{Topic: t.Topic, Partition: t.Partition})
		default:
			for _, p := range t.Partitions {
				out = append(out, TopicPartition{Topic: t.Topic, Partition: p})
			}
		}
	}
	return out
}
