package controller

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/rs/zerolog"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller/brokerchan"
	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/deletion"
	"github.com/kzadmin/kzadmin/znodes"
)

func TestDeletedInRequest(t *testing.T) {
	tp := func(topic string, p int32) TopicPartition { return TopicPartition{Topic: topic, Partition: p} }
	v3 := kmsg.NewPtrStopReplicaRequest()
	v3.Version = 3
	v3.Topics = []kmsg.StopReplicaRequestTopic{{Topic: "a", PartitionStates: []kmsg.StopReplicaRequestTopicPartitionState{
		{Partition: 0, Delete: true}, {Partition: 1}, {Partition: 2, Delete: true}}}}
	v1 := kmsg.NewPtrStopReplicaRequest()
	v1.Version, v1.DeletePartitions = 1, true
	v1.Topics = []kmsg.StopReplicaRequestTopic{{Topic: "a", Partitions: []int32{3, 4}}, {Topic: "b", Partitions: []int32{0}}}
	v2keep := kmsg.NewPtrStopReplicaRequest()
	v2keep.Version = 2
	v2keep.Topics = []kmsg.StopReplicaRequestTopic{{Topic: "a", Partitions: []int32{0}}}
	v0 := kmsg.NewPtrStopReplicaRequest()
	v0.DeletePartitions = true
	v0.Topics = []kmsg.StopReplicaRequestTopic{{Topic: "a", Partition: 7}, {Topic: "c", Partition: 1}}
	for _, tc := range []struct {
		name string
		req  *kmsg.StopReplicaRequest
		want []TopicPartition
	}{
		{"v3 per partition", v3, []TopicPartition{tp("a", 0), tp("a", 2)}},
		{"v1 delete", v1, []TopicPartition{tp("a", 3), tp("a", 4), tp("b", 0)}},
		{"v2 keep", v2keep, nil},
		{"v0 delete", v0, []TopicPartition{tp("a", 7), tp("c", 1)}},
	} {
		if got := deletedInRequest(tc.req); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestDeletionCluster(t *testing.T) {
	cc := newClusterContext()
	cc.putTopic("still", znodes.TopicAssignment{Partitions: map[int32][]int32{0: {1, 2}, 1: {2, 3}}})
	cc.putTopic("moving", znodes.TopicAssignment{Partitions: map[int32][]int32{0: {1, 2, 3}},
		AddingReplicas: map[int32][]int32{0: {3}}, RemovingReplicas: map[int32][]int32{0: {1}}})
	cl := deletionCluster{cc}
	if !cl.TopicExists("still") || cl.TopicExists("nope") {
		t.Fatal("TopicExists")
	}
	if a := cl.Assignment("moving"); len(a) != 1 || !slices.Equal(a[0], []int32{1, 2, 3}) {
		t.Fatalf("Assignment(moving) %v: want the full replica list", a)
	}
	if cl.Assignment("nope") != nil {
		t.Fatal("Assignment of an unknown topic")
	}
	if cl.Reassigning("still") || !cl.Reassigning("moving") || cl.Reassigning("nope") {
		t.Fatal("Reassigning")
	}
	if cl.Electing("still") {
		t.Fatal("Electing")
	}
}

// bareLeader is a controller with one leadership and no ZooKeeper: brokers
// 1 and 2 are registered but have no channel, so every request sent fails
// at once (as for a broker without the inter-broker listener).
func bareLeader(t *testing.T) (*Controller, *leaderState) {
	t.Helper()
	chans, err := brokerchan.NewManager(brokerchan.ManagerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(chans.Close)
	c := &Controller{conf: config.Default(), log: zerolog.Nop(), ibp: config.IBPLatest, queue: newEventQueue(),
		dirtyTopic: map[string]bool{}, nodeID: 100}
	ls := &leaderState{epoch: 1, ctx: context.Background(), chans: chans, cc: newClusterContext(),
		del: &deletionState{mgr: deletion.New(deletion.Options{})}}
	ep := []znodes.Endpoint{{Listener: "PLAINTEXT", Host: "127.0.0.1", Port: 1, SecurityProtocol: "PLAINTEXT"}}
	for _, id := range []int32{1, 2} {
		ls.cc.brokers[id] = brokerchan.Broker{ID: id, Epoch: 10, Endpoints: ep}
	}
	ls.cc.putTopic("t", znodes.TopicAssignment{Partitions: map[int32][]int32{0: {1, 2}}})
	p := ls.cc.partition(TopicPartition{Topic: "t"})
	p.lead = &election.LeaderAndIsr{Leader: 1, ISR: []int32{1, 2}}
	p.state = election.OnlinePartition
	p.setReplicaState(1, election.OnlineReplica)
	p.setReplicaState(2, election.OnlineReplica)
	c.leader = ls
	return c, ls
}

// popStopReplica takes the next event, which must be a stopReplicaEvent.
func popStopReplica(t *testing.T, c *Controller) *stopReplicaEvent {
	t.Helper()
	ev, ok := c.queue.pop(testCtx(t))
	if !ok {
		t.Fatal("no event")
	}
	e, ok := ev.(*stopReplicaEvent)
	if !ok {
		t.Fatalf("event %T, want a StopReplica outcome", ev)
	}
	return e
}

// TestDeletionWiring: a marker queues the topic in the context and starts
// its deletion (partitions NonExistent, replicas ReplicaDeletionStarted); a
// StopReplica that could not be delivered to a broker still registered
// under the same epoch fails its replica (held for a retry), while one to
// a broker that has bounced since is dropped, its replica left to the
// broker's startup.
func TestDeletionWiring(t *testing.T) {
	c, ls := bareLeader(t)
	if err := c.stepDeletion(ls, deletion.Markers{Topics: []string{"t"}}); err != nil {
		t.Fatal(err)
	}
	tp := TopicPartition{Topic: "t"}
	p := ls.cc.partition(tp)
	if !ls.cc.deleting["t"] || !c.dirtyTopic["t"] {
		t.Fatal("topic not queued in the context")
	}
	if p.state != election.NonExistentPartition || p.replicaState(1) != election.ReplicaDeletionStarted ||
		p.replicaState(2) != election.ReplicaDeletionStarted {
		t.Fatalf("states after the first round: partition %v, replicas %v", p.state, p.replicas)
	}
	byBroker := map[int32]*stopReplicaEvent{}
	for range 2 {
		e := popStopReplica(t, c)
		if !errors.Is(e.err, brokerchan.ErrUnknownBroker) || e.epoch != 10 {
			t.Fatalf("outcome %+v", e)
		}
		if got := deletedInRequest(e.req); !slices.Equal(got, []TopicPartition{tp}) {
			t.Fatalf("broker %d asked to delete %v", e.broker, got)
		}
		byBroker[e.broker] = e
	}
	b := ls.cc.brokers[2]
	b.Epoch = 11 // broker 2 bounced meanwhile
	ls.cc.brokers[2] = b
	for _, id := range []int32{1, 2} {
		if err := c.onDeletionInput(byBroker[id]); err != nil {
			t.Fatal(err)
		}
	}
	s, ok := ls.del.mgr.Status(deletionCluster{ls.cc}, "t")
	if !ok || s.Failed != 1 || s.InFlight != 1 || !s.Ineligible {
		t.Fatalf("status %+v: want broker 1's replica failed and held, broker 2's still in flight", s)
	}
	if p.replicaState(1) != election.ReplicaDeletionIneligible {
		t.Fatalf("replica 1 state %v", p.replicaState(1))
	}

	// An outcome of an older leadership is dropped.
	old := *byBroker[1]
	old.gen = &leaderState{}
	if err := c.onDeletionInput(&old); err != nil {
		t.Fatal(err)
	}
	if s2, _ := ls.del.mgr.Status(deletionCluster{ls.cc}, "t"); s2.Failed != 1 || s2.Attempt != s.Attempt {
		t.Fatalf("a stale outcome changed the status: %+v", s2)
	}
}
