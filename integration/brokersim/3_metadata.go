package brokersim

// Metadata (key 3), v0-12, answered from the metadata cache as a Kafka 3.9
// ZK broker does (apis reference §3), so that kgo, kadm and other clients
// can bootstrap against a simulated broker.
//
// Brokers are the cached live brokers that have an endpoint on the
// listener (PLAINTEXT); the controller id is the cache's (-1 if none); the
// cluster id is /cluster/id. An all-topics request (v0 with an empty list,
// v1+ with null) lists every cached topic; a named topic that is not cached
// is UNKNOWN_TOPIC_OR_PARTITION (INVALID_TOPIC_EXCEPTION for a bad name).
// The simulator never auto-creates topics, as with
// auto.create.topics.enable=false. v12 can look topics up by id
// (UNKNOWN_TOPIC_ID when unknown); v10-11 refuse null names and non-zero
// ids with INVALID_REQUEST. Partition outcomes follow
// ZkMetadataCache.getPartitionMetadata: a leader that is not live gives
// LEADER_NOT_AVAILABLE and leader -1 (LISTENER_NOT_FOUND from v6 when it is
// live without our listener), and only v0 filters replicas and ISR to live
// brokers and reports REPLICA_NOT_AVAILABLE.

import (
	"context"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/znodes"
)

func (b *Broker) handleMetadata(ctx context.Context, req *wire.Request) (kmsg.Response, error) {
	r := req.Body.(*kmsg.MetadataRequest)
	resp := r.ResponseKind().(*kmsg.MetadataResponse)
	clusterID := b.cluster.clusterID
	resp.ClusterID = &clusterID
	b.mu.Lock()
	defer b.mu.Unlock()
	if ctx.Err() != nil {
		return nil, errStopped
	}
	resp.ControllerID = b.cache.controllerID
	for _, lb := range b.cache.live {
		if ep, ok := lb.Endpoint(ListenerName); ok {
			mb := kmsg.NewMetadataResponseBroker()
			mb.NodeID, mb.Host, mb.Port, mb.Rack = lb.ID, ep.Host, ep.Port, lb.Rack
			resp.Brokers = append(resp.Brokers, mb)
		}
	}
	allTopics := (r.Version == 0 && len(r.Topics) == 0) || (r.Version >= 1 && r.Topics == nil)
	if allTopics {
		names := make([]string, 0, len(b.cache.topics))
		for name := range b.cache.topics {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			resp.Topics = append(resp.Topics, b.topicMetadataLocked(name, r.Version))
		}
	} else {
		resp.Topics = b.requestedTopicsLocked(r)
	}
	b.received[kmsg.Metadata.Int16()]++
	b.bumpLocked()
	return resp, nil
}

// requestedTopicsLocked answers an explicit topic list; duplicates
// collapse, as the broker uses a set.
func (b *Broker) requestedTopicsLocked(r *kmsg.MetadataRequest) []kmsg.MetadataResponseTopic {
	var out []kmsg.MetadataResponseTopic
	seenName := make(map[string]bool)
	seenID := make(map[znodes.UUID]bool)
	for _, t := range r.Topics {
		id := znodes.UUID(t.TopicID)
		if r.Version >= 10 && r.Version <= 11 && (t.Topic == nil || !id.IsZero()) {
			mt := kmsg.NewMetadataResponseTopic()
			mt.ErrorCode, mt.Topic, mt.TopicID = kerr.InvalidRequest.Code, t.Topic, t.TopicID
			out = append(out, mt)
			continue
		}
		if t.Topic == nil {
			if seenID[id] {
				continue
			}
			seenID[id] = true
			out = append(out, b.topicByIDLocked(id))
			continue
		}
		if seenName[*t.Topic] {
			continue
		}
		seenName[*t.Topic] = true
		out = append(out, b.topicMetadataLocked(*t.Topic, r.Version))
	}
	return out
}

func (b *Broker) topicByIDLocked(id znodes.UUID) kmsg.MetadataResponseTopic {
	if name, ok := b.cache.topicByID(id); ok && !id.IsZero() {
		return b.topicMetadataLocked(name, 12)
	}
	mt := kmsg.NewMetadataResponseTopic()
	mt.ErrorCode, mt.TopicID = kerr.UnknownTopicID.Code, id
	return mt
}

func (b *Broker) topicMetadataLocked(name string, version int16) kmsg.MetadataResponseTopic {
	mt := kmsg.NewMetadataResponseTopic()
	mt.Topic = &name
	mt.IsInternal = znodes.IsInternalTopic(name)
	t := b.cache.topics[name]
	if t == nil {
		mt.ErrorCode = kerr.UnknownTopicOrPartition.Code
		if znodes.ValidateTopicName(name) != nil {
			mt.ErrorCode = kerr.InvalidTopicException.Code
		}
		return mt
	}
	mt.TopicID = t.id
	mt.Partitions = make([]kmsg.MetadataResponseTopicPartition, 0, t.count)
	for i, p := range t.parts {
		if p != nil {
			mt.Partitions = append(mt.Partitions, b.partitionMetadataLocked(int32(i), p, version))
		}
	}
	return mt
}

func (b *Broker) partitionMetadataLocked(partition int32, p *PartitionMeta, version int16) kmsg.MetadataResponseTopicPartition {
	mp := kmsg.NewMetadataResponseTopicPartition()
	mp.Partition, mp.LeaderEpoch, mp.OfflineReplicas = partition, p.LeaderEpoch, p.OfflineReplicas
	mp.Replicas, mp.ISR = p.Replicas, p.ISR
	if version == 0 {
		mp.Replicas, mp.ISR = b.aliveOnlyLocked(p.Replicas), b.aliveOnlyLocked(p.ISR)
	}
	lb, live := b.cache.liveBroker(p.Leader)
	_, hasListener := lb.Endpoint(ListenerName)
	switch {
	case !live:
		mp.ErrorCode, mp.Leader = kerr.LeaderNotAvailable.Code, -1
	case !hasListener:
		mp.ErrorCode, mp.Leader = kerr.LeaderNotAvailable.Code, -1
		if version >= 6 {
			mp.ErrorCode = kerr.ListenerNotFound.Code
		}
	default:
		mp.Leader = p.Leader
		if len(mp.Replicas) < len(p.Replicas) || len(mp.ISR) < len(p.ISR) {
			mp.ErrorCode = kerr.ReplicaNotAvailable.Code
		}
	}
	return mp
}

func (b *Broker) aliveOnlyLocked(ids []int32) []int32 {
	out := make([]int32, 0, len(ids))
	for _, id := range ids {
		if b.cache.aliveOn(id, ListenerName) {
			out = append(out, id)
		}
	}
	return out
}
