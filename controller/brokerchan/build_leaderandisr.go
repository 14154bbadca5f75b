package brokerchan

import (
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// leaderAndIsrRequests builds one LeaderAndIsr per registered broker with
// pending partitions, ascending by broker id (reference §5.4).
func (b *Batch) leaderAndIsrRequests(controllerEpoch int32) ([]Request, error) {
	var out []Request
	for _, br := range sortedBrokers(b.view, b.leaderAndIsr) {
		req, err := b.leaderAndIsrFor(br, b.leaderAndIsr[br.ID].sorted(), controllerEpoch)
		if err != nil {
			return nil, err
		}
		out = append(out, Request{Broker: br.ID, Msg: req})
	}
	return out, nil
}

// leaderAndIsrFor builds the LeaderAndIsr for one broker from its pending
// partitions, sorted. Fields the chosen version does not carry are left at
// their defaults, so the struct equals what the broker decodes.
func (b *Batch) leaderAndIsrFor(target Broker, refs *chunks[laiRef], controllerEpoch int32) (*kmsg.LeaderAndISRRequest, error) {
	version := b.requestVersion.LeaderAndISR
	req := kmsg.NewPtrLeaderAndISRRequest()
	req.Version = version
	req.ControllerID = b.cfg.ControllerID
	req.ControllerEpoch = controllerEpoch
	// IsKRaftController (v7) stays false and Type (v5+) stays 0: a ZK
	// controller never sends FULL or INCREMENTAL.
	if version >= 2 {
		req.BrokerEpoch = target.Epoch
	}
	// One allocation for every partition of the request; from v2 each
	// topic's states are a capped sub-slice of it.
	states := make([]kmsg.LeaderAndISRRequestTopicPartition, 0, refs.len())
	var leaders []int32   // distinct, ascending
	first, topic := 0, "" // the current topic and its first partition
	for ref := range refs.all() {
		if n := len(states); version >= 2 && n > first && ref.tp.Topic != topic {
			req.TopicStates = append(req.TopicStates, b.leaderAndIsrTopic(topic, states[first:n:n], version))
			first = n
		}
		topic = ref.tp.Topic
		leaders = insertSorted(leaders, ref.entry.state.Leader)
		states = append(states, b.leaderAndIsrPartition(ref, version))
	}
	if version < 2 {
		req.PartitionStates = states
	} else if len(states) > first {
		req.TopicStates = append(req.TopicStates, b.leaderAndIsrTopic(topic, states[first:], version))
	}
	live, err := b.liveLeaders(leaders)
	if err != nil {
		return nil, err
	}
	req.LiveLeaders = live
	return req, nil
}

// leaderAndIsrTopic groups one topic's partition states (v2+).
func (b *Batch) leaderAndIsrTopic(topic string, states []kmsg.LeaderAndISRRequestTopicPartition,
	version int16) kmsg.LeaderAndISRRequestTopicState {
	ts := kmsg.NewLeaderAndISRRequestTopicState()
	ts.Topic = topic
	if version >= 5 {
		ts.TopicID = b.topicID(topic)
	}
	ts.PartitionStates = states
	return ts
}

// insertSorted adds id to the ascending set s.
func insertSorted(s []int32, id int32) []int32 {
	i, found := slices.BinarySearch(s, id)
	if found {
		return s
	}
	return slices.Insert(s, i, id)
}

// leaderAndIsrPartition fills one partition state for version (v0–v1 name
// the topic in each).
func (b *Batch) leaderAndIsrPartition(ref *laiRef, version int16) kmsg.LeaderAndISRRequestTopicPartition {
	e := ref.entry
	ps := kmsg.NewLeaderAndISRRequestTopicPartition()
	if version < 2 {
		ps.Topic = ref.tp.Topic
	}
	ps.Partition = ref.tp.Partition
	ps.ControllerEpoch = e.state.ControllerEpoch
	ps.Leader = e.state.Leader
	ps.LeaderEpoch = e.state.LeaderEpoch
	ps.ISR = e.state.ISR
	ps.ZKVersion = e.state.PartitionEpoch
	ps.Replicas = e.assignment.Replicas
	if version >= 1 {
		ps.IsNew = ref.isNew
	}
	if version >= 3 {
		ps.AddingReplicas = e.assignment.Adding
		ps.RemovingReplicas = e.assignment.Removing
	}
	// Kafka sets the recovery state only from IBP 3.2-IV0, which is
	// exactly where LeaderAndIsr v6 starts.
	if version >= 6 && b.cfg.IBP.LeaderRecoverySupported() {
		ps.LeaderRecoveryState = int8(e.state.LeaderRecoveryState)
	}
	return ps
}

// liveLeaders lists the registered brokers among leaders (ascending) with
// their endpoint on the inter-broker listener. Brokers ignore the list
// (they find leaders in their metadata cache), but Kafka fails the whole
// batch when a leader lacks the listener, and so do we.
func (b *Batch) liveLeaders(leaders []int32) ([]kmsg.LeaderAndISRRequestLiveLeader, error) {
	var out []kmsg.LeaderAndISRRequestLiveLeader
	for _, id := range leaders {
		br, ok := b.view.Broker(id)
		if !ok {
			continue
		}
		ep, err := br.endpoint(b.interListener)
		if err != nil {
			return nil, err
		}
		ll := kmsg.NewLeaderAndISRRequestLiveLeader()
		ll.BrokerID = id
		ll.Host = ep.Host
		ll.Port = ep.Port
		out = append(out, ll)
	}
	return out, nil
}
