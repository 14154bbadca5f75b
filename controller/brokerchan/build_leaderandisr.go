package brokerchan

import (
	"maps"
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/election"
)

// leaderAndIsrRequests builds one LeaderAndIsr per registered broker with
// pending partitions, ascending by broker id (reference §5.4).
func (b *Batch) leaderAndIsrRequests(controllerEpoch int32) ([]Request, error) {
	var out []Request
	for _, br := range sortedBrokers(b.view, b.leaderAndIsr) {
		req, err := b.leaderAndIsrFor(br, b.leaderAndIsr[br.ID], controllerEpoch)
		if err != nil {
			return nil, err
		}
		out = append(out, Request{Broker: br.ID, Msg: req})
	}
	return out, nil
}

// leaderAndIsrFor builds the LeaderAndIsr for one broker. Fields the chosen
// version does not carry are left at their defaults, so the struct equals
// what the broker decodes.
func (b *Batch) leaderAndIsrFor(target Broker, parts map[election.TopicPartition]leaderAndIsrEntry,
	controllerEpoch int32) (*kmsg.LeaderAndISRRequest, error) {
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
	leaders := map[int32]struct{}{}
	for _, tp := range sortedPartitions(parts) {
		e := parts[tp]
		leaders[e.state.Leader] = struct{}{}
		ps := b.leaderAndIsrPartition(tp, e, version)
		if version < 2 {
			ps.Topic = tp.Topic
			req.PartitionStates = append(req.PartitionStates, ps)
			continue
		}
		n := len(req.TopicStates)
		if n == 0 || req.TopicStates[n-1].Topic != tp.Topic {
			ts := kmsg.NewLeaderAndISRRequestTopicState()
			ts.Topic = tp.Topic
			if version >= 5 {
				ts.TopicID = b.topicID(tp.Topic)
			}
			req.TopicStates = append(req.TopicStates, ts)
			n++
		}
		req.TopicStates[n-1].PartitionStates = append(req.TopicStates[n-1].PartitionStates, ps)
	}
	live, err := b.liveLeaders(leaders)
	if err != nil {
		return nil, err
	}
	req.LiveLeaders = live
	return req, nil
}

// leaderAndIsrPartition fills one partition state for version.
func (b *Batch) leaderAndIsrPartition(tp election.TopicPartition, e leaderAndIsrEntry,
	version int16) kmsg.LeaderAndISRRequestTopicPartition {
	ps := kmsg.NewLeaderAndISRRequestTopicPartition()
	ps.Partition = tp.Partition
	ps.ControllerEpoch = e.state.ControllerEpoch
	ps.Leader = e.state.Leader
	ps.LeaderEpoch = e.state.LeaderEpoch
	ps.ISR = e.state.ISR
	ps.ZKVersion = e.state.PartitionEpoch
	ps.Replicas = e.assignment.Replicas
	if version >= 1 {
		ps.IsNew = e.isNew
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

// liveLeaders lists the registered brokers among leaders with their
// endpoint on the inter-broker listener, ascending by id. Brokers ignore
// the list (they find leaders in their metadata cache), but Kafka fails
// the whole batch when a leader lacks the listener, and so do we.
func (b *Batch) liveLeaders(leaders map[int32]struct{}) ([]kmsg.LeaderAndISRRequestLiveLeader, error) {
	var out []kmsg.LeaderAndISRRequestLiveLeader
	for _, id := range slices.Sorted(maps.Keys(leaders)) {
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
