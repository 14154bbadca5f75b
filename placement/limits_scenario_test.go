package placement

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
)

func bothPlacers() []Placer { return []Placer{AdminUtils, Striped} }

// Limits that cannot bind leave the output exactly as without them.
func TestLoseLimitsChangeNothing(t *testing.T) {
	brokers := racked(stdRacks)
	for _, placer := range bothPlacers() {
		for seed := range uint64(10) {
			free, _ := AssignReplicas(brokers, 40, 3, Options{Placer: placer, Rand: NewMockRandom(seed)})
			loose := Limits{MaxBrokerPartitions: 100, MaxPartitions: 1000, BrokerReplicas: map[int32]int{0: 60, 3: 59}}
			got, err := AssignReplicas(brokers, 40, 3, Options{Placer: placer, Rand: NewMockRandom(seed), Limits: loose})
			if err != nil || !reflect.DeepEqual(got, free) {
				t.Fatalf("placer %d seed %d: %v, %v\nwant %v", placer, seed, got, err, free)
			}
		}
	}
}

// Every layout must contain broker 0: a greedy walk that ignores what later partitions need
// would put [1,2] first and strand the rest.
func TestLimitsGreedyTrap(t *testing.T) {
	brokers := plain(0, 1, 2, 3)
	l := Limits{MaxBrokerPartitions: 3, BrokerReplicas: map[int32]int{1: 2, 2: 2, 3: 2}}
	for _, placer := range bothPlacers() {
		for seed := range uint64(20) {
			got, err := AssignReplicas(brokers, 3, 2, Options{Placer: placer, Rand: NewMockRandom(seed), Limits: l})
			if err != nil {
				t.Fatalf("placer %d seed %d: %v", placer, seed, err)
			}
			c := limitCase{Brokers: brokers, Limits: l, Partitions: 3, RF: 2, Striped: placer == Striped}
			if err := checkLimitedResult(c, got); err != nil {
				t.Fatalf("placer %d seed %d: %v: %v", placer, seed, got, err)
			}
		}
	}
}

// A full broker drops out of the rotation; its rack is still used through its other broker.
func TestLimitsKeepRackDiversity(t *testing.T) {
	brokers := racked(stdRacks) // racks: rack1 {0,5}, rack2 {3,4}, rack3 {1,2}
	for _, placer := range bothPlacers() {
		for seed := range uint64(10) {
			l := Limits{MaxBrokerPartitions: 50, BrokerReplicas: map[int32]int{0: 50}}
			got, err := AssignReplicas(brokers, 30, 3, Options{Placer: placer, Rand: NewMockRandom(seed), Limits: l})
			if err != nil {
				t.Fatal(err)
			}
			for p, reps := range got {
				if racksOf(reps, stdRacks) != 3 || contains(reps, 0) {
					t.Fatalf("placer %d seed %d partition %d: %v", placer, seed, p, reps)
				}
			}
			// Rack 1 entirely full: rf 2 still lands on two racks, rf 3 uses all brokers left.
			l.BrokerReplicas[5] = 50
			got, err = AssignReplicas(brokers, 30, 2, Options{Placer: placer, Rand: NewMockRandom(seed), Limits: l})
			if err != nil {
				t.Fatal(err)
			}
			for p, reps := range got {
				if racksOf(reps, stdRacks) != 2 || contains(reps, 0) || contains(reps, 5) {
					t.Fatalf("placer %d seed %d partition %d: %v", placer, seed, p, reps)
				}
			}
			got, err = AssignReplicas(brokers, 10, 4, Options{Placer: placer, Rand: NewMockRandom(seed), Limits: l})
			if err != nil || len(got) != 10 {
				t.Fatalf("rf 4 over the 4 brokers left: %v, %v", got, err)
			}
		}
	}
}

func racksOf(reps []int32, rackOf map[int32]string) int {
	seen := map[string]bool{}
	for _, b := range reps {
		seen[rackOf[b]] = true
	}
	return len(seen)
}

// Whenever every rack has a broker that could take a replica of every partition, each
// partition still spans min(rf, racks) racks.
func TestLimitsRackDiversityWithRoomInEveryRack(t *testing.T) {
	for seed := range uint64(300) {
		r := seeded(seed)
		racks := 2 + r.IntN(3)
		n := racks + r.IntN(6)
		rackOf := map[int32]string{}
		var brokers []Broker
		for i := range n {
			rk := fmt.Sprint(i % racks)
			if i >= racks {
				rk = fmt.Sprint(r.IntN(racks))
			}
			rackOf[int32(i)] = rk
			brokers = append(brokers, Broker{ID: int32(i), Rack: rk, HasRack: true})
		}
		parts, rf := 1+r.IntN(12), 1+r.IntN(racks)
		l := Limits{MaxBrokerPartitions: parts + 5, BrokerReplicas: map[int32]int{}}
		for i := racks; i < n; i++ {
			l.BrokerReplicas[int32(i)] = r.IntN(parts + 6)
		}
		for _, placer := range bothPlacers() {
			got, err := AssignReplicas(brokers, parts, rf, Options{Placer: placer, Rand: NewMockRandom(seed), Limits: l})
			if err != nil {
				t.Fatalf("seed %d placer %d: %v", seed, placer, err)
			}
			c := limitCase{Brokers: brokers, Limits: l, Partitions: parts, RF: rf}
			if err := checkLimitedResult(c, got); err != nil {
				t.Fatalf("seed %d placer %d: %v", seed, placer, err)
			}
			for p, reps := range got {
				if racksOf(reps, rackOf) != min(rf, racks) {
					t.Fatalf("seed %d placer %d partition %d spans %d racks: %v", seed, placer, p, racksOf(reps, rackOf), reps)
				}
			}
		}
	}
}

// Larger clusters than brute force can handle, with headroom close to what the request needs:
// the placers succeed exactly when the feasibility condition holds and never overshoot.
func TestLimitsTightLargerClusters(t *testing.T) {
	for seed := range uint64(400) {
		r := seeded(seed)
		n := 6 + r.IntN(10)
		parts, rf := 5+r.IntN(40), 1+r.IntN(4)
		var brokers []Broker
		for i := range n {
			brokers = append(brokers, Broker{ID: int32(100 + i), Rack: fmt.Sprint(r.IntN(3)), HasRack: true,
				Fenced: r.IntN(4) == 0})
		}
		brokers[0].Fenced = false
		limit := parts*rf/n + 2
		l := Limits{MaxBrokerPartitions: limit, BrokerReplicas: map[int32]int{}}
		left := make([]int, n)
		unfenced := make([]bool, n)
		for i, b := range brokers {
			l.BrokerReplicas[b.ID] = r.IntN(limit + 1)
			left[i], unfenced[i] = l.headroom(b.ID), !b.Fenced
		}
		for _, placer := range bothPlacers() {
			c := limitCase{Brokers: brokers, Limits: l, Partitions: parts, RF: rf, Striped: placer == Striped}
			uf := unfenced
			if placer == AdminUtils {
				uf = nil
			}
			want := feasible(left, uf, parts, rf)
			got, err := AssignReplicas(brokers, parts, rf, Options{Placer: placer, Rand: NewMockRandom(seed), Limits: l})
			var le *LimitError
			switch {
			case !want && !errors.As(err, &le):
				t.Fatalf("seed %d placer %d: infeasible but %v", seed, placer, err)
			case want && err != nil:
				t.Fatalf("seed %d placer %d: feasible but %v", seed, placer, err)
			case want:
				if err := checkLimitedResult(c, got); err != nil {
					t.Fatalf("seed %d placer %d: %v", seed, placer, err)
				}
			}
		}
	}
}

func TestCheckNewPartitions(t *testing.T) {
	l := Limits{MaxBrokerPartitions: 3, MaxPartitions: 10, Partitions: 8, BrokerReplicas: map[int32]int{1: 2, 2: 3, 3: 1}}
	noCap := l
	noCap.MaxPartitions = 0
	for _, tc := range []struct {
		limits Limits
		assign [][]int32
		want   *LimitError
	}{
		{l, [][]int32{{1, 3}}, nil},
		{l, [][]int32{{1, 3}, {3, 4}}, nil},
		{l, [][]int32{{1, 3}, {1, 4}}, &LimitError{Scope: ScopeBroker, BrokerID: 1, Limit: 3, Current: 2, Requested: 4}},
		{l, [][]int32{{2, 4}}, &LimitError{Scope: ScopeBroker, BrokerID: 2, Limit: 3, Current: 3, Requested: 4}},
		{l, [][]int32{{3}, {3}, {3}}, &LimitError{Scope: ScopeCluster, Limit: 10, Current: 8, Requested: 11}},
		// The broker pushed furthest over is named, not the lowest id.
		{noCap, [][]int32{{1, 3}, {1, 3}, {3, 4}, {3}}, &LimitError{Scope: ScopeBroker, BrokerID: 3, Limit: 3, Current: 1, Requested: 5}},
		{noCap, [][]int32{{3}, {3}, {3}}, &LimitError{Scope: ScopeBroker, BrokerID: 3, Limit: 3, Current: 1, Requested: 4}},
	} {
		err := tc.limits.CheckNewPartitions(tc.assign)
		var le *LimitError
		switch {
		case tc.want == nil && err != nil:
			t.Errorf("%v: %v", tc.assign, err)
		case tc.want != nil && (!errors.As(err, &le) || *le != *tc.want):
			t.Errorf("%v: err = %v, want %v", tc.assign, err, tc.want)
		}
	}
	if err := (Limits{}).CheckNewPartitions([][]int32{{1, 2, 3}}); err != nil {
		t.Fatalf("unlimited: %v", err)
	}
}

func TestCheckReassignment(t *testing.T) {
	l := Limits{MaxBrokerPartitions: 2, BrokerReplicas: map[int32]int{1: 2, 2: 2, 3: 1, 4: 3}}
	current := [][]int32{{1, 2}, {1, 4}}
	for _, tc := range []struct {
		target [][]int32
		want   *LimitError
	}{
		{[][]int32{{2, 1}, {4, 1}}, nil}, // reordering adds nothing
		{[][]int32{{1, 3}, {1, 4}}, nil}, // 3 gains one: 2 <= 2
		{[][]int32{{1}, {4}}, nil},       // shrinking never fails, even on a broker above its limit
		{[][]int32{{1, 3}, {3, 4}}, &LimitError{Scope: ScopeBroker, BrokerID: 3, Limit: 2, Current: 1, Requested: 3}},
		{[][]int32{{3, 2}, {1, 2}}, &LimitError{Scope: ScopeBroker, BrokerID: 2, Limit: 2, Current: 2, Requested: 3}},
	} {
		err := l.CheckReassignment(current, tc.target)
		var le *LimitError
		switch {
		case tc.want == nil && err != nil:
			t.Errorf("%v: %v", tc.target, err)
		case tc.want != nil && (!errors.As(err, &le) || *le != *tc.want):
			t.Errorf("%v: err = %v, want %v", tc.target, err, tc.want)
		}
	}
	if err := l.CheckReassignment(current, current[:1]); err == nil {
		t.Fatal("length mismatch accepted")
	}
	if got := AddedReplicas([][]int32{{1}}, [][]int32{{1, 2}, {3}}); !reflect.DeepEqual(got, map[int32]int{2: 1, 3: 1}) {
		t.Fatalf("AddedReplicas = %v", got)
	}
}

// The infeasible report names a broker the unlimited placement would overload, for both
// placers and for continuation.
func TestInfeasibleReportNamesOverloadedBroker(t *testing.T) {
	l := Limits{MaxBrokerPartitions: 10, BrokerReplicas: map[int32]int{0: 10, 1: 9}}
	for _, placer := range bothPlacers() {
		_, err := AssignReplicas(racked(stdRacks), 20, 6, Options{Placer: placer, Limits: l})
		var le *LimitError
		if !errors.As(err, &le) || (le.BrokerID != 0 && le.BrokerID != 1) || le.Requested <= le.Limit {
			t.Fatalf("placer %d: %v", placer, err)
		}
		_, err = AddPartitions(racked(stdRacks), [][]int32{{0, 3, 1, 5, 4, 2}}, 21, Options{Placer: placer, Limits: l})
		if !errors.As(err, &le) {
			t.Fatalf("placer %d add: %v", placer, err)
		}
	}
}
