package brokersim

// LeaderAndIsr (key 4), v0-7 as a Kafka 3.9 ZK broker serves it
// (ReplicaManager.becomeLeaderOrFollower; controller reference §6.1-6.2).
//
// Order of checks: the broker epoch (STALE_BROKER_EPOCH), then the
// controller epoch (STALE_CONTROLLER_EPOCH); either one is the top-level
// error and is copied into every partition. Otherwise the request's
// controller epoch is stored and each partition is judged on its own: an
// offline log dir gives KAFKA_STORAGE_ERROR; a topic id that differs from
// the log's gives INCONSISTENT_TOPIC_ID; a leader epoch above the current
// one is accepted when this broker is among the replicas (else
// UNKNOWN_TOPIC_OR_PARTITION); an equal epoch is accepted only to give the
// log a topic id it lacks; anything else is STALE_CONTROLLER_EPOCH. A
// partition not hosted has current epoch -1, so any epoch is new to a
// restarted broker. The top-level error is NONE even when partitions fail.
//
// Versions: v0-1 carry ungrouped partition states with topic names, v2+
// group them by topic, v5+ add topic ids and answer keyed by topic id.

import (
	"context"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/znodes"
)

// lairPartition is one partition of a LeaderAndIsr request, whichever
// version carried it.
type lairPartition struct {
	tp      TopicPartition
	topicID znodes.UUID
	st      *kmsg.LeaderAndISRRequestTopicPartition
}

func lairPartitions(r *kmsg.LeaderAndISRRequest) []lairPartition {
	var out []lairPartition
	if r.Version < 2 {
		out = make([]lairPartition, len(r.PartitionStates))
		for i := range r.PartitionStates {
			p := &r.PartitionStates[i]
			out[i] = lairPartition{tp: TopicPartition{p.Topic, p.Partition}, st: p}
		}
		return out
	}
	for i := range r.TopicStates {
		t := &r.TopicStates[i]
		for j := range t.PartitionStates {
			p := &t.PartitionStates[j]
			out = append(out, lairPartition{tp: TopicPartition{t.Topic, p.Partition}, topicID: t.TopicID, st: p})
		}
	}
	return out
}

func (b *Broker) handleLeaderAndIsr(ctx context.Context, req *wire.Request) (kmsg.Response, error) {
	r := req.Body.(*kmsg.LeaderAndISRRequest)
	parts := lairPartitions(r)
	codes := make([]int16, len(parts))
	b.mu.Lock()
	if ctx.Err() != nil {
		b.mu.Unlock()
		return nil, errStopped
	}
	top := b.checkControlLocked(r.BrokerEpoch, r.ControllerEpoch)
	if top == 0 {
		b.controllerEpoch = r.ControllerEpoch
		var leaders []TopicPartition
		for i, p := range parts {
			codes[i] = b.applyLeaderAndIsrLocked(p)
			if codes[i] == 0 && p.st.Leader == b.id {
				leaders = append(leaders, p.tp)
			}
		}
		for _, tp := range leaders {
			if rep := b.replicas.at(tp); rep != nil {
				b.reconcileISRLocked(tp, rep)
			}
		}
	} else {
		for i := range codes {
			codes[i] = top
		}
	}
	b.received[kmsg.LeaderAndISR.Int16()]++
	b.bumpLocked()
	b.mu.Unlock()
	if top != 0 {
		b.log.Info().Int16("error", top).Int64("request_broker_epoch", r.BrokerEpoch).
			Int32("request_controller_epoch", r.ControllerEpoch).Msg("LeaderAndIsr rejected")
	}
	return leaderAndIsrResponse(r, parts, codes, top), nil
}

// applyLeaderAndIsrLocked judges one partition and applies it if accepted.
func (b *Broker) applyLeaderAndIsrLocked(p lairPartition) int16 {
	if b.logDirOffline {
		return kerr.KafkaStorageError.Code
	}
	logID, hasLog := b.logs.get(p.tp)
	if hasLog && !logID.IsZero() && !p.topicID.IsZero() && logID != p.topicID {
		return kerr.InconsistentTopicID.Code
	}
	cur := b.replicas.at(p.tp)
	curEpoch := int32(-1)
	if cur != nil {
		curEpoch = cur.LeaderEpoch
	}
	switch {
	case p.st.LeaderEpoch > curEpoch:
		if !slices.Contains(p.st.Replicas, b.id) {
			return kerr.UnknownTopicOrPartition.Code
		}
		b.becomeLocked(p, logID)
		return 0
	case p.st.LeaderEpoch == curEpoch && !p.topicID.IsZero() && logID.IsZero():
		b.logs.put(p.tp, p.topicID)
		if cur != nil {
			cur.TopicID = p.topicID
		}
		return 0
	}
	return kerr.StaleControllerEpoch.Code
}

// becomeLocked makes the broker leader or follower of an accepted
// partition. The replica entry is new, so an AlterPartition in flight for
// the old leadership is ignored when it returns.
func (b *Broker) becomeLocked(p lairPartition, logID znodes.UUID) {
	s := p.st
	role := Follower
	if s.Leader == b.id {
		role = Leader
	}
	id := p.topicID
	if id.IsZero() {
		id = logID
	}
	b.replicas.put(p.tp, &replica{PartitionState: PartitionState{
		TopicID:             id,
		Role:                role,
		ControllerEpoch:     s.ControllerEpoch,
		Leader:              s.Leader,
		LeaderEpoch:         s.LeaderEpoch,
		ISR:                 s.ISR,
		PartitionEpoch:      s.ZKVersion,
		Replicas:            s.Replicas,
		AddingReplicas:      s.AddingReplicas,
		RemovingReplicas:    s.RemovingReplicas,
		LeaderRecoveryState: s.LeaderRecoveryState,
		IsNew:               s.IsNew,
	}})
	b.logs.put(p.tp, id)
}

func leaderAndIsrResponse(r *kmsg.LeaderAndISRRequest, parts []lairPartition, codes []int16, top int16) *kmsg.LeaderAndISRResponse {
	resp := r.ResponseKind().(*kmsg.LeaderAndISRResponse)
	resp.ErrorCode = top
	if r.Version < 5 {
		resp.Partitions = make([]kmsg.LeaderAndISRResponseTopicPartition, len(parts))
		for i, p := range parts {
			rp := &resp.Partitions[i]
			rp.Default()
			rp.Topic, rp.Partition, rp.ErrorCode = p.tp.Topic, p.tp.Partition, codes[i]
		}
		return resp
	}
	i := 0
	for _, t := range r.TopicStates {
		rt := kmsg.NewLeaderAndISRResponseTopic()
		rt.TopicID = t.TopicID
		for range t.PartitionStates {
			rp := kmsg.NewLeaderAndISRResponseTopicPartition()
			rp.Topic, rp.Partition, rp.ErrorCode = parts[i].tp.Topic, parts[i].tp.Partition, codes[i]
			rt.Partitions = append(rt.Partitions, rp)
			i++
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp
}
