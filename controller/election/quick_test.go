package election

import (
	"math/rand"
	"reflect"
	"slices"
	"testing"
	"testing/quick"
)

// scenario is a random election input: six brokers with random
// registration, shutdown and failed-dir flags, a random assignment (possibly
// mid-reassignment) and a random ISR that may name unassigned brokers.
type scenario struct {
	Live     Snapshot
	Strategy Strategy
	In       PartitionInput
	OldIBP   bool
}

func (scenario) Generate(r *rand.Rand, _ int) reflect.Value {
	const brokers = 6
	live := NewSnapshot()
	for b := range int32(brokers) {
		if r.Intn(4) > 0 {
			live.Brokers[b] = true
		}
		// Only registered brokers can be shutting down: Kafka drops a broker
		// from the shutting-down set when its znode goes.
		if live.Brokers[b] && r.Intn(5) == 0 {
			live.WithShutdown(b)
		}
		if r.Intn(6) == 0 {
			live.WithOfflineDir(b, tp(0))
		}
	}
	perm := r.Perm(brokers)
	replicas := make([]int32, 1+r.Intn(brokers-1))
	for i := range replicas {
		replicas[i] = int32(perm[i])
	}
	a := ReplicaAssignment{Replicas: replicas}
	if len(replicas) > 1 && r.Intn(3) == 0 {
		// Mid-reassignment: the last replica is being removed, the first added.
		a.Removing = replicas[len(replicas)-1:]
		a.Adding = replicas[:1]
	}
	var isr []int32
	for _, b := range r.Perm(brokers) {
		if r.Intn(2) == 0 {
			isr = append(isr, int32(b))
		}
	}
	if len(isr) == 0 {
		isr = []int32{int32(r.Intn(brokers))}
	}
	cur := &LeaderAndIsr{Leader: int32(r.Intn(brokers+1) - 1), LeaderEpoch: int32(r.Intn(100)), ISR: isr,
		LeaderRecoveryState: LeaderRecoveryState(r.Intn(2)), PartitionEpoch: int32(r.Intn(50)),
		ControllerEpoch: int32(r.Intn(int(testControllerEpoch) + 1))}
	strategies := []Strategy{Offline(false), Offline(true), Reassign(), Preferred(), ControlledShutdown()}
	return reflect.ValueOf(scenario{
		Live:     live,
		Strategy: strategies[r.Intn(len(strategies))],
		In:       PartitionInput{Partition: tp(0), Assignment: a, Current: cur, UncleanEnabled: r.Intn(2) == 0},
		OldIBP:   r.Intn(2) == 0,
	})
}

func (s scenario) env() Env {
	e := testEnv(s.Live)
	e.LeaderRecoverySupported = !s.OldIBP
	return e
}

// naive is a deliberately plain restatement of section 4's table with sets,
// written apart from the real code. It returns leader -1 when no leader.
func naive(s scenario) (leader int32, isr, recipients []int32, unclean bool) {
	in, l := s.In, s.Live
	inISR := map[int32]bool{}
	for _, r := range in.Current.ISR {
		inISR[r] = true
	}
	online := func(r int32) bool {
		return l.Brokers[r] && !l.Shutdown[r] && !l.OfflineDirs[r][tp(0)]
	}
	reachable := func(r int32) bool { return l.Brokers[r] && !l.OfflineDirs[r][tp(0)] }
	keep := func(xs []int32, f func(int32) bool) (out []int32) {
		for _, x := range xs {
			if f(x) {
				out = append(out, x)
			}
		}
		return out
	}
	a := in.Assignment.Replicas
	switch s.Strategy.Kind {
	case OfflineKind:
		for _, r := range a {
			if online(r) && inISR[r] {
				return r, keep(in.Current.ISR, online), keep(a, online), false
			}
		}
		if s.Strategy.AllowUnclean || in.UncleanEnabled {
			if c := keep(a, online); len(c) > 0 {
				return c[0], []int32{c[0]}, c, true
			}
		}
	case ReassignKind:
		target := keep(a, func(r int32) bool { return !slices.Contains(in.Assignment.Removing, r) })
		for _, r := range target {
			if online(r) && inISR[r] {
				return r, in.Current.ISR, target, false
			}
		}
	case PreferredKind:
		if len(a) > 0 && online(a[0]) && inISR[a[0]] {
			return a[0], in.Current.ISR, a, false
		}
	case ControlledShutdownKind:
		for _, r := range a {
			if reachable(r) && inISR[r] && !l.Shutdown[r] {
				return r, keep(in.Current.ISR, func(x int32) bool { return !l.Shutdown[x] }), keep(a, reachable), false
			}
		}
	}
	return NoLeader, nil, nil, false
}

func quickConfig() *quick.Config {
	return &quick.Config{MaxCount: 5000, Rand: rand.New(rand.NewSource(1))}
}

// TestQuickMatchesNaive: the strategies agree with the naive table.
func TestQuickMatchesNaive(t *testing.T) {
	f := func(s scenario) bool {
		res := ElectLeader(s.env(), s.Strategy, s.In)
		leader, isr, recipients, unclean := naive(s)
		if leader == NoLeader {
			return res.Err != nil
		}
		got := res.LeaderAndIsr
		return res.Err == nil && got.Leader == leader && slices.Equal(got.ISR, isr) &&
			slices.Equal(res.Recipients, recipients) && res.Unclean == unclean
	}
	if err := quick.Check(f, quickConfig()); err != nil {
		t.Fatal(err)
	}
}

// TestQuickElectionInvariants: whatever the strategy, an elected leader is a
// live broker (registered, not shutting down, its copy not on a failed dir),
// the ISR is non-empty and contains it, a clean leader was in the old ISR,
// recipients are assigned replicas and include the leader, and the epochs
// move as section 9 requires.
func TestQuickElectionInvariants(t *testing.T) {
	f := func(s scenario) bool {
		res := ElectLeader(s.env(), s.Strategy, s.In)
		if res.Err != nil {
			return true
		}
		got, old := res.LeaderAndIsr, s.In.Current
		ok := ReplicaOnline(s.Live, got.Leader, tp(0)) &&
			slices.Contains(got.ISR, got.Leader) &&
			slices.Contains(s.In.Assignment.Replicas, got.Leader) &&
			slices.Contains(res.Recipients, got.Leader) &&
			got.LeaderEpoch == old.LeaderEpoch+1 &&
			got.PartitionEpoch == old.PartitionEpoch &&
			got.ControllerEpoch == testControllerEpoch
		for _, r := range res.Recipients {
			ok = ok && slices.Contains(s.In.Assignment.Replicas, r)
		}
		if res.Unclean {
			wantRecovery := old.LeaderRecoveryState
			if !s.OldIBP {
				wantRecovery = Recovering
			}
			return ok && s.Strategy.Kind == OfflineKind && !slices.Contains(old.ISR, got.Leader) &&
				slices.Equal(got.ISR, ids(got.Leader)) && got.LeaderRecoveryState == wantRecovery
		}
		for _, r := range got.ISR {
			ok = ok && slices.Contains(old.ISR, r)
		}
		return ok && slices.Contains(old.ISR, got.Leader) && got.LeaderRecoveryState == old.LeaderRecoveryState
	}
	if err := quick.Check(f, quickConfig()); err != nil {
		t.Fatal(err)
	}
}

// TestQuickIsrRemoval: the ISR never empties, the removed replica does not
// lead, and a write always bumps the leader epoch.
func TestQuickIsrRemoval(t *testing.T) {
	f := func(s scenario, pick uint8) bool {
		replica := int32(pick % 6)
		got := RemoveReplicaFromISR(s.env(), replica, tp(0), s.In.Current, false)
		old := s.In.Current
		switch got.Outcome {
		case IsrWrite:
			n := got.LeaderAndIsr
			removed := !slices.Contains(n.ISR, replica) || (len(old.ISR) == 1 && slices.Equal(n.ISR, old.ISR))
			return len(n.ISR) > 0 && n.Leader != replica && removed && n.LeaderEpoch == old.LeaderEpoch+1 &&
				slices.Contains(old.ISR, replica)
		case IsrUnchanged:
			return !slices.Contains(old.ISR, replica) && got.LeaderAndIsr.LeaderEpoch == old.LeaderEpoch
		}
		return got.Err != nil
	}
	if err := quick.Check(f, quickConfig()); err != nil {
		t.Fatal(err)
	}
}

// TestQuickImbalanceRatioIsExact: Kafka's float comparison of
// notPreferred/total against percentage/100 agrees with exact integer
// arithmetic for every count a cluster can have, so CheckImbalance's float
// division loses nothing.
func TestQuickImbalanceRatioIsExact(t *testing.T) {
	f := func(a, b uint16, pct uint8) bool {
		total := int(b)%5000 + 1
		n := int(a) % (total + 1)
		p := int(pct) % 101
		parts := make([]RebalancePartition, total)
		for i := range parts {
			leader := int32(1)
			if i < n {
				leader = 2
			}
			parts[i] = rp(int32(i), ids(1, 2), st(leader, 0, 1, 2))
		}
		got := CheckImbalance(NewSnapshot(1, 2), p, parts)
		return len(got) == 1 && got[0].OverThreshold == (n*100 > p*total)
	}
	if err := quick.Check(f, &quick.Config{MaxCount: 300, Rand: rand.New(rand.NewSource(2))}); err != nil {
		t.Fatal(err)
	}
}
