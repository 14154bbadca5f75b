package election

import (
	"errors"
	"slices"
	"testing"
)

// Shared fixtures. The deciding controller is id 100 at epoch 5; partition
// states read from ZooKeeper were written at controller epoch 4 and have
// znode version 7, so every test can see that epochs move and versions do not.
const (
	testControllerID    int32 = 100
	testControllerEpoch int32 = 5
	testZnodeVersion    int32 = 7
	testStoredCtlEpoch  int32 = 4
)

func tp(p int32) TopicPartition { return TopicPartition{Topic: "foo", Partition: p} }

func ids(xs ...int32) []int32 { return xs }

func testEnv(l Liveness) Env {
	return Env{ControllerID: testControllerID, ControllerEpoch: testControllerEpoch, Live: l, LeaderRecoverySupported: true}
}

// st builds a state as read from ZooKeeper, with ELR fields set so tests
// can check they are carried through untouched.
func st(leader, epoch int32, isr ...int32) *LeaderAndIsr {
	return &LeaderAndIsr{
		Leader: leader, LeaderEpoch: epoch, ISR: isr,
		PartitionEpoch: testZnodeVersion, ControllerEpoch: testStoredCtlEpoch,
		ELR: ids(9), LastKnownELR: ids(8),
	}
}

// recovering returns a copy of s marked RECOVERING.
func recovering(s *LeaderAndIsr) *LeaderAndIsr {
	c := s.Clone()
	c.LeaderRecoveryState = Recovering
	return &c
}

// electCase is one row of an election table.
type electCase struct {
	name       string
	strategy   Strategy
	live       Snapshot
	assignment ReplicaAssignment
	cur        *LeaderAndIsr
	unclean    bool // the topic's effective unclean.leader.election.enable
	oldIBP     bool // inter.broker.protocol.version < 3.2-IV0

	wantLeader     int32
	wantISR        []int32
	wantRecipients []int32
	wantUnclean    bool
	wantRecovery   LeaderRecoveryState
	// wantReason non-zero: the election must fail with it and wantMsg.
	wantReason Reason
	wantMsg    string
}

func runElectCases(t *testing.T, cases []electCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := testEnv(c.live)
			env.LeaderRecoverySupported = !c.oldIBP
			in := PartitionInput{Partition: tp(0), Assignment: c.assignment, Current: c.cur, UncleanEnabled: c.unclean}
			var before LeaderAndIsr
			if c.cur != nil {
				before = c.cur.Clone()
			}
			res := ElectLeader(env, c.strategy, in)
			if c.cur != nil && !equalState(before, *c.cur) {
				t.Fatalf("input state was mutated: %v -> %v", before, *c.cur)
			}
			if c.wantReason != 0 {
				checkFailure(t, res, c.wantReason, c.wantMsg)
				return
			}
			checkSuccess(t, c, res)
		})
	}
}

func checkFailure(t *testing.T, res Result, reason Reason, msg string) {
	t.Helper()
	var ee *ElectionError
	if !errors.As(res.Err, &ee) {
		t.Fatalf("want *ElectionError %v, got result %+v", reason, res)
	}
	if ee.Reason != reason {
		t.Errorf("reason = %v, want %v (%s)", ee.Reason, reason, ee.Detail())
	}
	if msg != "" && ee.Error() != msg {
		t.Errorf("message:\n got %q\nwant %q", ee.Error(), msg)
	}
	if res.Recipients != nil || res.Unclean {
		t.Errorf("failed election carries recipients %v / unclean %v", res.Recipients, res.Unclean)
	}
}

func checkSuccess(t *testing.T, c electCase, res Result) {
	t.Helper()
	if res.Err != nil {
		t.Fatalf("unexpected error: %v", res.Err)
	}
	got := res.LeaderAndIsr
	if got.Leader != c.wantLeader {
		t.Errorf("leader = %d, want %d", got.Leader, c.wantLeader)
	}
	if !slices.Equal(got.ISR, c.wantISR) {
		t.Errorf("isr = %v, want %v", got.ISR, c.wantISR)
	}
	if !slices.Equal(res.Recipients, c.wantRecipients) {
		t.Errorf("recipients = %v, want %v", res.Recipients, c.wantRecipients)
	}
	if res.Unclean != c.wantUnclean {
		t.Errorf("unclean = %v, want %v", res.Unclean, c.wantUnclean)
	}
	if got.LeaderRecoveryState != c.wantRecovery {
		t.Errorf("recovery = %v, want %v", got.LeaderRecoveryState, c.wantRecovery)
	}
	checkEpochs(t, *c.cur, got)
	// With ELR disabled (testEnv), an election writes no ELR fields, as
	// Kafka's ZooKeeper controller, which does not know them.
	if got.ELR != nil || got.LastKnownELR != nil || got.ELRMinISR != 0 {
		t.Errorf("ELR disabled, yet the election wrote ELR %v / last known %v", got.ELR, got.LastKnownELR)
	}
}

// checkBump asserts what every controller-initiated change must do: leader
// epoch + 1, our controller epoch, the read znode version kept as the
// expected version, ELR untouched.
func checkBump(t *testing.T, before, after LeaderAndIsr) {
	t.Helper()
	checkEpochs(t, before, after)
	if !slices.Equal(after.ELR, before.ELR) || !slices.Equal(after.LastKnownELR, before.LastKnownELR) {
		t.Errorf("ELR changed: %v/%v -> %v/%v", before.ELR, before.LastKnownELR, after.ELR, after.LastKnownELR)
	}
}

// checkEpochs asserts the epochs of a controller-initiated change.
func checkEpochs(t *testing.T, before, after LeaderAndIsr) {
	t.Helper()
	if after.LeaderEpoch != before.LeaderEpoch+1 {
		t.Errorf("leader epoch = %d, want %d", after.LeaderEpoch, before.LeaderEpoch+1)
	}
	if after.ControllerEpoch != testControllerEpoch {
		t.Errorf("controller epoch = %d, want %d", after.ControllerEpoch, testControllerEpoch)
	}
	if after.PartitionEpoch != before.PartitionEpoch {
		t.Errorf("partition epoch = %d, want the read version %d", after.PartitionEpoch, before.PartitionEpoch)
	}
}

func equalState(a, b LeaderAndIsr) bool {
	return a.Leader == b.Leader && a.LeaderEpoch == b.LeaderEpoch && slices.Equal(a.ISR, b.ISR) &&
		a.LeaderRecoveryState == b.LeaderRecoveryState && a.PartitionEpoch == b.PartitionEpoch &&
		a.ControllerEpoch == b.ControllerEpoch && slices.Equal(a.ELR, b.ELR) && slices.Equal(a.LastKnownELR, b.LastKnownELR)
}

func assign(replicas ...int32) ReplicaAssignment { return ReplicaAssignment{Replicas: replicas} }
