package placement

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// racked builds brokers from an id->rack map; "" means no rack.
func racked(m map[int32]string) []Broker {
	var out []Broker
	for id, r := range m {
		out = append(out, Broker{ID: id, Rack: r, HasRack: r != ""})
	}
	slices.SortFunc(out, func(a, b Broker) int { return int(a.ID - b.ID) })
	return out
}

// plain builds rack-less brokers with the given ids.
func plain(ids ...int32) []Broker {
	var out []Broker
	for _, id := range ids {
		out = append(out, Broker{ID: id})
	}
	return out
}

var stdRacks = map[int32]string{0: "rack1", 1: "rack3", 2: "rack3", 3: "rack2", 4: "rack2", 5: "rack1"}

// V1: AdminRackAwareTest.testGetRackAlternatedBrokerListAndAssignReplicasToBrokers.
func TestRackAlternatedBrokerList(t *testing.T) {
	if got := RackAlternatedBrokerList(racked(stdRacks)); !slices.Equal(got, []int32{0, 3, 1, 5, 4, 2}) {
		t.Errorf("alternated = %v", got)
	}
	five := map[int32]string{0: "rack1", 1: "rack3", 2: "rack3", 3: "rack2", 4: "rack2"}
	if got := RackAlternatedBrokerList(racked(five)); !slices.Equal(got, []int32{0, 3, 1, 4, 2}) {
		t.Errorf("alternated without 5 = %v", got)
	}
	// Input order must not matter.
	rev := racked(stdRacks)
	slices.Reverse(rev)
	if got := RackAlternatedBrokerList(rev); !slices.Equal(got, []int32{0, 3, 1, 5, 4, 2}) {
		t.Errorf("alternated from reversed input = %v", got)
	}
}

func TestAdminUtilsExactVectors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		brokers []Broker
		n, rf   int
		want    [][]int32
	}{
		{"V1 rack-aware javadoc", racked(stdRacks), 7, 3,
			[][]int32{{0, 3, 1}, {3, 1, 5}, {1, 5, 4}, {5, 4, 2}, {4, 2, 0}, {2, 0, 3}, {0, 4, 2}}},
		{"V2 rack-unaware javadoc", plain(0, 1, 2, 3, 4), 10, 3,
			[][]int32{{0, 1, 2}, {1, 2, 3}, {2, 3, 4}, {3, 4, 0}, {4, 0, 1}, {0, 2, 3}, {1, 3, 4}, {2, 4, 0}, {3, 0, 1}, {4, 1, 2}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := AssignReplicas(tc.brokers, tc.n, tc.rf, Options{Start: FixedStart(0)})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v\nwant %v", got, tc.want)
			}
		})
	}
}

// V3/V4: AddPartitionsTest through Kafka's add rule; leaders and sets are asserted upstream,
// the exact lists are the reference's generated ones.
func TestAdminUtilsKafkaAddRuleVectors(t *testing.T) {
	for _, tc := range []struct {
		name     string
		existing [][]int32
		total    int
		want     [][]int32
	}{
		{"V3 all servers", [][]int32{{2, 3, 0, 1}}, 7,
			[][]int32{{3, 2, 0, 1}, {0, 3, 1, 2}, {1, 0, 2, 3}, {2, 3, 0, 1}, {3, 0, 1, 2}, {0, 1, 2, 3}}},
		{"V4 partial servers", [][]int32{{1, 2}}, 3, [][]int32{{2, 0}, {3, 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := AddPartitions(plain(0, 1, 2, 3), tc.existing, tc.total, Options{KafkaAddRule: true})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v\nwant %v", got, tc.want)
			}
		})
	}
}

func TestAdminUtilsAddRuleAssertedLeadersAndSets(t *testing.T) {
	got, err := AddPartitions(plain(0, 1, 2, 3), [][]int32{{1, 2}}, 3, Options{KafkaAddRule: true})
	if err != nil {
		t.Fatal(err)
	}
	wantLeader := []int32{2, 3}
	wantSet := [][]int32{{0, 2}, {1, 3}}
	for i, reps := range got {
		s := slices.Sorted(slices.Values(reps))
		if reps[0] != wantLeader[i] || !slices.Equal(s, wantSet[i]) {
			t.Errorf("partition %d = %v, want leader %d set %v", i+1, reps, wantLeader[i], wantSet[i])
		}
	}
}

// Reference §2.4 and the validation order of §1.2.
func TestAdminUtilsValidation(t *testing.T) {
	mixed := racked(map[int32]string{0: "rack1", 1: "rack3", 2: "rack3", 3: "rack2", 4: ""})
	for _, tc := range []struct {
		brokers []Broker
		n, rf   int
		kind    ErrorKind
		msg     string
	}{
		{plain(0, 1, 2, 3, 4), 10, 0, InvalidReplicationFactor, "Replication factor must be larger than 0."},
		{plain(0, 1, 2, 3, 4), 10, 6, InvalidReplicationFactor, "Replication factor: 6 larger than available brokers: 5."},
		{mixed, 0, 0, InvalidPartitions, "Number of partitions must be larger than 0."},
		{mixed, -3, 2, InvalidPartitions, "Number of partitions must be larger than 0."},
		{mixed, 10, 0, InvalidReplicationFactor, "Replication factor must be larger than 0."},
		{mixed, 10, 6, InvalidReplicationFactor, "Replication factor: 6 larger than available brokers: 5."},
		{mixed, 10, 5, AdminOperation, "Not all brokers have rack information for replica rack aware assignment."},
		{plain(0, 1), 1, 3, InvalidReplicationFactor, "Replication factor: 3 larger than available brokers: 2."},
		{nil, 1, 1, InvalidReplicationFactor, "Replication factor: 1 larger than available brokers: 0."},
	} {
		// A counting source proves validation happens before any draw.
		rec := &recordingRand{r: seeded(1)}
		_, err := AssignReplicas(tc.brokers, tc.n, tc.rf, Options{Rand: rec})
		var pe *Error
		if !errors.As(err, &pe) || pe.Kind != tc.kind || pe.Msg != tc.msg {
			t.Errorf("(%d, %d): err = %v, want %v %q", tc.n, tc.rf, err, tc.kind, tc.msg)
		}
		if len(rec.bounds) != 0 {
			t.Errorf("(%d, %d): drew %v before failing validation", tc.n, tc.rf, rec.bounds)
		}
	}
}

func TestApplyRackMode(t *testing.T) {
	mixed := []Broker{{ID: 2, Rack: "a", HasRack: true}, {ID: 0}, {ID: 1, Rack: "b", HasRack: true}}
	_, err := ApplyRackMode(mixed, RackEnforced)
	var pe *Error
	if !errors.As(err, &pe) || pe.Kind != AdminOperation || !strings.HasPrefix(pe.Msg, "Not all brokers have rack information") ||
		!strings.Contains(pe.Msg, "--disable-rack-aware") {
		t.Fatalf("enforced mixed: %v", err)
	}
	for _, mode := range []RackMode{RackDisabled, RackSafe} {
		got, err := ApplyRackMode(mixed, mode)
		if err != nil {
			t.Fatal(err)
		}
		want := plain(0, 1, 2)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("mode %d: %v", mode, got)
		}
	}
	all := racked(stdRacks)
	slices.Reverse(all)
	for _, mode := range []RackMode{RackEnforced, RackSafe} {
		got, err := ApplyRackMode(all, mode)
		if err != nil || !reflect.DeepEqual(got, racked(stdRacks)) {
			t.Errorf("mode %d kept racks: %v, %v", mode, got, err)
		}
	}
	if mixed[1].ID != 0 || !mixed[0].HasRack {
		t.Fatal("ApplyRackMode modified its input")
	}
}

func TestAdminUtilsSortsBrokersByID(t *testing.T) {
	a, _ := AssignReplicas(plain(4, 2, 0, 3, 1), 10, 3, Options{Start: FixedStart(0)})
	b, _ := AssignReplicas(plain(0, 1, 2, 3, 4), 10, 3, Options{Start: FixedStart(0)})
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("broker order changed the result: %v vs %v", a, b)
	}
}

func TestAdminUtilsRandomDrawsStartThenShift(t *testing.T) {
	rec := &recordingRand{r: NewMockRandom(MockRandomSeed)}
	got, err := AssignReplicas(plain(0, 1, 2, 3, 4), 5, 2, Options{Rand: rec})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rec.bounds, []int{5, 5}) {
		t.Fatalf("draws = %v, want two nextInt(5)", rec.bounds)
	}
	r := NewMockRandom(MockRandomSeed)
	start, shift := r.IntN(5), r.IntN(5)
	want, _ := AssignReplicas(plain(0, 1, 2, 3, 4), 5, 2, Options{Start: &Start{start, shift}})
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("random run %v != pinned (%d,%d) run %v", got, start, shift, want)
	}
}

func TestReplicaIndexWalksOtherPositions(t *testing.T) {
	for n := 2; n <= 9; n++ {
		for first := range n {
			for shift := range 2 * n {
				seen := map[int]bool{}
				for j := range n - 1 {
					r := replicaIndex(first, shift, j, n)
					if r == first || r < 0 || r >= n || seen[r] {
						t.Fatalf("replicaIndex(%d,%d,%d,%d) = %d", first, shift, j, n, r)
					}
					seen[r] = true
				}
			}
		}
	}
}

// adminAssign runs AdminUtils with independent start and shift and a start partition id.
func adminAssign(t testing.TB, brokers []Broker, n, rf, start, shift, first int) [][]int32 {
	t.Helper()
	aware, err := validateAdmin(brokers, n, rf)
	if err != nil {
		t.Fatal(err)
	}
	a := newAdminRun(sortedByID(brokers), aware)
	a.start, a.shift, a.first = start, shift, first
	out, err := a.assign(n, rf, newGuard(nil, nil, len(a.list), n, rf))
	if err != nil {
		t.Fatal(err)
	}
	return out
}
