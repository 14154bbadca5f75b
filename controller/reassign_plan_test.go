package controller

import (
	"maps"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/znodes"
)

func ra(replicas, adding, removing []int32) election.ReplicaAssignment {
	return election.ReplicaAssignment{Replicas: replicas, Adding: adding, Removing: removing}
}

func ids(xs ...int32) []int32 { return xs }

func TestValidateReassignTarget(t *testing.T) {
	steady := ra(ids(1, 2, 3), nil, nil)
	moving := ra(ids(2, 3, 4, 1), ids(4), ids(1))
	live := ids(1, 2, 3, 4)
	cases := []struct {
		name    string
		current election.ReplicaAssignment
		target  []int32
		live    []int32
		code    int16
		msg     string
	}{
		{"valid move", steady, ids(2, 3, 4), live, 0, ""},
		{"empty", steady, ids(), live, kerr.InvalidReplicaAssignment.Code,
			"Empty replica list specified in partition reassignment."},
		{"duplicate", steady, ids(2, 2, 3), live, kerr.InvalidReplicaAssignment.Code,
			"Duplicate replica ids in partition reassignment replica list: ArrayBuffer(2, 2, 3)"},
		{"negative", steady, ids(2, -1), live, kerr.InvalidReplicaAssignment.Code,
			"Invalid broker id in replica list: ArrayBuffer(2, -1)"},
		{"adding a dead broker", steady, ids(2, 3, 5), live, kerr.InvalidReplicaAssignment.Code,
			"Replica assignment has brokers that are not alive. Replica list: ArrayBuffer(5), live broker list: Set(1, 2, 3, 4)"},
		// Only the replicas added count: keeping a replica on a dead broker is fine.
		{"keeping a dead replica", steady, ids(3, 2, 1), ids(2, 3), 0, ""},
		// Measured from the original replicas: 4, being added, is added again.
		{"superseding, the added broker died", moving, ids(4, 2, 3), ids(1, 2, 3), kerr.InvalidReplicaAssignment.Code,
			"Replica assignment has brokers that are not alive. Replica list: ArrayBuffer(4), live broker list: Set(1, 2, 3)"},
		{"unknown partition: every replica is added", ra(nil, nil, nil), ids(7), live, kerr.InvalidReplicaAssignment.Code,
			"Replica assignment has brokers that are not alive. Replica list: ArrayBuffer(7), live broker list: Set(1, 2, 3, 4)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := validateReassignTarget(tc.current, tc.target, tc.live)
			switch {
			case tc.code == 0 && err != nil:
				t.Fatalf("unexpected refusal %v", err)
			case tc.code != 0 && (err == nil || err.code != tc.code || err.msg != tc.msg):
				t.Fatalf("got %+v, want code %d %q", err, tc.code, tc.msg)
			}
		})
	}
}

func TestBuildReassignment(t *testing.T) {
	cases := []struct {
		name    string
		current election.ReplicaAssignment
		target  []int32
		cancel  bool
		want    election.ReplicaAssignment
		ok      bool
	}{
		{"move", ra(ids(1, 2, 3), nil, nil), ids(2, 3, 4), false, ra(ids(2, 3, 4, 1), ids(4), ids(1)), true},
		{"disjoint move", ra(ids(1, 2, 3), nil, nil), ids(4, 5, 6), false,
			ra(ids(4, 5, 6, 1, 2, 3), ids(4, 5, 6), ids(1, 2, 3)), true},
		{"same replicas: nothing moves", ra(ids(1, 2, 3), nil, nil), ids(1, 2, 3), false,
			ra(ids(1, 2, 3), ids(), ids()), true},
		{"reorder only", ra(ids(1, 2, 3), nil, nil), ids(3, 2, 1), false, ra(ids(3, 2, 1), ids(), ids()), true},
		{"shrink", ra(ids(1, 2, 3), nil, nil), ids(1, 2), false, ra(ids(1, 2, 3), ids(), ids(3)), true},
		{"supersede: measured from the origin", ra(ids(2, 3, 4, 1), ids(4), ids(1)), ids(2, 3, 5), false,
			ra(ids(2, 3, 5, 1), ids(5), ids(1)), true},
		{"cancel: back to the origin, in its new order", ra(ids(2, 3, 4, 1), ids(4), ids(1)), nil, true,
			ra(ids(2, 3, 1), ids(), ids()), true},
		{"cancel without a reassignment", ra(ids(1, 2, 3), nil, nil), nil, true, election.ReplicaAssignment{}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := buildReassignment(tc.current, tc.target, tc.cancel)
			if ok != tc.ok || !sameAssignment(got, tc.want) {
				t.Fatalf("got %+v %v, want %+v %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestReassignmentComplete(t *testing.T) {
	moving := ra(ids(2, 3, 4, 1), ids(4), ids(1))
	state := func(isr ...int32) *election.LeaderAndIsr { return &election.LeaderAndIsr{Leader: 1, ISR: isr} }
	cases := []struct {
		name string
		a    election.ReplicaAssignment
		cur  *election.LeaderAndIsr
		want bool
	}{
		{"not moving", ra(ids(1, 2, 3), nil, nil), nil, true},
		{"no state", moving, nil, false},
		{"target not in sync", moving, state(1, 2, 3), false},
		{"target in sync", moving, state(1, 2, 3, 4), true},
		{"target in sync, origin gone", moving, state(4, 3, 2), true},
		{"shrink completes at once", ra(ids(1, 2, 3), nil, ids(3)), state(1, 2), true},
	}
	for _, tc := range cases {
		if got := reassignmentComplete(tc.a, tc.cur); got != tc.want {
			t.Errorf("%s: got %v", tc.name, got)
		}
	}
}

func TestDecideLeaderMove(t *testing.T) {
	cases := []struct {
		name   string
		target []int32
		leader int32
		online bool
		want   leaderMove
	}{
		{"leader leaves the replica set", ids(2, 3, 4), 1, true, moveElect},
		{"leader stays and is online", ids(2, 3, 1), 1, true, moveBumpEpoch},
		{"leader stays but is offline", ids(2, 3, 1), 1, false, moveElect},
		{"no leader", ids(2, 3, 4), election.NoLeader, false, moveElect},
	}
	for _, tc := range cases {
		if got := decideLeaderMove(tc.target, tc.leader, tc.online); got != tc.want {
			t.Errorf("%s: got %v", tc.name, got)
		}
	}
}

func TestWithoutReplica(t *testing.T) {
	got := withoutReplica(ra(ids(2, 3, 4, 1), ids(4), ids(1)), 1)
	if !sameAssignment(got, ra(ids(2, 3, 4), ids(4), ids())) {
		t.Fatalf("got %+v", got)
	}
	in := ra(ids(1, 2), nil, nil)
	if got := withoutReplica(in, 9); !sameAssignment(got, in) {
		t.Fatalf("absent replica changed the assignment: %+v", got)
	}
}

func TestZkReassignmentEntriesAndFilter(t *testing.T) {
	r := znodes.ReassignPartitions{Partitions: []znodes.ReassignmentEntry{
		{Topic: "a", Partition: 0, Replicas: ids(1, 2)},
		{Topic: "b", Partition: 1, Replicas: ids(3)},
		{Topic: "a", Partition: 0, Replicas: ids(2, 3)}, // the last entry wins, in the first's place
	}}
	entries := zkReassignEntries(r)
	want := []znodes.ReassignmentEntry{{Topic: "a", Partition: 0, Replicas: ids(2, 3)}, {Topic: "b", Partition: 1, Replicas: ids(3)}}
	if len(entries) != 2 || entries[0].Topic != "a" || !slices.Equal(entries[0].Replicas, want[0].Replicas) || entries[1].Topic != "b" {
		t.Fatalf("entries %+v", entries)
	}
	cases := []struct {
		name    string
		remove  func(TopicPartition, []int32) bool
		keep    int
		dropped bool
	}{
		{"nothing matches", func(TopicPartition, []int32) bool { return false }, 2, false},
		{"completed with the listed target", func(tp TopicPartition, r []int32) bool {
			return tp == TopicPartition{Topic: "a", Partition: 0} && slices.Equal(r, ids(2, 3))
		}, 1, true},
		{"completed with another target stays", func(tp TopicPartition, r []int32) bool {
			return tp == TopicPartition{Topic: "a", Partition: 0} && slices.Equal(r, ids(1, 2))
		}, 2, false},
		{"everything: the znode goes", func(TopicPartition, []int32) bool { return true }, 0, true},
	}
	for _, tc := range cases {
		keep, dropped := filterZkReassignment(entries, tc.remove)
		if len(keep) != tc.keep || dropped != tc.dropped {
			t.Errorf("%s: keep %v dropped %v", tc.name, keep, dropped)
		}
	}
}

func TestTopicAssignmentOf(t *testing.T) {
	id := znodes.UUID{1, 2, 3}
	tp := &topic{name: "foo", id: id, parts: map[int32]*partition{
		0: {assign: ra(ids(1, 2, 3), nil, nil)},
		1: {assign: ra(ids(2, 3, 1), nil, nil)},
	}}
	got := topicAssignmentOf(tp, map[int32]election.ReplicaAssignment{0: ra(ids(2, 3, 4, 1), ids(4), ids(1))})
	if got.TopicID != id || got.Version != znodes.TopicAssignmentVersion {
		t.Fatalf("header %+v", got)
	}
	if !slices.Equal(got.Partitions[0], ids(2, 3, 4, 1)) || !slices.Equal(got.Partitions[1], ids(2, 3, 1)) {
		t.Fatalf("partitions %v", got.Partitions)
	}
	if !slices.Equal(got.AddingReplicas[0], ids(4)) || !slices.Equal(got.RemovingReplicas[0], ids(1)) ||
		len(got.AddingReplicas) != 1 || len(got.RemovingReplicas) != 1 {
		t.Fatalf("adding %v removing %v", got.AddingReplicas, got.RemovingReplicas)
	}
	// The context itself is untouched.
	if !slices.Equal(tp.parts[0].assign.Replicas, ids(1, 2, 3)) {
		t.Fatal("context changed")
	}
	done := topicAssignmentOf(tp, nil)
	if done.AddingReplicas != nil || done.RemovingReplicas != nil || len(slices.Collect(maps.Keys(done.Partitions))) != 2 {
		t.Fatalf("steady topic %+v", done)
	}
}
