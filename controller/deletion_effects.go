package controller

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/brokerchan"
	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/deletion"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// deletionEffects carries out one Step's effects (deletion.Effects) for
// one leadership, on the loop. An error is returned only when nothing
// more can be done (the fence failed, the session or the leadership
// ended); every other failure goes back to the Manager as an event.
type deletionEffects struct {
	c  *Controller
	ls *leaderState
	// next is the outcome of RemoveTopics, to feed back before the event
	// ends.
	next deletion.Event
}

// write is the Manager's fenced writer: one multi behind the epoch check.
// The deletion package orders and batches its deletes itself, so this is
// FencedMulti, not fencedWrite (which would split a failed multi).
func (fx *deletionEffects) write(ctx context.Context, ops []zkadmin.Op) ([]zkadmin.OpResult, error) {
	return fx.c.zk.FencedMulti(ctx, fx.ls.zkVersion, ops...)
}

func (fx *deletionEffects) applyOptions() deletion.ApplyOptions {
	return deletion.ApplyOptions{MaxInFlight: fx.c.inFlight}
}

// InvalidMarker: a child of /admin/delete_topics that cannot name a topic;
// nothing is written.
func (fx *deletionEffects) InvalidMarker(_ context.Context, e deletion.InvalidMarker) error {
	fx.c.log.Error().Err(e.Err).Str("marker", e.Name).Msg("deletion marker ignored")
	return nil
}

// RemoveMarkers deletes markers without deleting their topics. A marker
// kept because its topic exists after all is read again after the next
// TopicChange; any other failure, after a pause.
func (fx *deletionEffects) RemoveMarkers(ctx context.Context, e deletion.RemoveMarkers) error {
	c, d := fx.c, fx.ls.del
	res := deletion.RemoveMarkerZnodes(ctx, c.zk, fx.write, e.Topics, e.Reason.GuardAbsent(), fx.applyOptions())
	if len(res.Removed) > 0 {
		c.log.Info().Strs("topics", res.Removed).Str("reason", e.Reason.String()).Msg("deletion markers removed")
	}
	retry := false
	for name, err := range res.Failed {
		if errors.Is(err, deletion.ErrTopicPresent) {
			d.recheckMarkers = true
			continue
		}
		retry = true
		c.log.Warn().Err(err).Str("topic", name).Msg("could not remove a deletion marker")
	}
	if retry && res.Err == nil && !d.markerRetry {
		d.markerRetry = true
		ls := fx.ls
		time.AfterFunc(markerRetryBackoff, func() { c.queue.push(&deletionEvent{gen: ls}) })
	}
	return res.Err
}

// Enqueue: the topics are queued (syncDeleting puts them in the context).
func (fx *deletionEffects) Enqueue(_ context.Context, e deletion.Enqueue) error {
	fx.c.log.Info().Int("topics", len(e.Topics)).Strs("names", firstTopics(e.Topics)).Msg("topics queued for deletion")
	for _, name := range e.Topics {
		if fx.ls.cc.topics[name] != nil {
			fx.ls.cc.deleting[name] = true
			fx.c.markDirty(TopicPartition{Topic: name})
		}
	}
	return nil
}

// StartTopicDeletion: the partitions go Offline, then NonExistent, state
// only, so they stop counting as offline.
func (fx *deletionEffects) StartTopicDeletion(_ context.Context, e deletion.StartTopicDeletion) error {
	for _, tp := range e.Partitions {
		if p := fx.ls.cc.partition(tp); p != nil {
			fx.c.setPartitionState(tp, p, election.NonExistentPartition)
		}
	}
	return nil
}

// UpdateMetadata goes to every registered broker; the topics are queued,
// so the batch gives their partitions leader -2 and brokers drop them.
func (fx *deletionEffects) UpdateMetadata(_ context.Context, e deletion.UpdateMetadata) error {
	b := fx.c.newBatch(fx.ls)
	b.AddUpdateMetadataToAll(e.Partitions...)
	fx.c.send(fx.ls, b)
	return nil
}

// SetReplicaStates changes replica states; an invalid transition is
// skipped, as Kafka's state machine does.
func (fx *deletionEffects) SetReplicaStates(_ context.Context, e deletion.SetReplicaStates) error {
	for _, r := range e.Replicas {
		p := fx.ls.cc.partition(r.TopicPartition)
		if p == nil {
			continue
		}
		if err := election.CheckReplicaTransition(r.TopicPartition, r.Broker, p.replicaState(r.Broker), e.State); err != nil {
			fx.c.log.Debug().Err(err).Msg("invalid replica transition skipped")
			continue
		}
		p.setReplicaState(r.Broker, e.State)
	}
	return nil
}

// StopReplicas is the OfflineReplica transition for replicas of queued
// topics: StopReplica without delete (leader epoch -2), so followers stop
// fetching. Kafka also shrinks each ISR in ZooKeeper here; for a topic
// being deleted that changes nothing observable (no LeaderAndIsr follows
// and the state znodes are about to go), so those writes are skipped.
func (fx *deletionEffects) StopReplicas(_ context.Context, e deletion.StopReplicas) error {
	b := fx.c.newBatch(fx.ls)
	fx.stopAll(b, e.Replicas, false, election.OfflineReplica)
	fx.c.send(fx.ls, b)
	return nil
}

// DeleteReplicas is ReplicaDeletionStarted: StopReplica with delete (leader
// epoch -2); every request's outcome comes back as a stopReplicaEvent.
func (fx *deletionEffects) DeleteReplicas(_ context.Context, e deletion.DeleteReplicas) error {
	b := fx.c.newBatch(fx.ls)
	fx.stopAll(b, e.Replicas, true, election.ReplicaDeletionStarted)
	fx.c.sendDeletes(fx.ls, b, e.Replicas)
	return nil
}

// stopAll adds StopReplica for every replica and sets its state. The state
// is set even when the transition is not one Kafka allows from the
// current state: the Manager waits for this replica's answer, so the
// request must go out whatever the bookkeeping says.
func (fx *deletionEffects) stopAll(b *brokerchan.Batch, rs []deletion.Replica, del bool, s election.ReplicaState) {
	for _, r := range rs {
		p := fx.ls.cc.partition(r.TopicPartition)
		if p == nil {
			continue
		}
		if err := election.CheckReplicaTransition(r.TopicPartition, r.Broker, p.replicaState(r.Broker), s); err != nil {
			fx.c.log.Debug().Err(err).Msg("replica transition forced for topic deletion")
		}
		b.AddStopReplica([]int32{r.Broker}, r.TopicPartition, del)
		p.setReplicaState(r.Broker, s)
	}
}

// RemoveTopics removes the znodes of topics whose replicas are all
// deleted (RemoveTopicZnodes: fenced, children first, the assignment,
// config and marker last in one multi per topic), drops the removed ones
// from the context and feeds the outcome back.
//
// Kafka also unregisters the topic's data-change handler so that a quick
// re-creation is seen as new. Here dispatch is by path and a re-created
// topic is new because it is no longer in the context; the data watch of
// the old znode fires once on its deletion, and that firing re-arms a
// watch on whatever the path holds then, so the watch is left alone.
func (fx *deletionEffects) RemoveTopics(ctx context.Context, e deletion.RemoveTopics) error {
	c, cc := fx.c, fx.ls.cc
	start := time.Now()
	res := deletion.RemoveTopicZnodes(ctx, c.zk, fx.write, e.Topics, fx.applyOptions())
	for _, name := range res.Removed {
		cc.removeTopic(name)
		c.markDirty(TopicPartition{Topic: name})
	}
	if len(res.Removed) > 0 {
		c.log.Info().Int("topics", len(res.Removed)).Strs("names", firstTopics(res.Removed)).
			Dur("took", time.Since(start)).Msg("topics deleted")
	}
	for name, err := range res.Failed {
		c.log.Warn().Err(err).Str("topic", name).Msg("could not remove the znodes of a deleted topic")
	}
	if res.Err != nil {
		return fmt.Errorf("remove topic znodes: %w", res.Err)
	}
	fx.next = deletion.TopicsRemoved{Removed: res.Removed, Failed: res.Failed}
	return nil
}

// RetryAfter schedules the Retry event. The timer is not waited for: an
// event of an older leadership is dropped.
func (fx *deletionEffects) RetryAfter(_ context.Context, e deletion.RetryAfter) error {
	c, ls := fx.c, fx.ls
	c.log.Warn().Err(e.Cause).Str("topic", e.Topic).Int("attempt", e.Attempt).Dur("retry_in", e.Delay).
		Msg("topic deletion held; will retry")
	retry := deletion.Retry{Topic: e.Topic, Attempt: e.Attempt}
	time.AfterFunc(e.Delay, func() { c.queue.push(&deletionEvent{gen: ls, ev: retry}) })
	return nil
}

// sendDeletes emits a batch of StopReplica(delete=true) requests for rs
// and makes sure each one's outcome comes back as an event: its response,
// or the error that ended it, or, when it could not even be queued or
// built, that (the Manager waits for every replica it sent).
func (c *Controller) sendDeletes(ls *leaderState, b *brokerchan.Batch, rs []deletion.Replica) {
	if b.Empty() {
		return
	}
	reqs, err := b.Emit(ls.epoch)
	if err != nil {
		c.log.Error().Err(err).Msg("cannot build StopReplica requests for topic deletion")
		byBroker := map[int32]map[TopicPartition]error{}
		for _, r := range rs {
			if byBroker[r.Broker] == nil {
				byBroker[r.Broker] = map[TopicPartition]error{}
			}
			byBroker[r.Broker][r.TopicPartition] = err
		}
		for id, failed := range byBroker {
			c.queue.push(&deletionEvent{gen: ls, ev: deletion.StopReplicaResponse{Broker: id, Failed: failed}})
		}
		return
	}
	for _, r := range reqs {
		req, ok := r.Msg.(*kmsg.StopReplicaRequest)
		if !ok {
			continue
		}
		ev := stopReplicaEvent{gen: ls, broker: r.Broker, epoch: ls.cc.brokers[r.Broker].Epoch, req: req}
		cb := func(resp kmsg.Response, err error) {
			out := ev
			out.resp, _ = resp.(*kmsg.StopReplicaResponse)
			out.err = err
			c.queue.push(&out)
		}
		if err := ls.chans.Send(r.Broker, req, cb); err != nil {
			out := ev
			out.err = err
			c.queue.push(&out)
		}
	}
}

// revertAddedPartitions is Kafka's answer to partitions added to a topic
// queued for deletion (reference §2.4): the assignment znode is rewritten,
// fenced and conditional on the version read, with the partitions the
// context knows; the new ones disappear. A lost race is left to the next
// firing of the topic's watch.
func (c *Controller) revertAddedPartitions(ls *leaderState, name string, version int32) error {
	t := ls.cc.topics[name]
	if t == nil {
		return nil
	}
	a := t.znode
	a.Partitions, a.AddingReplicas, a.RemovingReplicas = map[int32][]int32{}, nil, nil
	for id, p := range t.parts {
		a.Partitions[id] = p.assign.Replicas
		if len(p.assign.Adding) > 0 {
			if a.AddingReplicas == nil {
				a.AddingReplicas = map[int32][]int32{}
			}
			a.AddingReplicas[id] = p.assign.Adding
		}
		if len(p.assign.Removing) > 0 {
			if a.RemovingReplicas == nil {
				a.RemovingReplicas = map[int32][]int32{}
			}
			a.RemovingReplicas[id] = p.assign.Removing
		}
	}
	data, err := a.Encode()
	if err != nil {
		return fmt.Errorf("encode topic %s: %w", name, err)
	}
	res, err := c.fencedWrite(ls.ctx, ls, []zkadmin.Op{zkadmin.SetOp(znodes.TopicPath(name), data, version)})
	if err != nil {
		return err
	}
	if res[0].Err != nil {
		c.log.Warn().Err(res[0].Err).Str("topic", name).Msg("could not revert partitions added to a topic being deleted")
		return nil
	}
	c.log.Warn().Str("topic", name).Msg("partitions added to a topic queued for deletion reverted")
	return nil
}

// firstTopics returns at most the first 10 names, for logs of large batches.
func firstTopics(names []string) []string { return names[:min(len(names), 10)] }

// deletionMetrics are Kafka's deletion gauges
// (kafka.controller:type=KafkaController).
type deletionMetrics struct {
	topics, replicas, ineligibleTopics, ineligibleReplicas prometheus.Gauge
}

func newDeletionMetrics(reg prometheus.Registerer) (*deletionMetrics, error) {
	gauge := func(name, help string) prometheus.Gauge {
		return prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: "kafka_controller", Subsystem: "KafkaController", Name: name, Help: help})
	}
	m := &deletionMetrics{
		topics:             gauge("TopicsToDeleteCount", "Topics queued for deletion."),
		replicas:           gauge("ReplicasToDeleteCount", "Replicas of topics queued for deletion not yet deleted."),
		ineligibleTopics:   gauge("TopicsIneligibleToDeleteCount", "Topics queued for deletion that cannot progress now."),
		ineligibleReplicas: gauge("ReplicasIneligibleToDeleteCount", "Replicas in ReplicaDeletionIneligible."),
	}
	if reg == nil {
		return m, nil
	}
	for _, g := range []prometheus.Collector{m.topics, m.replicas, m.ineligibleTopics, m.ineligibleReplicas} {
		if err := reg.Register(g); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// reset zeroes the gauges, as an inactive controller reports them.
func (m *deletionMetrics) reset() { m.set(deletion.Metrics{}) }

// set publishes the Manager's figures.
func (m *deletionMetrics) set(v deletion.Metrics) {
	if m == nil {
		return
	}
	m.topics.Set(float64(v.TopicsToDeleteCount))
	m.replicas.Set(float64(v.ReplicasToDeleteCount))
	m.ineligibleTopics.Set(float64(v.TopicsIneligibleToDeleteCount))
	m.ineligibleReplicas.Set(float64(v.ReplicasIneligibleToDeleteCount))
}

func (c *Controller) updateDeletionGauges(ls *leaderState) {
	c.delMetrics.set(ls.del.mgr.Metrics(deletionCluster{ls.cc}))
}
