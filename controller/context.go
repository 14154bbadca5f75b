package controller

import (
	"cmp"
	"encoding/json"
	"iter"
	"maps"
	"slices"

	"github.com/kzadmin/kzadmin/controller/brokerchan"
	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/znodes"
)

// TopicPartition is election's partition name, used throughout.
type TopicPartition = election.TopicPartition

// partition is one partition in the controller context: its assignment,
// its cached leadership (nil when the controller knows none) and the two
// state machines' states for it.
type partition struct {
	assign   election.ReplicaAssignment
	lead     *election.LeaderAndIsr
	state    election.PartitionState
	replicas map[int32]election.ReplicaState
	// unknown holds fields of the state znode this package does not know,
	// re-emitted when the controller rewrites it (design brief §3).
	unknown map[string]json.RawMessage
	// stateErr is set when the state znode exists but could not be
	// decoded; the partition then has no leadership and starts Offline.
	stateErr error
}

// replicaState returns the replica's state; an unknown replica counts as
// NonExistentReplica, as in Kafka.
func (p *partition) replicaState(r int32) election.ReplicaState {
	if s, ok := p.replicas[r]; ok {
		return s
	}
	return election.NonExistentReplica
}

func (p *partition) setReplicaState(r int32, s election.ReplicaState) {
	if p.replicas == nil {
		p.replicas = make(map[int32]election.ReplicaState, len(p.assign.Replicas))
	}
	p.replicas[r] = s
}

// topic is one topic in the context.
type topic struct {
	name  string
	id    znodes.UUID
	parts map[int32]*partition
	// znode is the assignment as last read (Unknown fields included), kept
	// so that a rewrite (topic id, replica re-placement) preserves it.
	znode znodes.TopicAssignment
	// ordered caches the partitions in id order for the ordered scans,
	// with their ids in orderIDs (nil when the ids are 0..n-1, Kafka's
	// usual layout). nil when not known: putTopic, the only place
	// partitions are added, resets it.
	ordered  []*partition
	orderIDs []int32
}

// clusterContext is Kafka's ControllerContext: everything the active
// controller knows. It is owned by the event loop goroutine; nothing else
// reads or writes it. It implements election.Liveness and brokerchan.View
// with map lookups.
type clusterContext struct {
	brokers      map[int32]brokerchan.Broker
	shuttingDown map[int32]bool
	offlineDirs  map[int32]map[TopicPartition]bool
	topics       map[string]*topic
	topicByID    map[znodes.UUID]string
	// deleting is topicsToBeDeleted: it mirrors the deletion manager's
	// queue after every step (deletion.go, syncDeleting).
	deleting map[string]bool
	// topicOrder caches the topics ordered by name for the ordered scans;
	// nil when not known. putTopic and removeTopic, the only places topics
	// come and go, reset it.
	topicOrder []*topic
}

func newClusterContext() *clusterContext {
	return &clusterContext{
		brokers:      map[int32]brokerchan.Broker{},
		shuttingDown: map[int32]bool{},
		offlineDirs:  map[int32]map[TopicPartition]bool{},
		topics:       map[string]*topic{},
		topicByID:    map[znodes.UUID]string{},
		deleting:     map[string]bool{},
	}
}

// Registered implements election.Liveness.
func (cc *clusterContext) Registered(b int32) bool { _, ok := cc.brokers[b]; return ok }

// ShuttingDown implements election.Liveness.
func (cc *clusterContext) ShuttingDown(b int32) bool { return cc.shuttingDown[b] && cc.Registered(b) }

// OfflineDir implements election.Liveness.
func (cc *clusterContext) OfflineDir(b int32, tp TopicPartition) bool { return cc.offlineDirs[b][tp] }

// Broker implements brokerchan.View.
func (cc *clusterContext) Broker(id int32) (brokerchan.Broker, bool) {
	b, ok := cc.brokers[id]
	return b, ok
}

// Brokers implements brokerchan.View.
func (cc *clusterContext) Brokers() []brokerchan.Broker {
	return slices.Collect(maps.Values(cc.brokers))
}

// TopicID implements brokerchan.View.
func (cc *clusterContext) TopicID(name string) (znodes.UUID, bool) {
	t := cc.topics[name]
	if t == nil || t.id.IsZero() {
		return znodes.UUID{}, false
	}
	return t.id, true
}

// QueuedForDeletion implements brokerchan.View.
func (cc *clusterContext) QueuedForDeletion(name string) bool { return cc.deleting[name] }

// Replicas implements brokerchan.View.
func (cc *clusterContext) Replicas(tp TopicPartition) []int32 {
	if p := cc.partition(tp); p != nil {
		return p.assign.Replicas
	}
	return nil
}

// Leadership implements brokerchan.View.
func (cc *clusterContext) Leadership(tp TopicPartition) (election.LeaderAndIsr, bool) {
	if p := cc.partition(tp); p != nil && p.lead != nil {
		return *p.lead, true
	}
	return election.LeaderAndIsr{}, false
}

// partition returns the partition, or nil when the context has no
// assignment for it.
func (cc *clusterContext) partition(tp TopicPartition) *partition {
	t := cc.topics[tp.Topic]
	if t == nil {
		return nil
	}
	return t.parts[tp.Partition]
}

// brokerIDs returns the registered broker ids, ascending.
func (cc *clusterContext) brokerIDs() []int32 { return slices.Sorted(maps.Keys(cc.brokers)) }

// liveBrokerIDs returns registered brokers that are not shutting down.
func (cc *clusterContext) liveBrokerIDs() []int32 {
	var out []int32
	for _, id := range cc.brokerIDs() {
		if !cc.shuttingDown[id] {
			out = append(out, id)
		}
	}
	return out
}

// The ordered scans below visit partitions by topic and partition, so
// that batches and logs are deterministic. Failover, broker changes and
// the reassignment resume scan every partition (100k and more), so the
// order is cached rather than rebuilt per scan (topicOrder, ordered),
// until a topic or a partition is added or removed.

// orderedTopics returns the topics by name. The slice is the context's
// cache: callers must not modify it.
func (cc *clusterContext) orderedTopics() []*topic {
	if cc.topicOrder == nil && len(cc.topics) > 0 {
		cc.topicOrder = make([]*topic, 0, len(cc.topics))
		for _, name := range slices.Sorted(maps.Keys(cc.topics)) {
			cc.topicOrder = append(cc.topicOrder, cc.topics[name])
		}
	}
	return cc.topicOrder
}

// orderedParts returns the topic's partitions in id order and their ids
// (nil ids: the partitions are 0..n-1). The slices are the topic's cache.
func (t *topic) orderedParts() ([]*partition, []int32) {
	if t.ordered == nil && len(t.parts) > 0 {
		t.orderIDs = nil
		n := int32(len(t.parts))
		for id := range t.parts {
			if id < 0 || id >= n { // n distinct ids all below n are 0..n-1
				t.orderIDs = slices.Sorted(maps.Keys(t.parts))
				break
			}
		}
		t.ordered = make([]*partition, n)
		for i := range n {
			id := i
			if t.orderIDs != nil {
				id = t.orderIDs[i]
			}
			t.ordered[i] = t.parts[id]
		}
	}
	return t.ordered, t.orderIDs
}

// orderedPartitions yields every partition of the context ordered by topic
// and partition. The context must not gain or lose topics or partitions
// while the sequence runs.
func (cc *clusterContext) orderedPartitions() iter.Seq2[TopicPartition, *partition] {
	return func(yield func(TopicPartition, *partition) bool) {
		for _, t := range cc.orderedTopics() {
			parts, ids := t.orderedParts()
			for i, p := range parts {
				id := int32(i)
				if ids != nil {
					id = ids[i]
				}
				if !yield(TopicPartition{Topic: t.name, Partition: id}, p) {
					return
				}
			}
		}
	}
}

// partitionCount is the number of partitions in the context.
func (cc *clusterContext) partitionCount() int {
	n := 0
	for _, t := range cc.topics {
		n += len(t.parts)
	}
	return n
}

// sortedPartitions returns every partition of the context ordered by topic
// and partition.
func (cc *clusterContext) sortedPartitions() []TopicPartition {
	out := make([]TopicPartition, 0, cc.partitionCount())
	for tp := range cc.orderedPartitions() {
		out = append(out, tp)
	}
	return out
}

// partitionsWhere returns, in order, the partitions for which keep is true.
func (cc *clusterContext) partitionsWhere(keep func(TopicPartition, *partition) bool) []TopicPartition {
	var out []TopicPartition
	for tp, p := range cc.orderedPartitions() {
		if keep(tp, p) {
			out = append(out, tp)
		}
	}
	return out
}

// replicasOnBrokers returns every (partition, replica) hosted by one of
// ids, in partition order.
func (cc *clusterContext) replicasOnBrokers(ids []int32) []replicaKey {
	var out []replicaKey
	for tp, p := range cc.orderedPartitions() {
		for _, r := range p.assign.Replicas {
			if slices.Contains(ids, r) {
				out = append(out, replicaKey{tp, r})
			}
		}
	}
	return out
}

// partitionsWithLeaders is Kafka's partitionsWithLeaders: partitions with
// leadership info, topics queued for deletion excluded.
func (cc *clusterContext) partitionsWithLeaders() []TopicPartition {
	return cc.partitionsWhere(func(tp TopicPartition, p *partition) bool {
		return p.lead != nil && !cc.deleting[tp.Topic]
	})
}

// partitionsWithOfflineLeader: partitions with leadership info whose leader
// is not online, topics queued for deletion excluded.
func (cc *clusterContext) partitionsWithOfflineLeader() []TopicPartition {
	return cc.partitionsWhere(func(tp TopicPartition, p *partition) bool {
		return p.lead != nil && !cc.deleting[tp.Topic] && !election.LeaderOnline(cc, tp, *p.lead)
	})
}

// putTopic adds or replaces a topic's assignment; partitions already known
// keep their leadership and states.
func (cc *clusterContext) putTopic(name string, a znodes.TopicAssignment) *topic {
	t := cc.topics[name]
	if t == nil {
		t = &topic{name: name, parts: map[int32]*partition{}}
		cc.topics[name] = t
		cc.topicOrder = nil
	}
	if !t.id.IsZero() {
		delete(cc.topicByID, t.id)
	}
	t.id, t.znode = a.TopicID, a
	if !t.id.IsZero() {
		cc.topicByID[t.id] = name
	}
	for id, replicas := range a.Partitions {
		ra := election.ReplicaAssignment{
			Replicas: slices.Clone(replicas),
			Adding:   slices.Clone(a.AddingReplicas[id]),
			Removing: slices.Clone(a.RemovingReplicas[id]),
		}
		if p := t.parts[id]; p != nil {
			p.assign = ra
			continue
		}
		t.parts[id] = &partition{assign: ra, state: election.NonExistentPartition}
		t.ordered, t.orderIDs = nil, nil
	}
	return t
}

// removeTopic drops a topic and everything about it.
func (cc *clusterContext) removeTopic(name string) {
	if t := cc.topics[name]; t != nil && !t.id.IsZero() {
		delete(cc.topicByID, t.id)
	}
	if _, ok := cc.topics[name]; ok {
		cc.topicOrder = nil
	}
	delete(cc.topics, name)
	delete(cc.deleting, name)
}

// replicaKey names one replica: a partition and the broker hosting it.
type replicaKey struct {
	tp      TopicPartition
	replica int32
}

func compareReplicaKeys(a, b replicaKey) int {
	if c := cmp.Compare(a.replica, b.replica); c != 0 {
		return c
	}
	if c := cmp.Compare(a.tp.Topic, b.tp.Topic); c != 0 {
		return c
	}
	return cmp.Compare(a.tp.Partition, b.tp.Partition)
}
