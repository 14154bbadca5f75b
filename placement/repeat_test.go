package placement

import (
	"fmt"
	"testing"
)

// firstRepeat returns the index of the first partition whose replica list equals an earlier
// one's, or len(parts).
func firstRepeat(parts [][]int32) int {
	seen := map[string]bool{}
	for i, reps := range parts {
		k := fmt.Sprint(reps)
		if seen[k] {
			return i
		}
		seen[k] = true
	}
	return len(parts)
}

// repeatsExisting reports whether some added list equals an existing one.
func repeatsExisting(existing, added [][]int32) bool {
	seen := map[string]bool{}
	for _, reps := range existing {
		seen[fmt.Sprint(reps)] = true
	}
	for _, reps := range added {
		if seen[fmt.Sprint(reps)] {
			return true
		}
	}
	return false
}

// grow creates steps[0] partitions with create and then adds up to each later step with add.
// Callers check where the grown topic first repeats a list.
func grow(t *testing.T, create func(int) [][]int32, add func([][]int32, int) [][]int32, steps []int) [][]int32 {
	t.Helper()
	got := create(steps[0])
	for _, upto := range steps[1:] {
		got = append(got, add(got, upto)...)
	}
	return got
}

// Rack-unaware AdminUtils has n(n-1) distinct replica lists for rf >= 2; a topic grown in any
// steps with continuation uses all of them before repeating one.
func TestAdminUtilsContinuationNeverRepeatsWithinPeriod(t *testing.T) {
	for n := 3; n <= 7; n++ {
		var ids []int32
		for i := range n {
			ids = append(ids, int32(i))
		}
		brokers := plain(ids...)
		period := n * (n - 1)
		for rf := 2; rf <= min(3, n); rf++ {
			for start := range n {
				for shift := range n {
					for _, steps := range splits(period, uint64(start+n*shift)) {
						got := grow(t,
							func(m int) [][]int32 {
								out, _ := AssignReplicas(brokers, m, rf, Options{Start: &Start{start, shift}})
								return out
							},
							func(ex [][]int32, upto int) [][]int32 {
								out, err := AddPartitions(brokers, ex, upto, Options{})
								if err != nil {
									t.Fatal(err)
								}
								return out
							}, steps)
						if r := firstRepeat(got); r != period {
							t.Fatalf("n=%d rf=%d (%d,%d) steps %v: list %d repeats: %v", n, rf, start, shift, steps, r, got)
						}
					}
				}
			}
		}
	}
}

// Kafka's own add rule restarts the walk and reuses lists the topic already has.
func TestKafkaAddRuleRepeatsExistingLists(t *testing.T) {
	brokers := plain(0, 1, 2, 3, 4, 5)
	first, _ := AssignReplicas(brokers, 12, 3, Options{Start: FixedStart(0)})
	kafka, _ := AddPartitions(brokers, first, 24, Options{KafkaAddRule: true})
	if !repeatsExisting(first, kafka) {
		t.Fatal("expected Kafka's rule to repeat existing lists here")
	}
	cont, _ := AddPartitions(brokers, first, 24, Options{})
	if repeatsExisting(first, cont) {
		t.Fatalf("continuation repeated existing lists: %v", cont)
	}
}

// Seed 004: on racks 1-3 x 4 brokers, rf 3, the striped placer has 12 distinct lists before
// it reshuffles. Grown one partition at a time with continuation the topic uses all 12;
// ignoring existing partitions (Kafka 3.9, KafkaAddRule) repeats lists for some seeds.
func TestStripedContinuationAvoidsSeedRepeats(t *testing.T) {
	brokers := seedRacks()
	steps := []int{2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	kafkaRepeats := 0
	for seed := range uint64(30) {
		rnd := NewMockRandom(seed)
		create := func(m int) [][]int32 {
			out, err := AssignReplicas(brokers, m, 3, stripedOpts(rnd))
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
		got := grow(t, create, func(ex [][]int32, upto int) [][]int32 {
			out, err := AddPartitions(brokers, ex, upto, stripedOpts(rnd))
			if err != nil {
				t.Fatal(err)
			}
			return out
		}, steps)
		if r := firstRepeat(got); r != 12 {
			t.Fatalf("seed %d: list %d repeats: %v", seed, r, got)
		}
		existing := create(4)
		more, _ := AddPartitions(brokers, existing, 8, Options{Placer: Striped, Rand: rnd, KafkaAddRule: true})
		if repeatsExisting(existing, more) {
			kafkaRepeats++
		}
	}
	if kafkaRepeats == 0 {
		t.Fatal("ignoring existing partitions never repeated a list; the seed's problem did not reproduce")
	}
	t.Logf("Kafka 3.9 behaviour repeated an existing list in %d of 30 seeds; continuation in none", kafkaRepeats)
}
