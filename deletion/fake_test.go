package deletion

import (
	"maps"
	"slices"

	"github.com/kzadmin/kzadmin/controller/election"
)

// fakeCluster is a Cluster built from plain maps, changed by the tests
// between steps.
type fakeCluster struct {
	election.Snapshot
	topics      map[string]map[int32][]int32
	reassigning map[string]bool
	electing    map[string]bool
}

func newFakeCluster(brokers ...int32) *fakeCluster {
	return &fakeCluster{
		Snapshot:    election.NewSnapshot(brokers...),
		topics:      map[string]map[int32][]int32{},
		reassigning: map[string]bool{},
		electing:    map[string]bool{},
	}
}

func (f *fakeCluster) TopicExists(t string) bool { return f.topics[t] != nil }

func (f *fakeCluster) Assignment(t string) map[int32][]int32 {
	a := f.topics[t]
	if a == nil {
		return nil
	}
	out := make(map[int32][]int32, len(a))
	for p, rs := range a {
		out[p] = slices.Clone(rs)
	}
	return out
}

func (f *fakeCluster) Reassigning(t string) bool { return f.reassigning[t] }
func (f *fakeCluster) Electing(t string) bool    { return f.electing[t] }

// addTopic assigns partition i to replicas[i].
func (f *fakeCluster) addTopic(name string, replicas ...[]int32) {
	a := map[int32][]int32{}
	for i, rs := range replicas {
		a[int32(i)] = rs
	}
	f.topics[name] = a
}

// replicasOf lists a topic's replicas, sorted.
func (f *fakeCluster) replicasOf(name string) []Replica {
	var out []Replica
	for _, p := range slices.Sorted(maps.Keys(f.topics[name])) {
		for _, b := range f.topics[name][p] {
			out = append(out, Replica{TopicPartition: TopicPartition{Topic: name, Partition: p}, Broker: b})
		}
	}
	return out
}
