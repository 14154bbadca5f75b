package placement

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
)

// ub is a [id, rack, fenced] triple from the reference; rack "" is Optional.empty.
type ub struct {
	id     int32
	rack   string
	fenced bool
}

func usable(list ...ub) []Broker {
	var out []Broker
	for _, b := range list {
		out = append(out, Broker{ID: b.id, Rack: b.rack, HasRack: b.rack != "", Fenced: b.fenced})
	}
	return out
}

// rlPlace calls RackList.place directly, as Kafka's "RL" tests do.
func rlPlace(rl *rackList, rf int) ([]int32, error) {
	reps := make([]int32, max(rf, 0))
	err := rl.place(rf, reps, newGuard(nil, nil, len(rl.ids), 1, max(rf, 0)))
	return reps, err
}

func wantIRFE(t *testing.T, err error, msg string) {
	t.Helper()
	var pe *Error
	if !errors.As(err, &pe) || pe.Kind != InvalidReplicationFactor || pe.Msg != msg {
		t.Fatalf("err = %v, want InvalidReplicationFactor %q", err, msg)
	}
}

func TestBrokerList(t *testing.T) {
	l := brokerList{brokers: []int{0, 1, 2, 3}}
	var got []int
	for range 6 {
		got = append(got, l.next(0))
	}
	for range 5 {
		got = append(got, l.next(1))
	}
	if want := []int{0, 1, 2, 3, -1, -1, 1, 2, 3, 0, -1}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	var empty brokerList
	if empty.next(1) != -1 || empty.epoch != 0 || len(empty.brokers) != 0 {
		t.Fatal("empty list changed state")
	}
}

func TestRackListVectors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		brokers []Broker
		total   int
		unf     int
		rf      int
		want    [][]int32
	}{
		{"AvoidFencedReplicaIfPossibleOnSingleRack",
			usable(ub{3, "", false}, ub{1, "", true}, ub{0, "", false}, ub{4, "", false}, ub{2, "", false}), 5, 4, 4,
			[][]int32{{3, 4, 0, 2}, {4, 0, 2, 3}, {0, 2, 3, 4}, {2, 3, 4, 0}, {0, 4, 3, 2}}},
		{"PlacementOnFencedReplicaOnSingleRack",
			usable(ub{3, "", false}, ub{1, "", true}, ub{2, "", false}), 3, 2, 3,
			[][]int32{{3, 2, 1}, {2, 3, 1}, {3, 2, 1}, {2, 3, 1}}},
		{"RackListWithMultipleRacks",
			usable(ub{11, "1", false}, ub{10, "1", false}, ub{30, "3", false}, ub{31, "3", false}, ub{21, "2", false}, ub{20, "2", true}),
			6, 5, 4, [][]int32{{11, 21, 31, 10}, {21, 30, 10, 20}, {31, 11, 21, 30}}},
		{"RackListWithInvalidRacks",
			usable(ub{11, "1", false}, ub{10, "1", false}, ub{30, "3", true}, ub{31, "3", true}, ub{20, "2", true},
				ub{21, "2", true}, ub{41, "4", false}, ub{40, "4", true}),
			8, 3, 4, [][]int32{{41, 11, 21, 30}, {10, 20, 31, 41}, {41, 21, 30, 11}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rl := newRackList(NewMockRandom(MockRandomSeed), tc.brokers, nil)
			if rl.numTotal != tc.total || rl.numUnfenced != tc.unf {
				t.Fatalf("total/unfenced = %d/%d, want %d/%d", rl.numTotal, rl.numUnfenced, tc.total, tc.unf)
			}
			for i, want := range tc.want {
				got, err := rlPlace(rl, tc.rf)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("place #%d = %v, want %v", i+1, got, want)
				}
			}
		})
	}
}

func TestRackListRejectsNonPositiveBeforePlacing(t *testing.T) {
	rl := newRackList(NewMockRandom(MockRandomSeed),
		usable(ub{3, "", false}, ub{1, "", true}, ub{0, "", false}, ub{4, "", false}, ub{2, "", false}), nil)
	for _, rf := range []int{0, -1} {
		_, err := rlPlace(rl, rf)
		wantIRFE(t, err, fmt.Sprintf("Invalid replication factor %d: the replication factor must be positive.", rf))
	}
	got, _ := rlPlace(rl, 4)
	if !reflect.DeepEqual(got, []int32{3, 4, 0, 2}) {
		t.Fatalf("first placement after rejected calls = %v", got)
	}
}

func TestRackListErrors(t *testing.T) {
	two := usable(ub{11, "1", false}, ub{10, "1", false})
	for _, tc := range []struct {
		brokers []Broker
		rf      int
		msg     string
	}{
		{usable(ub{0, "", true}, ub{1, "", true}, ub{2, "", true}), 3, "All brokers are currently fenced."},
		{two, 3, "The target replication factor of 3 cannot be reached because only 2 broker(s) are registered."},
		{two, -1, "Invalid replication factor -1: the replication factor must be positive."},
		// RackList.place checks "too few" before "all fenced".
		{usable(ub{11, "1", true}, ub{10, "1", true}), 3,
			"The target replication factor of 3 cannot be reached because only 2 broker(s) are registered."},
	} {
		_, err := rlPlace(newRackList(NewMockRandom(MockRandomSeed), tc.brokers, nil), tc.rf)
		wantIRFE(t, err, tc.msg)
	}
}

func stripedOpts(r Rand) Options { return Options{Placer: Striped, Rand: r} }

func TestStripedPlacerVectors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		brokers []Broker
		n, rf   int
		want    [][]int32
	}{
		{"MultiPartitionTopicPlacementOnSingleUnfencedBroker", usable(ub{0, "", false}, ub{1, "", true}), 3, 1,
			[][]int32{{0}, {0}, {0}}},
		{"SuccessfulPlacement", usable(ub{0, "", false}, ub{3, "", false}, ub{2, "", false}, ub{1, "", false}), 5, 3,
			[][]int32{{2, 3, 0}, {3, 0, 1}, {0, 1, 2}, {1, 2, 3}, {1, 0, 2}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := AssignReplicas(tc.brokers, tc.n, tc.rf, stripedOpts(NewMockRandom(MockRandomSeed)))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestStripedEvenDistribution(t *testing.T) {
	rec := &recordingRand{r: NewMockRandom(MockRandomSeed)}
	got, err := AssignReplicas(plain(0, 1, 2, 3), 200, 2, stripedOpts(rec))
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, reps := range got {
		counts[fmt.Sprint(reps)]++
	}
	want := map[string]int{"[0 1]": 14, "[0 2]": 22, "[0 3]": 14, "[1 0]": 17, "[1 2]": 17, "[1 3]": 16,
		"[2 0]": 13, "[2 1]": 17, "[2 3]": 20, "[3 0]": 20, "[3 1]": 19, "[3 2]": 11}
	if !reflect.DeepEqual(counts, want) {
		t.Errorf("pair counts = %v\nwant %v", counts, want)
	}
	first24 := [][]int32{{2, 3}, {3, 0}, {0, 1}, {1, 2}, {1, 0}, {0, 2}, {2, 3}, {3, 1}, {1, 0}, {0, 2}, {2, 3}, {3, 1},
		{0, 2}, {2, 1}, {1, 3}, {3, 0}, {0, 2}, {2, 3}, {3, 1}, {1, 0}, {2, 1}, {1, 3}, {3, 0}, {0, 2}}
	if !reflect.DeepEqual(got[:24], first24) {
		t.Errorf("first 24 = %v", got[:24])
	}
	if len(rec.bounds) != 149 {
		t.Errorf("RNG calls = %d, want 149", len(rec.bounds))
	}
}

func TestStripedPlacerErrors(t *testing.T) {
	for _, tc := range []struct {
		brokers []Broker
		rf      int
		msg     string
	}{
		{usable(ub{11, "1", true}, ub{10, "1", true}), 1, "All brokers are currently fenced."},
		{usable(ub{11, "1", false}, ub{10, "1", false}), 3,
			"The target replication factor of 3 cannot be reached because only 2 broker(s) are registered."},
		{usable(ub{11, "1", false}, ub{10, "1", false}), 0, "Invalid replication factor 0: the replication factor must be positive."},
		// The placer's own order: non-positive, then all fenced, then too few.
		{usable(ub{11, "1", true}, ub{10, "1", true}), 0, "Invalid replication factor 0: the replication factor must be positive."},
		{usable(ub{11, "1", true}, ub{10, "1", true}), 3, "All brokers are currently fenced."},
	} {
		_, err := AssignReplicas(tc.brokers, 1, tc.rf, stripedOpts(NewMockRandom(MockRandomSeed)))
		wantIRFE(t, err, tc.msg)
	}
}

func TestStripedNonPositivePartitionsIsEmpty(t *testing.T) {
	for _, n := range []int{0, -1} {
		got, err := AssignReplicas(plain(0, 1), n, 1, stripedOpts(NewMockRandom(MockRandomSeed)))
		if err != nil || len(got) != 0 {
			t.Fatalf("n=%d: %v, %v", n, got, err)
		}
	}
}

// Reference §5.2: the controller's calls share one MockRandom.
func TestStripedControllerVectors(t *testing.T) {
	rnd := &recordingRand{r: NewMockRandom(MockRandomSeed)}
	opts := stripedOpts(rnd)
	_, err := AssignReplicas(nil, 1, 3, opts)
	wantIRFE(t, err, "All brokers are currently fenced.")
	if len(rnd.bounds) != 0 {
		t.Fatalf("no brokers drew %v", rnd.bounds)
	}
	steps := []struct {
		brokers []Broker
		want    []int32
		draws   []int
	}{
		{usable(ub{0, "", false}, ub{1, "", true}, ub{2, "", true}), []int32{0, 2, 1}, []int{2, 1, 1}},
		{usable(ub{0, "", false}, ub{1, "", false}, ub{2, "", false}), []int32{1, 2, 0}, []int{2, 1, 1, 3, 1}},
	}
	for i, s := range steps {
		got, err := AssignReplicas(s.brokers, 1, 3, opts)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, [][]int32{s.want}) || !reflect.DeepEqual(rnd.bounds, s.draws) {
			t.Fatalf("call %d: %v (draws %v), want %v (draws %v)", i+2, got, rnd.bounds, s.want, s.draws)
		}
	}
	got, err := AssignReplicas(usable(ub{0, "", false}, ub{1, "", false}, ub{2, "", true}), 1, 3,
		stripedOpts(NewMockRandom(MockRandomSeed)))
	if err != nil || !reflect.DeepEqual(got, [][]int32{{1, 0, 2}}) {
		t.Fatalf("ISR invariants vector: %v, %v", got, err)
	}
}

// The leader is always unfenced; fenced replicas come only after a rack's unfenced ones.
func TestStripedLeadersUnfenced(t *testing.T) {
	for seed := range uint64(40) {
		r := seeded(seed)
		var brokers []Broker
		nb := 2 + r.IntN(9)
		for i := range nb {
			brokers = append(brokers, Broker{ID: int32(i), Rack: fmt.Sprint(r.IntN(3)), HasRack: r.IntN(4) > 0,
				Fenced: r.IntN(3) == 0})
		}
		brokers[r.IntN(nb)].Fenced = false
		rf := 1 + r.IntN(nb)
		got, err := AssignReplicas(brokers, 50, rf, stripedOpts(r))
		if err != nil {
			t.Fatal(err)
		}
		fenced := map[int32]bool{}
		for _, b := range brokers {
			fenced[b.ID] = b.Fenced
		}
		for p, reps := range got {
			if fenced[reps[0]] {
				t.Fatalf("seed %d: partition %d led by fenced broker: %v", seed, p, reps)
			}
			if !distinct(reps) || len(reps) != rf {
				t.Fatalf("seed %d: partition %d bad replicas %v", seed, p, reps)
			}
		}
	}
}

func distinct(reps []int32) bool {
	seen := map[int32]bool{}
	for _, b := range reps {
		if seen[b] {
			return false
		}
		seen[b] = true
	}
	return true
}
