package election

import (
	"slices"
	"strings"
	"testing"
)

// TestDesignatedElection: every rule of chooseDesignated, ELR on and off.
func TestDesignatedElection(t *testing.T) {
	a := assign(1, 2, 3)
	full := &LeaderAndIsr{Leader: 1, LeaderEpoch: 5, ISR: ids(1, 2, 3), PartitionEpoch: testZnodeVersion,
		ControllerEpoch: testStoredCtlEpoch}
	// Last replica standing: 1 left alone in the ISR and then died; 3 is
	// in the ELR (it left while the ISR was below min ISR 2).
	lastStanding := &LeaderAndIsr{Leader: NoLeader, LeaderEpoch: 7, ISR: ids(1), ELR: ids(3), LastKnownELR: ids(2),
		ELRMinISR: 2, PartitionEpoch: testZnodeVersion, ControllerEpoch: testStoredCtlEpoch}
	staleELR := lastStanding.Clone()
	staleELR.ELRMinISR = 3 // computed under another min ISR: void
	cases := []struct {
		name       string
		desired    int32
		cur        *LeaderAndIsr
		live       Snapshot
		elr        bool
		oldIBP     bool
		wantLeader int32
		wantISR    []int32
		wantReason Reason
		fromELR    bool
		unclean    bool
	}{
		{"clean move within the ISR", 2, full, NewSnapshot(1, 2, 3), false, false, 2, ids(1, 2, 3), 0, false, false},
		{"ISR keeps its online members", 3, full, NewSnapshot(1, 3), false, false, 3, ids(1, 3), 0, false, false},
		{"not a replica", 4, full, NewSnapshot(1, 2, 3, 4), false, false, 0, nil, ReasonDesiredNotReplica, false, false},
		{"dead", 2, full, NewSnapshot(1, 3), false, false, 0, nil, ReasonDesiredNotLive, false, false},
		{"shutting down", 2, full, NewSnapshot(1, 2, 3).WithShutdown(2), false, false, 0, nil, ReasonDesiredNotLive, false, false},
		{"outside the ISR while an ISR member lives", 2, lastStanding, NewSnapshot(1, 2), true, false, 0, nil,
			ReasonDesiredNotEligible, false, false},
		{"the ISR member itself", 1, lastStanding, NewSnapshot(1, 2), true, false, 1, ids(1), 0, false, false},
		{"ELR member", 3, lastStanding, NewSnapshot(2, 3), true, false, 3, ids(3), 0, true, false},
		{"outside the ELR while an ELR member lives", 2, lastStanding, NewSnapshot(2, 3), true, false, 0, nil,
			ReasonDesiredNotEligible, false, false},
		{"manual unclean recovery", 2, lastStanding, NewSnapshot(2), true, false, 2, ids(2), 0, false, true},
		{"ELR off: the ELR member is unclean", 3, lastStanding, NewSnapshot(2, 3), false, false, 3, ids(3), 0, false, true},
		{"void ELR: unclean", 3, &staleELR, NewSnapshot(2, 3), true, false, 3, ids(3), 0, false, true},
		{"unclean before IBP 3.2", 2, lastStanding, NewSnapshot(2), true, true, 2, ids(2), 0, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := testEnv(c.live)
			env.ELR, env.LeaderRecoverySupported = c.elr, !c.oldIBP
			in := PartitionInput{Partition: tp(0), Assignment: a, Current: c.cur, MinISR: 2, Recovery: RecoveryNone}
			res := ElectLeader(env, Designated(c.desired), in)
			if c.wantReason != 0 {
				checkFailure(t, res, c.wantReason, "")
				if msg := res.Err.Error(); !strings.Contains(msg, "DesignatedLeaderElectionStrategy") ||
					!strings.HasSuffix(msg, c.wantReason.String()) {
					t.Errorf("message %q", msg)
				}
				return
			}
			got := res.LeaderAndIsr
			if res.Err != nil || got.Leader != c.wantLeader || !slices.Equal(got.ISR, c.wantISR) ||
				res.FromELR != c.fromELR || res.Unclean != c.unclean {
				t.Fatalf("got %v fromELR %v unclean %v err %v", got, res.FromELR, res.Unclean, res.Err)
			}
			checkEpochs(t, *c.cur, got)
			wantRecovery := Recovered
			if c.unclean && !c.oldIBP {
				wantRecovery = Recovering
			}
			if got.LeaderRecoveryState != wantRecovery {
				t.Errorf("recovery state %v, want %v", got.LeaderRecoveryState, wantRecovery)
			}
			if c.unclean && (got.ELR != nil || got.LastKnownELR != nil) {
				t.Errorf("unclean election kept ELR %v / last known %v", got.ELR, got.LastKnownELR)
			}
			if want := filter(a.Replicas, func(r int32) bool { return ReplicaOnline(c.live, r, tp(0)) }); !slices.Equal(res.Recipients, want) {
				t.Errorf("recipients %v, want %v", res.Recipients, want)
			}
		})
	}
}

// TestDesignatedKeepsELRForCleanChoices: an ELR election leaves the last
// ISR member in the ELR, as the automatic ELR election does.
func TestDesignatedKeepsELRForCleanChoices(t *testing.T) {
	cur := &LeaderAndIsr{Leader: NoLeader, LeaderEpoch: 7, ISR: ids(1), ELR: ids(3), ELRMinISR: 2,
		PartitionEpoch: testZnodeVersion, ControllerEpoch: testStoredCtlEpoch}
	env := testEnv(NewSnapshot(3))
	env.ELR = true
	res := ElectLeader(env, Designated(3), PartitionInput{Partition: tp(0), Assignment: assign(1, 2, 3), Current: cur, MinISR: 2})
	if res.Err != nil || !slices.Equal(res.LeaderAndIsr.ELR, ids(1)) || res.LeaderAndIsr.ELRMinISR != 2 {
		t.Fatalf("got %v elr %v err %v", res.LeaderAndIsr, res.LeaderAndIsr.ELR, res.Err)
	}
}

func TestCheckDesignated(t *testing.T) {
	live := NewSnapshot(1, 2)
	for _, c := range []struct {
		leader, desired int32
		want            DesignatedGate
	}{
		{1, 2, DesignatedElect},
		{1, 1, DesignatedNotNeeded},
		{3, 3, DesignatedElect}, // leads but is not live
		{NoLeader, 2, DesignatedElect},
		{1, 9, DesignatedNotReplica},
	} {
		if got := CheckDesignated(live, tp(0), ids(1, 2, 3), c.leader, c.desired); got != c.want {
			t.Errorf("leader %d desired %d: %v, want %v", c.leader, c.desired, got, c.want)
		}
	}
}

// TestPickRecoveryLeaderUnknownEpochs: stock brokers report no epoch
// (-1); then log end offsets alone decide, even against an answer that has
// an epoch.
func TestPickRecoveryLeaderUnknownEpochs(t *testing.T) {
	stockShort := ReplicaLog{Broker: 1, LastEpoch: -1, LogEndOffset: 10}
	stockLong := ReplicaLog{Broker: 2, LastEpoch: -1, LogEndOffset: 50}
	withEpoch := ReplicaLog{Broker: 3, LastEpoch: 9, LogEndOffset: 20}
	for _, c := range []struct {
		name    string
		answers []ReplicaLog
		want    int32
	}{
		{"offsets decide", []ReplicaLog{stockShort, stockLong}, 2},
		{"an epoch against an unknown one counts for nothing", []ReplicaLog{withEpoch, stockLong}, 2},
		{"tie to the lower id", []ReplicaLog{{Broker: 5, LastEpoch: -1, LogEndOffset: 50}, stockLong}, 2},
	} {
		if got, done := PickRecoveryLeader(RecoveryAggressive, nil, c.answers, false); !done || got != c.want {
			t.Errorf("%s: got %d %v, want %d", c.name, got, done, c.want)
		}
	}
}
