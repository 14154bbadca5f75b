package brokersim

// UpdateMetadata (key 6), v0-8 as a Kafka 3.9 ZK broker serves it
// (ZkMetadataCache.updateMetadata; controller reference §6.1, §6.3).
//
// After the broker-epoch and controller-epoch checks, the request's
// controller epoch is stored, the live brokers and the controller id
// (below 0 means none) replace the cached ones, and the partition states
// are merged: each included partition is upserted, and leader -2
// (LEADER_DURING_DELETE) deletes it, and its topic with its last
// partition. There is no per-partition epoch check. v7+ topic ids are
// recorded; a zero id erases the cached one, as Kafka does.
//
// Versions: v0-4 carry ungrouped partition states, v5+ group them by
// topic; v0 brokers have one PLAINTEXT host and port, v1-2 endpoints named
// by protocol, v3+ endpoints with listener names.

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/znodes"
)

// leaderDuringDelete is the leader the controller sends for partitions of
// a topic being deleted.
const leaderDuringDelete = -2

// umPartition is one partition of an UpdateMetadata request, already
// interned (nil meta means delete).
type umPartition struct {
	tp   TopicPartition
	meta *PartitionMeta
}

// umPartitions interns the request's partition states, taking the
// cluster's interner lock once.
func (b *Broker) umPartitions(r *kmsg.UpdateMetadataRequest) []umPartition {
	in := b.cluster.intern
	in.mu.Lock()
	defer in.mu.Unlock()
	if r.Version < 5 {
		out := make([]umPartition, len(r.PartitionStates))
		for i := range r.PartitionStates {
			p := &r.PartitionStates[i]
			out[i] = umPartition{TopicPartition{p.Topic, p.Partition}, in.topicLocked(p.Topic).internLocked(p)}
		}
		return out
	}
	n := 0
	for _, t := range r.TopicStates {
		n += len(t.PartitionStates)
	}
	out := make([]umPartition, 0, n)
	for i := range r.TopicStates {
		t := &r.TopicStates[i]
		it := in.topicLocked(t.Topic)
		for j := range t.PartitionStates {
			p := &t.PartitionStates[j]
			out = append(out, umPartition{TopicPartition{t.Topic, p.Partition}, it.internLocked(p)})
		}
	}
	return out
}

func (b *Broker) handleUpdateMetadata(ctx context.Context, req *wire.Request) (kmsg.Response, error) {
	r := req.Body.(*kmsg.UpdateMetadataRequest)
	live, err := liveBrokersFrom(r.Version, r.LiveBrokers)
	if err != nil {
		return nil, fmt.Errorf("UpdateMetadata: %w", err)
	}
	parts := b.umPartitions(r)
	resp := r.ResponseKind().(*kmsg.UpdateMetadataResponse)
	b.mu.Lock()
	if ctx.Err() != nil {
		b.mu.Unlock()
		return nil, errStopped
	}
	resp.ErrorCode = b.checkControlLocked(r.BrokerEpoch, r.ControllerEpoch)
	if resp.ErrorCode == 0 {
		b.applyUpdateMetadataLocked(r, live, parts)
	}
	b.received[kmsg.UpdateMetadata.Int16()]++
	b.bumpLocked()
	b.mu.Unlock()
	if resp.ErrorCode != 0 {
		b.log.Info().Int16("error", resp.ErrorCode).Int64("request_broker_epoch", r.BrokerEpoch).
			Int32("request_controller_epoch", r.ControllerEpoch).Msg("UpdateMetadata rejected")
	}
	return resp, nil
}

func (b *Broker) applyUpdateMetadataLocked(r *kmsg.UpdateMetadataRequest, live []LiveBroker, parts []umPartition) {
	moved := b.cache.controllerID != max(r.ControllerID, -1) || !sameLiveIDs(b.cache.live, live)
	b.controllerEpoch = r.ControllerEpoch
	b.cache.controllerID = max(r.ControllerID, -1)
	b.cache.live = live
	for _, p := range parts {
		if p.meta == nil {
			b.cache.remove(p.tp)
		} else {
			b.cache.put(p.tp, p.meta)
		}
	}
	if r.Version >= 7 {
		for _, t := range r.TopicStates {
			b.cache.setTopicID(t.Topic, znodes.UUID(t.TopicID))
		}
	}
	// New live brokers may make followers eligible for the ISR, and the
	// controller may have moved: every led partition is checked again.
	// Otherwise only the partitions the request names are (walking every
	// partition on every request made the simulated brokers, which share
	// the benchmarks' cores, cost more than the controller they test).
	if moved {
		b.reconcileAllLocked(true)
	} else {
		for _, p := range parts {
			if rep := b.replicas.at(p.tp); rep != nil && rep.Role == Leader {
				if rep.hold == holdUntilEvent {
					rep.hold = holdNone
				}
				b.reconcileISRLocked(p.tp, rep)
			}
		}
	}
	if b.inc != nil {
		notify(b.inc.ctrlSignal)
	}
}

// sameLiveIDs reports whether a and b list the same broker ids.
func sameLiveIDs(a, b []LiveBroker) bool {
	if len(a) != len(b) {
		return false
	}
	ids := make(map[int32]bool, len(a))
	for _, l := range a {
		ids[l.ID] = true
	}
	for _, l := range b {
		if !ids[l.ID] {
			return false
		}
	}
	return true
}
