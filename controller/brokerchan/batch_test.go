package brokerchan

import (
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/znodes"
)

const (
	testControllerID    int32 = 100
	testControllerEpoch int32 = 9
)

var fooID = znodes.UUID{0xf0, 0x0f, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}

// scenarioView: brokers 1 (rack r1), 2 (no rack, PLAINTEXT and SSL
// listeners) and 3 (rack r3, shutting down); topic foo (with an id)
// partition 0 on [1 2 3] led by 1, recovering; topic bar (no id)
// partition 1 on [2 3] led by 2.
func scenarioView() *fakeView {
	v := newFakeView()
	v.addBroker(1, 101, strp("r1"))
	v.addBroker(2, 102, nil, plaintext(2),
		znodes.Endpoint{Listener: "SSL", Host: "h2", Port: 9093, SecurityProtocol: "SSL"})
	v.addBroker(3, 103, strp("r3"))
	v.Snapshot = v.Snapshot.WithShutdown(3)
	v.ids["foo"] = fooID
	v.addPartition(tp("foo", 0), []int32{1, 2, 3}, &election.LeaderAndIsr{
		Leader: 1, LeaderEpoch: 5, ISR: []int32{1, 2}, PartitionEpoch: 7, ControllerEpoch: 3,
		LeaderRecoveryState: election.Recovering,
	})
	v.addPartition(tp("bar", 1), []int32{2, 3}, &election.LeaderAndIsr{
		Leader: 2, LeaderEpoch: 1, ISR: []int32{2, 3}, PartitionEpoch: 2, ControllerEpoch: 4,
	})
	return v
}

func selfBroker() *Broker {
	return &Broker{ID: testControllerID, Endpoints: []znodes.Endpoint{
		{Listener: "PLAINTEXT", Host: "ctl", Port: 9090, SecurityProtocol: "PLAINTEXT"},
	}}
}

// runScenario fills a batch as one decision might: LeaderAndIsr for foo-0
// to 2 and 1 (foo-0 being reassigned: 3 is adding), LeaderAndIsr for a new
// bar-1 to 2, StopReplica for foo-0 (keep) and bar-1 (delete) to 3.
func runScenario(t *testing.T, ibp config.IBP) []Request {
	t.Helper()
	v := scenarioView()
	b := NewBatch(Config{ControllerID: testControllerID, IBP: ibp, Self: selfBroker()}, v)
	foo, _ := v.Leadership(tp("foo", 0))
	bar, _ := v.Leadership(tp("bar", 1))
	b.AddLeaderAndIsr([]int32{2, 1}, tp("foo", 0), foo,
		election.ReplicaAssignment{Replicas: []int32{1, 2, 3}, Adding: []int32{3}}, false)
	b.AddLeaderAndIsr([]int32{2}, tp("bar", 1), bar, election.ReplicaAssignment{Replicas: []int32{2, 3}}, true)
	b.AddStopReplica([]int32{3}, tp("foo", 0), false)
	b.AddStopReplica([]int32{3}, tp("bar", 1), true)
	reqs, err := b.Emit(testControllerEpoch)
	if err != nil {
		t.Fatalf("Emit at %s: %v", ibp, err)
	}
	if !b.Empty() {
		t.Errorf("batch not empty after Emit")
	}
	return reqs
}

// shape renders requests as "broker:API" in order.
func shape(reqs []Request) []string {
	out := make([]string, len(reqs))
	for i, r := range reqs {
		out[i] = fmt.Sprintf("%d:%s", r.Broker, kmsg.NameForKey(r.Msg.Key()))
	}
	return out
}

func assertShape(t *testing.T, what string, reqs []Request, want ...string) {
	t.Helper()
	got := shape(reqs)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s: requests %v, want %v", what, got, want)
	}
}

func umEndpoint(listener string, host string, port int32, proto int16) kmsg.UpdateMetadataRequestLiveBrokerEndpoint {
	return kmsg.UpdateMetadataRequestLiveBrokerEndpoint{ListenerName: listener, Host: host, Port: port, SecurityProtocol: proto}
}

// TestEmitLatest asserts every field of every request at IBP 3.9.
func TestEmitLatest(t *testing.T) {
	reqs := runScenario(t, config.IBPLatest)
	assertShape(t, "3.9", reqs, "1:LeaderAndISR", "2:LeaderAndISR",
		"1:UpdateMetadata", "2:UpdateMetadata", "3:UpdateMetadata", "3:StopReplica")

	fooState := kmsg.LeaderAndISRRequestTopicPartition{
		Partition: 0, ControllerEpoch: 3, Leader: 1, LeaderEpoch: 5, ISR: []int32{1, 2}, ZKVersion: 7,
		Replicas: []int32{1, 2, 3}, AddingReplicas: []int32{3}, LeaderRecoveryState: 1,
	}
	barState := kmsg.LeaderAndISRRequestTopicPartition{
		Partition: 1, ControllerEpoch: 4, Leader: 2, LeaderEpoch: 1, ISR: []int32{2, 3}, ZKVersion: 2,
		Replicas: []int32{2, 3}, IsNew: true,
	}
	live1 := kmsg.LeaderAndISRRequestLiveLeader{BrokerID: 1, Host: "h1", Port: 9092}
	live2 := kmsg.LeaderAndISRRequestLiveLeader{BrokerID: 2, Host: "h2", Port: 9092}
	assertRequest(t, "LeaderAndIsr to 1", reqs[0].Msg, &kmsg.LeaderAndISRRequest{
		Version: 7, ControllerID: 100, ControllerEpoch: 9, BrokerEpoch: 101,
		TopicStates: []kmsg.LeaderAndISRRequestTopicState{
			{Topic: "foo", TopicID: fooID, PartitionStates: []kmsg.LeaderAndISRRequestTopicPartition{fooState}},
		},
		LiveLeaders: []kmsg.LeaderAndISRRequestLiveLeader{live1},
	})
	assertRequest(t, "LeaderAndIsr to 2", reqs[1].Msg, &kmsg.LeaderAndISRRequest{
		Version: 7, ControllerID: 100, ControllerEpoch: 9, BrokerEpoch: 102,
		TopicStates: []kmsg.LeaderAndISRRequestTopicState{
			{Topic: "bar", PartitionStates: []kmsg.LeaderAndISRRequestTopicPartition{barState}},
			{Topic: "foo", TopicID: fooID, PartitionStates: []kmsg.LeaderAndISRRequestTopicPartition{fooState}},
		},
		LiveLeaders: []kmsg.LeaderAndISRRequestLiveLeader{live1, live2},
	})

	topics := []kmsg.UpdateMetadataRequestTopicState{
		{Topic: "bar", PartitionStates: []kmsg.UpdateMetadataRequestTopicPartition{{
			Partition: 1, ControllerEpoch: 4, Leader: 2, LeaderEpoch: 1, ISR: []int32{2, 3}, ZKVersion: 2,
			Replicas: []int32{2, 3}, OfflineReplicas: []int32{3},
		}}},
		{Topic: "foo", TopicID: fooID, PartitionStates: []kmsg.UpdateMetadataRequestTopicPartition{{
			Partition: 0, ControllerEpoch: 3, Leader: 1, LeaderEpoch: 5, ISR: []int32{1, 2}, ZKVersion: 7,
			Replicas: []int32{1, 2, 3}, OfflineReplicas: []int32{3},
		}}},
	}
	live := []kmsg.UpdateMetadataRequestLiveBroker{
		{ID: 1, Endpoints: []kmsg.UpdateMetadataRequestLiveBrokerEndpoint{umEndpoint("PLAINTEXT", "h1", 9092, 0)}, Rack: strp("r1")},
		{ID: 2, Endpoints: []kmsg.UpdateMetadataRequestLiveBrokerEndpoint{
			umEndpoint("PLAINTEXT", "h2", 9092, 0), umEndpoint("SSL", "h2", 9093, 1)}},
		{ID: 3, Endpoints: []kmsg.UpdateMetadataRequestLiveBrokerEndpoint{umEndpoint("PLAINTEXT", "h3", 9092, 0)}, Rack: strp("r3")},
		{ID: 100, Endpoints: []kmsg.UpdateMetadataRequestLiveBrokerEndpoint{umEndpoint("PLAINTEXT", "ctl", 9090, 0)}},
	}
	for i, epoch := range []int64{101, 102, 103} {
		assertRequest(t, fmt.Sprintf("UpdateMetadata to %d", i+1), reqs[2+i].Msg, &kmsg.UpdateMetadataRequest{
			Version: 8, ControllerID: 100, ControllerEpoch: 9, BrokerEpoch: epoch,
			TopicStates: topics, LiveBrokers: live,
		})
	}

	assertRequest(t, "StopReplica to 3", reqs[5].Msg, &kmsg.StopReplicaRequest{
		Version: 3, ControllerID: 100, ControllerEpoch: 9, BrokerEpoch: 103,
		Topics: []kmsg.StopReplicaRequestTopic{
			{Topic: "bar", PartitionStates: []kmsg.StopReplicaRequestTopicPartitionState{{Partition: 1, LeaderEpoch: 1, Delete: true}}},
			{Topic: "foo", PartitionStates: []kmsg.StopReplicaRequestTopicPartitionState{{Partition: 0, LeaderEpoch: 5}}},
		},
	})
}

// TestEmitIBP22 asserts the requests at 2.2-IV0: LeaderAndIsr v2 (grouped,
// broker epoch, no adding/removing, no topic ids), UpdateMetadata v5
// (grouped, no topic ids), StopReplica v1 (delete flag per request: two
// requests, no leader epochs).
func TestEmitIBP22(t *testing.T) {
	reqs := runScenario(t, mustIBP(t, "2.2-IV0"))
	assertShape(t, "2.2", reqs, "1:LeaderAndISR", "2:LeaderAndISR",
		"1:UpdateMetadata", "2:UpdateMetadata", "3:UpdateMetadata", "3:StopReplica", "3:StopReplica")
	fooState := kmsg.LeaderAndISRRequestTopicPartition{
		Partition: 0, ControllerEpoch: 3, Leader: 1, LeaderEpoch: 5, ISR: []int32{1, 2}, ZKVersion: 7,
		Replicas: []int32{1, 2, 3},
	}
	barState := kmsg.LeaderAndISRRequestTopicPartition{
		Partition: 1, ControllerEpoch: 4, Leader: 2, LeaderEpoch: 1, ISR: []int32{2, 3}, ZKVersion: 2,
		Replicas: []int32{2, 3}, IsNew: true,
	}
	assertRequest(t, "LeaderAndIsr to 2", reqs[1].Msg, &kmsg.LeaderAndISRRequest{
		Version: 2, ControllerID: 100, ControllerEpoch: 9, BrokerEpoch: 102,
		TopicStates: []kmsg.LeaderAndISRRequestTopicState{
			{Topic: "bar", PartitionStates: []kmsg.LeaderAndISRRequestTopicPartition{barState}},
			{Topic: "foo", PartitionStates: []kmsg.LeaderAndISRRequestTopicPartition{fooState}},
		},
		LiveLeaders: []kmsg.LeaderAndISRRequestLiveLeader{{BrokerID: 1, Host: "h1", Port: 9092}, {BrokerID: 2, Host: "h2", Port: 9092}},
	})
	assertRequest(t, "UpdateMetadata to 1", reqs[2].Msg, &kmsg.UpdateMetadataRequest{
		Version: 5, ControllerID: 100, ControllerEpoch: 9, BrokerEpoch: 101,
		TopicStates: []kmsg.UpdateMetadataRequestTopicState{
			{Topic: "bar", PartitionStates: []kmsg.UpdateMetadataRequestTopicPartition{{
				Partition: 1, ControllerEpoch: 4, Leader: 2, LeaderEpoch: 1, ISR: []int32{2, 3}, ZKVersion: 2,
				Replicas: []int32{2, 3}, OfflineReplicas: []int32{3},
			}}},
			{Topic: "foo", PartitionStates: []kmsg.UpdateMetadataRequestTopicPartition{{
				Partition: 0, ControllerEpoch: 3, Leader: 1, LeaderEpoch: 5, ISR: []int32{1, 2}, ZKVersion: 7,
				Replicas: []int32{1, 2, 3}, OfflineReplicas: []int32{3},
			}}},
		},
		LiveBrokers: []kmsg.UpdateMetadataRequestLiveBroker{
			{ID: 1, Endpoints: []kmsg.UpdateMetadataRequestLiveBrokerEndpoint{umEndpoint("PLAINTEXT", "h1", 9092, 0)}, Rack: strp("r1")},
			{ID: 2, Endpoints: []kmsg.UpdateMetadataRequestLiveBrokerEndpoint{
				umEndpoint("PLAINTEXT", "h2", 9092, 0), umEndpoint("SSL", "h2", 9093, 1)}},
			{ID: 3, Endpoints: []kmsg.UpdateMetadataRequestLiveBrokerEndpoint{umEndpoint("PLAINTEXT", "h3", 9092, 0)}, Rack: strp("r3")},
			{ID: 100, Endpoints: []kmsg.UpdateMetadataRequestLiveBrokerEndpoint{umEndpoint("PLAINTEXT", "ctl", 9090, 0)}},
		},
	})
	assertRequest(t, "StopReplica (delete) to 3", reqs[5].Msg, &kmsg.StopReplicaRequest{
		Version: 1, ControllerID: 100, ControllerEpoch: 9, BrokerEpoch: 103, DeletePartitions: true,
		Topics: []kmsg.StopReplicaRequestTopic{{Topic: "bar", Partitions: []int32{1}}},
	})
	assertRequest(t, "StopReplica (keep) to 3", reqs[6].Msg, &kmsg.StopReplicaRequest{
		Version: 1, ControllerID: 100, ControllerEpoch: 9, BrokerEpoch: 103,
		Topics: []kmsg.StopReplicaRequestTopic{{Topic: "foo", Partitions: []int32{0}}},
	})
}

// TestEmitIBP080 asserts the oldest layouts: everything v0, no broker
// epochs, ungrouped partitions, UpdateMetadata v0 with one host and port.
func TestEmitIBP080(t *testing.T) {
	reqs := runScenario(t, mustIBP(t, "0.8.0"))
	assertShape(t, "0.8.0", reqs, "1:LeaderAndISR", "2:LeaderAndISR",
		"1:UpdateMetadata", "2:UpdateMetadata", "3:UpdateMetadata", "3:StopReplica", "3:StopReplica")
	assertRequest(t, "LeaderAndIsr to 2", reqs[1].Msg, &kmsg.LeaderAndISRRequest{
		Version: 0, ControllerID: 100, ControllerEpoch: 9, BrokerEpoch: -1,
		PartitionStates: []kmsg.LeaderAndISRRequestTopicPartition{
			{Topic: "bar", Partition: 1, ControllerEpoch: 4, Leader: 2, LeaderEpoch: 1, ISR: []int32{2, 3}, ZKVersion: 2, Replicas: []int32{2, 3}},
			{Topic: "foo", Partition: 0, ControllerEpoch: 3, Leader: 1, LeaderEpoch: 5, ISR: []int32{1, 2}, ZKVersion: 7, Replicas: []int32{1, 2, 3}},
		},
		LiveLeaders: []kmsg.LeaderAndISRRequestLiveLeader{{BrokerID: 1, Host: "h1", Port: 9092}, {BrokerID: 2, Host: "h2", Port: 9092}},
	})
	assertRequest(t, "UpdateMetadata to 3", reqs[4].Msg, &kmsg.UpdateMetadataRequest{
		Version: 0, ControllerID: 100, ControllerEpoch: 9, BrokerEpoch: -1,
		PartitionStates: []kmsg.UpdateMetadataRequestTopicPartition{
			{Topic: "bar", Partition: 1, ControllerEpoch: 4, Leader: 2, LeaderEpoch: 1, ISR: []int32{2, 3}, ZKVersion: 2, Replicas: []int32{2, 3}},
			{Topic: "foo", Partition: 0, ControllerEpoch: 3, Leader: 1, LeaderEpoch: 5, ISR: []int32{1, 2}, ZKVersion: 7, Replicas: []int32{1, 2, 3}},
		},
		LiveBrokers: []kmsg.UpdateMetadataRequestLiveBroker{
			{ID: 1, Host: "h1", Port: 9092}, {ID: 2, Host: "h2", Port: 9092},
			{ID: 3, Host: "h3", Port: 9092}, {ID: 100, Host: "ctl", Port: 9090},
		},
	})
	assertRequest(t, "StopReplica (delete) to 3", reqs[5].Msg, &kmsg.StopReplicaRequest{
		Version: 0, ControllerID: 100, ControllerEpoch: 9, BrokerEpoch: -1, DeletePartitions: true,
		Topics: []kmsg.StopReplicaRequestTopic{{Topic: "bar", Partition: 1}},
	})
	assertRequest(t, "StopReplica (keep) to 3", reqs[6].Msg, &kmsg.StopReplicaRequest{
		Version: 0, ControllerID: 100, ControllerEpoch: 9, BrokerEpoch: -1,
		Topics: []kmsg.StopReplicaRequestTopic{{Topic: "foo", Partition: 0}},
	})
}

// TestEmitEveryIBP runs the scenario at every IBP and checks the versions,
// the order, and that each request is exactly what the broker decodes: no
// field is set that its version does not carry.
func TestEmitEveryIBP(t *testing.T) {
	for _, ibp := range allIBPs() {
		reqs := runScenario(t, ibp)
		v := RequestVersionsAt(ibp)
		want := []string{"1:LeaderAndISR", "2:LeaderAndISR", "1:UpdateMetadata", "2:UpdateMetadata", "3:UpdateMetadata", "3:StopReplica"}
		if v.StopReplica < 3 {
			want = append(want, "3:StopReplica")
		}
		assertShape(t, ibp.String(), reqs, want...)
		for _, r := range reqs {
			wantVersion := map[int16]int16{4: v.LeaderAndISR, 6: v.UpdateMetadata, 5: v.StopReplica}[r.Msg.Key()]
			if r.Msg.GetVersion() != wantVersion {
				t.Errorf("%s: %s to %d at v%d, want v%d", ibp, kmsg.NameForKey(r.Msg.Key()), r.Broker, r.Msg.GetVersion(), wantVersion)
			}
			if got := decodeAsBroker(t, r.Msg); !sameRequest(got, r.Msg) {
				t.Errorf("%s: %s to %d does not survive encoding:\n built   %s\n decoded %s",
					ibp, kmsg.NameForKey(r.Msg.Key()), r.Broker, dump(r.Msg), dump(got))
			}
		}
	}
}

// TestLeaderRecoveryStateGate: the recovery state is sent from 3.2-IV0 (v6)
// and never below.
func TestLeaderRecoveryStateGate(t *testing.T) {
	for _, c := range []struct {
		ibp  string
		want int8
	}{{"3.1-IV0", 0}, {"3.2-IV0", 1}, {"3.9", 1}} {
		reqs := runScenario(t, mustIBP(t, c.ibp))
		lai := reqs[0].Msg.(*kmsg.LeaderAndISRRequest)
		if got := lai.TopicStates[0].PartitionStates[0].LeaderRecoveryState; got != c.want {
			t.Errorf("%s: LeaderRecoveryState %d, want %d", c.ibp, got, c.want)
		}
	}
}

// TestTopicIDGates: topic ids go into LeaderAndIsr from v5 and
// UpdateMetadata from v7, both at 2.8-IV1.
func TestTopicIDGates(t *testing.T) {
	for _, c := range []struct {
		ibp  string
		want znodes.UUID
	}{{"2.8-IV0", znodes.UUID{}}, {"2.8-IV1", fooID}} {
		reqs := runScenario(t, mustIBP(t, c.ibp))
		lai := reqs[0].Msg.(*kmsg.LeaderAndISRRequest)
		um := reqs[2].Msg.(*kmsg.UpdateMetadataRequest)
		if znodes.UUID(lai.TopicStates[0].TopicID) != c.want || znodes.UUID(um.TopicStates[1].TopicID) != c.want {
			t.Errorf("%s: topic ids %v / %v, want %v", c.ibp, lai.TopicStates[0].TopicID, um.TopicStates[1].TopicID, c.want)
		}
	}
}
