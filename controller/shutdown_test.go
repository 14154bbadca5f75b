package controller

import (
	"fmt"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// rqShutdownCluster: brokers 1–4, and
//
//	foo-0     replicas 1,2,3  led by 1, ISR 1,2,3 (created)
//	foo-1     replicas 2,1,3  led by 2, ISR 2,1,3 (created)
//	foo-2     replicas 1,2    led by 1, ISR 1 (its follower fell behind)
//	foo-3     replicas 3,2    led by 3 (created); not on broker 1
//	single-0  replicas 1      led by 1 (created)
//	doomed-0  replicas 1,2    led by 1, queued for deletion
func rqShutdownCluster(t *testing.T) *rqCluster {
	t.Helper()
	zc := rqStart(t, []int32{1, 2, 3, 4}, func(obs *zkadmin.Client) {
		rqTopic(t, obs, "foo", map[int32][]int32{0: {1, 2, 3}, 1: {2, 1, 3}, 2: {1, 2}, 3: {3, 2}},
			map[int32][]byte{2: rqState(t, znodes.PartitionState{Leader: 1, LeaderEpoch: 3, ISR: []int32{1}})})
		rqTopic(t, obs, "single", map[int32][]int32{0: {1}}, nil)
		rqTopic(t, obs, "doomed", map[int32][]int32{0: {1, 2}},
			map[int32][]byte{0: rqState(t, znodes.PartitionState{Leader: 1, ISR: []int32{1, 2}})})
		markForDeletion(t, obs, "doomed")
	})
	zc.topicID(t, "foo", 4)
	zc.topicID(t, "single", 1)
	for _, k := range rqShutdownParts {
		zc.waitView(t, k.topic, k.p)
	}
	waitFor(t, "doomed queued for deletion", func() bool {
		tv := zc.ctl.c.Snapshot().Topics.Get("doomed")
		return tv != nil && tv.Deleting
	})
	return zc
}

var rqShutdownParts = []struct {
	topic string
	p     int32
}{{"foo", 0}, {"foo", 1}, {"foo", 2}, {"foo", 3}, {"single", 0}, {"doomed", 0}}

func rqShutdownStates(t *testing.T, zc *rqCluster) map[string]election.LeaderAndIsr {
	t.Helper()
	out := map[string]election.LeaderAndIsr{}
	for _, k := range rqShutdownParts {
		out[fmt.Sprintf("%s-%d", k.topic, k.p)] = readState(t, zc.obs, k.topic, k.p)
	}
	return out
}

// rqShutdown sends a ControlledShutdown request and returns the answer
// with its remaining partitions as "topic-partition", sorted.
func rqShutdown(t *testing.T, c *Controller, version int16, broker int32, epoch int64) (*kmsg.ControlledShutdownResponse, []string) {
	t.Helper()
	req := kmsg.NewPtrControlledShutdownRequest()
	req.Version, req.BrokerID, req.BrokerEpoch = version, broker, epoch
	resp, err := c.ControlledShutdown(testCtx(t), req)
	if err != nil {
		t.Fatalf("ControlledShutdown: %v", err)
	}
	if resp.Version != version {
		t.Fatalf("ControlledShutdown v%d answered with v%d", version, resp.Version)
	}
	var left []string
	for _, rp := range resp.PartitionsRemaining {
		left = append(left, fmt.Sprintf("%s-%d", rp.Topic, rp.Partition))
	}
	slices.Sort(left)
	return resp, left
}

// shuttingDown reads the controller's snapshot, which it publishes after
// the event that answered the request: wait on it, do not just read it.
func (zc *rqCluster) shuttingDown(id int32) bool {
	return slices.ContainsFunc(zc.ctl.c.Snapshot().Brokers, func(b BrokerView) bool { return b.ID == id && b.ShuttingDown })
}

// TestControlledShutdownMovesLeadership pins Kafka's doControlledShutdown
// (reference controller.md §2.10): leadership moves to the next ISR
// member with an epoch bump, the broker leaves every ISR it follows in
// (epoch bump too, so the other replicas accept the LeaderAndIsr), and
// replication-factor-1 partitions and topics being deleted are left
// alone. The answer lists what the broker still leads (here a partition
// with no other ISR member); its retries change nothing more.
func TestControlledShutdownMovesLeadership(t *testing.T) {
	zc := rqShutdownCluster(t)
	before := rqShutdownStates(t, zc)
	resp, left := rqShutdown(t, zc.ctl.c, 3, 1, zc.epoch(t, 1))
	if resp.ErrorCode != 0 || !slices.Equal(left, []string{"foo-2"}) {
		t.Fatalf("want success with foo-2 remaining, got code %d with %v", resp.ErrorCode, left)
	}
	waitFor(t, "broker 1 shown shutting down", func() bool { return zc.shuttingDown(1) })
	ours := zc.ctl.c.Snapshot().Epoch
	for _, p := range []int32{0, 1} { // led, then followed: both end led by 2 with ISR [2 3]
		st, was := zc.waitView(t, "foo", p), before[fmt.Sprintf("foo-%d", p)]
		if st.Leader != 2 || !slices.Equal(st.ISR, []int32{2, 3}) || st.LeaderEpoch != was.LeaderEpoch+1 ||
			st.ControllerEpoch != ours {
			t.Fatalf("foo-%d: want leader 2, ISR [2 3], leader epoch %d, got %v", p, was.LeaderEpoch+1, st)
		}
	}
	after := rqShutdownStates(t, zc)
	for _, k := range []string{"foo-2", "foo-3", "single-0", "doomed-0"} {
		rqSameState(t, k+" after the shutdown request", after[k], before[k])
	}
	// The broker retries while something remains: same answer, no writes.
	resp, left = rqShutdown(t, zc.ctl.c, 3, 1, zc.epoch(t, 1))
	if resp.ErrorCode != 0 || !slices.Equal(left, []string{"foo-2"}) {
		t.Fatalf("retry: want success with foo-2 remaining, got code %d with %v", resp.ErrorCode, left)
	}
	for k, st := range rqShutdownStates(t, zc) {
		rqSameState(t, k+" after the retry", st, after[k])
	}
}

// TestControlledShutdownBrokerIneligible: once a broker asked to shut
// down its replicas count as offline everywhere: a leader cannot add it
// back to the ISR (INELIGIBLE_REPLICA) and it cannot be elected preferred
// leader. It leaves the shutting-down set when its registration goes;
// registered again, it is eligible for both.
func TestControlledShutdownBrokerIneligible(t *testing.T) {
	zc := rqShutdownCluster(t)
	id := zc.topicID(t, "foo", 4)
	if resp, _ := rqShutdown(t, zc.ctl.c, 3, 1, zc.epoch(t, 1)); resp.ErrorCode != 0 {
		t.Fatalf("shutdown of broker 1: %d", resp.ErrorCode)
	}
	st := zc.waitView(t, "foo", 0)
	if st.Leader != 2 || !slices.Equal(st.ISR, []int32{2, 3}) {
		t.Fatalf("foo-0 after the shutdown: want leader 2, ISR [2 3], got %v", st)
	}
	expand := func() int16 {
		st := zc.waitView(t, "foo", 0)
		return rqAPCode(rqAlter(t, zc.ctl.c, 2, 2, zc.epoch(t, 2), rqAP{id: id, part: 0,
			leaderEpoch: st.LeaderEpoch, partitionEpoch: st.PartitionEpoch, isr: []int32{2, 3, 1}}))
	}
	if c := expand(); c != kerr.IneligibleReplica.Code {
		t.Fatalf("ISR expansion to a shutting-down broker: want INELIGIBLE_REPLICA, got %d", c)
	}
	_, got := rqElect(t, zc.ctl.c, 2, 0, map[string][]int32{"foo": {0}})
	rqWantResult(t, got, "foo-0", kerr.PreferredLeaderNotAvailable.Code, "-")
	if now := readState(t, zc.obs, "foo", 0); now.PartitionEpoch != st.PartitionEpoch {
		t.Fatalf("refused requests wrote foo-0: %v -> %v", st, now)
	}

	zc.kill(t, 1)
	zc.revive(t, 1)
	if c := expand(); c != 0 {
		t.Fatalf("ISR expansion to the restarted broker: want success, got %d", c)
	}
	_, got = rqElect(t, zc.ctl.c, 2, 0, map[string][]int32{"foo": {0}})
	rqWantResult(t, got, "foo-0", 0, "")
	if st := zc.waitView(t, "foo", 0); st.Leader != 1 || !slices.Equal(st.ISR, []int32{2, 3, 1}) {
		t.Fatalf("foo-0: want leader 1 with ISR [2 3 1], got %v", st)
	}
}

// TestControlledShutdownRequestChecks: the checks before any work, in
// Kafka's order. Only v2+ carry a broker epoch, so v0–1 skip its check; a
// newer epoch than the registration's passes (Kafka refuses only older
// ones); an unknown broker with a real epoch fails Kafka's epoch lookup
// (UNKNOWN_SERVER_ERROR) while without one it is BROKER_NOT_AVAILABLE. A
// refused request marks nobody shutting down and writes nothing.
func TestControlledShutdownRequestChecks(t *testing.T) {
	zc := rqShutdownCluster(t)
	before := rqShutdownStates(t, zc)
	refused := []struct {
		name    string
		version int16
		broker  int32
		epoch   int64
		code    int16
	}{
		{"unknown broker with an epoch (v2)", 2, 9, zc.epoch(t, 1), kerr.UnknownServerError.Code},
		{"unknown broker (v1)", 1, 9, 5, kerr.BrokerNotAvailable.Code},
		{"unknown broker (v0)", 0, 9, 0, kerr.BrokerNotAvailable.Code},
		{"older epoch (v2)", 2, 1, zc.epoch(t, 1) - 1, kerr.StaleBrokerEpoch.Code},
	}
	for _, tc := range refused {
		resp, left := rqShutdown(t, zc.ctl.c, tc.version, tc.broker, tc.epoch)
		if resp.ErrorCode != tc.code || len(left) != 0 {
			t.Fatalf("%s: want code %d and no partitions, got %d with %v", tc.name, tc.code, resp.ErrorCode, left)
		}
	}
	for _, b := range zc.ctl.c.Snapshot().Brokers {
		if b.ShuttingDown {
			t.Fatalf("broker %d marked shutting down by a refused request", b.ID)
		}
	}
	for k, st := range rqShutdownStates(t, zc) {
		rqSameState(t, k+" after refused requests", st, before[k])
	}

	accepted := []struct {
		name    string
		version int16
		broker  int32
		epoch   int64
	}{
		{"v1 carries no epoch: a stale one is ignored", 1, 3, 1},
		{"a newer epoch than registered (v3)", 3, 4, zc.epoch(t, 4) + 1000},
	}
	for _, tc := range accepted {
		resp, left := rqShutdown(t, zc.ctl.c, tc.version, tc.broker, tc.epoch)
		if resp.ErrorCode != 0 || len(left) != 0 {
			t.Fatalf("%s: want success with nothing remaining, got %d with %v", tc.name, resp.ErrorCode, left)
		}
		waitFor(t, fmt.Sprintf("broker %d shown shutting down", tc.broker), func() bool { return zc.shuttingDown(tc.broker) })
	}
	// Broker 3 led foo-3 (replicas 3,2): it moved to 2.
	if st := zc.waitView(t, "foo", 3); st.Leader != 2 || !slices.Equal(st.ISR, []int32{2}) {
		t.Fatalf("foo-3 after broker 3's shutdown: want leader 2, ISR [2], got %v", st)
	}
}

// TestControlledShutdownTwoBrokers: with a second broker shutting down,
// the ControlledShutdown strategy skips every shutting-down broker as
// leader and strips them all from the ISR; a partition whose replicas are
// all shutting down stays with its leader and is reported remaining.
func TestControlledShutdownTwoBrokers(t *testing.T) {
	zc := rqShutdownCluster(t)
	if resp, left := rqShutdown(t, zc.ctl.c, 3, 2, zc.epoch(t, 2)); resp.ErrorCode != 0 || len(left) != 0 {
		t.Fatalf("shutdown of broker 2: want success with nothing remaining, got %d with %v", resp.ErrorCode, left)
	}
	for _, tc := range []struct {
		p      int32
		leader int32
		isr    []int32
	}{{0, 1, []int32{1, 3}}, {1, 1, []int32{1, 3}}, {2, 1, []int32{1}}, {3, 3, []int32{3}}} {
		if st := zc.waitView(t, "foo", tc.p); st.Leader != tc.leader || !slices.Equal(st.ISR, tc.isr) {
			t.Fatalf("foo-%d after broker 2's shutdown: want leader %d, ISR %v, got %v", tc.p, tc.leader, tc.isr, st)
		}
	}
	resp, left := rqShutdown(t, zc.ctl.c, 3, 1, zc.epoch(t, 1))
	if resp.ErrorCode != 0 || !slices.Equal(left, []string{"foo-2"}) {
		t.Fatalf("shutdown of broker 1: want foo-2 remaining, got %d with %v", resp.ErrorCode, left)
	}
	for _, tc := range []struct {
		p      int32
		leader int32
		isr    []int32
	}{{0, 3, []int32{3}}, {1, 3, []int32{3}}, {2, 1, []int32{1}}} {
		if st := zc.waitView(t, "foo", tc.p); st.Leader != tc.leader || !slices.Equal(st.ISR, tc.isr) {
			t.Fatalf("foo-%d after broker 1's shutdown: want leader %d, ISR %v, got %v", tc.p, tc.leader, tc.isr, st)
		}
	}
}
