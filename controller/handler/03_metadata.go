package handler

// Metadata (key 3), v0-12, answered by every node from its View
// (reference apis.md §3, seed 001).
//
// Behaviour:
//   - Brokers are this node itself (design brief §3: clients find the
//     controller in the Brokers of the response that names it) and the
//     registered brokers that have an endpoint for this listener. The list
//     is never empty: sarama treats an empty one as a failure.
//   - Topics: v0's empty list and v1+'s null list mean all topics; v1+'s
//     empty list means none. Names asked for twice are answered once. An
//     all-topics answer is sorted by name and leaves out topics the
//     principal may not DESCRIBE; an explicit list answers each name, in
//     request order, with TOPIC_AUTHORIZATION_FAILED entries last.
//   - A topic queued for deletion looks missing (UNKNOWN_TOPIC_OR_PARTITION,
//     absent from all-topics lists), as on Kafka's brokers, which drop it
//     from their caches when its deletion starts. The protocol has no
//     "marked for deletion" flag (seed 001 proposed one; Kafka dropped it).
//     With auto-creation allowed, asking for it answers LEADER_NOT_AVAILABLE,
//     because its re-creation fails with "marked for deletion".
//   - A missing topic is UNKNOWN_TOPIC_OR_PARTITION, or INVALID_TOPIC_EXCEPTION
//     for a name Kafka's Topic.validate refuses, unless auto-creation
//     applies: auto.create.topics.enable and the request allows it
//     (always at v0-3: kmsg decodes the absent flag as false, Kafka's
//     schema says true). Then a principal that may not CREATE (on the
//     cluster or the topic) gets TOPIC_AUTHORIZATION_FAILED, whatever the
//     name, and an entry with the unauthorized ones; otherwise the topic
//     is created through Admin with the defaults (-1, -1; the internal
//     topics get Kafka's own settings) and answered LEADER_NOT_AVAILABLE
//     with no partitions, or with the creation's error. Every answer but
//     the unauthorized ones carries the authorized operations when asked.
//   - A topic the principal may not DESCRIBE is TOPIC_AUTHORIZATION_FAILED
//     with its name and a zero id, or, asked by id (v12), with its id and
//     a null name (Kafka does not treat ids as sensitive).
//   - Partitions: error 0 with the leader; LEADER_NOT_AVAILABLE and leader
//     -1 when the leader is unknown or not a live broker; v6+
//     LISTENER_NOT_FOUND when the leader is live but has no endpoint on
//     this listener. The topic-level error stays 0 either way.
//
// Version notes:
//   - v0: REPLICA_NOT_AVAILABLE when the leader is live but some replica or
//     ISR member is not, and both lists are filtered to live brokers (v0
//     clients could not handle ids missing from Brokers). v1+ drop that
//     quirk: error 0 and the lists unfiltered (seed 001 point 4).
//   - v1+: Rack, ControllerID, IsInternal (true also for a missing internal
//     topic). v2+: ClusterID. v5+: OfflineReplicas. v7+: LeaderEpoch, sent
//     even without a leader. v8+: authorized operations when asked (the
//     cluster's only v8-10). v10+: TopicID. v10-11: a null name or a
//     topic id is a whole-request INVALID_REQUEST. v12: topics by id; when
//     any id is given, names are ignored and an unknown id answers
//     UNKNOWN_TOPIC_ID with a null name.

import (
	"context"
	"errors"
	"slices"
	"strconv"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller"
	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

func (h *Handlers) metadata(ctx context.Context, req *wire.Request, r *kmsg.MetadataRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.MetadataResponse)
	if code := metadataRequestError(r); code != 0 {
		return metadataErrorResponse(r, code)
	}
	v := h.cluster.View()
	// Made here, not in liveEndpoints, so that it can stay on the stack.
	live := make(map[int32]bool, len(v.Brokers)+1)
	h.liveEndpoints(v, live)
	resp.Brokers = h.metadataBrokers(v)
	resp.ControllerID = v.ControllerID
	if v.ClusterID != "" {
		resp.ClusterID = strp(v.ClusterID)
	}
	if r.Version >= 8 && r.Version <= 10 && r.IncludeClusterAuthorizedOperations {
		resp.AuthorizedOperations = 0
		if h.allows(ctx, req, OpDescribe, ClusterResource()) {
			resp.AuthorizedOperations = h.authorizedOps(ctx, req, ClusterResource())
		}
	}
	all := (r.Version == 0 && len(r.Topics) == 0) || (r.Version >= 1 && r.Topics == nil)
	if all {
		for _, name := range v.SortedTopics() {
			t := v.Live(name)
			if t == nil || !h.allows(ctx, req, OpDescribe, TopicResource(name)) {
				continue
			}
			resp.Topics = append(resp.Topics, h.topicMetadata(ctx, req, r, t, live))
		}
		return resp
	}
	resp.Topics = h.explicitTopics(ctx, req, r, v, live)
	return resp
}

// metadataRequestError returns INVALID_REQUEST for what v10-11 cannot
// carry: a null name or a topic id.
func metadataRequestError(r *kmsg.MetadataRequest) int16 {
	if r.Version < 10 || r.Version > 11 {
		return 0
	}
	for _, t := range r.Topics {
		if t.Topic == nil || t.TopicID != [16]byte{} {
			return kerr.InvalidRequest.Code
		}
	}
	return 0
}

// metadataErrorResponse is Kafka's whole-request error: every requested
// topic with the code and the id it was asked by, no brokers, controller
// -1.
func metadataErrorResponse(r *kmsg.MetadataRequest, code int16) *kmsg.MetadataResponse {
	resp := r.ResponseKind().(*kmsg.MetadataResponse)
	for _, rt := range r.Topics {
		t := kmsg.NewMetadataResponseTopic()
		t.ErrorCode, t.TopicID = code, rt.TopicID
		t.Topic = strp("")
		if rt.Topic != nil {
			t.Topic = strp(*rt.Topic)
		}
		resp.Topics = append(resp.Topics, t)
	}
	return resp
}

// explicitTopics answers a list of topics in Kafka's order: unknown ids,
// then the topics in request order, then those the principal may not
// create, then those it may not describe.
func (h *Handlers) explicitTopics(ctx context.Context, req *wire.Request, r *kmsg.MetadataRequest, v *View,
	live map[int32]bool) []kmsg.MetadataResponseTopic {
	var unknownIDs, out, createDenied, describeDenied []kmsg.MetadataResponseTopic
	names, byID := requestedNames(r, v, func(id [16]byte) {
		t := kmsg.NewMetadataResponseTopic()
		t.ErrorCode, t.TopicID = kerr.UnknownTopicID.Code, id
		unknownIDs = append(unknownIDs, t)
	})
	for _, name := range names {
		if !h.allows(ctx, req, OpDescribe, TopicResource(name)) {
			// Asked by name, the answer keeps the id back; asked by id,
			// it keeps the name back (Kafka: ids are not sensitive).
			t := kmsg.NewMetadataResponseTopic()
			t.ErrorCode, t.Topic = kerr.TopicAuthorizationFailed.Code, strp(name)
			if byID {
				t.Topic, t.TopicID = nil, v.Topic(name).ID
			}
			describeDenied = append(describeDenied, t)
			continue
		}
		if t := v.Live(name); t != nil {
			out = append(out, h.topicMetadata(ctx, req, r, t, live))
			continue
		}
		mt, denied := h.missingTopic(ctx, req, r, v, name)
		if denied {
			createDenied = append(createDenied, mt)
		} else {
			out = append(out, mt)
		}
	}
	return slices.Concat(unknownIDs, out, createDenied, describeDenied)
}

// requestedNames returns the names asked for, deduplicated in request
// order. At v12, if any entry has a topic id, only the ids count (as in
// Kafka: byID); unknown ones are reported to unknownID.
func requestedNames(r *kmsg.MetadataRequest, v *View, unknownID func([16]byte)) (names []string, byID bool) {
	for _, t := range r.Topics {
		byID = byID || (r.Version >= 12 && t.TopicID != [16]byte{})
	}
	seen := map[string]bool{}
	seenID := map[[16]byte]bool{}
	for _, t := range r.Topics {
		var name string
		switch {
		case byID:
			if t.TopicID == [16]byte{} || seenID[t.TopicID] {
				continue
			}
			seenID[t.TopicID] = true
			topic := v.TopicByID(znodes.UUID(t.TopicID))
			if topic == nil || topic.Deleting {
				unknownID(t.TopicID)
				continue
			}
			name = topic.Name
		case t.Topic != nil:
			name = *t.Topic
		}
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	return names, byID
}

// missingTopic answers a topic that is not (or no longer) there, creating
// it when auto-creation applies. createDenied reports an entry that goes
// with the unauthorized ones. As in Kafka, the CREATE permission is
// checked before the name (a principal that may not create learns
// nothing about the name), and every answer but a create-denied one
// carries the authorized operations when asked.
func (h *Handlers) missingTopic(ctx context.Context, req *wire.Request, r *kmsg.MetadataRequest, v *View,
	name string) (t kmsg.MetadataResponseTopic, createDenied bool) {
	t = kmsg.NewMetadataResponseTopic()
	t.Topic, t.IsInternal = strp(name), znodes.IsInternalTopic(name)
	allowAuto := h.cfg.AutoCreateTopicsEnable && (r.Version < 4 || r.AllowAutoTopicCreation)
	switch {
	case allowAuto && !h.allows(ctx, req, OpCreate, ClusterResource()) && !h.allows(ctx, req, OpCreate, TopicResource(name)):
		t.ErrorCode = kerr.TopicAuthorizationFailed.Code
		return t, true
	case znodes.ValidateTopicName(name) != nil:
		t.ErrorCode = kerr.InvalidTopicException.Code
	case !allowAuto:
		t.ErrorCode = kerr.UnknownTopicOrPartition.Code
	case v.Topic(name) != nil: // queued for deletion: its re-creation would fail
		t.ErrorCode = kerr.LeaderNotAvailable.Code
	default:
		t.ErrorCode = h.autoCreate(ctx, name)
	}
	if r.Version >= 8 && r.IncludeTopicAuthorizedOperations {
		t.AuthorizedOperations = h.authorizedOps(ctx, req, TopicResource(name))
	}
	return t, false
}

// autoCreate creates a topic for Metadata and returns the topic's code:
// LEADER_NOT_AVAILABLE when it was created or already exists (clients
// retry until it has leaders), else the creation's error.
func (h *Handlers) autoCreate(ctx context.Context, name string) int16 {
	_, err := h.admin.CreateTopic(ctx, autoCreateRequest(name, h.cfg.InternalTopics))
	if err == nil || errors.Is(err, zkadmin.ErrTopicExists) || errors.Is(err, zkadmin.ErrMarkedForDeletion) {
		return kerr.LeaderNotAvailable.Code
	}
	code := h.errorOf(err).code
	if code == kerr.RequestTimedOut.Code { // outcome unknown: it may exist now
		return kerr.LeaderNotAvailable.Code
	}
	return code
}

// autoCreateRequest uses the broker defaults, except for the internal
// topics, which get the settings Kafka's brokers give them
// (kzadmind's offsets.topic.* and transaction.state.log.* keys, with
// Kafka's defaults).
func autoCreateRequest(name string, it config.InternalTopics) zkadmin.CreateTopicRequest {
	req := zkadmin.CreateTopicRequest{Topic: name, Partitions: -1, ReplicationFactor: -1}
	itoa := func(n int32) string { return strconv.Itoa(int(n)) }
	switch name {
	case znodes.GroupMetadataTopic:
		req.Partitions, req.ReplicationFactor = it.OffsetsPartitions, int16(it.OffsetsReplicationFactor)
		req.Config = map[string]string{"cleanup.policy": "compact", "compression.type": "producer",
			"segment.bytes": itoa(it.OffsetsSegmentBytes)}
	case znodes.TransactionStateTopic:
		req.Partitions, req.ReplicationFactor = it.TransactionPartitions, int16(it.TransactionReplicationFactor)
		req.Config = map[string]string{"cleanup.policy": "compact", "compression.type": "uncompressed",
			"min.insync.replicas": itoa(it.TransactionMinISR), "segment.bytes": itoa(it.TransactionSegmentBytes),
			"unclean.leader.election.enable": "false"}
	}
	return req
}

// topicMetadata answers a topic that exists.
func (h *Handlers) topicMetadata(ctx context.Context, req *wire.Request, r *kmsg.MetadataRequest, t *controller.TopicView,
	live map[int32]bool) kmsg.MetadataResponseTopic {
	mt := kmsg.NewMetadataResponseTopic()
	mt.Topic = strp(t.Name)
	mt.TopicID = t.ID
	mt.IsInternal = znodes.IsInternalTopic(t.Name)
	if r.Version >= 8 && r.IncludeTopicAuthorizedOperations {
		mt.AuthorizedOperations = h.authorizedOps(ctx, req, TopicResource(t.Name))
	}
	mt.Partitions = make([]kmsg.MetadataResponseTopicPartition, 0, len(t.Partitions))
	for i := range t.Partitions {
		mt.Partitions = append(mt.Partitions, partitionMetadata(r.Version, &t.Partitions[i], live))
	}
	return mt
}

// partitionMetadata is ZkMetadataCache.getPartitionMetadata. live maps
// each registered broker to whether it has an endpoint on this listener.
func partitionMetadata(version int16, p *controller.PartitionView, live map[int32]bool) kmsg.MetadataResponseTopicPartition {
	mp := kmsg.NewMetadataResponseTopicPartition()
	mp.Partition, mp.Leader, mp.LeaderEpoch = p.Partition, p.Leader, p.LeaderEpoch
	mp.Replicas, mp.ISR, mp.OfflineReplicas = orEmpty(p.Replicas), orEmpty(p.ISR), orEmpty(p.Offline)
	if version == 0 {
		mp.Replicas, mp.ISR = filterLive(p.Replicas, live), filterLive(p.ISR, live)
	}
	withEndpoint, registered := live[p.Leader]
	switch {
	case p.Leader < 0 || !registered:
		mp.Leader, mp.ErrorCode = -1, kerr.LeaderNotAvailable.Code
	case !withEndpoint:
		mp.Leader, mp.ErrorCode = -1, kerr.LeaderNotAvailable.Code
		if version >= 6 {
			mp.ErrorCode = kerr.ListenerNotFound.Code
		}
	case version == 0 && (len(mp.Replicas) < len(p.Replicas) || len(mp.ISR) < len(p.ISR)):
		mp.ErrorCode = kerr.ReplicaNotAvailable.Code
	}
	return mp
}

// filterLive returns the ids that are live with an endpoint on this
// listener, as a new slice.
func filterLive(ids []int32, live map[int32]bool) []int32 {
	out := make([]int32, 0, len(ids))
	for _, id := range ids {
		if live[id] {
			out = append(out, id)
		}
	}
	return out
}

func orEmpty(ids []int32) []int32 {
	if ids == nil {
		return []int32{}
	}
	return ids
}

// liveEndpoints maps, in live, every registered broker (and this node) to
// whether it has an endpoint on this listener.
func (h *Handlers) liveEndpoints(v *View, live map[int32]bool) {
	for i := range v.Brokers {
		b := &v.Brokers[i]
		_, ok := endpointFor(b, h.listener)
		live[b.ID] = ok
	}
	if _, known := live[v.Self.ID]; !known && len(v.Self.Endpoints) > 0 {
		live[v.Self.ID] = true
	}
}

// metadataBrokers lists this node, then the brokers with an endpoint on
// this listener.
func (h *Handlers) metadataBrokers(v *View) []kmsg.MetadataResponseBroker {
	out := make([]kmsg.MetadataResponseBroker, 0, len(v.Brokers)+1)
	add := func(b *controller.BrokerView, ep znodes.Endpoint) {
		mb := kmsg.NewMetadataResponseBroker()
		mb.NodeID, mb.Host, mb.Port, mb.Rack = b.ID, ep.Host, ep.Port, b.Rack
		out = append(out, mb)
	}
	if ep, ok := selfEndpoint(&v.Self, h.listener); ok {
		add(&v.Self, ep)
	}
	for i := range v.Brokers {
		b := &v.Brokers[i]
		if b.ID == v.Self.ID {
			continue
		}
		if ep, ok := endpointFor(b, h.listener); ok {
			add(b, ep)
		}
	}
	return out
}

// endpointFor returns b's endpoint on the named listener.
func endpointFor(b *controller.BrokerView, listener string) (znodes.Endpoint, bool) {
	for _, ep := range b.Endpoints {
		if ep.Listener == listener {
			return ep, true
		}
	}
	return znodes.Endpoint{}, false
}

// selfEndpoint is this node's endpoint on the listener, or its first one:
// the client reached this node somehow, and must find it in Brokers.
func selfEndpoint(self *controller.BrokerView, listener string) (znodes.Endpoint, bool) {
	if ep, ok := endpointFor(self, listener); ok {
		return ep, true
	}
	if len(self.Endpoints) > 0 {
		return self.Endpoints[0], true
	}
	return znodes.Endpoint{}, false
}
