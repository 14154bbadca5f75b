package controller

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/integration/brokersim"
	"github.com/kzadmin/kzadmin/placement"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// reassignTopic creates foo with p0 on [1,2,3] and p1 on [2,3,1] and waits
// until both are led.
func (sc *simCluster) reassignTopic(t *testing.T) {
	t.Helper()
	createTopic(t, sc.obs, "foo", map[int32][]int32{0: {1, 2, 3}, 1: {2, 3, 1}})
	sc.waitLeader(t, "foo", 0, 1, 1, 2, 3)
	sc.waitLeader(t, "foo", 1, 2, 2, 3, 1)
}

// writeReassignZnode creates the legacy /admin/reassign_partitions request.
func writeReassignZnode(t *testing.T, zk *zkadmin.Client, entries ...znodes.ReassignmentEntry) {
	t.Helper()
	data, err := znodes.ReassignPartitions{Partitions: entries}.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zk.CreateRecursive(testCtx(t), znodes.ReassignPartitionsPath, data, zkadmin.Persistent); err != nil {
		t.Fatalf("write reassignment: %v", err)
	}
}

func readTopicZnode(t testing.TB, zk *zkadmin.Client, name string) znodes.TopicAssignment {
	t.Helper()
	data, _, err := zk.Get(testCtx(t), znodes.TopicPath(name))
	if err != nil {
		t.Fatal(err)
	}
	a, err := znodes.DecodeTopicAssignment(name, data)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func reassignZnodeExists(t testing.TB, zk *zkadmin.Client) bool {
	t.Helper()
	ok, _, err := zk.Exists(testCtx(t), znodes.ReassignPartitionsPath)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// waitAssignment waits until the topic znode and the controller's view
// both show p with replicas and no reassignment in progress (adding and
// removing, when given, in progress).
func (sc *simCluster) waitAssignment(t testing.TB, ctl *Controller, p int32, replicas, adding, removing []int32) {
	t.Helper()
	waitFor(t, fmt.Sprintf("foo-%d assigned %v +%v -%v", p, replicas, adding, removing), func() bool {
		a := readTopicZnode(t, sc.obs, "foo")
		if !slices.Equal(a.Partitions[p], replicas) || !slices.Equal(a.AddingReplicas[p], adding) ||
			!slices.Equal(a.RemovingReplicas[p], removing) {
			return false
		}
		pv, ok := partitionView(ctl, "foo", p)
		return ok && slices.Equal(pv.Replicas, replicas) && slices.Equal(pv.Adding, adding) && slices.Equal(pv.Removing, removing)
	})
}

// waitGone waits until broker id has dropped foo-p: no replica state, no
// log, and it received a StopReplica.
func (sc *simCluster) waitGone(t testing.TB, id int32, p int32) {
	t.Helper()
	tp := brokersim.TopicPartition{Topic: "foo", Partition: p}
	err := sc.sim.Broker(id).WaitFor(testCtx(t), func(s brokersim.Snapshot) bool {
		_, replica := s.Partitions[tp]
		_, log := s.Log[tp]
		return !replica && !log && s.Received[kmsg.StopReplica.Int16()] > 0
	})
	if err != nil {
		t.Fatalf("broker %d still hosts %s: %v", id, tp, err)
	}
}

func sameSet(a, b []int32) bool {
	return len(a) == len(b) && !slices.ContainsFunc(a, func(x int32) bool { return !slices.Contains(b, x) })
}

// TestReassignThroughZnode: the legacy znode moves foo-0 from [1,2,3] to
// [2,3,4]. The controller records the move in the topic znode, bumps the
// leader epoch and sends LeaderAndIsr to the new replica set; broker 4
// joins the ISR through the leader's AlterPartition; then 2 (the first
// target replica in the ISR) is elected, 1 is stopped and deleted, the
// topic znode gets [2,3,4] and the request znode is deleted. A second
// request then shows the watch was re-armed.
func TestReassignThroughZnode(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3, 4)
	sc.reassignTopic(t)
	before := readState(t, sc.obs, "foo", 0)
	writeReassignZnode(t, sc.obs, znodes.ReassignmentEntry{Topic: "foo", Partition: 0, Replicas: []int32{2, 3, 4}})

	sc.waitAssignment(t, sc.ctl.c, 0, []int32{2, 3, 4}, nil, nil)
	waitFor(t, "request znode deleted", func() bool { return !reassignZnodeExists(t, sc.obs) })
	sc.waitLeader(t, "foo", 0, 2)
	st := readState(t, sc.obs, "foo", 0)
	if !sameSet(st.ISR, []int32{2, 3, 4}) {
		t.Fatalf("final ISR %v", st.ISR)
	}
	// A1 bump, B3 election, B4 ISR shrink: each bumps the leader epoch.
	if st.LeaderEpoch != before.LeaderEpoch+3 || st.ControllerEpoch != 1 {
		t.Fatalf("final state %v (before %v)", st, before)
	}
	sc.waitGone(t, 1, 0)
	for _, id := range []int32{2, 3, 4} {
		sc.waitBrokerRole(t, id, "foo", 0, 2)
	}
	err := sc.sim.Broker(4).WaitFor(testCtx(t), func(s brokersim.Snapshot) bool {
		ps := s.Partitions[brokersim.TopicPartition{Topic: "foo", Partition: 0}]
		return slices.Equal(ps.Replicas, []int32{2, 3, 4}) && len(ps.AddingReplicas) == 0
	})
	if err != nil {
		t.Fatalf("broker 4 never learnt the final replica set: %v", err)
	}
	if a := readTopicZnode(t, sc.obs, "foo"); !slices.Equal(a.Partitions[1], []int32{2, 3, 1}) || a.TopicID.IsZero() {
		t.Fatalf("other partition or topic id disturbed: %+v", a)
	}

	// The watch is armed again: a new request is carried out too.
	writeReassignZnode(t, sc.obs, znodes.ReassignmentEntry{Topic: "foo", Partition: 1, Replicas: []int32{3, 4, 1}})
	sc.waitAssignment(t, sc.ctl.c, 1, []int32{3, 4, 1}, nil, nil)
	waitFor(t, "second request znode deleted", func() bool { return !reassignZnodeExists(t, sc.obs) })
	sc.waitLeader(t, "foo", 1, 3)
	sc.waitGone(t, 2, 1)
}

// TestReassignZnodeUnknownPartition: a request naming a partition that does
// not exist is dropped from the znode (which then goes) while the rest is
// carried out.
func TestReassignZnodeUnknownPartition(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3, 4)
	sc.reassignTopic(t)
	writeReassignZnode(t, sc.obs,
		znodes.ReassignmentEntry{Topic: "foo", Partition: 9, Replicas: []int32{1, 2}},
		znodes.ReassignmentEntry{Topic: "nope", Partition: 0, Replicas: []int32{1, 2}},
		znodes.ReassignmentEntry{Topic: "foo", Partition: 1, Replicas: []int32{2, 3, 4}})
	sc.waitAssignment(t, sc.ctl.c, 1, []int32{2, 3, 4}, nil, nil)
	waitFor(t, "request znode deleted", func() bool { return !reassignZnodeExists(t, sc.obs) })
	sc.waitGone(t, 1, 1)
}

// TestReassignResumesAfterFailover: broker 4 lags, so the move of foo-0
// stays in progress; the active controller stops and the standby takes
// over, reads adding/removing from the topic znode, bumps the leader epoch
// and re-sends LeaderAndIsr; once 4 catches up the move completes under
// the new controller, and the request znode is deleted.
func TestReassignResumesAfterFailover(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3, 4)
	sc.reassignTopic(t)
	standby := startNode(t, sc.chroot, nodeOpts{id: 101})
	waitFor(t, "standby follows", func() bool { return standby.c.Status().ActiveControllerID == 100 })
	sc.sim.Broker(4).SetLagging(true)
	writeReassignZnode(t, sc.obs, znodes.ReassignmentEntry{Topic: "foo", Partition: 0, Replicas: []int32{2, 3, 4}})
	sc.waitAssignment(t, sc.ctl.c, 0, []int32{2, 3, 4, 1}, []int32{4}, []int32{1})
	// Broker 4 heard of the move (A1: LeaderAndIsr with isNew).
	err := sc.sim.Broker(4).WaitFor(testCtx(t), func(s brokersim.Snapshot) bool {
		ps, ok := s.Partitions[brokersim.TopicPartition{Topic: "foo", Partition: 0}]
		return ok && ps.IsNew && slices.Equal(ps.AddingReplicas, []int32{4}) && ps.Leader == 1
	})
	if err != nil {
		t.Fatalf("broker 4 never got the reassignment's LeaderAndIsr: %v", err)
	}
	mid := readState(t, sc.obs, "foo", 0)

	sc.ctl.stop()
	waitFor(t, "standby takes over", func() bool { return standby.c.Status().Ready })
	waitFor(t, "the new controller re-sent the reassignment", func() bool {
		st := readState(t, sc.obs, "foo", 0)
		return st.LeaderEpoch > mid.LeaderEpoch && st.ControllerEpoch == 2
	})
	pv, _ := partitionView(standby.c, "foo", 0)
	if !slices.Equal(pv.Adding, []int32{4}) || !slices.Equal(pv.Removing, []int32{1}) {
		t.Fatalf("new controller's view %+v", pv)
	}
	if !reassignZnodeExists(t, sc.obs) {
		t.Fatal("request znode removed before the move completed")
	}

	sc.sim.Broker(4).SetLagging(false)
	sc.waitAssignment(t, standby.c, 0, []int32{2, 3, 4}, nil, nil)
	waitFor(t, "request znode deleted", func() bool { return !reassignZnodeExists(t, sc.obs) })
	waitFor(t, "foo-0 led by 2", func() bool { return readState(t, sc.obs, "foo", 0).Leader == 2 })
	sc.waitGone(t, 1, 0)
}

// TestReassignWaitsForDeadBroker: the legacy path does not validate, so a
// target naming a broker that is down is recorded and waits; when the
// broker registers, the reassignment is resumed (LeaderAndIsr to it) and
// completes.
func TestReassignWaitsForDeadBroker(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3, 4)
	sc.reassignTopic(t)
	sc.sim.Broker(4).Kill()
	waitFor(t, "controller sees broker 4 gone", func() bool { return len(sc.ctl.c.Snapshot().Brokers) == 3 })

	// The API refuses to add a replica on a dead broker.
	resp := alterReassignments(t, sc.ctl.c, "foo", 0, []int32{2, 3, 4})
	if code := partitionCode(resp, "foo", 0); code != kerr.InvalidReplicaAssignment.Code {
		t.Fatalf("API move to a dead broker: code %d", code)
	}

	writeReassignZnode(t, sc.obs, znodes.ReassignmentEntry{Topic: "foo", Partition: 0, Replicas: []int32{2, 3, 4}})
	sc.waitAssignment(t, sc.ctl.c, 0, []int32{2, 3, 4, 1}, []int32{4}, []int32{1})
	if st := readState(t, sc.obs, "foo", 0); st.Leader != 1 || slices.Contains(st.ISR, 4) {
		t.Fatalf("state while 4 is down: %v", st)
	}

	if err := sc.sim.Broker(4).Restart(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	sc.waitAssignment(t, sc.ctl.c, 0, []int32{2, 3, 4}, nil, nil)
	waitFor(t, "request znode deleted", func() bool { return !reassignZnodeExists(t, sc.obs) })
	sc.waitBrokerRole(t, 4, "foo", 0, 2)
	sc.waitGone(t, 1, 0)
}

// alterReassignments sends one partition's reassignment (nil replicas
// cancel it) and returns the answer, top-level errors included.
func alterReassignments(t testing.TB, c *Controller, topic string, p int32, replicas []int32) *kmsg.AlterPartitionAssignmentsResponse {
	t.Helper()
	return sendReassignments(t, c, raMove{topic: topic, p: p, replicas: replicas})
}

func partitionCode(resp *kmsg.AlterPartitionAssignmentsResponse, topic string, p int32) int16 {
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			if rt.Topic == topic && rp.Partition == p {
				return rp.ErrorCode
			}
		}
	}
	return -1
}

// TestReassignCancelThroughAPI: a move started through the legacy znode is
// cancelled through the API (null replicas) while broker 4 lags: the
// partition leaves the znode (deleted, as it is empty), the adding replica
// is stopped and deleted, the assignment is the original replicas (target
// order, as Kafka leaves it), and a second cancel finds nothing to cancel.
func TestReassignCancelThroughAPI(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3, 4)
	sc.reassignTopic(t)
	sc.sim.Broker(4).SetLagging(true)
	writeReassignZnode(t, sc.obs, znodes.ReassignmentEntry{Topic: "foo", Partition: 0, Replicas: []int32{2, 3, 4}})
	sc.waitAssignment(t, sc.ctl.c, 0, []int32{2, 3, 4, 1}, []int32{4}, []int32{1})

	resp := alterReassignments(t, sc.ctl.c, "foo", 0, nil)
	if resp.ErrorCode != 0 || partitionCode(resp, "foo", 0) != 0 {
		t.Fatalf("cancel: %+v", resp)
	}
	sc.waitAssignment(t, sc.ctl.c, 0, []int32{2, 3, 1}, nil, nil)
	if reassignZnodeExists(t, sc.obs) {
		t.Fatal("the cancelled partition's request znode is still there")
	}
	sc.waitGone(t, 4, 0)
	if st := readState(t, sc.obs, "foo", 0); st.Leader != 1 || !sameSet(st.ISR, []int32{1, 2, 3}) {
		t.Fatalf("state after cancel %v", st)
	}

	resp = alterReassignments(t, sc.ctl.c, "foo", 0, nil)
	if partitionCode(resp, "foo", 0) != kerr.NoReassignmentInProgress.Code {
		t.Fatalf("second cancel: %+v", resp)
	}
}

// TestReassignThroughAPIAndZnodeCancel: a move started through the API (no
// znode) is carried out by the controller; another, stuck on a lagging
// broker (1, in the target but out of the ISR), is cancelled the way the
// ZooKeeper tool does it (a znode request back to the original replicas).
func TestReassignThroughAPIAndZnodeCancel(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3, 4)
	sc.reassignTopic(t)
	resp := alterReassignments(t, sc.ctl.c, "foo", 0, []int32{2, 3, 4})
	if resp.ErrorCode != 0 || partitionCode(resp, "foo", 0) != 0 {
		t.Fatalf("move: %+v", resp)
	}
	if reassignZnodeExists(t, sc.obs) {
		t.Fatal("the API path wrote the legacy znode")
	}
	sc.waitAssignment(t, sc.ctl.c, 0, []int32{2, 3, 4}, nil, nil)
	sc.waitGone(t, 1, 0)

	sc.sim.Broker(1).SetLagging(true)
	resp = alterReassignments(t, sc.ctl.c, "foo", 1, []int32{1, 3, 4})
	if partitionCode(resp, "foo", 1) != 0 {
		t.Fatalf("second move: %+v", resp)
	}
	sc.waitAssignment(t, sc.ctl.c, 1, []int32{1, 3, 4, 2}, []int32{4}, []int32{2})
	admin := zkadmin.NewAdmin(sc.obs, zkadmin.AdminOptions{})
	if _, err := admin.CancelReassignments(testCtx(t), []znodes.TopicPartition{{Topic: "foo", Partition: 1}}, false); err != nil {
		t.Fatal(err)
	}
	// Back to the original replicas, in the order the move left them.
	sc.waitAssignment(t, sc.ctl.c, 1, []int32{1, 3, 2}, nil, nil)
	waitFor(t, "request znode deleted", func() bool { return !reassignZnodeExists(t, sc.obs) })
	sc.waitGone(t, 4, 1)
	if st := readState(t, sc.obs, "foo", 1); st.Leader != 2 {
		t.Fatalf("leader after cancel %v", st)
	}
}

// TestAlterPartitionReassignmentsErrors: Kafka's per-partition answers,
// the partition limits, and NOT_CONTROLLER on a standby.
func TestAlterPartitionReassignmentsErrors(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3, 4)
	sc.reassignTopic(t)
	cases := []struct {
		name     string
		topic    string
		p        int32
		replicas []int32
		code     int16
	}{
		{"empty", "foo", 0, []int32{}, kerr.InvalidReplicaAssignment.Code},
		{"duplicate", "foo", 0, []int32{1, 1}, kerr.InvalidReplicaAssignment.Code},
		{"negative", "foo", 0, []int32{1, -2}, kerr.InvalidReplicaAssignment.Code},
		{"unregistered broker", "foo", 0, []int32{1, 2, 9}, kerr.InvalidReplicaAssignment.Code},
		{"the controller's id", "foo", 0, []int32{1, 2, 100}, kerr.InvalidReplicaAssignment.Code},
		{"unknown partition", "foo", 7, []int32{1, 2}, kerr.UnknownTopicOrPartition.Code},
		{"unknown topic", "bar", 0, []int32{1, 2}, kerr.UnknownTopicOrPartition.Code},
		{"cancel, nothing moving", "foo", 1, nil, kerr.NoReassignmentInProgress.Code},
	}
	for _, tc := range cases {
		resp := alterReassignments(t, sc.ctl.c, tc.topic, tc.p, tc.replicas)
		if got := partitionCode(resp, tc.topic, tc.p); got != tc.code || resp.ErrorCode != 0 {
			t.Errorf("%s: code %d (top %d), want %d", tc.name, got, resp.ErrorCode, tc.code)
		}
	}

	// max.broker.partitions=2: broker 4 holds nothing and may take two
	// replicas; a request adding three is refused as a whole.
	enc, err := znodes.EntityConfig{Config: map[string]string{"max.broker.partitions": "2"}}.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sc.obs.CreateRecursive(testCtx(t), znodes.ConfigEntityPath(znodes.EntityBrokers, znodes.DefaultEntityName),
		enc, zkadmin.Persistent); err != nil && !errors.Is(err, zkadmin.ErrNodeExists) {
		t.Fatal(err)
	}
	createTopic(t, sc.obs, "bar", map[int32][]int32{0: {1}})
	sc.waitLeader(t, "bar", 0, 1)
	req := kmsg.NewPtrAlterPartitionAssignmentsRequest()
	for _, m := range []struct {
		topic string
		p     int32
		to    []int32
	}{{"foo", 0, []int32{1, 2, 4}}, {"foo", 1, []int32{2, 3, 4}}, {"bar", 0, []int32{4}}} {
		rt := kmsg.NewAlterPartitionAssignmentsRequestTopic()
		rt.Topic = m.topic
		rp := kmsg.NewAlterPartitionAssignmentsRequestTopicPartition()
		rp.Partition, rp.Replicas = m.p, m.to
		rt.Partitions = append(rt.Partitions, rp)
		req.Topics = append(req.Topics, rt)
	}
	resp, err := sc.ctl.c.AlterPartitionReassignments(testCtx(t), req)
	if err != nil {
		t.Fatal(err)
	}
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			if rp.ErrorCode != kerr.PolicyViolation.Code || rp.ErrorMessage == nil ||
				!strings.HasPrefix(*rp.ErrorMessage, placement.LimitErrorPrefix) {
				t.Fatalf("%s-%d over the limit: %d %v", rt.Topic, rp.Partition, rp.ErrorCode, rp.ErrorMessage)
			}
		}
	}
	// Two fit.
	req.Topics = req.Topics[:2]
	resp, err = sc.ctl.c.AlterPartitionReassignments(testCtx(t), req)
	if err != nil || partitionCode(resp, "foo", 0) != 0 || partitionCode(resp, "foo", 1) != 0 {
		t.Fatalf("within the limit: %+v %v", resp, err)
	}
	sc.waitAssignment(t, sc.ctl.c, 1, []int32{2, 3, 4}, nil, nil)

	standby := startNode(t, sc.chroot, nodeOpts{id: 101})
	waitFor(t, "standby follows", func() bool { return standby.c.Status().ActiveControllerID == 100 })
	if resp := alterReassignments(t, standby.c, "foo", 0, []int32{1, 2, 3}); resp.ErrorCode != kerr.NotController.Code {
		t.Fatalf("standby answered %+v", resp)
	}
}

// TestReassignOldIBPIsrWatch: below IBP 2.7-IV2 leaders write ISR changes
// to the state znode themselves, so the controller watches the state znode
// of a reassigning partition. Broker 4 lags (its leader never adds it);
// the test writes the expanded ISR the way such a leader does, and the
// reassignment completes from the watch.
func TestReassignOldIBPIsrWatch(t *testing.T) {
	ibp, err := config.ParseIBP("2.6-IV0")
	if err != nil {
		t.Fatal(err)
	}
	sc := startSimCluster(t, nodeOpts{configure: func(c *config.Config) { c.InterBrokerProtocolVersion = ibp }}, 1, 2, 3, 4)
	sc.reassignTopic(t)
	sc.sim.Broker(4).SetLagging(true)
	writeReassignZnode(t, sc.obs, znodes.ReassignmentEntry{Topic: "foo", Partition: 0, Replicas: []int32{2, 3, 4}})
	sc.waitAssignment(t, sc.ctl.c, 0, []int32{2, 3, 4, 1}, []int32{4}, []int32{1})
	var st election.LeaderAndIsr
	waitFor(t, "A1's epoch bump", func() bool {
		st = readState(t, sc.obs, "foo", 0)
		return st.LeaderEpoch == 1
	})
	data, err := znodes.PartitionState{Leader: st.Leader, LeaderEpoch: st.LeaderEpoch, ControllerEpoch: st.ControllerEpoch,
		ISR: []int32{1, 2, 3, 4}}.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sc.obs.Set(testCtx(t), znodes.PartitionStatePath("foo", 0), data, st.PartitionEpoch); err != nil {
		t.Fatal(err)
	}
	sc.waitAssignment(t, sc.ctl.c, 0, []int32{2, 3, 4}, nil, nil)
	waitFor(t, "request znode deleted", func() bool { return !reassignZnodeExists(t, sc.obs) })
	waitFor(t, "foo-0 led by 2", func() bool { return readState(t, sc.obs, "foo", 0).Leader == 2 })
}

// TestReassignSupersede: a new target for a partition already moving is
// measured from its original replicas; the replica the old move was adding
// (4, lagging) is stopped and deleted at once, and the new move completes.
func TestReassignSupersede(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3, 4, 5)
	sc.reassignTopic(t)
	sc.sim.Broker(4).SetLagging(true)
	if resp := alterReassignments(t, sc.ctl.c, "foo", 0, []int32{2, 3, 4}); partitionCode(resp, "foo", 0) != 0 {
		t.Fatalf("first move: %+v", resp)
	}
	sc.waitAssignment(t, sc.ctl.c, 0, []int32{2, 3, 4, 1}, []int32{4}, []int32{1})
	if resp := alterReassignments(t, sc.ctl.c, "foo", 0, []int32{2, 3, 5}); partitionCode(resp, "foo", 0) != 0 {
		t.Fatalf("second move: %+v", resp)
	}
	sc.waitAssignment(t, sc.ctl.c, 0, []int32{2, 3, 5}, nil, nil)
	sc.waitGone(t, 4, 0)
	sc.waitGone(t, 1, 0)
	sc.waitBrokerRole(t, 5, "foo", 0, 2)
}
