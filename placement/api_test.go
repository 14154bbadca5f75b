package placement

import (
	"errors"
	"reflect"
	"slices"
	"testing"
)

func TestAddPartitionsValidation(t *testing.T) {
	for _, tc := range []struct {
		placer   Placer
		existing [][]int32
		total    int
		kind     ErrorKind
		msg      string
	}{
		{AdminUtils, nil, 3, AdminOperation,
			"Unexpected existing replica assignment for topic 'foo', partition id 0 is missing. Assignment: Map()"},
		{AdminUtils, [][]int32{{0}, {1}}, 2, InvalidPartitions,
			"The number of partitions for a topic can only be increased. Topic foo currently has 2 partitions, 2 would not be an increase."},
		{AdminUtils, [][]int32{{0}, {1}}, 1, InvalidPartitions,
			"The number of partitions for a topic can only be increased. Topic foo currently has 2 partitions, 1 would not be an increase."},
		{Striped, [][]int32{{0}, {1}}, 2, InvalidPartitions, "Topic already has 2 partition(s)."},
		{Striped, [][]int32{{0}, {1}}, 1, InvalidPartitions, "The topic foo currently has 2 partition(s); 1 would not be an increase."},
		{AdminUtils, [][]int32{{0, 1, 2, 3}}, 2, InvalidReplicationFactor, "Replication factor: 4 larger than available brokers: 3."},
		{AdminUtils, [][]int32{{}}, 2, InvalidReplicationFactor, "Replication factor must be larger than 0."},
	} {
		_, err := AddPartitions(plain(0, 1, 2), tc.existing, tc.total, Options{Placer: tc.placer, Topic: "foo"})
		var pe *Error
		if !errors.As(err, &pe) || pe.Kind != tc.kind || pe.Msg != tc.msg {
			t.Errorf("%v -> %d: err = %v, want %v %q", tc.existing, tc.total, err, tc.kind, tc.msg)
		}
	}
}

func TestInputChecks(t *testing.T) {
	if _, err := AssignReplicas(plain(0, 1), 1, 1, Options{Placer: Placer(7)}); err == nil {
		t.Fatal("unknown placer accepted")
	}
	for _, placer := range bothPlacers() {
		_, err := AssignReplicas(plain(0, 1, 0), 1, 1, Options{Placer: placer})
		var pe *Error
		if !errors.As(err, &pe) || pe.Kind != AdminOperation || pe.Msg != "Broker 0 appears more than once in the broker list." {
			t.Errorf("placer %d: duplicate ids: %v", placer, err)
		}
	}
	for k, want := range map[ErrorKind]string{InvalidPartitions: "InvalidPartitions", InvalidReplicationFactor: "InvalidReplicationFactor",
		InvalidReplicaAssignment: "InvalidReplicaAssignment", AdminOperation: "AdminOperation", ErrorKind(0): "ErrorKind(0)"} {
		if k.String() != want {
			t.Errorf("%d.String() = %q", int(k), k.String())
		}
	}
}

// Start values outside [0, n) behave as their residues, as in Kafka's arithmetic.
func TestStartNormalisation(t *testing.T) {
	brokers := plain(0, 1, 2, 3, 4)
	for _, tc := range []struct{ in, same Start }{
		{Start{7, 9}, Start{2, 1}}, {Start{-1, -1}, Start{4, 3}}, {Start{5, 4}, Start{0, 0}},
	} {
		a, _ := AssignReplicas(brokers, 12, 3, Options{Start: &tc.in})
		b, _ := AssignReplicas(brokers, 12, 3, Options{Start: &tc.same})
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%+v gives %v, %+v gives %v", tc.in, a, tc.same, b)
		}
	}
}

// With Start pinned, AddPartitions is Kafka's call with that fixed start and the existing
// count as startPartitionId.
func TestAddPartitionsWithPinnedStart(t *testing.T) {
	brokers := plain(0, 1, 2, 3)
	got, err := AddPartitions(brokers, [][]int32{{1, 2}}, 3, Options{Start: FixedStart(1)})
	if err != nil || !reflect.DeepEqual(got, [][]int32{{2, 0}, {3, 1}}) {
		t.Fatalf("got %v, %v; want V4's [[2 0] [3 1]]", got, err)
	}
}

// KafkaAddRule on the striped placer ignores the existing partitions: the result is a fresh
// placement drawing from the same source.
func TestStripedKafkaAddRuleIgnoresExisting(t *testing.T) {
	brokers := seedRacks()
	got, err := AddPartitions(brokers, [][]int32{{6, 8, 2}, {9, 3, 7}}, 6,
		Options{Placer: Striped, Rand: NewMockRandom(3), KafkaAddRule: true})
	if err != nil {
		t.Fatal(err)
	}
	fresh, _ := AssignReplicas(brokers, 4, 3, stripedOpts(NewMockRandom(3)))
	if !reflect.DeepEqual(got, fresh) {
		t.Fatalf("got %v, fresh placement %v", got, fresh)
	}
}

// When the last partition's leader is gone, AdminUtils continuation draws the start (and the
// shift it cannot infer) at random, in Kafka's order.
func TestAdminContinuationFallsBackToRandom(t *testing.T) {
	for _, tc := range []struct {
		existing [][]int32
		draws    []int
	}{
		{[][]int32{{0, 1}, {9, 2}}, []int{4, 4}}, // leader 9 unknown: start and shift drawn
		{[][]int32{{0, 1}, {1, 9}}, []int{4}},    // follower 9 unknown: only the shift drawn
		{[][]int32{{0, 1}, {1, 2}}, nil},         // both inferred
		{[][]int32{{0}, {1}}, nil},               // rf 1: the shift does not matter
	} {
		rec := &recordingRand{r: seeded(3)}
		got, err := AddPartitions(plain(0, 1, 2, 3), tc.existing, 5, Options{Rand: rec})
		if err != nil || len(got) != 3 {
			t.Fatalf("%v: %v, %v", tc.existing, got, err)
		}
		if !slices.Equal(rec.bounds, tc.draws) {
			t.Errorf("%v: draws %v, want %v", tc.existing, rec.bounds, tc.draws)
		}
	}
}

// A manual layout that no shift reproduces still continues after the last leader.
func TestAdminContinuationAfterManualLayout(t *testing.T) {
	got, err := AddPartitions(plain(0, 1, 2, 3, 4), [][]int32{{3, 0, 4}, {2, 4, 3}}, 4, Options{Rand: seeded(1)})
	if err != nil {
		t.Fatal(err)
	}
	if got[0][0] != 3 || got[1][0] != 4 {
		t.Fatalf("leaders %v, want 3 then 4 (after partition 1's leader 2)", got)
	}
}
