package brokerchan

import (
	"errors"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/znodes"
)

func emit(t *testing.T, b *Batch) []Request {
	t.Helper()
	reqs, err := b.Emit(testControllerEpoch)
	if err != nil {
		t.Fatalf("Emit: %v", err)
	}
	return reqs
}

func laiPartitions(r Request) []kmsg.LeaderAndISRRequestTopicPartition {
	var out []kmsg.LeaderAndISRRequestTopicPartition
	for _, ts := range r.Msg.(*kmsg.LeaderAndISRRequest).TopicStates {
		out = append(out, ts.PartitionStates...)
	}
	return out
}

func umPartitions(r Request) []kmsg.UpdateMetadataRequestTopicPartition {
	var out []kmsg.UpdateMetadataRequestTopicPartition
	for _, ts := range r.Msg.(*kmsg.UpdateMetadataRequest).TopicStates {
		out = append(out, ts.PartitionStates...)
	}
	return out
}

func TestIsNewStaysTrueAndLaterStateWins(t *testing.T) {
	v := scenarioView()
	b := NewBatch(Config{IBP: config.IBPLatest, ControllerID: testControllerID}, v)
	foo, _ := v.Leadership(tp("foo", 0))
	a := election.ReplicaAssignment{Replicas: []int32{1, 2, 3}}
	b.AddLeaderAndIsr([]int32{1}, tp("foo", 0), foo, a, true)
	newer := foo.Clone()
	newer.LeaderEpoch = 6
	b.AddLeaderAndIsr([]int32{1}, tp("foo", 0), newer, a, false)
	reqs := emit(t, b)
	ps := laiPartitions(reqs[0])
	if len(ps) != 1 || !ps[0].IsNew || ps[0].LeaderEpoch != 6 {
		t.Errorf("partition states %+v, want one with IsNew and leader epoch 6", ps)
	}
}

func TestAddCopiesInputs(t *testing.T) {
	v := scenarioView()
	b := NewBatch(Config{IBP: config.IBPLatest, ControllerID: testControllerID}, v)
	state := election.LeaderAndIsr{Leader: 1, LeaderEpoch: 1, ISR: []int32{1, 2}}
	a := election.ReplicaAssignment{Replicas: []int32{1, 2}}
	b.AddLeaderAndIsr([]int32{1}, tp("foo", 0), state, a, false)
	state.ISR[0], a.Replicas[0] = 99, 99
	ps := laiPartitions(emit(t, b)[0])
	if !slices.Equal(ps[0].ISR, []int32{1, 2}) || !slices.Equal(ps[0].Replicas, []int32{1, 2}) {
		t.Errorf("batch aliased its inputs: ISR %v, replicas %v", ps[0].ISR, ps[0].Replicas)
	}
}

func TestStopReplicaDeleteSticksAndEpochs(t *testing.T) {
	v := scenarioView()
	v.deleting["bar"] = true
	v.addPartition(tp("baz", 0), []int32{1}, nil) // no leadership
	b := NewBatch(Config{IBP: config.IBPLatest, ControllerID: testControllerID}, v)
	b.AddStopReplica([]int32{1}, tp("foo", 0), true)
	b.AddStopReplica([]int32{1}, tp("foo", 0), false) // delete stays true
	b.AddStopReplica([]int32{1}, tp("bar", 1), false)
	b.AddStopReplica([]int32{1}, tp("baz", 0), false)
	reqs := emit(t, b)
	assertShape(t, "stop", reqs, "1:StopReplica")
	want := []kmsg.StopReplicaRequestTopic{
		{Topic: "bar", PartitionStates: []kmsg.StopReplicaRequestTopicPartitionState{{Partition: 1, LeaderEpoch: EpochDuringDelete}}},
		{Topic: "baz", PartitionStates: []kmsg.StopReplicaRequestTopicPartitionState{{Partition: 0, LeaderEpoch: NoEpoch}}},
		{Topic: "foo", PartitionStates: []kmsg.StopReplicaRequestTopicPartitionState{{Partition: 0, LeaderEpoch: 5, Delete: true}}},
	}
	if got := reqs[0].Msg.(*kmsg.StopReplicaRequest).Topics; !sameRequest(got, want) {
		t.Errorf("topics %s, want %s", dump(got), dump(want))
	}
}

func TestUpdateMetadataForDeletedTopic(t *testing.T) {
	v := scenarioView()
	v.deleting["foo"] = true
	b := NewBatch(Config{IBP: config.IBPLatest, ControllerID: testControllerID}, v)
	b.AddUpdateMetadata([]int32{1}, tp("foo", 0))
	want := []kmsg.UpdateMetadataRequestTopicPartition{{
		Partition: 0, ControllerEpoch: 3, Leader: election.LeaderDuringDelete, LeaderEpoch: 0, ISR: []int32{1, 2},
		ZKVersion: 0, Replicas: []int32{1, 2, 3}, OfflineReplicas: []int32{3},
	}}
	if got := umPartitions(emit(t, b)[0]); !sameRequest(got, want) {
		t.Errorf("partitions %s, want %s", dump(got), dump(want))
	}
}

func TestUpdateMetadataSkipsLeaderless(t *testing.T) {
	v := scenarioView()
	v.addPartition(tp("new", 0), []int32{1}, nil)
	b := NewBatch(Config{IBP: config.IBPLatest, ControllerID: testControllerID}, v)
	b.AddUpdateMetadata([]int32{1}, tp("new", 0), tp("bar", 1))
	got := umPartitions(emit(t, b)[0])
	if len(got) != 1 || got[0].Partition != 1 {
		t.Errorf("partitions %s, want only bar-1", dump(got))
	}
}

func TestOfflineReplicas(t *testing.T) {
	v := newFakeView()
	v.addBroker(1, 1, nil)
	v.addBroker(2, 2, nil)
	v.addBroker(3, 3, nil)
	v.Snapshot = v.Snapshot.WithShutdown(2).WithOfflineDir(3, tp("t", 0))
	v.addPartition(tp("t", 0), []int32{4, 3, 2, 1}, &election.LeaderAndIsr{Leader: 1, ISR: []int32{1}})
	v.addPartition(tp("t", 1), []int32{3, 1}, &election.LeaderAndIsr{Leader: 1, ISR: []int32{1, 3}})
	b := NewBatch(Config{IBP: config.IBPLatest}, v)
	b.AddUpdateMetadata([]int32{1}, tp("t", 0), tp("t", 1))
	got := umPartitions(emit(t, b)[0])
	// 4 is dead, 2 shutting down, 3 has t-0 on a failed dir (not t-1).
	if !slices.Equal(got[0].OfflineReplicas, []int32{4, 3, 2}) || len(got[1].OfflineReplicas) != 0 {
		t.Errorf("offline replicas %v and %v, want [4 3 2] and []", got[0].OfflineReplicas, got[1].OfflineReplicas)
	}
}

func TestBrokerFiltering(t *testing.T) {
	v := scenarioView()
	b := NewBatch(Config{IBP: config.IBPLatest, ControllerID: testControllerID, Self: selfBroker()}, v)
	foo, _ := v.Leadership(tp("foo", 0))
	a := election.ReplicaAssignment{Replicas: []int32{1, 2, 3}}
	// -1 is dropped at add; 7 is unknown and 100 (the controller itself)
	// is not a registered broker: both are dropped at Emit.
	b.AddLeaderAndIsr([]int32{-1, 7, 100, 1}, tp("foo", 0), foo, a, false)
	b.AddStopReplica([]int32{-1, 7, 100}, tp("foo", 0), false)
	b.AddUpdateMetadata([]int32{-1, 7, 100})
	reqs := emit(t, b)
	assertShape(t, "filtered", reqs, "1:LeaderAndISR", "1:UpdateMetadata", "2:UpdateMetadata", "3:UpdateMetadata")
}

func TestBrokerRemovedBeforeEmit(t *testing.T) {
	v := scenarioView()
	b := NewBatch(Config{IBP: config.IBPLatest}, v)
	foo, _ := v.Leadership(tp("foo", 0))
	b.AddLeaderAndIsr([]int32{1, 2}, tp("foo", 0), foo, election.ReplicaAssignment{Replicas: []int32{1, 2, 3}}, false)
	v.removeBroker(2)
	reqs := emit(t, b)
	assertShape(t, "after removal", reqs, "1:LeaderAndISR", "1:UpdateMetadata", "3:UpdateMetadata")
	if ll := reqs[0].Msg.(*kmsg.LeaderAndISRRequest).LiveLeaders; len(ll) != 1 || ll[0].BrokerID != 1 {
		t.Errorf("LiveLeaders %+v, want broker 1 only", ll)
	}
	if lb := reqs[1].Msg.(*kmsg.UpdateMetadataRequest).LiveBrokers; len(lb) != 2 {
		t.Errorf("LiveBrokers %+v, want 1 and 3", lb)
	}
}

func TestLiveLeadersOmitDeadLeader(t *testing.T) {
	v := scenarioView()
	b := NewBatch(Config{IBP: config.IBPLatest}, v)
	state := election.LeaderAndIsr{Leader: election.NoLeader, LeaderEpoch: 6, ISR: []int32{1}}
	b.AddLeaderAndIsr([]int32{1}, tp("foo", 0), state, election.ReplicaAssignment{Replicas: []int32{1}}, false)
	reqs := emit(t, b)
	if ll := reqs[0].Msg.(*kmsg.LeaderAndISRRequest).LiveLeaders; len(ll) != 0 {
		t.Errorf("LiveLeaders %+v, want none for leader -1", ll)
	}
}

func TestInterBrokerListener(t *testing.T) {
	v := newFakeView()
	v.addBroker(1, 1, nil,
		znodes.Endpoint{Listener: "EXTERNAL", Host: "pub", Port: 9094, SecurityProtocol: "SASL_SSL"},
		znodes.Endpoint{Listener: "INTERNAL", Host: "priv", Port: 9095, SecurityProtocol: "PLAINTEXT"})
	state := election.LeaderAndIsr{Leader: 1, ISR: []int32{1}}
	v.addPartition(tp("t", 0), []int32{1}, &state)

	b := NewBatch(Config{IBP: config.IBPLatest, InterBrokerListener: "INTERNAL"}, v)
	b.AddLeaderAndIsr([]int32{1}, tp("t", 0), state, election.ReplicaAssignment{Replicas: []int32{1}}, false)
	reqs := emit(t, b)
	want := []kmsg.LeaderAndISRRequestLiveLeader{{BrokerID: 1, Host: "priv", Port: 9095}}
	if got := reqs[0].Msg.(*kmsg.LeaderAndISRRequest).LiveLeaders; !sameRequest(got, want) {
		t.Errorf("LiveLeaders %s, want %s", dump(got), dump(want))
	}
	lb := reqs[1].Msg.(*kmsg.UpdateMetadataRequest).LiveBrokers[0]
	if lb.Endpoints[0].SecurityProtocol != 3 || lb.Endpoints[1].ListenerName != "INTERNAL" {
		t.Errorf("endpoints %s", dump(lb.Endpoints))
	}

	// The default listener is PLAINTEXT, which this broker lacks: the
	// whole batch fails and is dropped.
	b = NewBatch(Config{IBP: config.IBPLatest}, v)
	b.AddLeaderAndIsr([]int32{1}, tp("t", 0), state, election.ReplicaAssignment{Replicas: []int32{1}}, false)
	b.AddStopReplica([]int32{1}, tp("t", 0), false)
	reqs, err := b.Emit(1)
	var lnf *ListenerNotFoundError
	if !errors.As(err, &lnf) || lnf.Broker != 1 || lnf.Listener != "PLAINTEXT" || reqs != nil {
		t.Errorf("Emit = %v, %v; want nil and ListenerNotFoundError for broker 1 PLAINTEXT", reqs, err)
	}
	if !b.Empty() {
		t.Error("failed Emit left the batch non-empty")
	}
}

func TestOldUpdateMetadataEndpointLimits(t *testing.T) {
	custom := znodes.Endpoint{Listener: "INTERNAL", Host: "h", Port: 1, SecurityProtocol: "PLAINTEXT"}
	cases := []struct {
		ibp     string
		eps     []znodes.Endpoint
		wantErr any
	}{
		{"0.8.2", []znodes.Endpoint{custom}, &ListenerNotFoundError{}},
		{"0.10.0-IV1", []znodes.Endpoint{plaintext(1), custom}, &UnsupportedEndpointError{}},
		{"0.10.2-IV0", []znodes.Endpoint{plaintext(1), custom}, nil}, // v3 names listeners
		{"3.9", []znodes.Endpoint{{Listener: "X", Host: "h", Port: 1, SecurityProtocol: "BOGUS"}}, &UnsupportedEndpointError{}},
		// v0 takes the listener named PLAINTEXT, whatever its protocol.
		{"0.8.2", []znodes.Endpoint{{Listener: "PLAINTEXT", Host: "h", Port: 1, SecurityProtocol: "SSL"}}, nil},
	}
	for _, c := range cases {
		v := newFakeView()
		v.addBroker(1, 1, nil, c.eps...)
		b := NewBatch(Config{IBP: mustIBP(t, c.ibp)}, v)
		b.AddUpdateMetadata([]int32{1})
		_, err := b.Emit(1)
		switch want := c.wantErr.(type) {
		case nil:
			if err != nil {
				t.Errorf("%s: %v", c.ibp, err)
			}
		case *ListenerNotFoundError:
			if !errors.As(err, &want) {
				t.Errorf("%s: err %v, want ListenerNotFoundError", c.ibp, err)
			}
		case *UnsupportedEndpointError:
			if !errors.As(err, &want) {
				t.Errorf("%s: err %v, want UnsupportedEndpointError", c.ibp, err)
			}
		}
	}
}

func TestEmptyUpdateMetadata(t *testing.T) {
	v := scenarioView()
	b := NewBatch(Config{IBP: config.IBPLatest, ControllerID: testControllerID}, v)
	if !b.Empty() {
		t.Fatal("new batch not empty")
	}
	b.AddUpdateMetadata([]int32{3, 1})
	if b.Empty() {
		t.Fatal("batch with UpdateMetadata brokers reports empty")
	}
	reqs := emit(t, b)
	assertShape(t, "empty UMR", reqs, "1:UpdateMetadata", "3:UpdateMetadata")
	um := reqs[1].Msg.(*kmsg.UpdateMetadataRequest)
	if len(um.TopicStates) != 0 || len(um.LiveBrokers) != 3 || um.BrokerEpoch != 103 {
		t.Errorf("empty UpdateMetadata %s", dump(um))
	}
}

func TestClear(t *testing.T) {
	v := scenarioView()
	b := NewBatch(Config{IBP: config.IBPLatest}, v)
	foo, _ := v.Leadership(tp("foo", 0))
	b.AddLeaderAndIsr([]int32{1}, tp("foo", 0), foo, election.ReplicaAssignment{Replicas: []int32{1}}, false)
	b.AddStopReplica([]int32{2}, tp("foo", 0), true)
	b.Clear()
	if !b.Empty() {
		t.Fatal("Clear left the batch non-empty")
	}
	if reqs := emit(t, b); len(reqs) != 0 {
		t.Errorf("Emit after Clear: %v", shape(reqs))
	}
}

// TestUpdateMetadataReadAtAddTime: UpdateMetadata carries the leadership
// the view had when the partition was added, like Kafka's batch.
func TestUpdateMetadataReadAtAddTime(t *testing.T) {
	v := scenarioView()
	b := NewBatch(Config{IBP: config.IBPLatest}, v)
	b.AddUpdateMetadataToAll(tp("bar", 1))
	l := v.leaders[tp("bar", 1)]
	l.LeaderEpoch = 42
	v.leaders[tp("bar", 1)] = l
	if got := umPartitions(emit(t, b)[0]); got[0].LeaderEpoch != 1 {
		t.Errorf("leader epoch %d, want 1 (the state at add time)", got[0].LeaderEpoch)
	}
}

// TestUpdateMetadataToAllAtEmit: "every registered broker" is resolved at
// Emit (a documented, deliberate difference from Kafka, which resolves it
// per add); an empty call still sends the live-broker refresh.
func TestUpdateMetadataToAllAtEmit(t *testing.T) {
	v := scenarioView()
	b := NewBatch(Config{IBP: config.IBPLatest}, v)
	b.AddUpdateMetadataToAll()
	if b.Empty() {
		t.Fatal("batch with UpdateMetadata to all reports empty")
	}
	v.addBroker(4, 104, nil)
	v.removeBroker(1)
	reqs := emit(t, b)
	assertShape(t, "to all", reqs, "2:UpdateMetadata", "3:UpdateMetadata", "4:UpdateMetadata")
}
