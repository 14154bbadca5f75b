package election

import (
	"slices"
	"testing"
)

// rp builds a rebalance partition of topic foo.
func rp(p int32, replicas []int32, cur *LeaderAndIsr) RebalancePartition {
	return RebalancePartition{Partition: tp(p), Assignment: ReplicaAssignment{Replicas: replicas}, Current: cur}
}

// preferring returns n partitions numbered from start whose preferred
// replica is b and which b leads.
func preferring(start, n int32, b int32, others ...int32) []RebalancePartition {
	var out []RebalancePartition
	for p := start; p < start+n; p++ {
		out = append(out, rp(p, append(ids(b), others...), st(b, 0, append(ids(b), others...)...)))
	}
	return out
}

func TestCheckImbalanceThreshold(t *testing.T) {
	live := NewSnapshot(1, 2, 3)
	cases := []struct {
		name         string
		notPreferred int32 // out of 10 partitions preferring broker 1
		percentage   int
		over         bool
	}{
		{"1 of 10 at 10%: equal is not over", 1, 10, false},
		{"2 of 10 at 10%", 2, 10, true},
		{"0 of 10 at 0%", 0, 0, false},
		{"1 of 10 at 0%", 1, 0, true},
		{"3 of 10 at 30%: float tie is not over", 3, 30, false},
		{"10 of 10 at 100%", 10, 100, false},
		{"10 of 10 at 99%", 10, 99, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			parts := preferring(0, 10, 1, 2)
			for i := range c.notPreferred {
				parts[i].Current = st(2, 1, 1, 2)
			}
			got := CheckImbalance(live, c.percentage, parts)
			if len(got) != 1 || got[0].Broker != 1 || got[0].Partitions != 10 || got[0].NotPreferred != int(c.notPreferred) {
				t.Fatalf("got %+v", got)
			}
			if got[0].OverThreshold != c.over {
				t.Errorf("over = %v (ratio %v), want %v", got[0].OverThreshold, got[0].Ratio, c.over)
			}
			wantCandidates := 0
			if c.over {
				wantCandidates = int(c.notPreferred)
			}
			if len(got[0].Candidates) != wantCandidates {
				t.Errorf("candidates = %v, want %d", got[0].Candidates, wantCandidates)
			}
		})
	}
}

func TestCheckImbalanceCandidates(t *testing.T) {
	live := NewSnapshot(1, 2, 3).WithOfflineDir(1, tp(4))
	parts := []RebalancePartition{
		rp(0, ids(1, 2), st(2, 1, 1, 2)),     // candidate
		rp(1, ids(1, 2), st(2, 1, 2)),        // 1 not in ISR
		rp(2, ids(1, 2), nil),                // no leadership: counts in |G| only
		rp(3, ids(1, 2), st(NoLeader, 1, 1)), // leaderless counts as not preferred; 1 in ISR
		rp(4, ids(1, 2), st(2, 1, 1, 2)),     // 1's copy is on a failed dir
		rp(5, ids(1, 2), st(1, 1, 1, 2)),     // balanced
		rp(6, ids(2, 1), st(1, 1, 1, 2)),     // prefers 2
		{Partition: tp(7), Assignment: assign(1, 2), Current: st(2, 1, 1, 2), TopicDeleting: true},
		rp(8, nil, st(2, 1, 2)), // no replicas: ignored
		{Partition: tp(9), Assignment: ReplicaAssignment{Replicas: ids(1, 2, 3), Adding: ids(3)},
			Current: st(3, 1, 1, 2, 3)}, // being reassigned: not excluded
	}
	got := CheckImbalance(live, 10, parts)
	if len(got) != 2 || got[0].Broker != 1 || got[1].Broker != 2 {
		t.Fatalf("brokers: %+v", got)
	}
	b1 := got[0]
	if b1.Partitions != 7 || b1.NotPreferred != 5 || !b1.OverThreshold {
		t.Errorf("broker 1: %+v", b1)
	}
	if want := []TopicPartition{tp(0), tp(3), tp(9)}; !slices.Equal(b1.Candidates, want) {
		t.Errorf("broker 1 candidates = %v, want %v", b1.Candidates, want)
	}
	if b1.Ratio != 5.0/7.0 {
		t.Errorf("ratio = %v", b1.Ratio)
	}
	b2 := got[1]
	if b2.Partitions != 1 || b2.NotPreferred != 1 || !b2.OverThreshold || !slices.Equal(b2.Candidates, []TopicPartition{tp(6)}) {
		t.Errorf("broker 2: %+v", b2)
	}
}

func TestCheckImbalancePreferredBrokerUnavailable(t *testing.T) {
	cases := []struct {
		name string
		live Snapshot
	}{
		{"dead", NewSnapshot(2)},
		{"shutting down", NewSnapshot(1, 2).WithShutdown(1)},
	}
	for _, c := range cases {
		parts := []RebalancePartition{rp(0, ids(1, 2), st(2, 1, 1, 2)), rp(1, ids(1, 2), st(2, 1, 1, 2))}
		got := CheckImbalance(c.live, 10, parts)
		if len(got) != 1 || !got[0].OverThreshold || len(got[0].Candidates) != 0 {
			t.Errorf("%s: got %+v, want over threshold with no candidates", c.name, got)
		}
	}
}

func TestCheckImbalanceEmpty(t *testing.T) {
	if got := CheckImbalance(NewSnapshot(), DefaultImbalancePercentage, nil); len(got) != 0 {
		t.Errorf("got %+v", got)
	}
	deleting := []RebalancePartition{{Partition: tp(0), Assignment: assign(1), Current: st(2, 0, 2), TopicDeleting: true}}
	if got := CheckImbalance(NewSnapshot(1, 2), 0, deleting); len(got) != 0 {
		t.Errorf("deleting topics must not be counted: %+v", got)
	}
}

func TestHasPreferredLeader(t *testing.T) {
	moving := ReplicaAssignment{Replicas: ids(4, 1, 2), Adding: ids(4), Removing: ids(2)}
	cases := []struct {
		name string
		a    ReplicaAssignment
		cur  *LeaderAndIsr
		want bool
	}{
		{"leader is head", assign(1, 2), st(1, 0, 1, 2), true},
		{"leader is not head", assign(1, 2), st(2, 0, 1, 2), false},
		{"leaderless", assign(1, 2), st(NoLeader, 0, 1), false},
		{"adding head not yet in ISR counts as balanced", moving, st(1, 0, 1, 2), true},
		{"adding head in ISR but not leader", moving, st(1, 0, 1, 2, 4), false},
		// Kafka's quirk: while the head is still an adding replica, being in
		// the ISR makes the partition count as imbalanced even if it leads.
		{"adding head in ISR and leading", moving, st(4, 0, 1, 2, 4), false},
		{"reassigning but head not adding: normal rule", ReplicaAssignment{Replicas: ids(1, 2, 3), Adding: ids(3)},
			st(1, 0, 1, 2), true},
		{"no replicas", assign(), st(1, 0, 1), true},
	}
	for _, c := range cases {
		if got := HasPreferredLeader(c.a, *c.cur); got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}

func TestPreferredReplicaImbalanceCount(t *testing.T) {
	parts := []RebalancePartition{
		rp(0, ids(1, 2), st(1, 0, 1, 2)),     // balanced
		rp(1, ids(1, 2), st(2, 0, 1, 2)),     // imbalanced
		rp(2, ids(2, 1), st(NoLeader, 0, 1)), // imbalanced
		rp(3, ids(1, 2), nil),                // no leadership: not counted
		{Partition: tp(4), Assignment: assign(1, 2), Current: st(2, 0, 2), TopicDeleting: true},
	}
	if got := PreferredReplicaImbalanceCount(parts); got != 2 {
		t.Errorf("got %d, want 2", got)
	}
}
