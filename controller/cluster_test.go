package controller

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/integration/brokersim"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// simCluster is simulated brokers plus one controller under one chroot.
type simCluster struct {
	chroot string
	sim    *brokersim.Cluster
	ctl    *node
	obs    *zkadmin.Client
	opts   nodeOpts
}

func startSimCluster(t *testing.T, o nodeOpts, ids ...int32) *simCluster {
	t.Helper()
	return startSimClusterWith(t, o, nil, ids...)
}

// startSimClusterWith runs before (if set) once the brokers are up and
// before the controller starts.
func startSimClusterWith(t *testing.T, o nodeOpts, before func(obs *zkadmin.Client), ids ...int32) *simCluster {
	t.Helper()
	chroot := testChroot(t)
	obs := connectZK(t, chroot, "", 0)
	return startSimIn(t, chroot, obs, o, before, ids...)
}

func startSimIn(t testing.TB, chroot string, obs *zkadmin.Client, o nodeOpts, before func(obs *zkadmin.Client),
	ids ...int32) *simCluster {
	t.Helper()
	var specs []brokersim.BrokerSpec
	for _, id := range ids {
		specs = append(specs, brokersim.BrokerSpec{ID: id, Rack: fmt.Sprintf("rack-%d", id%3)})
	}
	sim, err := brokersim.Start(testCtx(t), brokersim.Options{
		ZooKeeperServers: []string{env.server.Addr()}, Chroot: chroot, Brokers: specs,
		SessionTimeout: 4 * time.Second, ControlledShutdownBackoff: 20 * time.Millisecond,
		RequestTimeout: 5 * time.Second,
	})
	if err != nil {
		t.Fatalf("start brokers: %v", err)
	}
	t.Cleanup(sim.Close)
	if before != nil {
		before(obs)
	}
	if o.id == 0 {
		o.id = 100
	}
	ctl := startNode(t, chroot, o)
	waitFor(t, "controller ready", func() bool { return ctl.c.Status().Ready })
	return &simCluster{chroot: chroot, sim: sim, ctl: ctl, obs: obs, opts: o}
}

// waitLeader waits until the state znode and the controller agree that tp
// is led by want (and, when isr is given, has that ISR), and returns the
// state.
func (sc *simCluster) waitLeader(t testing.TB, topic string, p int32, want int32, isr ...int32) {
	t.Helper()
	waitFor(t, fmt.Sprintf("%s-%d led by %d with isr %v", topic, p, want, isr), func() bool {
		st, ok := tryReadState(t, sc.obs, topic, p)
		if !ok || st.Leader != want || (isr != nil && !slices.Equal(st.ISR, isr)) {
			return false
		}
		pv, ok := partitionView(sc.ctl.c, topic, p)
		return ok && pv.Leader == want && pv.PartitionEpoch == st.PartitionEpoch
	})
}

// waitBrokerRole waits until a simulated broker holds tp with the leader
// the controller told it.
func (sc *simCluster) waitBrokerRole(t testing.TB, id int32, topic string, p int32, leader int32) {
	t.Helper()
	tp := brokersim.TopicPartition{Topic: topic, Partition: p}
	err := sc.sim.Broker(id).WaitFor(testCtx(t), func(s brokersim.Snapshot) bool {
		ps, ok := s.Partitions[tp]
		return ok && ps.Leader == leader
	})
	if err != nil {
		t.Fatalf("broker %d never learnt %s leader %d: %v", id, tp, leader, err)
	}
}

// restartBrokers restarts the simulated brokers ids and waits until the
// controller's snapshot lists them all, which it publishes after handling
// the broker change (its elections included).
func (sc *simCluster) restartBrokers(t testing.TB, ids ...int32) {
	t.Helper()
	for _, id := range ids {
		if err := sc.sim.Broker(id).Restart(testCtx(t)); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, fmt.Sprintf("brokers %v registered", ids), func() bool {
		listed := 0
		for _, b := range sc.ctl.c.Snapshot().Brokers {
			if slices.Contains(ids, b.ID) {
				listed++
			}
		}
		return listed == len(ids)
	})
}

var threeParts = map[int32][]int32{0: {1, 2, 3}, 1: {2, 3, 1}, 2: {3, 1, 2}}

// TestNewTopic: an admin writes only the assignment; the controller gives
// the topic an id, creates every state znode (first replica leads, ISR all
// live replicas, epochs 0), and tells the brokers.
func TestNewTopic(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3)
	createTopic(t, sc.obs, "foo", threeParts)
	for p, replicas := range threeParts {
		sc.waitLeader(t, "foo", p, replicas[0], replicas...)
		st := readState(t, sc.obs, "foo", p)
		if st.LeaderEpoch != 0 || st.PartitionEpoch != 0 || st.ControllerEpoch != 1 {
			t.Fatalf("foo-%d initial state %v", p, st)
		}
		for _, r := range replicas {
			sc.waitBrokerRole(t, r, "foo", p, replicas[0])
		}
	}
	data, _, err := sc.obs.Get(testCtx(t), znodes.TopicPath("foo"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := znodes.DecodeTopicAssignment("foo", data)
	if err != nil || a.TopicID.IsZero() {
		t.Fatalf("topic id not assigned: %v %v", a, err)
	}
	if tv := sc.ctl.c.Snapshot().Topics.Get("foo"); tv == nil || tv.ID != a.TopicID || len(tv.Partitions) != 3 {
		t.Fatalf("snapshot topic %+v", tv)
	}
	// Every broker's metadata lists the controller among the live brokers.
	err = sc.sim.Broker(1).WaitFor(testCtx(t), func(s brokersim.Snapshot) bool {
		return slices.ContainsFunc(s.LiveBrokers, func(b brokersim.LiveBroker) bool { return b.ID == 100 }) &&
			s.ControllerID == 100
	})
	if err != nil {
		t.Fatal(err)
	}
	// Partitions added later come online the same way.
	parts := map[int32][]int32{0: {1, 2, 3}, 1: {2, 3, 1}, 2: {3, 1, 2}, 3: {1, 3, 2}}
	enc, _ := znodes.TopicAssignment{Partitions: parts, TopicID: a.TopicID}.Encode()
	if _, err := sc.obs.Set(testCtx(t), znodes.TopicPath("foo"), enc, zkadmin.AnyVersion); err != nil {
		t.Fatal(err)
	}
	sc.waitLeader(t, "foo", 3, 1, 1, 3, 2)
	if got := metricValue(t, sc.ctl, "kafka_controller_KafkaController_GlobalPartitionCount"); got != 4 {
		t.Fatalf("GlobalPartitionCount %v", got)
	}
}

// TestBrokerFailureAndRecovery kills a broker: the partitions it led get
// new leaders from their ISR (leader epoch bumped) and it leaves every
// ISR. When it comes back, the leaders add it to their ISR with
// AlterPartition (partition epoch up, leader epoch unchanged), and a
// preferred election gives it its leadership back.
func TestBrokerFailureAndRecovery(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3)
	createTopic(t, sc.obs, "foo", threeParts)
	sc.waitLeader(t, "foo", 0, 1, 1, 2, 3)

	sc.sim.Broker(1).Kill()
	sc.waitLeader(t, "foo", 0, 2, 2, 3)
	sc.waitLeader(t, "foo", 1, 2, 2, 3)
	sc.waitLeader(t, "foo", 2, 3, 3, 2)
	if st := readState(t, sc.obs, "foo", 0); st.LeaderEpoch != 1 {
		t.Fatalf("leader epoch after failover %d", st.LeaderEpoch)
	}
	sc.waitBrokerRole(t, 3, "foo", 0, 2)
	if got := metricValue(t, sc.ctl, "kafka_controller_ControllerStats_LeaderElectionRateAndTimeMs"); got < 1 {
		t.Fatalf("no broker change timed: %v", got)
	}
	if got := metricValue(t, sc.ctl, "kafka_controller_ControllerEventManager_EventQueueTimeMs"); got < 1 {
		t.Fatalf("no event's queue time observed: %v", got)
	}
	metricValue(t, sc.ctl, "kafka_controller_ControllerEventManager_EventQueueSize")

	if err := sc.sim.Broker(1).Restart(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	sc.waitLeader(t, "foo", 0, 2, 2, 3, 1) // AlterPartition from leader 2
	st := readState(t, sc.obs, "foo", 0)
	if st.LeaderEpoch != 1 || st.PartitionEpoch < 2 {
		t.Fatalf("ISR expansion changed the leader epoch or not the partition epoch: %v", st)
	}

	req := kmsg.NewPtrElectLeadersRequest()
	req.Version, req.ElectionType = 2, 0
	req.Topics = []kmsg.ElectLeadersRequestTopic{{Topic: "foo", Partitions: []int32{0, 1, 2}}, {Topic: "nope", Partitions: []int32{0}}}
	resp, err := sc.ctl.c.ElectLeaders(testCtx(t), req)
	if err != nil {
		t.Fatal(err)
	}
	codes := map[string]int16{}
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			codes[fmt.Sprintf("%s-%d", rt.Topic, rp.Partition)] = rp.ErrorCode
		}
	}
	want := map[string]int16{"foo-0": 0, "foo-1": kerr.ElectionNotNeeded.Code, "foo-2": kerr.ElectionNotNeeded.Code, "nope-0": kerr.UnknownTopicOrPartition.Code}
	for k, v := range want {
		if codes[k] != v {
			t.Fatalf("ElectLeaders codes %v, want %v", codes, want)
		}
	}
	sc.waitLeader(t, "foo", 0, 1)
	sc.waitBrokerRole(t, 1, "foo", 0, 1)
}

// TestControlledShutdown: a broker asks to shut down; leadership moves off
// it before it stops, it leaves the ISRs, and the controller answers with
// nothing left.
func TestControlledShutdown(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3)
	createTopic(t, sc.obs, "foo", threeParts)
	createTopic(t, sc.obs, "single", map[int32][]int32{0: {1}})
	sc.waitLeader(t, "foo", 0, 1, 1, 2, 3)
	sc.waitLeader(t, "single", 0, 1, 1)

	if err := sc.sim.Broker(1).Shutdown(testCtx(t)); err != nil {
		t.Fatalf("controlled shutdown: %v", err)
	}
	for p, replicas := range threeParts {
		st := readState(t, sc.obs, "foo", p)
		if st.Leader == 1 || slices.Contains(st.ISR, 1) {
			t.Fatalf("foo-%d after controlled shutdown: %v (replicas %v)", p, st, replicas)
		}
	}
	// Replication factor 1 stays (and goes offline when the broker does).
	waitFor(t, "single offline", func() bool {
		return metricValue(t, sc.ctl, "kafka_controller_KafkaController_OfflinePartitionsCount") == 1
	})

	// A request from a stale broker epoch is refused.
	req := kmsg.NewPtrControlledShutdownRequest()
	req.Version, req.BrokerID, req.BrokerEpoch = 3, 2, 1
	resp, err := sc.ctl.c.ControlledShutdown(testCtx(t), req)
	if err != nil || resp.ErrorCode != kerr.StaleBrokerEpoch.Code {
		t.Fatalf("stale epoch: %v %v", resp, err)
	}
	req.BrokerID, req.BrokerEpoch = 42, -1
	if resp, _ := sc.ctl.c.ControlledShutdown(testCtx(t), req); resp.ErrorCode != kerr.BrokerNotAvailable.Code {
		t.Fatalf("unknown broker: %v", resp.ErrorCode)
	}
}

// TestReplicaOnControllerIsReplaced: a topic assigned to the controller's
// own id (as a broker's auto-creation can do) is re-placed before it goes
// online.
func TestReplicaOnControllerIsReplaced(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3)
	createTopic(t, sc.obs, "auto", map[int32][]int32{0: {100, 1}, 1: {1, 100}})
	waitFor(t, "auto online", func() bool {
		_, ok0 := tryReadState(t, sc.obs, "auto", 0)
		_, ok1 := tryReadState(t, sc.obs, "auto", 1)
		return ok0 && ok1
	})
	data, _, err := sc.obs.Get(testCtx(t), znodes.TopicPath("auto"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := znodes.DecodeTopicAssignment("auto", data)
	if err != nil {
		t.Fatal(err)
	}
	for p, replicas := range a.Partitions {
		if slices.Contains(replicas, 100) || len(replicas) != 2 {
			t.Fatalf("partition %d still on the controller: %v", p, replicas)
		}
		st := readState(t, sc.obs, "auto", p)
		if st.Leader != replicas[0] || len(st.ISR) != 2 {
			t.Fatalf("auto-%d: %v with replicas %v", p, st, replicas)
		}
	}
}

// TestLaggingFollowerLeavesISR: a leader shrinks its ISR with
// AlterPartition when a follower lags; the controller accepts it without
// touching the leader epoch, and tells every broker.
func TestLaggingFollowerLeavesISR(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3)
	createTopic(t, sc.obs, "foo", threeParts)
	sc.waitLeader(t, "foo", 0, 1, 1, 2, 3)
	sc.sim.Broker(3).SetLagging(true)
	sc.waitLeader(t, "foo", 0, 1, 1, 2)
	if st := readState(t, sc.obs, "foo", 0); st.LeaderEpoch != 0 || st.PartitionEpoch != 1 {
		t.Fatalf("after shrink %v", st)
	}
	tp := brokersim.TopicPartition{Topic: "foo", Partition: 0}
	err := sc.sim.Broker(2).WaitFor(testCtx(t), func(s brokersim.Snapshot) bool {
		return len(s.LiveBrokers) > 0 && cachedISR(sc.sim.Broker(2), tp) == 2
	})
	if err != nil {
		t.Fatal(err)
	}
}

func cachedISR(b *brokersim.Broker, tp brokersim.TopicPartition) int {
	m, ok := b.CachedPartition(tp)
	if !ok {
		return -1
	}
	return len(m.ISR)
}

// TestAlterPartitionRequests checks the controller's answers to malformed
// or stale AlterPartition requests, as a broker would send them.
func TestAlterPartitionRequests(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3)
	createTopic(t, sc.obs, "foo", threeParts)
	sc.waitLeader(t, "foo", 0, 1, 1, 2, 3)
	id := sc.ctl.c.Snapshot().Topics.Get("foo").ID
	epoch := sc.sim.Broker(1).Epoch()
	send := func(brokerEpoch int64, topicID [16]byte, leaderEpoch, partitionEpoch int32, isr ...int32) *kmsg.AlterPartitionResponse {
		t.Helper()
		req := kmsg.NewPtrAlterPartitionRequest()
		req.Version, req.BrokerID, req.BrokerEpoch = 2, 1, brokerEpoch
		p := kmsg.NewAlterPartitionRequestTopicPartition()
		p.Partition, p.LeaderEpoch, p.PartitionEpoch, p.NewISR = 0, leaderEpoch, partitionEpoch, isr
		req.Topics = []kmsg.AlterPartitionRequestTopic{{TopicID: topicID, Partitions: []kmsg.AlterPartitionRequestTopicPartition{p}}}
		resp, err := sc.ctl.c.AlterPartition(testCtx(t), req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	code := func(r *kmsg.AlterPartitionResponse) int16 {
		if r.ErrorCode != 0 {
			return r.ErrorCode
		}
		return r.Topics[0].Partitions[0].ErrorCode
	}
	if c := code(send(epoch+1, id, 0, 0, 1, 2)); c != kerr.StaleBrokerEpoch.Code {
		t.Fatalf("wrong broker epoch: %d", c)
	}
	if c := code(send(epoch, [16]byte{1}, 0, 0, 1, 2)); c != kerr.UnknownTopicID.Code {
		t.Fatalf("unknown topic id: %d", c)
	}
	if c := code(send(epoch, id, 1, 0, 1, 2)); c != kerr.NotController.Code {
		t.Fatalf("newer leader epoch: %d", c)
	}
	if c := code(send(epoch, id, 0, 0, 1, 2, 42)); c != kerr.IneligibleReplica.Code {
		t.Fatalf("dead replica: %d", c)
	}
	r := send(epoch, id, 0, 0, 1, 2)
	rp := r.Topics[0].Partitions[0]
	if rp.ErrorCode != 0 || rp.PartitionEpoch != 1 || rp.LeaderEpoch != 0 || !slices.Equal(rp.ISR, []int32{1, 2}) {
		t.Fatalf("shrink: %+v", rp)
	}
	if r.Topics[0].TopidID != id {
		t.Fatal("response not keyed by topic id")
	}
	if c := code(send(epoch, id, 0, 0, 1)); c != kerr.InvalidUpdateVersion.Code {
		t.Fatalf("stale partition epoch: %d", c)
	}
	if st := readState(t, sc.obs, "foo", 0); st.PartitionEpoch < 1 || st.LeaderEpoch != 0 {
		t.Fatalf("state after shrink %v", st)
	}
}
