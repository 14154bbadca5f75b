package election

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestOfflineElectionClean(t *testing.T) {
	runElectCases(t, []electCase{
		{
			name: "clean: leader dead, first live ISR member in assignment order", strategy: Offline(false),
			live: NewSnapshot(2, 3), assignment: assign(1, 2, 3), cur: st(1, 10, 3, 2, 1),
			// Assignment order picks 2 although the ISR lists 3 first; the
			// new ISR keeps the old ISR's order minus dead members.
			wantLeader: 2, wantISR: ids(3, 2), wantRecipients: ids(2, 3),
		},
		{
			name: "clean: dead ISR members are dropped", strategy: Offline(false),
			live: NewSnapshot(2, 3), assignment: assign(1, 2, 3), cur: st(1, 0, 1, 2, 3),
			wantLeader: 2, wantISR: ids(2, 3), wantRecipients: ids(2, 3),
		},
		{
			name: "clean: leader -1 with the last ISR member back", strategy: Offline(false),
			live: NewSnapshot(1, 2, 3), assignment: assign(1, 2, 3), cur: st(NoLeader, 4, 3),
			wantLeader: 3, wantISR: ids(3), wantRecipients: ids(1, 2, 3),
		},
		{
			name: "clean: replica on an offline log dir is not online", strategy: Offline(false),
			live: NewSnapshot(1, 2, 3).WithOfflineDir(1, tp(0)), assignment: assign(1, 2, 3), cur: st(1, 0, 1, 2, 3),
			wantLeader: 2, wantISR: ids(2, 3), wantRecipients: ids(2, 3),
		},
		{
			name: "clean: offline dir of another partition does not matter", strategy: Offline(false),
			live: NewSnapshot(1, 2).WithOfflineDir(1, tp(1)), assignment: assign(1, 2), cur: st(NoLeader, 0, 1, 2),
			wantLeader: 1, wantISR: ids(1, 2), wantRecipients: ids(1, 2),
		},
		{
			name: "clean: shutting-down broker is neither leader, ISR member nor recipient", strategy: Offline(false),
			live: NewSnapshot(1, 2).WithShutdown(1), assignment: assign(1, 2), cur: st(1, 3, 1, 2),
			wantLeader: 2, wantISR: ids(2), wantRecipients: ids(2),
		},
		{
			name: "clean: live ISR member outside the assignment stays in the ISR but cannot lead", strategy: Offline(false),
			live: NewSnapshot(2, 5), assignment: assign(1, 2), cur: st(1, 0, 5, 2),
			wantLeader: 2, wantISR: ids(5, 2), wantRecipients: ids(2),
		},
		{
			name: "clean: keeps RECOVERING when the leader is in the ISR", strategy: Offline(false),
			live: NewSnapshot(2), assignment: assign(1, 2), cur: recovering(st(1, 0, 1, 2)),
			wantLeader: 2, wantISR: ids(2), wantRecipients: ids(2), wantRecovery: Recovering,
		},
		{
			name: "clean wins even when unclean is allowed", strategy: Offline(true), unclean: true,
			live: NewSnapshot(1, 3), assignment: assign(1, 2, 3), cur: st(2, 0, 2, 3),
			wantLeader: 3, wantISR: ids(3), wantRecipients: ids(1, 3),
		},
		{
			name: "full replica list includes adding replicas", strategy: Offline(false),
			live:       NewSnapshot(4, 2),
			assignment: ReplicaAssignment{Replicas: ids(4, 1, 2), Adding: ids(4), Removing: ids(1)},
			cur:        st(1, 2, 1, 2, 4),
			wantLeader: 4, wantISR: ids(2, 4), wantRecipients: ids(4, 2),
		},
	})
}

func TestOfflineElectionUnclean(t *testing.T) {
	const msgFalse = "Failed to elect leader for partition foo-0 under strategy OfflinePartitionLeaderElectionStrategy(false)"
	const msgTrue = "Failed to elect leader for partition foo-0 under strategy OfflinePartitionLeaderElectionStrategy(true)"
	runElectCases(t, []electCase{
		{
			name: "no live ISR member, unclean off: fails", strategy: Offline(false),
			live: NewSnapshot(2, 3), assignment: assign(1, 2, 3), cur: st(NoLeader, 5, 1),
			wantReason: ReasonNoLiveInSyncReplica, wantMsg: msgFalse,
		},
		{
			name: "no live ISR member, topic config enables unclean", strategy: Offline(false), unclean: true,
			live: NewSnapshot(2, 3), assignment: assign(1, 3, 2), cur: st(NoLeader, 5, 1),
			wantLeader: 3, wantISR: ids(3), wantRecipients: ids(3, 2), wantUnclean: true, wantRecovery: Recovering,
		},
		{
			name: "no live ISR member, admin allowUnclean overrides topic config", strategy: Offline(true),
			live: NewSnapshot(2, 3), assignment: assign(1, 2, 3), cur: st(NoLeader, 5, 1),
			wantLeader: 2, wantISR: ids(2), wantRecipients: ids(2, 3), wantUnclean: true, wantRecovery: Recovering,
		},
		{
			name: "unclean with IBP < 3.2-IV0 keeps RECOVERED", strategy: Offline(true), oldIBP: true,
			live: NewSnapshot(2, 3), assignment: assign(1, 2, 3), cur: st(NoLeader, 5, 1),
			wantLeader: 2, wantISR: ids(2), wantRecipients: ids(2, 3), wantUnclean: true, wantRecovery: Recovered,
		},
		{
			name: "unclean with IBP < 3.2-IV0 keeps an existing RECOVERING", strategy: Offline(true), oldIBP: true,
			live: NewSnapshot(2), assignment: assign(1, 2), cur: recovering(st(NoLeader, 5, 1)),
			wantLeader: 2, wantISR: ids(2), wantRecipients: ids(2), wantUnclean: true, wantRecovery: Recovering,
		},
		{
			name: "unclean skips shutting-down and offline-dir replicas", strategy: Offline(true),
			live: NewSnapshot(2, 3, 4).WithShutdown(2).WithOfflineDir(3, tp(0)), assignment: assign(1, 2, 3, 4),
			cur:        st(NoLeader, 1, 1),
			wantLeader: 4, wantISR: ids(4), wantRecipients: ids(4), wantUnclean: true, wantRecovery: Recovering,
		},
		{
			name: "unclean allowed but nothing live: fails", strategy: Offline(true),
			live: NewSnapshot(), assignment: assign(1, 2, 3), cur: st(NoLeader, 5, 1),
			wantReason: ReasonNoLiveReplica, wantMsg: msgTrue,
		},
		{
			name: "only live ISR member is outside the assignment, unclean off", strategy: Offline(false),
			live: NewSnapshot(5), assignment: assign(1, 2), cur: st(NoLeader, 0, 5),
			wantReason: ReasonNoLiveInSyncReplica, wantMsg: msgFalse,
		},
		{
			name: "only live ISR member is outside the assignment, unclean on", strategy: Offline(false), unclean: true,
			live: NewSnapshot(5), assignment: assign(1, 2), cur: st(NoLeader, 0, 5),
			wantReason: ReasonNoLiveReplica, wantMsg: msgFalse,
		},
		{
			name: "empty assignment", strategy: Offline(true),
			live: NewSnapshot(1), assignment: assign(), cur: st(NoLeader, 0, 1),
			wantReason: ReasonNoReplicas, wantMsg: msgTrue,
		},
	})
}

func TestReassignElection(t *testing.T) {
	const msg = "Failed to elect leader for partition foo-0 under strategy ReassignPartitionLeaderElectionStrategy"
	moving := ReplicaAssignment{Replicas: ids(4, 5, 6, 1, 2, 3), Adding: ids(4, 5, 6), Removing: ids(1, 2, 3)}
	runElectCases(t, []electCase{
		{
			name: "first target replica in target order, not ISR order", strategy: Reassign(),
			live: NewSnapshot(1, 2, 3, 4, 5, 6), assignment: moving, cur: st(1, 3, 1, 2, 3, 6, 5, 4),
			wantLeader: 4, wantISR: ids(1, 2, 3, 6, 5, 4), wantRecipients: ids(4, 5, 6),
		},
		{
			name: "target replica not yet in the ISR is skipped", strategy: Reassign(),
			live: NewSnapshot(1, 2, 3, 4, 5, 6), assignment: moving, cur: st(1, 3, 1, 2, 3, 6, 5),
			wantLeader: 5, wantISR: ids(1, 2, 3, 6, 5), wantRecipients: ids(4, 5, 6),
		},
		{
			name: "dead and shutting-down targets are skipped; all targets still receive", strategy: Reassign(),
			live:       NewSnapshot(1, 2, 3, 5, 6).WithShutdown(5),
			assignment: ReplicaAssignment{Replicas: ids(4, 5, 7, 6, 1), Adding: ids(4, 5, 7, 6), Removing: ids(1)},
			cur:        st(1, 3, 1, 4, 5, 6, 7),
			wantLeader: 6, wantISR: ids(1, 4, 5, 6, 7), wantRecipients: ids(4, 5, 7, 6),
		},
		{
			name: "origin replicas are never chosen", strategy: Reassign(),
			live: NewSnapshot(1, 2, 3, 4, 5, 6), assignment: moving, cur: st(2, 3, 1, 2, 3),
			wantReason: ReasonNoEligibleReplica, wantMsg: msg,
		},
		{
			name: "not being reassigned: target is the whole assignment", strategy: Reassign(),
			live: NewSnapshot(2, 3), assignment: assign(1, 2, 3), cur: st(1, 0, 1, 3),
			wantLeader: 3, wantISR: ids(1, 3), wantRecipients: ids(1, 2, 3),
		},
		{
			name: "RECOVERING is kept", strategy: Reassign(),
			live: NewSnapshot(2), assignment: assign(1, 2), cur: recovering(st(1, 0, 2)),
			wantLeader: 2, wantISR: ids(2), wantRecipients: ids(1, 2), wantRecovery: Recovering,
		},
		{
			name: "empty target", strategy: Reassign(),
			live:       NewSnapshot(1),
			assignment: ReplicaAssignment{Replicas: ids(1), Removing: ids(1)}, cur: st(1, 0, 1),
			wantReason: ReasonNoReplicas, wantMsg: msg,
		},
	})
}

func TestPreferredElection(t *testing.T) {
	const msg = "Failed to elect leader for partition foo-0 under strategy PreferredReplicaPartitionLeaderElectionStrategy"
	runElectCases(t, []electCase{
		{
			name: "head live and in ISR; every assigned replica receives, dead ones too", strategy: Preferred(),
			live: NewSnapshot(1, 2), assignment: assign(1, 2, 3), cur: st(2, 8, 2, 1),
			wantLeader: 1, wantISR: ids(2, 1), wantRecipients: ids(1, 2, 3),
		},
		{
			name: "head already leader still bumps the epoch", strategy: Preferred(),
			live: NewSnapshot(1, 2), assignment: assign(1, 2), cur: st(1, 8, 1, 2),
			wantLeader: 1, wantISR: ids(1, 2), wantRecipients: ids(1, 2),
		},
		{
			name: "head dead", strategy: Preferred(),
			live: NewSnapshot(2, 3), assignment: assign(1, 2, 3), cur: st(2, 8, 1, 2, 3),
			wantReason: ReasonPreferredNotLive, wantMsg: msg,
		},
		{
			name: "head live but not in ISR: no fallback to the next replica", strategy: Preferred(),
			live: NewSnapshot(1, 2, 3), assignment: assign(1, 2, 3), cur: st(2, 8, 2, 3),
			wantReason: ReasonPreferredNotInISR, wantMsg: msg,
		},
		{
			name: "head shutting down", strategy: Preferred(),
			live: NewSnapshot(1, 2).WithShutdown(1), assignment: assign(1, 2), cur: st(2, 8, 1, 2),
			wantReason: ReasonPreferredNotLive, wantMsg: msg,
		},
		{
			name: "head on an offline log dir", strategy: Preferred(),
			live: NewSnapshot(1, 2).WithOfflineDir(1, tp(0)), assignment: assign(1, 2), cur: st(2, 8, 1, 2),
			wantReason: ReasonPreferredNotLive, wantMsg: msg,
		},
		{
			name: "RECOVERING is kept", strategy: Preferred(),
			live: NewSnapshot(1, 2), assignment: assign(1, 2), cur: recovering(st(2, 8, 1)),
			wantLeader: 1, wantISR: ids(1), wantRecipients: ids(1, 2), wantRecovery: Recovering,
		},
		{
			name: "empty assignment", strategy: Preferred(),
			live: NewSnapshot(1), assignment: assign(), cur: st(1, 0, 1),
			wantReason: ReasonNoReplicas, wantMsg: msg,
		},
	})
}

func TestControlledShutdownElection(t *testing.T) {
	const msg = "Failed to elect leader for partition foo-0 under strategy ControlledShutdownPartitionLeaderElectionStrategy"
	runElectCases(t, []electCase{
		{
			name: "leader moves off; the shutting-down broker still receives", strategy: ControlledShutdown(),
			live: NewSnapshot(1, 2, 3).WithShutdown(1), assignment: assign(1, 2, 3), cur: st(1, 4, 1, 2, 3),
			wantLeader: 2, wantISR: ids(2, 3), wantRecipients: ids(1, 2, 3),
		},
		{
			name: "every shutting-down broker leaves the ISR and cannot lead", strategy: ControlledShutdown(),
			live: NewSnapshot(1, 2, 3).WithShutdown(1, 2), assignment: assign(1, 2, 3), cur: st(1, 4, 1, 2, 3),
			wantLeader: 3, wantISR: ids(3), wantRecipients: ids(1, 2, 3),
		},
		{
			name: "shutting-down broker outside the assignment is stripped from the ISR", strategy: ControlledShutdown(),
			live: NewSnapshot(1, 2, 7).WithShutdown(1, 7), assignment: assign(1, 2), cur: st(1, 4, 7, 1, 2),
			wantLeader: 2, wantISR: ids(2), wantRecipients: ids(1, 2),
		},
		{
			name: "candidate outside the ISR is skipped", strategy: ControlledShutdown(),
			live: NewSnapshot(1, 2, 3).WithShutdown(1), assignment: assign(1, 2, 3), cur: st(1, 4, 1, 3),
			wantLeader: 3, wantISR: ids(3), wantRecipients: ids(1, 2, 3),
		},
		{
			// Only shutting-down brokers leave the ISR: a dead member stays
			// until its own OfflineReplica transition removes it.
			name: "dead replica is neither leader nor recipient but stays in the ISR", strategy: ControlledShutdown(),
			live: NewSnapshot(1, 3).WithShutdown(1), assignment: assign(1, 2, 3), cur: st(1, 4, 1, 2, 3),
			wantLeader: 3, wantISR: ids(2, 3), wantRecipients: ids(1, 3),
		},
		{
			name: "offline-dir replica is neither leader nor recipient", strategy: ControlledShutdown(),
			live:       NewSnapshot(1, 2, 3).WithShutdown(1).WithOfflineDir(2, tp(0)),
			assignment: assign(1, 2, 3), cur: st(1, 4, 1, 2, 3),
			wantLeader: 3, wantISR: ids(2, 3), wantRecipients: ids(1, 3),
		},
		{
			name: "leader not shutting down is re-elected by assignment order", strategy: ControlledShutdown(),
			live: NewSnapshot(1, 2, 3).WithShutdown(3), assignment: assign(2, 1, 3), cur: st(1, 4, 1, 2, 3),
			wantLeader: 2, wantISR: ids(1, 2), wantRecipients: ids(2, 1, 3),
		},
		{
			name: "RF 2, the other replica is out of the ISR", strategy: ControlledShutdown(),
			live: NewSnapshot(1, 2).WithShutdown(1), assignment: assign(1, 2), cur: st(1, 4, 1),
			wantReason: ReasonNoEligibleReplica, wantMsg: msg,
		},
		{
			name: "every replica shutting down", strategy: ControlledShutdown(),
			live: NewSnapshot(1, 2).WithShutdown(1, 2), assignment: assign(1, 2), cur: st(1, 4, 1, 2),
			wantReason: ReasonNoEligibleReplica, wantMsg: msg,
		},
		{
			name: "empty assignment", strategy: ControlledShutdown(),
			live: NewSnapshot(1), assignment: assign(), cur: st(1, 4, 1),
			wantReason: ReasonNoReplicas, wantMsg: msg,
		},
	})
}

func TestElectionPreconditions(t *testing.T) {
	for _, s := range []Strategy{Offline(false), Offline(true), Reassign(), Preferred(), ControlledShutdown()} {
		t.Run(s.String(), func(t *testing.T) {
			live := NewSnapshot(1, 2, 3)
			in := PartitionInput{Partition: tp(3), Assignment: assign(1, 2, 3)}

			res := ElectLeader(testEnv(live), s, in)
			checkFailure(t, res, ReasonNoState, "LeaderAndIsr information doesn't exist for partition foo-3")

			fenced := st(1, 0, 1, 2, 3)
			fenced.ControllerEpoch = testControllerEpoch + 1
			in.Current = fenced
			res = ElectLeader(testEnv(live), s, in)
			checkFailure(t, res, ReasonFenced, "Aborted leader election for partition foo-3 since the LeaderAndIsr "+
				"path was already written by another controller. This probably means that the current controller 100 "+
				"went through a soft failure and another controller was elected with epoch 6.")
			var ee *ElectionError
			if errors.As(res.Err, &ee) && (ee.NoEligibleLeader() || ee.ZnodeControllerEpoch != 6) {
				t.Errorf("fenced error: NoEligibleLeader=%v znode epoch=%d", ee.NoEligibleLeader(), ee.ZnodeControllerEpoch)
			}

			// A state written by our own epoch is fine.
			same := st(1, 0, 1, 2, 3)
			same.ControllerEpoch = testControllerEpoch
			in.Current = same
			if res := ElectLeader(testEnv(live.WithShutdown(1)), s, in); res.Err != nil && s.Kind != PreferredKind {
				t.Errorf("same controller epoch: %v", res.Err)
			}
		})
	}
}

func TestElectLeadersBatch(t *testing.T) {
	live := NewSnapshot(2, 3)
	in := []PartitionInput{
		{Partition: tp(0), Assignment: assign(1, 2), Current: st(1, 0, 1, 2)},
		{Partition: tp(1), Assignment: assign(1), Current: st(1, 0, 1)},
		{Partition: tp(2), Assignment: assign(1, 3), Current: st(1, 0, 1), UncleanEnabled: true},
		{Partition: tp(3), Assignment: assign(3, 2), Current: nil},
	}
	out := ElectLeaders(testEnv(live), Offline(false), in)
	if len(out) != len(in) {
		t.Fatalf("got %d results for %d inputs", len(out), len(in))
	}
	for i, r := range out {
		if r.Partition != in[i].Partition {
			t.Errorf("result %d is for %v, want %v", i, r.Partition, in[i].Partition)
		}
	}
	if out[0].Err != nil || out[0].LeaderAndIsr.Leader != 2 || out[0].Unclean {
		t.Errorf("partition 0: %+v", out[0])
	}
	if out[1].Err == nil {
		t.Errorf("partition 1 (no live replica) elected %+v", out[1].LeaderAndIsr)
	}
	if out[2].Err != nil || out[2].LeaderAndIsr.Leader != 3 || !out[2].Unclean {
		t.Errorf("partition 2 (topic unclean): %+v", out[2])
	}
	var ee *ElectionError
	if !errors.As(out[3].Err, &ee) || ee.Reason != ReasonNoState {
		t.Errorf("partition 3 (no state): %v", out[3].Err)
	}
	if got := ElectLeaders(testEnv(live), Offline(false), nil); len(got) != 0 {
		t.Errorf("empty batch gave %v", got)
	}
}

func TestResultDoesNotAliasInput(t *testing.T) {
	cur := st(1, 0, 1, 2, 3)
	a := assign(1, 2, 3)
	for _, s := range []Strategy{Offline(false), Reassign(), Preferred()} {
		res := ElectLeader(testEnv(NewSnapshot(1, 2, 3)), s, PartitionInput{Partition: tp(0), Assignment: a, Current: cur})
		if res.Err != nil {
			t.Fatalf("%v: %v", s, res.Err)
		}
		res.LeaderAndIsr.ISR[0] = 99
		res.Recipients[0] = 99
		if cur.ISR[0] != 1 || cur.ELR[0] != 9 || a.Replicas[0] != 1 {
			t.Fatalf("%v: mutating the result changed the input: isr %v elr %v replicas %v", s, cur.ISR, cur.ELR, a.Replicas)
		}
	}
}

func TestNeedsUncleanConfig(t *testing.T) {
	live := NewSnapshot(2, 3).WithShutdown(3)
	cases := []struct {
		name  string
		allow bool
		cur   *LeaderAndIsr
		want  bool
	}{
		{"live ISR member exists", false, st(1, 0, 1, 2), false},
		{"no live ISR member", false, st(NoLeader, 0, 1), true},
		{"only a shutting-down ISR member", false, st(3, 0, 3), true},
		{"allowUnclean already decides", true, st(NoLeader, 0, 1), false},
		{"no state", false, nil, false},
	}
	for _, c := range cases {
		in := PartitionInput{Partition: tp(0), Assignment: assign(1, 2, 3), Current: c.cur}
		if got := NeedsUncleanConfig(live, c.allow, in); got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}

func TestElectionNeeded(t *testing.T) {
	live := NewSnapshot(1, 2, 3).WithShutdown(3).WithOfflineDir(2, tp(0))
	cases := []struct {
		name   string
		typ    ElectionType
		leader int32
		want   bool
	}{
		{"preferred: leader is head", PreferredElection, 1, false},
		{"preferred: leader is not head", PreferredElection, 2, true},
		{"preferred: no leader", PreferredElection, NoLeader, true},
		{"unclean: live leader", UncleanElection, 1, false},
		{"unclean: leader on an offline dir still counts as live", UncleanElection, 2, false},
		{"unclean: shutting-down leader", UncleanElection, 3, true},
		{"unclean: dead leader", UncleanElection, 4, true},
		{"unclean: no leader", UncleanElection, NoLeader, true},
	}
	for _, c := range cases {
		if got := ElectionNeeded(c.typ, live, ids(1, 2, 3), c.leader); got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
	if !ElectionNeeded(PreferredElection, live, nil, 1) {
		t.Error("preferred with no replicas should fall through to the election, which reports the failure")
	}
}

func TestStrategyNames(t *testing.T) {
	cases := []struct {
		s    Strategy
		want string
	}{
		{Offline(false), "OfflinePartitionLeaderElectionStrategy(false)"},
		{Offline(true), "OfflinePartitionLeaderElectionStrategy(true)"},
		{Reassign(), "ReassignPartitionLeaderElectionStrategy"},
		{Preferred(), "PreferredReplicaPartitionLeaderElectionStrategy"},
		{ControlledShutdown(), "ControlledShutdownPartitionLeaderElectionStrategy"},
		{StrategyFor(PreferredElection, true), "PreferredReplicaPartitionLeaderElectionStrategy"},
		{StrategyFor(UncleanElection, true), "OfflinePartitionLeaderElectionStrategy(true)"},
		{StrategyFor(UncleanElection, false), "OfflinePartitionLeaderElectionStrategy(false)"},
		{Strategy{Kind: 9}, "Strategy(9)"},
	}
	for _, c := range cases {
		if got := c.s.String(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

func TestUnknownStrategyFails(t *testing.T) {
	res := ElectLeader(testEnv(NewSnapshot(1)), Strategy{Kind: 9}, PartitionInput{
		Partition: tp(0), Assignment: assign(1), Current: st(1, 0, 1)})
	checkFailure(t, res, ReasonNoEligibleReplica, "")
}

func TestElectionErrorDetail(t *testing.T) {
	res := ElectLeader(testEnv(NewSnapshot(3)), Preferred(), PartitionInput{
		Partition: tp(0), Assignment: assign(1, 2, 3), Current: st(3, 0, 3, 2)})
	var ee *ElectionError
	if !errors.As(res.Err, &ee) {
		t.Fatalf("want an election error, got %v", res.Err)
	}
	d := ee.Detail()
	for _, want := range []string{"foo-0", "preferred replica not live", "candidates [1]", "isr [3,2]"} {
		if !strings.Contains(d, want) {
			t.Errorf("detail %q lacks %q", d, want)
		}
	}
	if !ee.NoEligibleLeader() {
		t.Error("a strategy failure must report NoEligibleLeader")
	}
	for r := ReasonNoState; r <= ReasonNoEligibleReplica; r++ {
		if strings.HasPrefix(r.String(), "Reason(") {
			t.Errorf("reason %d has no name", r)
		}
	}
	if Reason(42).String() != "Reason(42)" {
		t.Errorf("unknown reason renders %q", Reason(42).String())
	}
	if !slices.Equal(ee.Candidates, ids(1)) {
		t.Errorf("candidates = %v", ee.Candidates)
	}
}
