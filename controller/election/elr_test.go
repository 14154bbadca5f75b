package election

import (
	"slices"
	"testing"
)

// elrState is a compact partition state for the ELR tables.
func elrState(isr, elr, last []int32, minISR int32) *LeaderAndIsr {
	return &LeaderAndIsr{Leader: NoLeader, ISR: isr, ELR: elr, LastKnownELR: last, ELRMinISR: minISR}
}

func TestNextELRTransitions(t *testing.T) {
	rep := ids(1, 2, 3)
	on := func(minISR int32) ELRParams { return ELRParams{Enabled: true, MinISR: minISR, Replicas: rep} }
	cases := []struct {
		name              string
		prev              *LeaderAndIsr
		nextISR           []int32
		p                 ELRParams
		wantELR, wantLast []int32
		wantMin           int32
	}{
		{"disabled clears both", elrState(ids(1), ids(2), ids(3), 2), ids(1),
			ELRParams{MinISR: 2, Replicas: rep}, nil, nil, 0},
		{"ISR at min ISR: nothing", elrState(ids(1, 2, 3), nil, nil, 0), ids(1, 2), on(2), nil, nil, 0},
		{"shrink below min ISR: leavers enter ELR", elrState(ids(1, 2), nil, nil, 0), ids(1), on(2), ids(2), nil, 2},
		{"shrink two at once", elrState(ids(1, 2, 3), nil, nil, 0), ids(3), on(3), ids(1, 2), nil, 3},
		{"ELR kept while below", elrState(ids(1), ids(2), nil, 2), ids(1), on(2), ids(2), nil, 2},
		{"ZK last member stays in ISR, ELR kept", elrState(ids(1), ids(2), nil, 2), ids(1), on(2), ids(2), nil, 2},
		{"ELR member rejoins ISR: back at min, cleared", elrState(ids(1), ids(2), ids(3), 2), ids(1, 2), on(2), nil, nil, 0},
		{"ELR member rejoins but still below", elrState(ids(1), ids(2, 3), nil, 3), ids(1, 2), on(3), ids(3), nil, 3},
		{"elected from ELR: leader leaves ELR, last ISR member enters",
			elrState(ids(1), ids(2), nil, 2), ids(2), on(2), ids(1), nil, 2},
		{"unclean election clears both", elrState(ids(1), ids(2), ids(3), 2), ids(3),
			ELRParams{Enabled: true, MinISR: 2, Replicas: rep, Unclean: true}, nil, nil, 0},
		{"unclean shutdown moves to last known", elrState(ids(1), ids(2), nil, 2), ids(1),
			ELRParams{Enabled: true, MinISR: 2, Replicas: rep, UncleanShutdown: ids(2)}, nil, ids(2), 2},
		{"last known kept across later shrinks", elrState(ids(1, 3), nil, ids(2), 3), ids(1), on(3), ids(3), ids(2), 3},
		{"min ISR changed: old lists void", elrState(ids(1), ids(2), ids(3), 3), ids(1), on(2), nil, nil, 0},
		{"unstamped ELR (older writer) is void", elrState(ids(1), ids(2), nil, 0), ids(1), on(2), nil, nil, 0},
		{"removed replica never eligible", elrState(ids(1, 4), nil, nil, 0), ids(1), on(2), nil, nil, 0},
		{"no previous state", nil, ids(1), on(2), nil, nil, 0},
		{"min ISR 1 never has an ELR", elrState(ids(1, 2), nil, nil, 0), ids(1), on(1), nil, nil, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			next := LeaderAndIsr{Leader: 7, LeaderEpoch: 4, ISR: c.nextISR, ELR: ids(9), LastKnownELR: ids(9)}
			got := NextELR(c.prev, next, c.p)
			if !slices.Equal(got.ELR, c.wantELR) || !slices.Equal(got.LastKnownELR, c.wantLast) || got.ELRMinISR != c.wantMin {
				t.Errorf("got ELR %v last %v min %d, want %v %v %d", got.ELR, got.LastKnownELR, got.ELRMinISR,
					c.wantELR, c.wantLast, c.wantMin)
			}
			if got.Leader != 7 || got.LeaderEpoch != 4 || !slices.Equal(got.ISR, c.nextISR) {
				t.Errorf("other fields changed: %v", got)
			}
		})
	}
}

func TestEffectiveMinISR(t *testing.T) {
	for _, c := range []struct {
		conf int32
		rf   int
		want int32
	}{{2, 3, 2}, {3, 2, 2}, {0, 3, 1}, {1, 1, 1}, {5, 0, 1}} {
		if got := EffectiveMinISR(c.conf, c.rf); got != c.want {
			t.Errorf("EffectiveMinISR(%d, %d) = %d, want %d", c.conf, c.rf, got, c.want)
		}
	}
}

// TestElectionOrder: ISR first, then ELR, then the unclean path by mode.
func TestElectionOrder(t *testing.T) {
	a := assign(1, 2, 3)
	cur := &LeaderAndIsr{Leader: NoLeader, LeaderEpoch: 5, ISR: ids(1), ELR: ids(3), ELRMinISR: 2,
		PartitionEpoch: testZnodeVersion, ControllerEpoch: testStoredCtlEpoch}
	cases := []struct {
		name        string
		live        []int32
		elr         bool
		mode        RecoveryMode
		unclean     bool
		strategy    Strategy
		wantLeader  int32
		wantISR     []int32
		wantELR     []int32
		wantReason  Reason
		fromELR     bool
		wantUnclean bool
	}{
		{"ISR member live", []int32{1, 2, 3}, true, RecoveryOff, false, Offline(false), 1, ids(1), ids(3), 0, false, false},
		{"ELR member when ISR dead", []int32{2, 3}, true, RecoveryOff, false, Offline(false), 3, ids(3), ids(1), 0, true, false},
		{"ELR ignored when disabled", []int32{2, 3}, false, RecoveryOff, false, Offline(false), 0, nil, nil,
			ReasonNoLiveInSyncReplica, false, false},
		{"classic unclean after ELR", []int32{2}, true, RecoveryOff, true, Offline(false), 2, ids(2), nil, 0, false, true},
		{"classic, unclean disabled", []int32{2}, true, RecoveryOff, false, Offline(false), 0, nil, nil,
			ReasonNoLiveInSyncReplica, false, false},
		{"None never unclean", []int32{2}, true, RecoveryNone, true, Offline(false), 0, nil, nil,
			ReasonNoLiveInSyncReplica, false, false},
		{"Balanced needs recovery", []int32{2}, true, RecoveryBalanced, false, Offline(false), 0, nil, nil,
			ReasonRecoveryNeeded, false, false},
		{"Aggressive needs recovery", []int32{2}, true, RecoveryAggressive, false, Offline(false), 0, nil, nil,
			ReasonRecoveryNeeded, false, false},
		{"recovery with nobody live", nil, true, RecoveryBalanced, false, Offline(false), 0, nil, nil,
			ReasonNoLiveReplica, false, false},
		{"admin unclean bypasses the manager", []int32{2}, true, RecoveryNone, false, Offline(true), 2, ids(2), nil, 0, false, true},
		{"recovered leader elected uncleanly", []int32{2}, true, RecoveryBalanced, false, Recover(2), 2, ids(2), nil, 0, false, true},
		{"recovery yields to a returned ELR member", []int32{2, 3}, true, RecoveryBalanced, false, Recover(2), 3, ids(3), ids(1),
			0, true, false},
		{"recovered leader gone", []int32{3}, false, RecoveryBalanced, false, Recover(2), 0, nil, nil,
			ReasonNoEligibleReplica, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := testEnv(NewSnapshot(c.live...))
			env.ELR = c.elr
			in := PartitionInput{Partition: tp(0), Assignment: a, Current: cur, MinISR: 2, Recovery: c.mode,
				UncleanEnabled: c.unclean}
			res := ElectLeader(env, c.strategy, in)
			if c.wantReason != 0 {
				checkFailure(t, res, c.wantReason, "")
				return
			}
			got := res.LeaderAndIsr
			if res.Err != nil || got.Leader != c.wantLeader || !slices.Equal(got.ISR, c.wantISR) ||
				!slices.Equal(got.ELR, c.wantELR) || res.FromELR != c.fromELR || res.Unclean != c.wantUnclean {
				t.Errorf("got %v elr %v fromELR %v unclean %v err %v", got, got.ELR, res.FromELR, res.Unclean, res.Err)
			}
		})
	}
}

func TestPickRecoveryLeader(t *testing.T) {
	a1 := ReplicaLog{Broker: 1, LastEpoch: 4, LogEndOffset: 100}
	a2 := ReplicaLog{Broker: 2, LastEpoch: 5, LogEndOffset: 10}
	a3 := ReplicaLog{Broker: 3, LastEpoch: 5, LogEndOffset: 20}
	a3tie := ReplicaLog{Broker: 0, LastEpoch: 5, LogEndOffset: 20}
	cases := []struct {
		name     string
		mode     RecoveryMode
		wait     []int32
		answers  []ReplicaLog
		timedOut bool
		want     int32
		done     bool
	}{
		{"no answers", RecoveryAggressive, nil, nil, true, NoLeader, false},
		{"aggressive takes the first", RecoveryAggressive, ids(1, 2, 3), []ReplicaLog{a1}, false, 1, true},
		{"aggressive best of what arrived", RecoveryAggressive, nil, []ReplicaLog{a1, a2}, false, 2, true},
		{"balanced waits for the set", RecoveryBalanced, ids(1, 3), []ReplicaLog{a1, a2}, false, NoLeader, false},
		{"balanced decides when all answered", RecoveryBalanced, ids(1, 3), []ReplicaLog{a1, a2, a3}, false, 3, true},
		{"balanced at the timeout", RecoveryBalanced, ids(1, 3), []ReplicaLog{a1, a2}, true, 2, true},
		{"epoch beats offset", RecoveryBalanced, nil, []ReplicaLog{a1, a2}, false, 2, true},
		{"tie to the lower id", RecoveryBalanced, nil, []ReplicaLog{a3, a3tie}, false, 0, true},
		{"none never decides", RecoveryNone, nil, []ReplicaLog{a1}, true, NoLeader, false},
		{"off never decides", RecoveryOff, nil, []ReplicaLog{a1}, true, NoLeader, false},
	}
	for _, c := range cases {
		got, done := PickRecoveryLeader(c.mode, c.wait, c.answers, c.timedOut)
		if got != c.want || done != c.done {
			t.Errorf("%s: got %d %v, want %d %v", c.name, got, done, c.want, c.done)
		}
	}
}

func TestRecoveryWaitSet(t *testing.T) {
	cur := LeaderAndIsr{ISR: ids(1), ELR: ids(3), LastKnownELR: ids(2, 7), ELRMinISR: 2}
	if got := RecoveryWaitSet(cur, ids(1, 2, 3), 2); !slices.Equal(got, ids(1, 2, 3)) {
		t.Errorf("wait set %v", got)
	}
	if got := RecoveryWaitSet(cur, ids(1, 2, 3), 3); !slices.Equal(got, ids(1)) {
		t.Errorf("wait set with a changed min ISR %v", got)
	}
}
