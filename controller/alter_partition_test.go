package controller

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// rqAP is one partition entry of an AlterPartition request.
type rqAP struct {
	topic          string   // the name (v0–1)
	id             [16]byte // the topic id (v2+)
	part           int32
	leaderEpoch    int32
	partitionEpoch int32
	isr            []int32
	recovering     bool
}

// rqAlter sends an AlterPartition request from broker with its epoch.
// Consecutive entries of the same topic share one topic entry, in order.
func rqAlter(t *testing.T, c *Controller, version int16, broker int32, epoch int64, entries ...rqAP) *kmsg.AlterPartitionResponse {
	t.Helper()
	req := kmsg.NewPtrAlterPartitionRequest()
	req.Version, req.BrokerID, req.BrokerEpoch = version, broker, epoch
	for i, e := range entries {
		if i == 0 || e.topic != entries[i-1].topic || e.id != entries[i-1].id {
			req.Topics = append(req.Topics, kmsg.AlterPartitionRequestTopic{Topic: e.topic, TopicID: e.id})
		}
		p := kmsg.NewAlterPartitionRequestTopicPartition()
		p.Partition, p.LeaderEpoch, p.PartitionEpoch = e.part, e.leaderEpoch, e.partitionEpoch
		if version >= 3 {
			for _, b := range e.isr {
				be := kmsg.NewAlterPartitionRequestTopicPartitionNewEpochISR()
				be.BrokerID, be.BrokerEpoch = b, -1
				p.NewEpochISR = append(p.NewEpochISR, be)
			}
		} else {
			p.NewISR = slices.Clone(e.isr)
		}
		if e.recovering {
			p.LeaderRecoveryState = int8(election.Recovering)
		}
		last := &req.Topics[len(req.Topics)-1]
		last.Partitions = append(last.Partitions, p)
	}
	resp, err := c.AlterPartition(testCtx(t), req)
	if err != nil {
		t.Fatalf("AlterPartition: %v", err)
	}
	if resp.Version != version {
		t.Fatalf("AlterPartition v%d answered with v%d", version, resp.Version)
	}
	return resp
}

// rqAlterCluster: brokers 1–4 and topic foo, replicas 1,2,3 everywhere,
// led by broker 1:
//
//	foo-0  leader epoch 5, ISR 1,2,3 (written before the controller starts)
//	foo-1  leader epoch 3, ISR 1, RECOVERING (after an unclean election)
//	foo-2  created by the controller: leader epoch 0, ISR 1,2,3
func rqAlterCluster(t *testing.T) (*rqCluster, [16]byte) {
	t.Helper()
	zc := rqStart(t, []int32{1, 2, 3, 4}, func(obs *zkadmin.Client) {
		rqTopic(t, obs, "foo", map[int32][]int32{0: {1, 2, 3}, 1: {1, 2, 3}, 2: {1, 2, 3}}, map[int32][]byte{
			0: rqState(t, znodes.PartitionState{Leader: 1, LeaderEpoch: 5, ISR: []int32{1, 2, 3}}),
			1: rqState(t, znodes.PartitionState{Leader: 1, LeaderEpoch: 3, ISR: []int32{1},
				LeaderRecoveryState: znodes.LeaderRecovering}),
		})
	})
	id := zc.topicID(t, "foo", 3)
	for p := range int32(3) {
		zc.waitView(t, "foo", p)
	}
	return zc, id
}

// rqAPCode is the entry's error code, or the top-level one.
func rqAPCode(r *kmsg.AlterPartitionResponse) int16 {
	if r.ErrorCode != 0 || len(r.Topics) == 0 || len(r.Topics[0].Partitions) == 0 {
		return r.ErrorCode
	}
	return r.Topics[0].Partitions[0].ErrorCode
}

// TestAlterPartitionStaleBrokerEpoch: Kafka checks the sender's epoch for
// exact equality with its registration, without ControlledShutdown's -1
// bypass, and answers a mismatch or an unknown sender with a top-level
// STALE_BROKER_EPOCH and no partitions. A fenced broker (one that lost its
// session and re-registered, or a zombie) must not move an ISR.
func TestAlterPartitionStaleBrokerEpoch(t *testing.T) {
	zc, id := rqAlterCluster(t)
	before := readState(t, zc.obs, "foo", 0)
	oldEpoch4 := zc.epoch(t, 4)
	zc.kill(t, 4)
	zc.revive(t, 4)
	shrink := rqAP{id: id, part: 0, leaderEpoch: 5, partitionEpoch: 0, isr: []int32{1, 2}}
	cases := []struct {
		name   string
		broker int32
		epoch  int64
	}{
		{"epoch -1 is not a wildcard", 1, -1},
		{"older epoch", 1, zc.epoch(t, 1) - 1},
		{"unregistered sender", 9, zc.epoch(t, 1)},
		{"epoch of a previous registration", 4, oldEpoch4},
	}
	for _, tc := range cases {
		for _, v := range []int16{0, 2} {
			e := shrink
			if v < 2 {
				e.topic, e.id = "foo", [16]byte{}
			}
			resp := rqAlter(t, zc.ctl.c, v, tc.broker, tc.epoch, e)
			if resp.ErrorCode != kerr.StaleBrokerEpoch.Code || len(resp.Topics) != 0 {
				t.Fatalf("%s (v%d): want top-level STALE_BROKER_EPOCH and no topics, got code %d with %+v",
					tc.name, v, resp.ErrorCode, resp.Topics)
			}
		}
	}
	rqSameState(t, "foo-0 after refused requests", readState(t, zc.obs, "foo", 0), before)
	// The re-registered broker's current epoch is accepted (the ISR may
	// name it: it is live).
	shrink.isr = []int32{1, 2, 3, 4}
	if c := rqAPCode(rqAlter(t, zc.ctl.c, 2, 1, zc.epoch(t, 1), shrink)); c != 0 {
		t.Fatalf("current epochs: want success, got code %d", c)
	}
}

// TestAlterPartitionPartitionErrors walks Kafka's per-partition checks, in
// its order (reference controller.md §6.5 step 4), one refused entry at a
// time: each answer is what the leader acts on (NOT_CONTROLLER: find the
// controller again; FENCED_LEADER_EPOCH, INVALID_*, UNKNOWN_*: wait for
// metadata; INELIGIBLE_REPLICA / OPERATION_NOT_ATTEMPTED: roll back), and
// no refused entry may touch the state znode.
func TestAlterPartitionPartitionErrors(t *testing.T) {
	zc, id := rqAlterCluster(t)
	epoch := zc.epoch(t, 1)
	ap := func(p, le, pe int32, isr ...int32) rqAP {
		return rqAP{id: id, topic: "foo", part: p, leaderEpoch: le, partitionEpoch: pe, isr: isr}
	}
	recovering := func(e rqAP) rqAP { e.recovering = true; return e }
	cases := []struct {
		name    string
		version int16
		entry   rqAP
		code    int16
	}{
		{"newer partition epoch: we may be a stale controller", 2, ap(0, 5, 1, 1, 2), kerr.NotController.Code},
		{"newer partition epoch wins over an older leader epoch", 2, ap(0, 4, 1, 1, 2), kerr.NotController.Code},
		{"older leader epoch", 2, ap(0, 4, 0, 1, 2), kerr.FencedLeaderEpoch.Code},
		{"older leader epoch wins over an unchanged ISR", 2, ap(0, 4, 0, 1, 2, 3), kerr.FencedLeaderEpoch.Code},
		{"partition that does not exist", 2, ap(7, 0, 0, 1), kerr.UnknownTopicOrPartition.Code},
		{"unknown topic name (v1)", 1, rqAP{topic: "nope", leaderEpoch: 0, isr: []int32{1}}, kerr.UnknownTopicOrPartition.Code},
		{"RECOVERING with two ISR members", 2, recovering(ap(1, 3, 0, 1, 2)), kerr.InvalidRequest.Code},
		{"RECOVERED back to RECOVERING", 2, recovering(ap(0, 5, 0, 1)), kerr.InvalidRequest.Code},
		{"unregistered broker in the ISR (v2)", 2, ap(0, 5, 0, 1, 2, 9), kerr.IneligibleReplica.Code},
		{"unregistered broker in the ISR (v3)", 3, ap(0, 5, 0, 1, 9), kerr.IneligibleReplica.Code},
		{"unregistered broker in the ISR (v1)", 1, ap(0, 5, 0, 1, 9), kerr.OperationNotAttempted.Code},
		{"unregistered broker in the ISR (v0)", 0, ap(0, 5, 0, 9, 1), kerr.OperationNotAttempted.Code},
	}
	before := map[int32]election.LeaderAndIsr{}
	for p := range int32(3) {
		before[p] = readState(t, zc.obs, "foo", p)
	}
	for _, tc := range cases {
		resp := rqAlter(t, zc.ctl.c, tc.version, 1, epoch, tc.entry)
		if resp.ErrorCode != 0 || len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
			t.Fatalf("%s: want one per-partition answer, got top-level %d with %+v", tc.name, resp.ErrorCode, resp.Topics)
		}
		rp := resp.Topics[0].Partitions[0]
		if rp.ErrorCode != tc.code {
			t.Fatalf("%s: want code %d (%s), got %d", tc.name, tc.code, kerr.ErrorForCode(tc.code), rp.ErrorCode)
		}
		if rp.Partition != tc.entry.part || rp.ISR != nil || rp.PartitionEpoch != 0 || rp.LeaderEpoch != 0 {
			t.Fatalf("%s: an error answer carries only the partition, got %+v", tc.name, rp)
		}
	}
	for p, st := range before {
		rqSameState(t, "after refused AlterPartitions", readState(t, zc.obs, "foo", p), st)
	}
}

// TestAlterPartitionMixedRequest: one request mixes a topic id the
// controller does not know, refused entries and accepted ones. Every
// entry is answered, in request order, keyed by the request's topic ids
// (v2+); the accepted entry is written with the leader epoch unchanged,
// our controller epoch, and its new zkVersion as the partition epoch,
// which the leader then uses for its next change.
func TestAlterPartitionMixedRequest(t *testing.T) {
	zc, id := rqAlterCluster(t)
	epoch := zc.epoch(t, 1)
	unknown := [16]byte{0xde, 0xad}
	before0 := readState(t, zc.obs, "foo", 0)
	resp := rqAlter(t, zc.ctl.c, 2, 1, epoch,
		rqAP{id: unknown, part: 0, isr: []int32{1}},
		rqAP{id: unknown, part: 1, isr: []int32{1}},
		rqAP{id: id, topic: "ignored at v2", part: 2, leaderEpoch: 0, partitionEpoch: 0, isr: []int32{1, 3}},
		rqAP{id: id, topic: "ignored at v2", part: 0, leaderEpoch: 4, partitionEpoch: 0, isr: []int32{1}},
	)
	if resp.ErrorCode != 0 || len(resp.Topics) != 2 {
		t.Fatalf("want two topic answers and no top-level error, got %d with %+v", resp.ErrorCode, resp.Topics)
	}
	if rt := resp.Topics[0]; rt.TopidID != unknown || len(rt.Partitions) != 2 ||
		rt.Partitions[0].ErrorCode != kerr.UnknownTopicID.Code || rt.Partitions[1].ErrorCode != kerr.UnknownTopicID.Code ||
		rt.Partitions[0].Partition != 0 || rt.Partitions[1].Partition != 1 {
		t.Fatalf("unknown topic id: want UNKNOWN_TOPIC_ID for partitions 0 and 1 under the request's id, got %+v", rt)
	}
	rt := resp.Topics[1]
	if rt.TopidID != id || len(rt.Partitions) != 2 {
		t.Fatalf("foo: want two answers under its id, got %+v", rt)
	}
	if rp := rt.Partitions[1]; rp.Partition != 0 || rp.ErrorCode != kerr.FencedLeaderEpoch.Code {
		t.Fatalf("foo-0: want FENCED_LEADER_EPOCH, got %+v", rp)
	}
	rp := rt.Partitions[0]
	if rp.Partition != 2 || rp.ErrorCode != 0 || rp.LeaderID != 1 || rp.LeaderEpoch != 0 || rp.PartitionEpoch != 1 ||
		!slices.Equal(rp.ISR, []int32{1, 3}) || rp.LeaderRecoveryState != 0 {
		t.Fatalf("foo-2: want leader 1, leader epoch 0, partition epoch 1, ISR [1 3], got %+v", rp)
	}
	st := zc.waitView(t, "foo", 2)
	if st.Leader != 1 || st.LeaderEpoch != 0 || st.PartitionEpoch != 1 || !slices.Equal(st.ISR, []int32{1, 3}) ||
		st.ControllerEpoch != zc.ctl.c.Snapshot().Epoch {
		t.Fatalf("foo-2 znode: want the accepted ISR written under our epoch, got %v", st)
	}
	rqSameState(t, "foo-0 (fenced entry)", readState(t, zc.obs, "foo", 0), before0)

	// The answer's partition epoch is the one to use next: growing the ISR
	// back (order as the leader sends it) succeeds and bumps it again.
	rp2 := rqAlter(t, zc.ctl.c, 2, 1, epoch, rqAP{id: id, part: 2, partitionEpoch: rp.PartitionEpoch, isr: []int32{1, 3, 2}})
	if c := rqAPCode(rp2); c != 0 || rp2.Topics[0].Partitions[0].PartitionEpoch != 2 {
		t.Fatalf("expansion with the returned partition epoch: want success at partition epoch 2, got %+v", rp2)
	}
	if st := zc.waitView(t, "foo", 2); !slices.Equal(st.ISR, []int32{1, 3, 2}) || st.PartitionEpoch != 2 || st.LeaderEpoch != 0 {
		t.Fatalf("foo-2 after expansion: want ISR [1 3 2], partition epoch 2, leader epoch 0, got %v", st)
	}
}

// TestAlterPartitionCompletesRecovery: after an unclean election the
// leader is RECOVERING with itself alone in the ISR; once its log is
// recovered it reports RECOVERED while adding followers (KIP-704). The
// controller accepts that, writes the znode without the recovery flag
// (Kafka omits it for RECOVERED), and keeps the leader epoch.
func TestAlterPartitionCompletesRecovery(t *testing.T) {
	zc, id := rqAlterCluster(t)
	epoch := zc.epoch(t, 1)
	// Still RECOVERING, same ISR: a retry of the current state.
	same := rqAlter(t, zc.ctl.c, 2, 1, epoch, rqAP{id: id, part: 1, leaderEpoch: 3, isr: []int32{1}, recovering: true})
	if rp := same.Topics[0].Partitions[0]; rp.ErrorCode != 0 || rp.LeaderRecoveryState != int8(election.Recovering) ||
		rp.PartitionEpoch != 0 {
		t.Fatalf("unchanged RECOVERING state: want success with the cached state, got %+v", rp)
	}
	if v := zc.version(t, "foo", 1); v != 0 {
		t.Fatalf("an idempotent AlterPartition wrote the znode: version %d", v)
	}
	resp := rqAlter(t, zc.ctl.c, 2, 1, epoch, rqAP{id: id, part: 1, leaderEpoch: 3, isr: []int32{1, 2}})
	if rp := resp.Topics[0].Partitions[0]; rp.ErrorCode != 0 || rp.LeaderRecoveryState != int8(election.Recovered) ||
		rp.LeaderEpoch != 3 || rp.PartitionEpoch != 1 || !slices.Equal(rp.ISR, []int32{1, 2}) {
		t.Fatalf("RECOVERED with a follower: want success at leader epoch 3, partition epoch 1, got %+v", rp)
	}
	data, _, err := zc.obs.Get(testCtx(t), znodes.PartitionStatePath("foo", 1))
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	if _, ok := raw["leader_recovery_state"]; ok {
		t.Fatalf("a RECOVERED state znode still carries leader_recovery_state: %s", data)
	}
	if st := zc.waitView(t, "foo", 1); st.LeaderRecoveryState != election.Recovered || !slices.Equal(st.ISR, []int32{1, 2}) {
		t.Fatalf("foo-1 after recovery: %v", st)
	}
}

// TestAlterPartitionZnodeChangedBehindController: Kafka's controller does
// not watch state znodes, so a write by someone else (an old-IBP broker
// writing its ISR directly) leaves its cache behind. The conditional
// write then fails with BADVERSION, which the leader gets as
// INVALID_UPDATE_VERSION, and the other write is kept.
func TestAlterPartitionZnodeChangedBehindController(t *testing.T) {
	zc, id := rqAlterCluster(t)
	other := rqState(t, znodes.PartitionState{Leader: 1, LeaderEpoch: 0, ControllerEpoch: 1, ISR: []int32{1, 2}})
	if _, err := zc.obs.Set(testCtx(t), znodes.PartitionStatePath("foo", 2), other, 0); err != nil {
		t.Fatal(err)
	}
	resp := rqAlter(t, zc.ctl.c, 2, 1, zc.epoch(t, 1), rqAP{id: id, part: 2, isr: []int32{1, 3}})
	if c := rqAPCode(resp); c != kerr.InvalidUpdateVersion.Code {
		t.Fatalf("write on a moved znode: want INVALID_UPDATE_VERSION, got %d", c)
	}
	st := readState(t, zc.obs, "foo", 2)
	if !slices.Equal(st.ISR, []int32{1, 2}) || st.PartitionEpoch != 1 {
		t.Fatalf("the other writer's state was overwritten: %v", st)
	}
}

// TestAlterPartitionKeepsUnknownFields: the design brief's znode rule
// (unknown fields are preserved on rewrite) holds for ISR changes: a field
// another tool added to the state znode survives the controller's write.
// Kafka does not check that the ISR is a subset of the replicas either, so a live
// broker outside the assignment is accepted (step 4.9 of §6.5).
func TestAlterPartitionKeepsUnknownFields(t *testing.T) {
	zc := rqStart(t, []int32{1, 2, 3, 4}, func(obs *zkadmin.Client) {
		createTopic(t, obs, "ext", map[int32][]int32{0: {1, 2, 3}})
		writeState(t, obs, "ext", 0, []byte(`{"controller_epoch":0,"leader":1,"version":1,"leader_epoch":2,`+
			`"isr":[1,2,3],"x_vendor":{"note":"kept"}}`))
	})
	id := zc.topicID(t, "ext", 1)
	zc.waitView(t, "ext", 0)
	resp := rqAlter(t, zc.ctl.c, 2, 1, zc.epoch(t, 1), rqAP{id: id, leaderEpoch: 2, isr: []int32{1, 2, 4}})
	if c := rqAPCode(resp); c != 0 {
		t.Fatalf("ISR with a live non-replica: want success as in Kafka, got %d", c)
	}
	data, stat, err := zc.obs.Get(testCtx(t), znodes.PartitionStatePath("ext", 0))
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	if string(raw["x_vendor"]) != `{"note":"kept"}` || string(raw["isr"]) != "[1,2,4]" || string(raw["leader_epoch"]) != "2" ||
		stat.Version != 1 {
		t.Fatalf("want the new ISR with x_vendor kept at version 1, got version %d: %s", stat.Version, data)
	}
}
