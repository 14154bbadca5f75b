package election

import (
	"slices"
	"testing"
)

func TestReplicaAssignment(t *testing.T) {
	moving := ReplicaAssignment{Replicas: ids(4, 5, 6, 1, 2, 3), Adding: ids(4, 5, 6), Removing: ids(1, 2, 3)}
	cases := []struct {
		name                  string
		a                     ReplicaAssignment
		target                []int32
		origin, targetReplica []int32
		reassigning           bool
		want                  ReplicaAssignment
	}{
		{
			name: "disjoint target goes first", a: assign(1, 2, 3), target: ids(4, 5, 6),
			origin: ids(1, 2, 3), targetReplica: ids(1, 2, 3),
			want: ReplicaAssignment{Replicas: ids(4, 5, 6, 1, 2, 3), Adding: ids(4, 5, 6), Removing: ids(1, 2, 3)},
		},
		{
			name: "overlapping target", a: assign(1, 2, 3), target: ids(3, 4),
			origin: ids(1, 2, 3), targetReplica: ids(1, 2, 3),
			want: ReplicaAssignment{Replicas: ids(3, 4, 1, 2), Adding: ids(4), Removing: ids(1, 2)},
		},
		{
			name: "a new target supersedes, measured from the origin", a: moving, target: ids(7, 1),
			origin: ids(1, 2, 3), targetReplica: ids(4, 5, 6), reassigning: true,
			want: ReplicaAssignment{Replicas: ids(7, 1, 2, 3), Adding: ids(7), Removing: ids(2, 3)},
		},
		{
			name: "cancel: reassign to the origin", a: moving, target: ids(1, 2, 3),
			origin: ids(1, 2, 3), targetReplica: ids(4, 5, 6), reassigning: true,
			want: ReplicaAssignment{Replicas: ids(1, 2, 3), Adding: ids(), Removing: ids()},
		},
		{
			name: "reordering only: nothing added or removed", a: assign(1, 2, 3), target: ids(3, 2, 1),
			origin: ids(1, 2, 3), targetReplica: ids(1, 2, 3),
			want: ReplicaAssignment{Replicas: ids(3, 2, 1), Adding: ids(), Removing: ids()},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.a.Origin(); !slices.Equal(got, c.origin) {
				t.Errorf("origin = %v, want %v", got, c.origin)
			}
			if got := c.a.Target(); !slices.Equal(got, c.targetReplica) {
				t.Errorf("target = %v, want %v", got, c.targetReplica)
			}
			if c.a.IsBeingReassigned() != c.reassigning {
				t.Errorf("reassigning = %v", c.a.IsBeingReassigned())
			}
			before := slices.Clone(c.a.Replicas)
			got := c.a.ReassignTo(c.target)
			if !slices.Equal(got.Replicas, c.want.Replicas) || !slices.Equal(got.Adding, c.want.Adding) ||
				!slices.Equal(got.Removing, c.want.Removing) {
				t.Errorf("ReassignTo(%v) = %+v, want %+v", c.target, got, c.want)
			}
			if !slices.Equal(c.a.Replicas, before) {
				t.Errorf("ReassignTo mutated its receiver")
			}
			if got.IsBeingReassigned() != (len(c.want.Adding)+len(c.want.Removing) > 0) {
				t.Errorf("result reassigning flag wrong")
			}
		})
	}
}

func TestNames(t *testing.T) {
	cases := []struct{ got, want string }{
		{TopicPartition{Topic: "a.b-c", Partition: 12}.String(), "a.b-c-12"},
		{Recovered.String(), "RECOVERED"},
		{Recovering.String(), "RECOVERING"},
		{LeaderRecoveryState(5).String(), "LeaderRecoveryState(5)"},
		{st(2, 7, 2, 3).String(), "LeaderAndIsr(leader=2, leaderEpoch=7, isr=List(2, 3), leaderRecoveryState=RECOVERED, partitionEpoch=7)"},
		{LeaderAndIsr{Leader: NoLeader}.String(), "LeaderAndIsr(leader=-1, leaderEpoch=0, isr=List(), leaderRecoveryState=RECOVERED, partitionEpoch=0)"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestLeaderAndIsrClone(t *testing.T) {
	a := st(1, 0, 1, 2)
	b := a.Clone()
	b.ISR[0], b.ELR[0], b.LastKnownELR[0] = 7, 7, 7
	if a.ISR[0] != 1 || a.ELR[0] != 9 || a.LastKnownELR[0] != 8 {
		t.Errorf("clone shares slices: %+v", a)
	}
	if !a.HasLeader() || (LeaderAndIsr{Leader: NoLeader}).HasLeader() || (LeaderAndIsr{Leader: LeaderDuringDelete}).HasLeader() {
		t.Error("HasLeader wrong")
	}
	var zero LeaderAndIsr
	if c := zero.Clone(); c.ISR != nil || c.ELR != nil {
		t.Errorf("clone of nil slices should stay nil: %+v", c)
	}
}

func TestLivenessHelpers(t *testing.T) {
	l := NewSnapshot(1, 2, 3).WithShutdown(2).WithOfflineDir(3, tp(0))
	cases := []struct {
		b                       int32
		live, online, reachable bool
	}{
		{1, true, true, true},
		{2, false, false, true},  // shutting down: offline for elections, reachable for requests
		{3, true, false, false},  // failed dir for foo-0
		{4, false, false, false}, // not registered
	}
	for _, c := range cases {
		if BrokerLive(l, c.b) != c.live || ReplicaOnline(l, c.b, tp(0)) != c.online || ReplicaReachable(l, c.b, tp(0)) != c.reachable {
			t.Errorf("broker %d: live %v online %v reachable %v, want %v %v %v", c.b,
				BrokerLive(l, c.b), ReplicaOnline(l, c.b, tp(0)), ReplicaReachable(l, c.b, tp(0)), c.live, c.online, c.reachable)
		}
	}
	if !ReplicaOnline(l, 3, tp(1)) {
		t.Error("a failed dir affects only the partitions on it")
	}
	var zero Snapshot
	if zero.Registered(1) || zero.ShuttingDown(1) || zero.OfflineDir(1, tp(0)) {
		t.Error("zero Snapshot must have nobody registered")
	}
	zero = zero.WithShutdown(1).WithOfflineDir(1, tp(0))
	if zero.ShuttingDown(1) {
		t.Error("an unregistered broker cannot be shutting down")
	}
	if !zero.OfflineDir(1, tp(0)) {
		t.Error("WithOfflineDir on a zero Snapshot lost the entry")
	}
}
