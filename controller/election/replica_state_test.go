package election

import (
	"errors"
	"slices"
	"testing"
)

func allReplicaStates() []ReplicaState {
	return []ReplicaState{NewReplica, OnlineReplica, OfflineReplica, ReplicaDeletionStarted,
		ReplicaDeletionSuccessful, ReplicaDeletionIneligible, NonExistentReplica}
}

// TestReplicaTransitionMatrix checks all 49 pairs against section 3.2.
func TestReplicaTransitionMatrix(t *testing.T) {
	const (
		N  = NewReplica
		On = OnlineReplica
		Of = OfflineReplica
		DS = ReplicaDeletionStarted
		OK = ReplicaDeletionSuccessful
		DI = ReplicaDeletionIneligible
		X  = NonExistentReplica
	)
	valid := map[[2]ReplicaState]bool{
		{X, N}:  true,
		{N, On}: true, {On, On}: true, {Of, On}: true, {DI, On}: true,
		{N, Of}: true, {On, Of}: true, {Of, Of}: true, {DI, Of}: true,
		{Of, DS}: true,
		{DS, OK}: true,
		{Of, DI}: true, {DS, DI}: true,
		{OK, X}: true,
	}
	n := 0
	for _, from := range allReplicaStates() {
		for _, to := range allReplicaStates() {
			want := valid[[2]ReplicaState{from, to}]
			if want {
				n++
			}
			if got := ValidReplicaTransition(from, to); got != want {
				t.Errorf("%v -> %v: got %v, want %v", from, to, got, want)
			}
			if err := CheckReplicaTransition(tp(0), 3, from, to); (err == nil) != want {
				t.Errorf("Check %v -> %v: err %v, valid %v", from, to, err, want)
			}
		}
	}
	if ValidReplicaTransition(NewReplica, ReplicaState(0)) {
		t.Error("an unknown target state must have no valid predecessor")
	}
	if n != len(valid) {
		t.Fatalf("table has %d entries, matched %d", len(valid), n)
	}
}

func TestReplicaStateValuesAndNames(t *testing.T) {
	cases := []struct {
		s    ReplicaState
		b    int8
		name string
	}{
		{NewReplica, 1, "NewReplica"},
		{OnlineReplica, 2, "OnlineReplica"},
		{OfflineReplica, 3, "OfflineReplica"},
		{ReplicaDeletionStarted, 4, "ReplicaDeletionStarted"},
		{ReplicaDeletionSuccessful, 5, "ReplicaDeletionSuccessful"},
		{ReplicaDeletionIneligible, 6, "ReplicaDeletionIneligible"},
		{NonExistentReplica, 7, "NonExistentReplica"},
		{ReplicaState(0), 0, "ReplicaState(0)"},
	}
	for _, c := range cases {
		if int8(c.s) != c.b || c.s.String() != c.name {
			t.Errorf("state %d: byte %d name %q, want %d %q", c.s, int8(c.s), c.s.String(), c.b, c.name)
		}
	}
}

func TestInvalidReplicaTransitionMessages(t *testing.T) {
	cases := []struct {
		from, to ReplicaState
		want     string
	}{
		{OnlineReplica, ReplicaDeletionStarted, "Replica [Topic=foo,Partition=0,Replica=3] should be in the OfflineReplica " +
			"states before moving to ReplicaDeletionStarted state. Instead it is in OnlineReplica state"},
		{NonExistentReplica, OnlineReplica, "Replica [Topic=foo,Partition=0,Replica=3] should be in the " +
			"NewReplica,OnlineReplica,OfflineReplica,ReplicaDeletionIneligible states before moving to OnlineReplica " +
			"state. Instead it is in NonExistentReplica state"},
		{OnlineReplica, ReplicaDeletionIneligible, "Replica [Topic=foo,Partition=0,Replica=3] should be in the " +
			"OfflineReplica,ReplicaDeletionStarted states before moving to ReplicaDeletionIneligible state. " +
			"Instead it is in OnlineReplica state"},
		{OfflineReplica, NonExistentReplica, "Replica [Topic=foo,Partition=0,Replica=3] should be in the " +
			"ReplicaDeletionSuccessful states before moving to NonExistentReplica state. Instead it is in OfflineReplica state"},
	}
	for _, c := range cases {
		err := CheckReplicaTransition(tp(0), 3, c.from, c.to)
		var it *InvalidTransitionError
		if !errors.As(err, &it) || it.Replica != 3 {
			t.Fatalf("%v -> %v: want *InvalidTransitionError for replica 3, got %v", c.from, c.to, err)
		}
		if err.Error() != c.want {
			t.Errorf("%v -> %v:\n got %q\nwant %q", c.from, c.to, err.Error(), c.want)
		}
	}
}

func TestInitialReplicaState(t *testing.T) {
	live := NewSnapshot(1, 2, 3).WithShutdown(2).WithOfflineDir(3, tp(0))
	cases := map[int32]ReplicaState{
		1: OnlineReplica,
		2: ReplicaDeletionIneligible, // shutting down counts as offline
		3: ReplicaDeletionIneligible, // failed log dir
		4: ReplicaDeletionIneligible, // not registered
	}
	for r, want := range cases {
		if got := InitialReplicaState(live, tp(0), r); got != want {
			t.Errorf("replica %d: got %v, want %v", r, got, want)
		}
	}
}

func TestCheckNewReplica(t *testing.T) {
	cases := []struct {
		name    string
		replica int32
		cur     *LeaderAndIsr
		send    bool
		err     string
	}{
		{name: "no leadership info: state only", replica: 2, cur: nil},
		{name: "follower gets LeaderAndIsr isNew=true", replica: 2, cur: st(1, 0, 1), send: true},
		{name: "leaderless partition: still sent", replica: 2, cur: st(NoLeader, 0, 1), send: true},
		{name: "current leader is refused", replica: 1, cur: st(1, 0, 1),
			err: "Replica 1 for partition foo-0 cannot be moved to NewReplica state as it is being requested to become leader"},
	}
	for _, c := range cases {
		send, err := CheckNewReplica(tp(0), c.replica, c.cur)
		if send != c.send {
			t.Errorf("%s: send = %v, want %v", c.name, send, c.send)
		}
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: unexpected error %v", c.name, err)
		case c.err != "" && (err == nil || err.Error() != c.err):
			t.Errorf("%s: error = %v, want %q", c.name, err, c.err)
		}
	}
}

func TestOnlineReplicaSends(t *testing.T) {
	for _, from := range OnlineReplica.ValidPrevious() {
		for _, has := range []bool{false, true} {
			want := has && from != NewReplica
			if got := OnlineReplicaSends(from, has); got != want {
				t.Errorf("from %v leadership=%v: got %v, want %v", from, has, got, want)
			}
		}
	}
}

func TestOfflineReplicaRecipients(t *testing.T) {
	if got := OfflineReplicaRecipients(ids(3, 1, 2), 1, false); !slices.Equal(got, ids(3, 2)) {
		t.Errorf("got %v, want [3 2]", got)
	}
	if got := OfflineReplicaRecipients(ids(3, 1, 2), 1, true); got != nil {
		t.Errorf("topic being deleted: got %v, want none", got)
	}
	if got := OfflineReplicaRecipients(ids(1), 1, false); len(got) != 0 {
		t.Errorf("RF 1: got %v, want none", got)
	}
}

func TestRemoveReplicaFromISR(t *testing.T) {
	fenced := st(1, 3, 1, 2)
	fenced.ControllerEpoch = testControllerEpoch + 2
	cases := []struct {
		name     string
		replica  int32
		cur      *LeaderAndIsr
		deleting bool
		outcome  IsrOutcome
		leader   int32
		isr      []int32
		err      string
	}{
		{name: "follower leaves the ISR, leader kept", replica: 2, cur: st(1, 3, 1, 2, 3),
			outcome: IsrWrite, leader: 1, isr: ids(1, 3)},
		{name: "leader leaves: leader -1", replica: 1, cur: st(1, 3, 1, 2, 3),
			outcome: IsrWrite, leader: NoLeader, isr: ids(2, 3)},
		{name: "last ISR member, the leader: stays in the ISR with leader -1", replica: 1, cur: st(1, 3, 1),
			outcome: IsrWrite, leader: NoLeader, isr: ids(1)},
		{name: "last ISR member, already leaderless: epoch still bumped", replica: 1, cur: st(NoLeader, 3, 1),
			outcome: IsrWrite, leader: NoLeader, isr: ids(1)},
		{name: "last ISR member that is not the leader stays", replica: 2, cur: st(1, 3, 2),
			outcome: IsrWrite, leader: 1, isr: ids(2)},
		{name: "order of the remaining ISR is kept", replica: 2, cur: st(3, 3, 3, 2, 1),
			outcome: IsrWrite, leader: 3, isr: ids(3, 1)},
		{name: "RECOVERING kept", replica: 2, cur: recovering(st(1, 3, 1, 2)),
			outcome: IsrWrite, leader: 1, isr: ids(1)},
		{name: "replica not in the ISR: no write, no bump", replica: 4, cur: st(1, 3, 1, 2),
			outcome: IsrUnchanged, leader: 1, isr: ids(1, 2)},
		{name: "leader not in its own ISR list: only leader membership in the ISR matters", replica: 1,
			cur: st(1, 3, 2), outcome: IsrUnchanged, leader: 1, isr: ids(2)},
		{name: "no state, topic being deleted: skipped", replica: 1, deleting: true, outcome: IsrSkip},
		{name: "no state: error", replica: 1, outcome: IsrFailed,
			err: "Failed to change state of replica 1 for partition foo-0 since the leader and isr path in zookeeper is empty"},
		{name: "written by a newer controller", replica: 2, cur: fenced, outcome: IsrFailed,
			err: "Leader and isr path written by another controller. This probably means the current controller with " +
				"epoch 5 went through a soft failure and another controller was elected with epoch 7. " +
				"Aborting state change by this controller"},
		{name: "fenced check comes before membership", replica: 9, cur: fenced, deleting: true, outcome: IsrFailed,
			err: "Leader and isr path written by another controller. This probably means the current controller with " +
				"epoch 5 went through a soft failure and another controller was elected with epoch 7. " +
				"Aborting state change by this controller"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var before LeaderAndIsr
			if c.cur != nil {
				before = c.cur.Clone()
			}
			got := RemoveReplicaFromISR(testEnv(NewSnapshot()), c.replica, tp(0), c.cur, c.deleting)
			if got.Partition != tp(0) || got.Outcome != c.outcome {
				t.Fatalf("outcome = %v for %v, want %v", got.Outcome, got.Partition, c.outcome)
			}
			if c.cur != nil && !equalState(before, *c.cur) {
				t.Fatalf("input mutated")
			}
			switch c.outcome {
			case IsrFailed:
				if got.Err == nil || got.Err.Error() != c.err {
					t.Errorf("error:\n got %v\nwant %q", got.Err, c.err)
				}
			case IsrSkip:
				if got.Err != nil {
					t.Errorf("skip carries error %v", got.Err)
				}
			case IsrWrite:
				checkRemoval(t, got.LeaderAndIsr, c.leader, c.isr)
				checkBump(t, before, got.LeaderAndIsr)
				if got.LeaderAndIsr.LeaderRecoveryState != before.LeaderRecoveryState {
					t.Errorf("recovery state changed")
				}
			case IsrUnchanged:
				checkRemoval(t, got.LeaderAndIsr, c.leader, c.isr)
				want := before.Clone()
				want.ControllerEpoch = testControllerEpoch // Kafka caches it with our epoch
				if !equalState(got.LeaderAndIsr, want) {
					t.Errorf("unchanged state = %v, want %v", got.LeaderAndIsr, want)
				}
			}
		})
	}
}

func checkRemoval(t *testing.T, got LeaderAndIsr, leader int32, isr []int32) {
	t.Helper()
	if got.Leader != leader || !slices.Equal(got.ISR, isr) {
		t.Errorf("got leader %d isr %v, want %d %v", got.Leader, got.ISR, leader, isr)
	}
	if len(got.ISR) == 0 {
		t.Error("the ISR must never be empty")
	}
}
