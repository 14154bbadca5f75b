package brokerchan

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller/election"
)

// The pending lists (batch_pending.go) take a fast path while adds come in
// partition order. These tests check that any other order gives the same
// requests: a random sequence of adds, with the view changing between
// them, against a model of what each broker and partition should end up
// with, replayed into a second batch in partition order.

// orderModel is what a batch should send, per Kafka's rules: for
// LeaderAndIsr and StopReplica the last add per broker and partition wins
// except that isNew and delete stick; for UpdateMetadata the view as the
// last add (with leadership) saw it.
type orderModel struct {
	lai   map[int32]map[election.TopicPartition]modelLAI
	um    map[election.TopicPartition]modelUM
	stop  map[int32]map[election.TopicPartition]stopReplicaEntry
	umTo  map[int32]bool
	umAll bool
}

type modelLAI struct {
	state election.LeaderAndIsr
	a     election.ReplicaAssignment
	isNew bool
}

// modelUM is the view's state of a partition when UpdateMetadata read it.
type modelUM struct {
	lead     election.LeaderAndIsr
	deleting bool
}

func newOrderModel() *orderModel {
	return &orderModel{
		lai:  map[int32]map[election.TopicPartition]modelLAI{},
		um:   map[election.TopicPartition]modelUM{},
		stop: map[int32]map[election.TopicPartition]stopReplicaEntry{},
		umTo: map[int32]bool{},
	}
}

// observeUM records what an UpdateMetadata add of x reads from v.
func (m *orderModel) observeUM(v *fakeView, x election.TopicPartition) {
	if l, ok := v.leaders[x]; ok {
		m.um[x] = modelUM{lead: l.Clone(), deleting: v.deleting[x.Topic]}
	}
}

// randomAdds fills b with n random adds over a few partitions of two
// topics and brokers 1–4 (and -1, which is dropped), changing the view's
// leadership and deletion flags in between, and returns the model.
func randomAdds(r *rand.Rand, v *fakeView, b *Batch, n int) *orderModel {
	m := newOrderModel()
	tps := orderPartitions()
	brokers := func() []int32 {
		var out []int32
		for _, id := range []int32{-1, 1, 2, 3, 4} {
			if r.IntN(3) == 0 {
				out = append(out, id)
			}
		}
		return out
	}
	for range n {
		x := tps[r.IntN(len(tps))]
		switch r.IntN(6) {
		case 0: // the view changes
			l := election.LeaderAndIsr{Leader: int32(r.IntN(4)), LeaderEpoch: int32(r.IntN(50)),
				ISR: []int32{int32(r.IntN(4))}, PartitionEpoch: int32(r.IntN(9))}
			v.leaders[x] = l
		case 1:
			if r.IntN(4) == 0 {
				delete(v.leaders, x)
			}
			v.deleting[x.Topic] = r.IntN(4) == 0
		case 2, 3:
			addRandomLAI(r, v, b, m, brokers(), x)
		case 4:
			ids, all := brokers(), r.IntN(3) == 0
			if all {
				b.AddUpdateMetadataToAll(x)
				m.umAll = true
			} else {
				b.AddUpdateMetadata(ids, x)
				for _, id := range ids {
					m.umTo[id] = m.umTo[id] || id >= 0
				}
			}
			m.observeUM(v, x)
		case 5:
			ids, del := brokers(), r.IntN(2) == 0
			b.AddStopReplica(ids, x, del)
			for _, id := range ids {
				if id < 0 {
					continue
				}
				if m.stop[id] == nil {
					m.stop[id] = map[election.TopicPartition]stopReplicaEntry{}
				}
				prev := m.stop[id][x]
				m.stop[id][x] = stopReplicaEntry{tp: x, leaderEpoch: leaderEpochForStop(v, x), delete: del || prev.delete}
			}
		}
	}
	return m
}

func addRandomLAI(r *rand.Rand, v *fakeView, b *Batch, m *orderModel, ids []int32, x election.TopicPartition) {
	state := election.LeaderAndIsr{Leader: int32(r.IntN(5)), LeaderEpoch: int32(r.IntN(50)), ISR: []int32{1, int32(r.IntN(4))},
		PartitionEpoch: int32(r.IntN(9)), ControllerEpoch: 2}
	a := election.ReplicaAssignment{Replicas: []int32{1, 2, 3}}
	if r.IntN(3) == 0 {
		a.Adding = []int32{int32(r.IntN(4))}
	}
	isNew := r.IntN(4) == 0
	b.AddLeaderAndIsr(ids, x, state, a, isNew)
	for _, id := range ids {
		if id < 0 {
			continue
		}
		if m.lai[id] == nil {
			m.lai[id] = map[election.TopicPartition]modelLAI{}
		}
		m.lai[id][x] = modelLAI{state: state, a: a, isNew: isNew || m.lai[id][x].isNew}
	}
	m.umAll = true
	m.observeUM(v, x)
}

// replay fills a fresh batch with the model's outcome, adding partitions in
// order, one add per broker and partition (the fast path), setting the view
// to what each add must read.
func (m *orderModel) replay(v *fakeView, b *Batch) {
	var tps []election.TopicPartition
	for x := range m.um {
		tps = append(tps, x)
	}
	for _, parts := range m.lai {
		for x := range parts {
			tps = append(tps, x)
		}
	}
	slices.SortFunc(tps, comparePartitions)
	tps = slices.Compact(tps)
	for _, x := range tps {
		delete(v.leaders, x)
		if u, ok := m.um[x]; ok {
			v.leaders[x], v.deleting[x.Topic] = u.lead, u.deleting
		}
		added := false
		for _, id := range []int32{1, 2, 3, 4} {
			if e, ok := m.lai[id][x]; ok {
				b.AddLeaderAndIsr([]int32{id}, x, e.state, e.a, e.isNew)
				added = true
			}
		}
		if !added {
			b.AddUpdateMetadata(nil, x)
		}
	}
	m.replayRest(v, b)
}

// replayRest adds the UpdateMetadata brokers and the StopReplicas.
func (m *orderModel) replayRest(v *fakeView, b *Batch) {
	for id, ok := range m.umTo {
		if ok {
			b.AddUpdateMetadata([]int32{id})
		}
	}
	if m.umAll {
		b.AddUpdateMetadataToAll()
	}
	for id, parts := range m.stop {
		var es []stopReplicaEntry
		for _, e := range parts {
			es = append(es, e)
		}
		slices.SortFunc(es, func(x, y stopReplicaEntry) int { return comparePartitions(x.tp, y.tp) })
		for _, e := range es {
			// Make the view give the recorded epoch.
			v.deleting[e.tp.Topic] = e.leaderEpoch == EpochDuringDelete
			delete(v.leaders, e.tp)
			if e.leaderEpoch >= 0 {
				v.leaders[e.tp] = election.LeaderAndIsr{LeaderEpoch: e.leaderEpoch}
			}
			b.AddStopReplica([]int32{id}, e.tp, e.delete)
		}
	}
}

// TestAnyAddOrderSameRequests: random adds against the in-order replay of
// their model, at the newest IBP and at old ones (ungrouped layouts, two
// StopReplicas per broker).
func TestAnyAddOrderSameRequests(t *testing.T) {
	for _, ibp := range []config.IBP{config.IBPLatest, mustIBP(t, "2.2"), mustIBP(t, "0.10.0")} {
		for seed := range uint64(300) {
			t.Run(fmt.Sprintf("%s/%d", ibp, seed), func(t *testing.T) {
				r := rand.New(rand.NewPCG(seed, 7))
				cfg := Config{IBP: ibp, ControllerID: testControllerID, Self: selfBroker()}
				v := orderView()
				b := NewBatch(cfg, v)
				m := randomAdds(r, v, b, 1+r.IntN(40))
				got, err := b.Emit(testControllerEpoch)
				if err != nil {
					t.Fatal(err)
				}
				v2 := orderView()
				b2 := NewBatch(cfg, v2)
				m.replay(v2, b2)
				want, err := b2.Emit(testControllerEpoch)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("requests differ from the in-order replay: %s", firstDifference(got, want))
				}
			})
		}
	}
}

func orderPartitions() []election.TopicPartition {
	return []election.TopicPartition{tp("bar", 0), tp("bar", 1), tp("foo", 0), tp("foo", 1), tp("foo", 2)}
}

// orderView has brokers 1–3 (3 shutting down, so UpdateMetadata lists an
// offline replica), foo (with a topic id) and bar on [1 2 3], led by 1;
// broker 4 is never registered.
func orderView() *fakeView {
	v := newFakeView()
	v.addBroker(1, 101, strp("r1"))
	v.addBroker(2, 102, strp("r2"))
	v.addBroker(3, 103, strp("r1"))
	v.Snapshot = v.Snapshot.WithShutdown(3)
	v.ids["foo"] = fooID
	for _, x := range orderPartitions() {
		v.addPartition(x, []int32{1, 2, 3}, &election.LeaderAndIsr{Leader: 1, LeaderEpoch: 1, ISR: []int32{1, 2, 3}})
	}
	return v
}

// firstDifference returns the first request that differs, rendered.
func firstDifference(got, want []Request) string {
	for i := range max(len(got), len(want)) {
		switch {
		case i >= len(got):
			return fmt.Sprintf("request %d missing, want %s", i, dump(want[i]))
		case i >= len(want):
			return fmt.Sprintf("request %d extra: %s", i, dump(got[i]))
		case !reflect.DeepEqual(got[i], want[i]):
			return fmt.Sprintf("request %d:\n got  %s\n want %s", i, dump(got[i]), dump(want[i]))
		}
	}
	return "none"
}

// TestSlabClone: copies keep nil and empty apart, are capped (an append
// does not run into the next copy) and do not alias their source.
func TestSlabClone(t *testing.T) {
	var a int32Slab
	if a.clone(nil) != nil {
		t.Error("clone(nil) is not nil")
	}
	if e := a.clone([]int32{}); e == nil || len(e) != 0 {
		t.Errorf("clone(empty) = %#v, want empty non-nil", e)
	}
	src := []int32{1, 2, 3}
	x, y := a.clone(src), a.clone([]int32{7, 8})
	src[0] = 99
	if !slices.Equal(x, []int32{1, 2, 3}) || cap(x) != 3 {
		t.Errorf("copy %v cap %d: aliased or uncapped", x, cap(x))
	}
	_ = append(x, 4)
	if !slices.Equal(y, []int32{7, 8}) {
		t.Errorf("append to one copy changed the next: %v", y)
	}
	big := make([]int32, slabChunk)
	if c := a.clone(big); len(c) != slabChunk || &c[0] == &big[0] {
		t.Error("a long slice was not copied")
	}
	for i := range slabChunk { // crosses chunk boundaries
		if c := a.clone([]int32{int32(i), 1, 2}); c[0] != int32(i) || cap(c) != 3 {
			t.Fatalf("copy %d: %v cap %d", i, c, cap(c))
		}
	}
}

// TestGroupedAddSameAsPerBroker: one add for several brokers equals one add
// per broker with the same state (what the replica state machine relies on
// when it gathers a partition's replicas into one add).
func TestGroupedAddSameAsPerBroker(t *testing.T) {
	v, tps := benchView(4, 300)
	build := func(grouped bool) []Request {
		b := NewBatch(Config{IBP: config.IBPLatest, ControllerID: testControllerID, Self: selfBroker()}, v)
		for _, x := range tps {
			l, _ := v.Leadership(x)
			a := election.ReplicaAssignment{Replicas: v.replicas[x]}
			if grouped {
				b.AddLeaderAndIsr(a.Replicas, x, l, a, false)
				continue
			}
			for _, r := range a.Replicas {
				b.AddLeaderAndIsr([]int32{r}, x, l, a, false)
			}
		}
		return emit(t, b)
	}
	if got, want := build(true), build(false); !reflect.DeepEqual(got, want) {
		t.Errorf("grouped adds differ: %s", firstDifference(got, want))
	}
}
