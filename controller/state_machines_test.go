package controller

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/znodes"
)

// These tests drive the controller side of the two state machines on a
// bare controller: the bookkeeping in the context around election's pure
// rules (which have their own tests), for transitions that write nothing
// to ZooKeeper.

// TestStateMachinePartitionsToOffline: the move to OfflinePartition applies only
// where Kafka's rules allow it (never from NonExistentPartition, which
// only NewPartition may leave), skips unknown partitions, and marks a
// topic dirty for the next snapshot only when a state really changed.
func TestStateMachinePartitionsToOffline(t *testing.T) {
	tests := []struct {
		from, want election.PartitionState
		dirty      bool
	}{
		{election.NewPartition, election.OfflinePartition, true},
		{election.OnlinePartition, election.OfflinePartition, true},
		{election.OfflinePartition, election.OfflinePartition, false},
		{election.NonExistentPartition, election.NonExistentPartition, false},
	}
	b := smNewBare(t)
	ls := b.lead(t, 1)
	var tps []TopicPartition
	for i, tc := range tests {
		name := fmt.Sprintf("t%d", i)
		ls.cc.putTopic(name, znodes.TopicAssignment{Partitions: map[int32][]int32{0: {1}}})
		ls.cc.partition(smTP(name, 0)).state = tc.from
		tps = append(tps, smTP(name, 0))
	}
	tps = append(tps, smTP("missing", 0))
	b.c.partitionsToOffline(ls, tps)
	for i, tc := range tests {
		name := fmt.Sprintf("t%d", i)
		if got := ls.cc.partition(smTP(name, 0)).state; got != tc.want {
			t.Errorf("%v -> Offline: state %v, want %v", tc.from, got, tc.want)
		}
		if got := b.c.dirtyTopic[name]; got != tc.dirty {
			t.Errorf("%v -> Offline: topic dirty %v, want %v", tc.from, got, tc.dirty)
		}
	}
	if ls.cc.topics["missing"] != nil {
		t.Error("an unknown partition was added to the context")
	}
}

// TestStateMachinePartitionsToOnlineWithoutWrites: what the move to OnlinePartition
// refuses before any ZooKeeper write: an unknown partition, a NonExistent
// one (Kafka's IllegalStateException, naming the valid previous states),
// and a New one none of whose replicas is online (it stays New, without
// leadership, for a later trigger to retry). None of them stops the call.
func TestStateMachinePartitionsToOnlineWithoutWrites(t *testing.T) {
	b := smNewBare(t)
	ls := b.lead(t, 3)
	smBroker(ls.cc, 1, "")
	ls.cc.putTopic("t", znodes.TopicAssignment{Partitions: map[int32][]int32{0: {1, 2}, 1: {2, 3}}})
	ls.cc.partition(smTP("t", 0)).state = election.NonExistentPartition
	ls.cc.partition(smTP("t", 1)).state = election.NewPartition // replicas 2 and 3 are not registered

	failed, err := b.c.partitionsToOnline(ls, []TopicPartition{smTP("t", 0), smTP("t", 1), smTP("t", 7)},
		election.Offline(false))
	if err != nil {
		t.Fatalf("partitionsToOnline: %v, want no error (nothing is fatal here)", err)
	}
	if len(failed) != 3 {
		t.Fatalf("failed = %v, want all three partitions", failed)
	}
	var inv *election.InvalidTransitionError
	if !errors.As(failed[smTP("t", 0)], &inv) || inv.From != "NonExistentPartition" || inv.To != "OnlinePartition" ||
		!slices.Equal(inv.ValidFrom, []string{"NewPartition", "OnlinePartition", "OfflinePartition"}) {
		t.Errorf("t-0 (NonExistent): %v, want an invalid transition from NonExistentPartition", failed[smTP("t", 0)])
	}
	var sce *election.StateChangeError
	if !errors.As(failed[smTP("t", 1)], &sce) {
		t.Errorf("t-1 (New, no live replica): %v, want a state change error", failed[smTP("t", 1)])
	}
	if !errors.Is(failed[smTP("t", 7)], errUnknownPartition) {
		t.Errorf("t-7: %v, want errUnknownPartition", failed[smTP("t", 7)])
	}
	for p, want := range map[int32]election.PartitionState{0: election.NonExistentPartition, 1: election.NewPartition} {
		if got := ls.cc.partition(smTP("t", p)); got.state != want || got.lead != nil {
			t.Errorf("t-%d after the refusal: state %v lead %v, want %v without leadership", p, got.state, got.lead, want)
		}
	}
}

// TestStateMachineStartPartitionStateMachine: the failover classification (Kafka's
// PartitionStateMachine.startup): New without leadership, Online when the
// leader's replica is online, Offline otherwise, including a state znode
// that could not be read. The topic is queued for deletion, so the online
// trigger that follows must leave every partition alone (Kafka's
// triggerOnlinePartitionStateChange skips such topics).
func TestStateMachineStartPartitionStateMachine(t *testing.T) {
	b := smNewBare(t)
	ls := b.lead(t, 2)
	smBroker(ls.cc, 1, "")
	smBroker(ls.cc, 2, "")
	ls.cc.offlineDirs[2] = map[TopicPartition]bool{smTP("doomed", 4): true}
	tests := []struct {
		name   string
		lead   *election.LeaderAndIsr
		badZK  bool
		wanted election.PartitionState
	}{
		{"no state znode", nil, false, election.NewPartition},
		{"live leader", &election.LeaderAndIsr{Leader: 1, ISR: []int32{1, 2}}, false, election.OnlinePartition},
		{"dead leader", &election.LeaderAndIsr{Leader: 3, ISR: []int32{3}}, false, election.OfflinePartition},
		{"no leader", &election.LeaderAndIsr{Leader: -1, ISR: []int32{1}}, false, election.OfflinePartition},
		{"leader's log dir failed", &election.LeaderAndIsr{Leader: 2, ISR: []int32{2}}, false, election.OfflinePartition},
		{"unreadable state znode", nil, true, election.OfflinePartition},
	}
	parts := map[int32][]int32{}
	for i := range tests {
		parts[int32(i)] = []int32{1, 2, 3}
	}
	ls.cc.putTopic("doomed", znodes.TopicAssignment{Partitions: parts})
	ls.cc.deleting["doomed"] = true
	for i, tc := range tests {
		p := ls.cc.partition(smTP("doomed", int32(i)))
		p.lead = tc.lead
		if tc.badZK {
			p.stateErr = errors.New("leader: not a number")
		}
	}
	if err := b.c.startPartitionStateMachine(ls); err != nil {
		t.Fatalf("startPartitionStateMachine: %v", err)
	}
	for i, tc := range tests {
		if got := ls.cc.partition(smTP("doomed", int32(i))).state; got != tc.wanted {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.wanted)
		}
	}
	if !b.c.dirtyTopic["doomed"] {
		t.Error("classification changed states without marking the topic dirty")
	}
}

// smReplicaCase is one replica transition: the replica's state before,
// whether its partition has leadership (leader 1, ISR [1]) and whether the
// replica is in the assignment; want is its state after, and replicas the
// partition's replica list after.
type smReplicaCase struct {
	name     string
	from     election.ReplicaState
	lead     bool
	assigned bool
	want     election.ReplicaState
	replicas []int32
}

// smReplicaSetup puts one partition per case, topic "r<i>", replicas
// [1] (plus the replica 2 under test when assigned), into the context.
func smReplicaSetup(ls *leaderState, cases []smReplicaCase) []replicaKey {
	var keys []replicaKey
	for i, tc := range cases {
		name := fmt.Sprintf("r%d", i)
		replicas := []int32{1}
		if tc.assigned {
			replicas = append(replicas, 2)
		}
		ls.cc.putTopic(name, znodes.TopicAssignment{Partitions: map[int32][]int32{0: replicas}})
		p := ls.cc.partition(smTP(name, 0))
		if tc.lead {
			p.lead = &election.LeaderAndIsr{Leader: 1, LeaderEpoch: 4, ISR: []int32{1}, PartitionEpoch: 6, ControllerEpoch: 1}
		}
		if tc.from != election.NonExistentReplica {
			p.setReplicaState(2, tc.from)
		}
		keys = append(keys, replicaKey{smTP(name, 0), 2})
	}
	return append(keys, replicaKey{smTP("missing", 0), 2})
}

func smCheckReplicas(t *testing.T, ls *leaderState, to string, cases []smReplicaCase) {
	t.Helper()
	for i, tc := range cases {
		p := ls.cc.partition(smTP(fmt.Sprintf("r%d", i), 0))
		if got := p.replicaState(2); got != tc.want {
			t.Errorf("%s: %v -> %s left %v, want %v", tc.name, tc.from, to, got, tc.want)
		}
		if !slices.Equal(p.assign.Replicas, tc.replicas) {
			t.Errorf("%s: replicas %v, want %v", tc.name, p.assign.Replicas, tc.replicas)
		}
	}
}

// TestStateMachineReplicasToOnline: Kafka's OnlineReplica transition, allowed from
// New, Online, Offline and ReplicaDeletionIneligible. From NewReplica a
// replica missing from the assignment is appended to it (once); invalid
// transitions are skipped, leaving the state, without stopping the batch.
func TestStateMachineReplicasToOnline(t *testing.T) {
	cases := []smReplicaCase{
		{"new, not assigned", election.NewReplica, false, false, election.OnlineReplica, []int32{1, 2}},
		{"new, assigned", election.NewReplica, true, true, election.OnlineReplica, []int32{1, 2}},
		{"offline, no leadership", election.OfflineReplica, false, true, election.OnlineReplica, []int32{1, 2}},
		{"offline, leadership", election.OfflineReplica, true, true, election.OnlineReplica, []int32{1, 2}},
		{"ineligible", election.ReplicaDeletionIneligible, true, true, election.OnlineReplica, []int32{1, 2}},
		{"online again", election.OnlineReplica, true, true, election.OnlineReplica, []int32{1, 2}},
		{"nonexistent", election.NonExistentReplica, true, true, election.NonExistentReplica, []int32{1, 2}},
		{"deletion started", election.ReplicaDeletionStarted, true, true, election.ReplicaDeletionStarted, []int32{1, 2}},
		{"deletion successful", election.ReplicaDeletionSuccessful, false, true, election.ReplicaDeletionSuccessful, []int32{1, 2}},
	}
	b := smNewBare(t)
	ls := b.lead(t, 1)
	smBroker(ls.cc, 1, "")
	smBroker(ls.cc, 2, "")
	keys := smReplicaSetup(ls, cases)
	b.c.replicasToOnline(ls, keys)
	smCheckReplicas(t, ls, "Online", cases)
	if ls.cc.topics["missing"] != nil {
		t.Error("an unknown partition was added to the context")
	}
}

// TestStateMachineReplicasToOffline: Kafka's OfflineReplica transition, allowed
// from New, Online, Offline and ReplicaDeletionIneligible. A partition
// without leadership only changes the replica's state. With leadership and
// the replica outside the ISR nothing is written, and the cached state
// takes this controller's epoch (Kafka caches it so; the LeaderAndIsr
// that follows carries it). A state written by a newer controller fails
// the removal, and the replica keeps its state.
func TestStateMachineReplicasToOffline(t *testing.T) {
	cases := []smReplicaCase{
		{"online, no leadership", election.OnlineReplica, false, true, election.OfflineReplica, []int32{1, 2}},
		{"new, no leadership", election.NewReplica, false, true, election.OfflineReplica, []int32{1, 2}},
		{"ineligible, no leadership", election.ReplicaDeletionIneligible, false, true, election.OfflineReplica, []int32{1, 2}},
		{"offline again", election.OfflineReplica, false, true, election.OfflineReplica, []int32{1, 2}},
		{"online, not in ISR", election.OnlineReplica, true, true, election.OfflineReplica, []int32{1, 2}},
		{"nonexistent", election.NonExistentReplica, false, true, election.NonExistentReplica, []int32{1, 2}},
		{"deletion started", election.ReplicaDeletionStarted, false, true, election.ReplicaDeletionStarted, []int32{1, 2}},
		{"deletion successful", election.ReplicaDeletionSuccessful, true, true, election.ReplicaDeletionSuccessful, []int32{1, 2}},
	}
	b := smNewBare(t)
	ls := b.lead(t, 5)
	smBroker(ls.cc, 1, "")
	keys := smReplicaSetup(ls, cases)
	// One more: leadership written by controller epoch 9, newer than ours.
	ls.cc.putTopic("newer", znodes.TopicAssignment{Partitions: map[int32][]int32{0: {1, 2}}})
	np := ls.cc.partition(smTP("newer", 0))
	np.lead = &election.LeaderAndIsr{Leader: 1, LeaderEpoch: 4, ISR: []int32{1}, PartitionEpoch: 6, ControllerEpoch: 9}
	np.setReplicaState(2, election.OnlineReplica)
	keys = append(keys, replicaKey{smTP("newer", 0), 2})

	if err := b.c.replicasToOffline(ls, keys); err != nil {
		t.Fatalf("replicasToOffline: %v", err)
	}
	smCheckReplicas(t, ls, "Offline", cases)
	l := ls.cc.partition(smTP("r4", 0)).lead // "online, not in ISR"
	if l == nil || l.Leader != 1 || l.LeaderEpoch != 4 || l.PartitionEpoch != 6 || l.ControllerEpoch != 5 ||
		!slices.Equal(l.ISR, []int32{1}) {
		t.Errorf("cached state after an ISR removal with nothing to remove: %v, want leader 1 epoch 4 isr [1] "+
			"partition epoch 6 and controller epoch 5 (ours)", l)
	}
	if s := np.replicaState(2); s != election.OnlineReplica {
		t.Errorf("replica of a partition fenced by a newer controller: %v, want it kept OnlineReplica", s)
	}
	if np.lead.ControllerEpoch != 9 || np.lead.PartitionEpoch != 6 {
		t.Errorf("fenced partition's cached state changed: %v", np.lead)
	}
}

// TestStateMachineStartReplicaStateMachine: the failover classification of replicas
// (Kafka's ReplicaStateMachine.startup): online replicas end OnlineReplica;
// the others go ReplicaDeletionIneligible and then, through the offline
// transition, OfflineReplica. Partitions here have no leadership or an ISR
// without the dead replica, so nothing is written.
func TestStateMachineStartReplicaStateMachine(t *testing.T) {
	b := smNewBare(t)
	ls := b.lead(t, 1)
	smBroker(ls.cc, 1, "")
	smBroker(ls.cc, 2, "")
	ls.cc.putTopic("s", znodes.TopicAssignment{Partitions: map[int32][]int32{0: {1, 2, 3}, 1: {3, 4}, 2: {2, 1}}})
	ls.cc.partition(smTP("s", 0)).lead = &election.LeaderAndIsr{Leader: 1, ISR: []int32{1, 2}, ControllerEpoch: 1}
	if err := b.c.startReplicaStateMachine(ls); err != nil {
		t.Fatalf("startReplicaStateMachine: %v", err)
	}
	for tp, p := range ls.cc.orderedPartitions() {
		for _, r := range p.assign.Replicas {
			want := election.OfflineReplica
			if r == 1 || r == 2 {
				want = election.OnlineReplica
			}
			if got := p.replicaState(r); got != want {
				t.Errorf("replica %d of %v: %v, want %v", r, tp, got, want)
			}
		}
	}
}
