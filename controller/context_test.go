package controller

import (
	"slices"
	"testing"

	"github.com/kzadmin/kzadmin/controller/brokerchan"
	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/znodes"
)

// smTP names a partition.
func smTP(topic string, p int32) TopicPartition { return TopicPartition{Topic: topic, Partition: p} }

// smID is a topic id whose bytes are all b.
func smID(b byte) znodes.UUID {
	var id znodes.UUID
	for i := range id {
		id[i] = b
	}
	return id
}

// smLiveContext is a context with brokers 1, 2 and 3 registered, broker 2
// shutting down, broker 3 with t-0 on a failed log directory, and broker 9
// marked shutting down without being registered (a stale entry).
func smLiveContext() *clusterContext {
	cc := newClusterContext()
	for _, id := range []int32{3, 1, 2} {
		cc.brokers[id] = brokerchan.Broker{ID: id, Epoch: int64(100 + id)}
	}
	cc.shuttingDown[2] = true
	cc.shuttingDown[9] = true
	cc.offlineDirs[3] = map[TopicPartition]bool{smTP("t", 0): true}
	return cc
}

// TestClusterContextLiveness pins Kafka's liveness predicates on the
// context: live = registered and not shutting down; a replica is online
// when its broker is live and its log directory for that partition has not
// failed. Every election and the Offline lists of the snapshot rest on it.
func TestClusterContextLiveness(t *testing.T) {
	cc := smLiveContext()
	t0, t1 := smTP("t", 0), smTP("t", 1)
	tests := []struct {
		broker                    int32
		tp                        TopicPartition
		registered, shutting, dir bool
		online                    bool
	}{
		{1, t0, true, false, false, true},
		{2, t0, true, true, false, false},   // shutting down: not live
		{3, t0, true, false, true, false},   // failed log dir for t-0
		{3, t1, true, false, false, true},   // the other partition is fine
		{9, t0, false, false, false, false}, // shutting-down entry of an unregistered broker is ignored
		{4, t0, false, false, false, false},
	}
	for _, tc := range tests {
		if got := cc.Registered(tc.broker); got != tc.registered {
			t.Errorf("Registered(%d) = %v, want %v", tc.broker, got, tc.registered)
		}
		if got := cc.ShuttingDown(tc.broker); got != tc.shutting {
			t.Errorf("ShuttingDown(%d) = %v, want %v", tc.broker, got, tc.shutting)
		}
		if got := cc.OfflineDir(tc.broker, tc.tp); got != tc.dir {
			t.Errorf("OfflineDir(%d, %v) = %v, want %v", tc.broker, tc.tp, got, tc.dir)
		}
		if got := election.ReplicaOnline(cc, tc.broker, tc.tp); got != tc.online {
			t.Errorf("ReplicaOnline(%d, %v) = %v, want %v", tc.broker, tc.tp, got, tc.online)
		}
	}
	if got, want := cc.brokerIDs(), []int32{1, 2, 3}; !slices.Equal(got, want) {
		t.Errorf("brokerIDs = %v, want %v (registered, ascending)", got, want)
	}
	if got, want := cc.liveBrokerIDs(), []int32{1, 3}; !slices.Equal(got, want) {
		t.Errorf("liveBrokerIDs = %v, want %v (registered minus shutting down)", got, want)
	}
	var ids []int32
	for _, b := range cc.Brokers() {
		ids = append(ids, b.ID)
	}
	slices.Sort(ids)
	if !slices.Equal(ids, []int32{1, 2, 3}) {
		t.Errorf("Brokers() lists %v, want every registered broker, shutting down included", ids)
	}
	if b, ok := cc.Broker(2); !ok || b.Epoch != 102 {
		t.Errorf("Broker(2) = %+v, %v; want the registration with epoch 102", b, ok)
	}
	if _, ok := cc.Broker(9); ok {
		t.Error("Broker(9) found an unregistered broker")
	}
}

// TestClusterContextView pins the brokerchan.View answers the request
// builders rely on: topic ids only when known and non-zero, replicas and
// leadership per partition, and nothing for unknown names.
func TestClusterContextView(t *testing.T) {
	cc := newClusterContext()
	cc.putTopic("withid", znodes.TopicAssignment{TopicID: smID(7), Partitions: map[int32][]int32{0: {1, 2}}})
	cc.putTopic("noid", znodes.TopicAssignment{Partitions: map[int32][]int32{0: {2, 3}, 1: {3, 1}}})
	lead := election.LeaderAndIsr{Leader: 3, LeaderEpoch: 4, ISR: []int32{3, 1}, PartitionEpoch: 9, ControllerEpoch: 2}
	cc.partition(smTP("noid", 1)).lead = &lead
	cc.deleting["noid"] = true

	if id, ok := cc.TopicID("withid"); !ok || id != smID(7) {
		t.Errorf("TopicID(withid) = %v, %v; want the stored id", id, ok)
	}
	for _, name := range []string{"noid", "missing"} {
		if id, ok := cc.TopicID(name); ok {
			t.Errorf("TopicID(%s) = %v, true; want no id", name, id)
		}
	}
	if !cc.QueuedForDeletion("noid") || cc.QueuedForDeletion("withid") || cc.QueuedForDeletion("missing") {
		t.Error("QueuedForDeletion: want true only for noid")
	}
	replicas := []struct {
		tp   TopicPartition
		want []int32
	}{
		{smTP("withid", 0), []int32{1, 2}},
		{smTP("noid", 1), []int32{3, 1}},
		{smTP("noid", 5), nil},
		{smTP("missing", 0), nil},
	}
	for _, tc := range replicas {
		if got := cc.Replicas(tc.tp); !slices.Equal(got, tc.want) {
			t.Errorf("Replicas(%v) = %v, want %v", tc.tp, got, tc.want)
		}
	}
	if got, ok := cc.Leadership(smTP("noid", 1)); !ok || got.Leader != 3 || got.LeaderEpoch != 4 ||
		got.PartitionEpoch != 9 || !slices.Equal(got.ISR, []int32{3, 1}) {
		t.Errorf("Leadership(noid-1) = %v, %v; want %v", got, ok, lead)
	}
	for _, tp := range []TopicPartition{smTP("noid", 0), smTP("noid", 5), smTP("missing", 0)} {
		if got, ok := cc.Leadership(tp); ok {
			t.Errorf("Leadership(%v) = %v; want none", tp, got)
		}
	}
}

// TestClusterContextPutTopic pins how a re-read assignment is merged in:
// known partitions keep their leadership and both state machines' states
// while taking the new replicas (a reassignment or a partition added must
// not forget who leads), new partitions start NonExistent, the id index
// follows the topic's id, and the context never aliases the caller's lists.
func TestClusterContextPutTopic(t *testing.T) {
	cc := newClusterContext()
	parts := map[int32][]int32{0: {1, 2}, 1: {2, 3}}
	cc.putTopic("foo", znodes.TopicAssignment{TopicID: smID(1), Partitions: parts})
	parts[0][0] = 9 // the caller reuses its slice
	if got := cc.Replicas(smTP("foo", 0)); !slices.Equal(got, []int32{1, 2}) {
		t.Fatalf("replicas after the caller changed its slice: %v, want [1 2]", got)
	}
	for _, p := range []int32{0, 1} {
		if s := cc.partition(smTP("foo", p)).state; s != election.NonExistentPartition {
			t.Fatalf("new partition foo-%d starts %v, want NonExistentPartition", p, s)
		}
	}
	p0 := cc.partition(smTP("foo", 0))
	p0.lead = &election.LeaderAndIsr{Leader: 1, LeaderEpoch: 3, ISR: []int32{1, 2}}
	p0.state = election.OnlinePartition
	p0.setReplicaState(1, election.OnlineReplica)
	p0.setReplicaState(2, election.OfflineReplica)

	// A reassignment of partition 0 in progress and a partition added.
	cc.putTopic("foo", znodes.TopicAssignment{TopicID: smID(1),
		Partitions:       map[int32][]int32{0: {3, 1, 2}, 1: {2, 3}, 2: {3, 1}},
		AddingReplicas:   map[int32][]int32{0: {3}},
		RemovingReplicas: map[int32][]int32{0: {2}}})
	if cc.partition(smTP("foo", 0)) != p0 {
		t.Fatal("foo-0 was replaced by a new partition")
	}
	a := p0.assign
	if !slices.Equal(a.Replicas, []int32{3, 1, 2}) || !slices.Equal(a.Adding, []int32{3}) || !slices.Equal(a.Removing, []int32{2}) {
		t.Fatalf("foo-0 assignment %+v, want replicas [3 1 2] adding [3] removing [2]", a)
	}
	if p0.lead == nil || p0.lead.Leader != 1 || p0.state != election.OnlinePartition ||
		p0.replicaState(1) != election.OnlineReplica || p0.replicaState(2) != election.OfflineReplica {
		t.Fatalf("foo-0 lost its leadership or states: lead %v state %v replicas %v", p0.lead, p0.state, p0.replicas)
	}
	if p0.replicaState(3) != election.NonExistentReplica {
		t.Fatalf("adding replica 3 has state %v, want NonExistentReplica until the reassignment moves it", p0.replicaState(3))
	}
	if p2 := cc.partition(smTP("foo", 2)); p2 == nil || p2.state != election.NonExistentPartition || p2.lead != nil {
		t.Fatalf("added partition foo-2 = %+v, want NonExistent without leadership", p2)
	}
	if n := cc.partitionCount(); n != 3 {
		t.Fatalf("partitionCount = %d, want 3", n)
	}

	// The topic id changes (the topic znode was replaced): the index follows.
	cc.putTopic("foo", znodes.TopicAssignment{TopicID: smID(2), Partitions: map[int32][]int32{0: {3, 1, 2}}})
	if _, ok := cc.topicByID[smID(1)]; ok {
		t.Fatal("the old topic id still names foo")
	}
	if name := cc.topicByID[smID(2)]; name != "foo" {
		t.Fatalf("topicByID[new id] = %q, want foo", name)
	}
}

// TestClusterContextRemoveTopic: removing a topic forgets its id, its
// deletion mark and its partitions, so that a topic re-created under the
// same name starts from nothing (Kafka's completeDeleteTopic).
func TestClusterContextRemoveTopic(t *testing.T) {
	cc := newClusterContext()
	cc.putTopic("gone", znodes.TopicAssignment{TopicID: smID(5), Partitions: map[int32][]int32{0: {1}, 1: {2}}})
	cc.putTopic("kept", znodes.TopicAssignment{TopicID: smID(6), Partitions: map[int32][]int32{0: {1}}})
	p := cc.partition(smTP("gone", 0))
	p.lead, p.state = &election.LeaderAndIsr{Leader: 1, ISR: []int32{1}}, election.OnlinePartition
	cc.deleting["gone"] = true

	cc.removeTopic("gone")
	cc.removeTopic("never-there") // a no-op
	if cc.topics["gone"] != nil || cc.deleting["gone"] || cc.partition(smTP("gone", 0)) != nil {
		t.Fatal("removed topic still in the context")
	}
	if _, ok := cc.topicByID[smID(5)]; ok {
		t.Fatal("removed topic's id still indexed")
	}
	if cc.topicByID[smID(6)] != "kept" || cc.partitionCount() != 1 {
		t.Fatalf("the other topic was affected: ids %v, partitions %d", cc.topicByID, cc.partitionCount())
	}
	if got := cc.sortedPartitions(); !slices.Equal(got, []TopicPartition{smTP("kept", 0)}) {
		t.Fatalf("sortedPartitions after removal = %v, want [kept-0]", got)
	}
	cc.putTopic("gone", znodes.TopicAssignment{Partitions: map[int32][]int32{0: {3}}})
	if p := cc.partition(smTP("gone", 0)); p.lead != nil || p.state != election.NonExistentPartition {
		t.Fatalf("re-created gone-0 = lead %v state %v, want a fresh NonExistent partition", p.lead, p.state)
	}
}

// TestClusterContextLeaderSets pins Kafka's partitionsWithLeaders (what a
// starting broker's UpdateMetadata lists) and partitionsWithOfflineLeader
// (what goes Offline when brokers die): both need leadership info and
// leave out topics queued for deletion; the second keeps those whose
// leader is not online (dead, shutting down, failed log dir, or -1).
func TestClusterContextLeaderSets(t *testing.T) {
	cc := smLiveContext() // live: 1; 2 shutting down; 3 with t-0's dir failed
	leaders := []struct {
		topic   string
		p       int32
		leader  int32 // -2: no leadership info
		offline bool
	}{
		{"t", 0, 3, true},   // leader's log dir failed
		{"t", 1, 3, false},  // same broker, another partition
		{"t", 2, 1, false},  // live
		{"t", 3, 2, true},   // shutting down
		{"t", 4, 4, true},   // not registered
		{"t", 5, -1, true},  // no leader
		{"t", 6, -2, false}, // no leadership: in neither set
		{"u", 0, 4, true},   // queued for deletion: in neither set
	}
	assign := map[string]map[int32][]int32{}
	for _, l := range leaders {
		if assign[l.topic] == nil {
			assign[l.topic] = map[int32][]int32{}
		}
		assign[l.topic][l.p] = []int32{1, 2, 3}
	}
	for name, parts := range assign {
		cc.putTopic(name, znodes.TopicAssignment{Partitions: parts})
	}
	for _, l := range leaders {
		if l.leader != -2 {
			cc.partition(smTP(l.topic, l.p)).lead = &election.LeaderAndIsr{Leader: l.leader, ISR: []int32{1}}
		}
	}
	cc.deleting["u"] = true
	var withLeaders, offline []TopicPartition
	for _, l := range leaders {
		if l.leader == -2 || l.topic == "u" {
			continue
		}
		withLeaders = append(withLeaders, smTP(l.topic, l.p))
		if l.offline {
			offline = append(offline, smTP(l.topic, l.p))
		}
	}
	if got := cc.partitionsWithLeaders(); !slices.Equal(got, withLeaders) {
		t.Errorf("partitionsWithLeaders = %v, want %v", got, withLeaders)
	}
	if got := cc.partitionsWithOfflineLeader(); !slices.Equal(got, offline) {
		t.Errorf("partitionsWithOfflineLeader = %v, want %v", got, offline)
	}
}

// TestClusterContextReplicasOnBrokers: the replicas a broker change acts
// on, in partition order and, within a partition, in assignment order;
// replicas being added by a reassignment count (they are in the full
// replica list), and topics queued for deletion are not filtered here.
func TestClusterContextReplicasOnBrokers(t *testing.T) {
	cc := newClusterContext()
	cc.putTopic("b", znodes.TopicAssignment{Partitions: map[int32][]int32{0: {3, 1}, 1: {2}}})
	cc.putTopic("a", znodes.TopicAssignment{Partitions: map[int32][]int32{10: {1, 2, 3}, 2: {4, 3}},
		AddingReplicas: map[int32][]int32{2: {4}}})
	cc.deleting["b"] = true
	rk := func(topic string, p, r int32) replicaKey { return replicaKey{smTP(topic, p), r} }
	tests := []struct {
		ids  []int32
		want []replicaKey
	}{
		{nil, nil},
		{[]int32{7}, nil},
		{[]int32{2}, []replicaKey{rk("a", 10, 2), rk("b", 1, 2)}},
		{[]int32{1, 3}, []replicaKey{rk("a", 2, 3), rk("a", 10, 1), rk("a", 10, 3), rk("b", 0, 3), rk("b", 0, 1)}},
		{[]int32{4}, []replicaKey{rk("a", 2, 4)}},
	}
	for _, tc := range tests {
		if got := cc.replicasOnBrokers(tc.ids); !slices.Equal(got, tc.want) {
			t.Errorf("replicasOnBrokers(%v) = %v, want %v", tc.ids, got, tc.want)
		}
	}
}

// TestClusterContextReplicaKeysAndStates: replica keys sort by broker, then
// topic, then partition (per-broker request batches); an unknown replica's
// state is NonExistentReplica, as in Kafka, until it is set.
func TestClusterContextReplicaKeysAndStates(t *testing.T) {
	rk := func(topic string, p, r int32) replicaKey { return replicaKey{smTP(topic, p), r} }
	tests := []struct {
		a, b replicaKey
		want int
	}{
		{rk("z", 9, 1), rk("a", 0, 2), -1},
		{rk("a", 0, 2), rk("z", 9, 1), 1},
		{rk("a", 5, 1), rk("b", 0, 1), -1},
		{rk("a", 2, 1), rk("a", 10, 1), -1},
		{rk("a", 2, 1), rk("a", 2, 1), 0},
	}
	for _, tc := range tests {
		if got := compareReplicaKeys(tc.a, tc.b); got != tc.want {
			t.Errorf("compareReplicaKeys(%v, %v) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
	var p partition
	if s := p.replicaState(1); s != election.NonExistentReplica {
		t.Fatalf("unknown replica state %v, want NonExistentReplica", s)
	}
	p.setReplicaState(1, election.NewReplica)
	if s, other := p.replicaState(1), p.replicaState(2); s != election.NewReplica || other != election.NonExistentReplica {
		t.Fatalf("after setting replica 1: %v and %v, want NewReplica and NonExistentReplica", s, other)
	}
}
