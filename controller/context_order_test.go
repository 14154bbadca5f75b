package controller

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/kzadmin/kzadmin/znodes"
)

// naivePartitions is the reference order: every partition of the
// context, collected then sorted by topic and partition.
func naivePartitions(cc *clusterContext) []TopicPartition {
	var out []TopicPartition
	for name, t := range cc.topics {
		for id := range t.parts {
			out = append(out, TopicPartition{Topic: name, Partition: id})
		}
	}
	slices.SortFunc(out, func(a, b TopicPartition) int {
		return cmp.Or(cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition))
	})
	return out
}

// assignmentOf places partition ids on broker 1.
func assignmentOf(ids ...int32) znodes.TopicAssignment {
	a := znodes.TopicAssignment{Partitions: map[int32][]int32{}}
	for _, id := range ids {
		a.Partitions[id] = []int32{1}
	}
	return a
}

// TestPartitionOrder checks the context's partition order against the
// reference after each kind of change that can invalidate what the context
// keeps sorted: new topics, partitions added (densely and with gaps), a
// topic removed and re-created.
func TestPartitionOrder(t *testing.T) {
	cc := newClusterContext()
	steps := []struct {
		name string
		do   func()
	}{
		{"empty", func() {}},
		{"dense topics", func() {
			cc.putTopic("b", assignmentOf(0, 1, 2))
			cc.putTopic("a", assignmentOf(0))
		}},
		{"sparse ids", func() { cc.putTopic("c", assignmentOf(7, 2, 0, 11)) }},
		{"partitions added", func() { cc.putTopic("a", assignmentOf(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)) }},
		{"gap filled", func() { cc.putTopic("c", assignmentOf(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)) }},
		{"reassigned only", func() { cc.putTopic("b", assignmentOf(0, 1, 2)) }},
		{"topic removed", func() { cc.removeTopic("b") }},
		{"topic re-created", func() { cc.putTopic("b", assignmentOf(4, 3)) }},
		{"topic before all", func() { cc.putTopic("0", assignmentOf(1)) }},
		{"all removed", func() {
			for _, n := range slices.Collect(maps.Keys(cc.topics)) {
				cc.removeTopic(n)
			}
		}},
	}
	for _, s := range steps {
		s.do()
		want := naivePartitions(cc)
		if got := cc.sortedPartitions(); !slices.Equal(got, want) {
			t.Errorf("%s: sortedPartitions %v, want %v", s.name, got, want)
		}
		var odd []TopicPartition
		for _, tp := range want {
			if tp.Partition%2 == 1 {
				odd = append(odd, tp)
			}
		}
		got := cc.partitionsWhere(func(tp TopicPartition, p *partition) bool {
			if p != cc.partition(tp) {
				t.Errorf("%s: %v handed the wrong partition", s.name, tp)
			}
			return tp.Partition%2 == 1
		})
		if !slices.Equal(got, odd) {
			t.Errorf("%s: partitionsWhere %v, want %v", s.name, got, odd)
		}
	}
}

// BenchmarkPartitionsWhere: the scan triggerOnline and resumeReassignments
// make over a context of 100k partitions when few match, as many topics
// with a few partitions and as a few topics with many.
func BenchmarkPartitionsWhere(b *testing.B) {
	for _, shape := range []struct{ topics, parts int }{{1000, 100}, {25000, 4}} {
		b.Run(fmt.Sprintf("%dx%d", shape.topics, shape.parts), func(b *testing.B) {
			cc := newClusterContext()
			ids := make([]int32, shape.parts)
			for i := range ids {
				ids[i] = int32(i)
			}
			for i := range shape.topics {
				cc.putTopic(fmt.Sprintf("topic-%05d", i), assignmentOf(ids...))
			}
			b.ReportAllocs()
			for b.Loop() {
				tps := cc.partitionsWhere(func(tp TopicPartition, p *partition) bool { return tp.Partition == 0 })
				if len(tps) != shape.topics {
					b.Fatalf("%d partitions", len(tps))
				}
			}
		})
	}
}
