package brokerchan

import (
	"cmp"
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/znodes"
)

// updateMetadataRequests builds one UpdateMetadata per registered broker in
// the batch's broker set, ascending by id. Every request carries the same
// partitions and live brokers; only BrokerEpoch differs (reference §5.4).
func (b *Batch) updateMetadataRequests(controllerEpoch int32) ([]Request, error) {
	if b.umAll {
		for _, br := range b.view.Brokers() {
			b.umBrokers[br.ID] = struct{}{}
		}
	}
	targets := sortedBrokers(b.view, b.umBrokers)
	if len(targets) == 0 {
		return nil, nil
	}
	version := b.requestVersion.UpdateMetadata
	live, err := b.liveBrokers(version)
	if err != nil {
		return nil, err
	}
	var ungrouped []kmsg.UpdateMetadataRequestTopicPartition
	var grouped []kmsg.UpdateMetadataRequestTopicState
	if version < 5 {
		ungrouped = b.ungroupedPartitionStates(version)
	} else {
		grouped = b.topicStates(version)
	}
	out := make([]Request, 0, len(targets))
	for _, br := range targets {
		req := kmsg.NewPtrUpdateMetadataRequest()
		req.Version = version
		req.ControllerID = b.cfg.ControllerID
		req.ControllerEpoch = controllerEpoch
		// IsKRaftController (v8) stays false; the v8 tagged Type stays 0.
		if version >= 5 {
			req.BrokerEpoch = br.Epoch
		}
		req.PartitionStates = ungrouped
		req.TopicStates = grouped
		req.LiveBrokers = live
		out = append(out, Request{Broker: br.ID, Msg: req})
	}
	return out, nil
}

// umPartition fills one partition state for version.
func umPartition(e *updateMetadataEntry, version int16) kmsg.UpdateMetadataRequestTopicPartition {
	ps := kmsg.NewUpdateMetadataRequestTopicPartition()
	if version < 5 {
		ps.Topic = e.tp.Topic
	}
	ps.Partition = e.tp.Partition
	ps.ControllerEpoch = e.state.ControllerEpoch
	ps.Leader = e.state.Leader
	ps.LeaderEpoch = e.state.LeaderEpoch
	ps.ISR = e.state.ISR
	ps.ZKVersion = e.state.PartitionEpoch
	ps.Replicas = e.replicas
	if version >= 4 {
		ps.OfflineReplicas = e.offline
	}
	return ps
}

// ungroupedPartitionStates is the v0–v4 layout: one flat list, each entry
// naming its topic.
func (b *Batch) ungroupedPartitionStates(version int16) []kmsg.UpdateMetadataRequestTopicPartition {
	entries := b.umPartitions.sorted()
	if entries.len() == 0 {
		return nil
	}
	out := make([]kmsg.UpdateMetadataRequestTopicPartition, 0, entries.len())
	for e := range entries.all() {
		out = append(out, umPartition(e, version))
	}
	return out
}

// topicStates is the v5+ layout: partitions grouped by topic, with the
// topic id from v7. A topic without an id gets the zero id, which makes a
// broker forget the id it had cached. Each topic's states are a capped
// sub-slice of one allocation.
func (b *Batch) topicStates(version int16) []kmsg.UpdateMetadataRequestTopicState {
	entries := b.umPartitions.sorted()
	states := make([]kmsg.UpdateMetadataRequestTopicPartition, 0, entries.len())
	var out []kmsg.UpdateMetadataRequestTopicState
	group := func(topic string, states []kmsg.UpdateMetadataRequestTopicPartition) {
		ts := kmsg.NewUpdateMetadataRequestTopicState()
		ts.Topic = topic
		if version >= 7 {
			ts.TopicID = b.topicID(topic)
		}
		ts.PartitionStates = states
		out = append(out, ts)
	}
	first, topic := 0, "" // the current topic and its first partition
	for e := range entries.all() {
		if n := len(states); n > first && e.tp.Topic != topic {
			group(topic, states[first:n:n])
			first = n
		}
		topic = e.tp.Topic
		states = append(states, umPartition(e, version))
	}
	if len(states) > first {
		group(topic, states[first:])
	}
	return out
}

// liveBrokers lists every registered broker, plus Config.Self, ascending by
// id, shutting-down brokers included.
func (b *Batch) liveBrokers(version int16) ([]kmsg.UpdateMetadataRequestLiveBroker, error) {
	brokers := b.view.Brokers()
	if self := b.cfg.Self; self != nil {
		// A registered broker with the controller's id (which startup
		// refuses) would otherwise appear twice.
		if _, registered := b.view.Broker(self.ID); !registered {
			brokers = append(slices.Clone(brokers), WithRack(*self, brokers))
		}
	}
	slices.SortFunc(brokers, func(x, y Broker) int { return cmp.Compare(x.ID, y.ID) })
	out := make([]kmsg.UpdateMetadataRequestLiveBroker, 0, len(brokers))
	for _, br := range brokers {
		lb, err := liveBroker(br, version)
		if err != nil {
			return nil, err
		}
		out = append(out, lb)
	}
	return out, nil
}

// WithRack gives the controller a rack when it has none and every
// registered broker has one: a ZooKeeper-mode broker auto-creating a topic
// places replicas over every live broker of its metadata, the controller
// included, and Kafka's AdminUtils refuses outright ("Not all brokers have
// rack information") when only some of them have a rack, which would stop
// every auto-creation, __consumer_offsets included. The controller joins
// the rack of the lowest broker id, so that it counts as one more broker
// of an existing rack rather than a rack of its own (which rack-aware
// placement would put in most partitions); the controller re-places any
// replica it gets. Mixed clusters, which Kafka refuses anyway, are left
// alone.
func WithRack(self Broker, brokers []Broker) Broker {
	if self.Rack != nil || len(brokers) == 0 {
		return self
	}
	var first *Broker
	for i := range brokers {
		if brokers[i].Rack == nil {
			return self
		}
		if first == nil || brokers[i].ID < first.ID {
			first = &brokers[i]
		}
	}
	self.Rack = first.Rack
	return self
}

// liveBroker describes one broker for version: v0 has the host and port of
// the listener named PLAINTEXT only (Kafka's choice, whatever that
// listener's protocol); v1+ every endpoint, listener names from
// v3 (older versions reject names that differ from the protocol's), the
// rack from v2.
func liveBroker(br Broker, version int16) (kmsg.UpdateMetadataRequestLiveBroker, error) {
	lb := kmsg.NewUpdateMetadataRequestLiveBroker()
	lb.ID = br.ID
	if version == 0 {
		ep, err := br.endpoint(znodes.ProtocolPlaintext)
		if err != nil {
			return lb, err
		}
		lb.Host = ep.Host
		lb.Port = ep.Port
		return lb, nil
	}
	for _, ep := range br.Endpoints {
		proto, err := securityProtocolID(ep.SecurityProtocol)
		if err != nil {
			return lb, &UnsupportedEndpointError{Version: version, Broker: br.ID, Endpoint: ep}
		}
		if version < 3 && ep.Listener != ep.SecurityProtocol {
			return lb, &UnsupportedEndpointError{Version: version, Broker: br.ID, Endpoint: ep}
		}
		e := kmsg.NewUpdateMetadataRequestLiveBrokerEndpoint()
		e.Port = ep.Port
		e.Host = ep.Host
		if version >= 3 {
			e.ListenerName = ep.Listener
		}
		e.SecurityProtocol = proto
		lb.Endpoints = append(lb.Endpoints, e)
	}
	if version >= 2 && br.Rack != nil {
		rack := *br.Rack
		lb.Rack = &rack
	}
	return lb, nil
}
