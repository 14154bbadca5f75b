package election

import (
	"errors"
	"slices"
	"testing"
)

func allPartitionStates() []PartitionState {
	return []PartitionState{NewPartition, OnlinePartition, OfflinePartition, NonExistentPartition}
}

// TestPartitionTransitionMatrix checks every (from, to) pair against the
// table of section 3.1, written out in full so a change to either is seen.
func TestPartitionTransitionMatrix(t *testing.T) {
	const (
		N = NewPartition
		O = OnlinePartition
		F = OfflinePartition
		X = NonExistentPartition
	)
	valid := map[[2]PartitionState]bool{
		{X, N}: true,
		{N, O}: true, {O, O}: true, {F, O}: true,
		{N, F}: true, {O, F}: true, {F, F}: true,
		{F, X}: true,
	}
	for _, from := range allPartitionStates() {
		for _, to := range allPartitionStates() {
			want := valid[[2]PartitionState{from, to}]
			if got := ValidPartitionTransition(from, to); got != want {
				t.Errorf("%v -> %v: got %v, want %v", from, to, got, want)
			}
			err := CheckPartitionTransition(tp(0), from, to)
			if (err == nil) != want {
				t.Errorf("Check %v -> %v: err %v, valid %v", from, to, err, want)
			}
		}
	}
	if ValidPartitionTransition(NewPartition, PartitionState(9)) {
		t.Error("an unknown target state must have no valid predecessor")
	}
}

func TestPartitionStateValuesAndNames(t *testing.T) {
	cases := []struct {
		s    PartitionState
		b    int8
		name string
	}{
		{NewPartition, 0, "NewPartition"},
		{OnlinePartition, 1, "OnlinePartition"},
		{OfflinePartition, 2, "OfflinePartition"},
		{NonExistentPartition, 3, "NonExistentPartition"},
		{PartitionState(7), 7, "PartitionState(7)"},
	}
	for _, c := range cases {
		if int8(c.s) != c.b || c.s.String() != c.name {
			t.Errorf("state %d: byte %d name %q, want %d %q", c.s, int8(c.s), c.s.String(), c.b, c.name)
		}
	}
}

func TestInvalidPartitionTransitionMessages(t *testing.T) {
	cases := []struct {
		from, to PartitionState
		want     string
	}{
		{NonExistentPartition, OnlinePartition, "Partition foo-0 should be in one of NewPartition,OnlinePartition,OfflinePartition " +
			"states before moving to OnlinePartition state. Instead it is in NonExistentPartition state"},
		{OnlinePartition, NonExistentPartition, "Partition foo-0 should be in one of OfflinePartition states before moving to " +
			"NonExistentPartition state. Instead it is in OnlinePartition state"},
		{OnlinePartition, NewPartition, "Partition foo-0 should be in one of NonExistentPartition states before moving to " +
			"NewPartition state. Instead it is in OnlinePartition state"},
		{NonExistentPartition, OfflinePartition, "Partition foo-0 should be in one of NewPartition,OnlinePartition,OfflinePartition " +
			"states before moving to OfflinePartition state. Instead it is in NonExistentPartition state"},
	}
	for _, c := range cases {
		err := CheckPartitionTransition(tp(0), c.from, c.to)
		var it *InvalidTransitionError
		if !errors.As(err, &it) {
			t.Fatalf("%v -> %v: want *InvalidTransitionError, got %v", c.from, c.to, err)
		}
		if err.Error() != c.want {
			t.Errorf("%v -> %v:\n got %q\nwant %q", c.from, c.to, err.Error(), c.want)
		}
	}
}

func TestToOnline(t *testing.T) {
	cases := map[PartitionState]OnlineAction{
		NewPartition:         OnlineInitialize,
		OnlinePartition:      OnlineElect,
		OfflinePartition:     OnlineElect,
		NonExistentPartition: OnlineInvalid,
	}
	for from, want := range cases {
		if got := ToOnline(from); got != want {
			t.Errorf("ToOnline(%v) = %v, want %v", from, got, want)
		}
		if (want != OnlineInvalid) != ValidPartitionTransition(from, OnlinePartition) {
			t.Errorf("ToOnline(%v) disagrees with the transition table", from)
		}
	}
}

func TestInitialLeaderAndIsr(t *testing.T) {
	cases := []struct {
		name     string
		live     Snapshot
		replicas []int32
		leader   int32
		isr      []int32
		err      string
	}{
		{name: "all live", live: NewSnapshot(1, 2, 3), replicas: ids(3, 1, 2), leader: 3, isr: ids(3, 1, 2)},
		{name: "first replica dead", live: NewSnapshot(1, 2), replicas: ids(3, 1, 2), leader: 1, isr: ids(1, 2)},
		{name: "shutting-down replica is left out", live: NewSnapshot(1, 2, 3).WithShutdown(3),
			replicas: ids(3, 1, 2), leader: 1, isr: ids(1, 2)},
		{name: "offline-dir replica is left out", live: NewSnapshot(1, 2, 3).WithOfflineDir(3, tp(0)),
			replicas: ids(3, 2), leader: 2, isr: ids(2)},
		{name: "RF 1", live: NewSnapshot(5), replicas: ids(5), leader: 5, isr: ids(5)},
		{name: "nothing live", live: NewSnapshot(9), replicas: ids(1, 2),
			err: "Controller 100 epoch 5 encountered error during state change of partition foo-0 from New to Online, " +
				"assigned replicas are [1,2], live replicas are []. No assigned replica is alive."},
		{name: "no replicas", live: NewSnapshot(1), replicas: nil,
			err: "Controller 100 epoch 5 encountered error during state change of partition foo-0 from New to Online, " +
				"assigned replicas are [], live replicas are []. No assigned replica is alive."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, recipients, err := InitialLeaderAndIsr(testEnv(c.live), tp(0), c.replicas)
			if c.err != "" {
				var sc *StateChangeError
				if !errors.As(err, &sc) || err.Error() != c.err {
					t.Fatalf("error:\n got %v\nwant %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := LeaderAndIsr{Leader: c.leader, ISR: c.isr, ControllerEpoch: testControllerEpoch}
			if !equalState(got, want) {
				t.Errorf("got %v (ctl %d), want %v", got, got.ControllerEpoch, want)
			}
			// LeaderAndIsr(isNew=true) goes to exactly the ISR members.
			if !slices.Equal(recipients, c.isr) {
				t.Errorf("recipients = %v, want the ISR %v", recipients, c.isr)
			}
			recipients[0] = 99
			if got.ISR[0] == 99 {
				t.Error("recipients alias the ISR")
			}
		})
	}
}

func TestInitialPartitionState(t *testing.T) {
	live := NewSnapshot(1, 2, 3).WithShutdown(2).WithOfflineDir(3, tp(0))
	cases := []struct {
		name string
		cur  *LeaderAndIsr
		want PartitionState
	}{
		{"no leadership info", nil, NewPartition},
		{"live leader", st(1, 0, 1), OnlinePartition},
		{"no leader", st(NoLeader, 0, 1), OfflinePartition},
		{"dead leader", st(4, 0, 4), OfflinePartition},
		{"shutting-down leader", st(2, 0, 2), OfflinePartition},
		{"leader on an offline dir", st(3, 0, 3), OfflinePartition},
	}
	for _, c := range cases {
		if got := InitialPartitionState(live, tp(0), c.cur); got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
		if c.cur != nil && LeaderOnline(live, tp(0), *c.cur) != (c.want == OnlinePartition) {
			t.Errorf("%s: LeaderOnline disagrees", c.name)
		}
	}
}

func TestNeedsOnlineTrigger(t *testing.T) {
	for _, s := range allPartitionStates() {
		for _, deleting := range []bool{false, true} {
			want := !deleting && (s == NewPartition || s == OfflinePartition)
			if got := NeedsOnlineTrigger(s, deleting); got != want {
				t.Errorf("%v deleting=%v: got %v, want %v", s, deleting, got, want)
			}
		}
	}
}

func TestBumpLeaderEpoch(t *testing.T) {
	cur := recovering(st(2, 11, 2, 1))
	got, err := BumpLeaderEpoch(testEnv(NewSnapshot()), tp(0), cur)
	if err != nil {
		t.Fatal(err)
	}
	checkBump(t, *cur, got)
	if got.Leader != 2 || !slices.Equal(got.ISR, ids(2, 1)) || got.LeaderRecoveryState != Recovering {
		t.Errorf("bump changed more than the epoch: %v", got)
	}

	_, err = BumpLeaderEpoch(testEnv(NewSnapshot()), tp(0), nil)
	wantMissing := "Cannot update leader epoch for partition foo-0 as leaderAndIsr path is empty. " +
		"This could mean we somehow tried to reassign a partition that doesn't exist"
	if err == nil || err.Error() != wantMissing {
		t.Errorf("missing state: got %v", err)
	}

	fenced := st(2, 11, 2)
	fenced.ControllerEpoch = 9
	_, err = BumpLeaderEpoch(testEnv(NewSnapshot()), tp(0), fenced)
	wantFenced := "Leader and isr path written by another controller. This probably means the current controller " +
		"with epoch 5 went through a soft failure and another controller was elected with epoch 9. " +
		"Aborting state change by this controller"
	if err == nil || err.Error() != wantFenced {
		t.Errorf("fenced:\n got %v\nwant %q", err, wantFenced)
	}
}
