package brokersim

import (
	"iter"
	"slices"
)

// partitionTable maps partitions to values, kept in a slice per topic
// rather than a map entry per partition (as the metadata cache keeps
// them). The simulated brokers share the benchmarks' cores with the
// controller they test and with ZooKeeper: a map keyed by partition cost
// them a string hash per lookup and a rehash of its growing tables per new
// partition, which, for six brokers holding tens of thousands of replicas,
// took more CPU than the controller's own handling of the same creates.
//
// The zero value is an empty table. It is not safe for concurrent use.
type partitionTable[V any] struct {
	topics map[string]*tableTopic[V]
	count  int
}

type tableTopic[V any] struct {
	slots []tableSlot[V] // indexed by partition
	count int
}

type tableSlot[V any] struct {
	v  V
	ok bool
}

// get returns the value of tp, and whether it has one.
func (t *partitionTable[V]) get(tp TopicPartition) (V, bool) {
	var zero V
	tt := t.topics[tp.Topic]
	if tt == nil || tp.Partition < 0 || int(tp.Partition) >= len(tt.slots) {
		return zero, false
	}
	s := tt.slots[tp.Partition]
	return s.v, s.ok
}

// at is get without the presence flag: the zero value when tp has none.
func (t *partitionTable[V]) at(tp TopicPartition) V {
	v, _ := t.get(tp)
	return v
}

// put sets the value of tp. A negative partition is ignored: none exists.
func (t *partitionTable[V]) put(tp TopicPartition, v V) {
	if tp.Partition < 0 {
		return
	}
	if t.topics == nil {
		t.topics = make(map[string]*tableTopic[V])
	}
	tt := t.topics[tp.Topic]
	if tt == nil {
		tt = &tableTopic[V]{}
		t.topics[tp.Topic] = tt
	}
	if n := int(tp.Partition) + 1; n > len(tt.slots) {
		tt.slots = slices.Grow(tt.slots, n-len(tt.slots))[:n]
	}
	s := &tt.slots[tp.Partition]
	if !s.ok {
		tt.count++
		t.count++
	}
	*s = tableSlot[V]{v: v, ok: true}
}

// remove drops the value of tp, and the topic once it holds none.
func (t *partitionTable[V]) remove(tp TopicPartition) {
	tt := t.topics[tp.Topic]
	if tt == nil || tp.Partition < 0 || int(tp.Partition) >= len(tt.slots) || !tt.slots[tp.Partition].ok {
		return
	}
	tt.slots[tp.Partition] = tableSlot[V]{}
	tt.count--
	t.count--
	if tt.count == 0 {
		delete(t.topics, tp.Topic)
	}
}

// len is the number of partitions with a value.
func (t *partitionTable[V]) len() int { return t.count }

// all yields every partition with its value, topics in no set order and
// each topic's partitions in order. The body may remove the partition it
// is given, but must not add any.
func (t *partitionTable[V]) all() iter.Seq2[TopicPartition, V] {
	return func(yield func(TopicPartition, V) bool) {
		for name, tt := range t.topics {
			for p := range tt.slots {
				s := tt.slots[p]
				if s.ok && !yield(TopicPartition{Topic: name, Partition: int32(p)}, s.v) {
					return
				}
			}
		}
	}
}
