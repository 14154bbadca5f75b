package brokersim

import (
	"maps"
	"math/rand/v2"
	"testing"
)

// TestPartitionTableMatchesMap drives a partitionTable and a plain map
// with the same random puts and removes and compares them after each.
func TestPartitionTableMatchesMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var table partitionTable[int]
	want := map[TopicPartition]int{}
	topics := []string{"a", "b", "c"}
	for step := range 5000 {
		tp := TopicPartition{Topic: topics[rng.IntN(len(topics))], Partition: int32(rng.IntN(12)) - 1}
		switch rng.IntN(3) {
		case 0, 1:
			table.put(tp, step)
			if tp.Partition >= 0 {
				want[tp] = step
			}
		default:
			table.remove(tp)
			delete(want, tp)
		}
		if table.len() != len(want) {
			t.Fatalf("step %d: len %d, want %d", step, table.len(), len(want))
		}
		probe := TopicPartition{Topic: topics[rng.IntN(len(topics))], Partition: int32(rng.IntN(14)) - 1}
		v, ok := table.get(probe)
		if wv, wok := want[probe]; v != wv || ok != wok {
			t.Fatalf("step %d: get %v = %d, %v; want %d, %v", step, probe, v, ok, wv, wok)
		}
	}
	if got := maps.Collect(table.all()); !maps.Equal(got, want) {
		t.Fatalf("all() = %v, want %v", got, want)
	}
	for tp := range want {
		table.remove(tp)
	}
	if table.len() != 0 || len(table.topics) != 0 {
		t.Fatalf("emptied table still holds %d partitions in %d topics", table.len(), len(table.topics))
	}
}

// TestPartitionTableRemoveWhileIterating removes each partition as all()
// yields it, as Broker code does.
func TestPartitionTableRemoveWhileIterating(t *testing.T) {
	var table partitionTable[string]
	for p := range int32(5) {
		table.put(TopicPartition{"x", p}, "x")
		table.put(TopicPartition{"y", p * 2}, "y")
	}
	seen := 0
	for tp := range table.all() {
		table.remove(tp)
		seen++
	}
	if seen != 10 || table.len() != 0 {
		t.Fatalf("saw %d partitions, %d left; want 10, 0", seen, table.len())
	}
}
