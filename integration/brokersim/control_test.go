package brokersim

import (
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/znodes"
)

var (
	codeStaleBroker     = kerr.StaleBrokerEpoch.Code
	codeStaleController = kerr.StaleControllerEpoch.Code
)

func fooID() znodes.UUID { return znodes.UUID{1, 2, 3} }

// lead1 is partition foo-p led by broker 1 with replicas 1, 2, 3.
func lead1(p, epoch int32) part {
	return part{topic: "foo", partition: p, topicID: fooID(), leader: 1, leaderEpoch: epoch,
		isr: []int32{1, 2, 3}, replicas: []int32{1, 2, 3}, zkVersion: epoch}
}

func wantCodes(t *testing.T, what string, resp kmsg.Response, wantTop int16, want ...int16) {
	t.Helper()
	top, codes := lairCodes(resp)
	if top != wantTop || !slices.Equal(codes, want) {
		t.Fatalf("%s: top %d, partitions %v; want %d, %v", what, top, codes, wantTop, want)
	}
}

func TestBrokerEpochCheck(t *testing.T) {
	c := startCluster(t, Options{Brokers: specs(1)})
	b := c.Broker(1)
	cc := dialBroker(t, b)
	epoch := b.Epoch()

	wantCodes(t, "older epoch", cc.send(lairReq(epoch-1, 1, lead1(0, 1), lead1(1, 1))),
		codeStaleBroker, codeStaleBroker, codeStaleBroker)
	if n := len(b.Partitions()); n != 0 {
		t.Fatalf("stale request applied: %d partitions", n)
	}
	wantCodes(t, "unknown epoch -1", cc.send(lairReq(-1, 1, lead1(0, 1))), 0, 0)
	wantCodes(t, "newer epoch", cc.send(lairReq(epoch+1, 1, lead1(1, 1))), 0, 0)
	wantCodes(t, "own epoch", cc.send(lairReq(epoch, 1, lead1(2, 1))), 0, 0)

	um := cc.send(umReq(epoch-1, 1, 1000, brokerEntries(b), lead1(0, 1))).(*kmsg.UpdateMetadataResponse)
	if um.ErrorCode != codeStaleBroker {
		t.Fatalf("UpdateMetadata with an old epoch: %d", um.ErrorCode)
	}
	if _, ok := b.CachedPartition(TopicPartition{"foo", 0}); ok {
		t.Fatal("stale UpdateMetadata applied")
	}
	sr := cc.send(stopReq(epoch-1, 1, true, -2, TopicPartition{"foo", 0})).(*kmsg.StopReplicaResponse)
	if sr.ErrorCode != codeStaleBroker || len(sr.Partitions) != 1 || sr.Partitions[0].ErrorCode != codeStaleBroker {
		t.Fatalf("StopReplica with an old epoch: %+v", sr)
	}
	if _, ok := b.Partitions()[TopicPartition{"foo", 0}]; !ok {
		t.Fatal("stale StopReplica applied")
	}
}

func TestLeaderEpochRule(t *testing.T) {
	c := startCluster(t, Options{Brokers: specs(1)})
	b := c.Broker(1)
	cc := dialBroker(t, b)
	e := b.Epoch()

	wantCodes(t, "first", cc.send(lairReq(e, 1, lead1(0, 5))), 0, 0)
	wantCodes(t, "same epoch", cc.send(lairReq(e, 1, lead1(0, 5))), 0, codeStaleController)
	wantCodes(t, "older epoch", cc.send(lairReq(e, 1, lead1(0, 4))), 0, codeStaleController)
	follower := lead1(0, 6)
	follower.leader = 2
	wantCodes(t, "newer epoch", cc.send(lairReq(e, 1, follower)), 0, 0)
	st := b.Partitions()[TopicPartition{"foo", 0}]
	if st.Role != Follower || st.Leader != 2 || st.LeaderEpoch != 6 || st.PartitionEpoch != 6 || st.TopicID != fooID() {
		t.Fatalf("state after epoch 6: %+v", st)
	}

	notMine := lead1(1, 1)
	notMine.replicas, notMine.isr, notMine.leader = []int32{2, 3}, []int32{2, 3}, 2
	wantCodes(t, "not a replica", cc.send(lairReq(e, 1, notMine)), 0, kerr.UnknownTopicOrPartition.Code)

	otherID := lead1(0, 7)
	otherID.topicID = znodes.UUID{9}
	wantCodes(t, "other topic id", cc.send(lairReq(e, 1, otherID)), 0, kerr.InconsistentTopicID.Code)

	// Mixed: each partition is judged on its own; the top level stays NONE.
	wantCodes(t, "mixed", cc.send(lairReq(e, 1, lead1(0, 3), lead1(2, 1))), 0, codeStaleController, 0)
}

// TestEqualEpochAssignsTopicID: an equal leader epoch is accepted only to
// give a log without a topic id the request's id.
func TestEqualEpochAssignsTopicID(t *testing.T) {
	c := startCluster(t, Options{Brokers: specs(1)})
	b := c.Broker(1)
	cc := dialBroker(t, b)
	noID := lead1(0, 2)
	noID.topicID = znodes.UUID{}
	wantCodes(t, "without id", cc.send(lairReq(b.Epoch(), 1, noID)), 0, 0)
	wantCodes(t, "same epoch with id", cc.send(lairReq(b.Epoch(), 1, lead1(0, 2))), 0, 0)
	snap := b.Snapshot()
	tp := TopicPartition{"foo", 0}
	if snap.Log[tp] != fooID() || snap.Partitions[tp].TopicID != fooID() {
		t.Fatalf("topic id not assigned: log %v, state %+v", snap.Log[tp], snap.Partitions[tp])
	}
}

func TestStaleControllerEpoch(t *testing.T) {
	c := startCluster(t, Options{Brokers: specs(1)})
	b := c.Broker(1)
	cc := dialBroker(t, b)
	e := b.Epoch()
	wantCodes(t, "epoch 3", cc.send(lairReq(e, 3, lead1(0, 1))), 0, 0)
	if got := b.Snapshot().ControllerEpoch; got != 3 {
		t.Fatalf("controller epoch %d, want 3", got)
	}
	wantCodes(t, "epoch 2", cc.send(lairReq(e, 2, lead1(0, 9), lead1(1, 9))),
		codeStaleController, codeStaleController, codeStaleController)
	if st := b.Partitions()[TopicPartition{"foo", 0}]; st.LeaderEpoch != 1 {
		t.Fatalf("stale controller applied: %+v", st)
	}
	um := cc.send(umReq(e, 2, 1000, brokerEntries(b), lead1(0, 9))).(*kmsg.UpdateMetadataResponse)
	if um.ErrorCode != codeStaleController {
		t.Fatalf("UpdateMetadata from epoch 2: %d", um.ErrorCode)
	}
	sr := cc.send(stopReq(e, 2, true, -2, TopicPartition{"foo", 0})).(*kmsg.StopReplicaResponse)
	if sr.ErrorCode != codeStaleController {
		t.Fatalf("StopReplica from epoch 2: %d", sr.ErrorCode)
	}
	// The same epoch is fine; a newer one is stored.
	wantCodes(t, "epoch 3 again", cc.send(lairReq(e, 3, lead1(0, 2))), 0, 0)
	um = cc.send(umReq(e, 4, 1000, brokerEntries(b), lead1(0, 2))).(*kmsg.UpdateMetadataResponse)
	if um.ErrorCode != 0 || b.Snapshot().ControllerEpoch != 4 {
		t.Fatalf("UpdateMetadata from epoch 4: %d, stored %d", um.ErrorCode, b.Snapshot().ControllerEpoch)
	}
}

func TestStopReplica(t *testing.T) {
	c := startCluster(t, Options{Brokers: specs(1)})
	b := c.Broker(1)
	cc := dialBroker(t, b)
	e := b.Epoch()
	wantCodes(t, "setup", cc.send(lairReq(e, 1, lead1(0, 5), lead1(1, 5), lead1(2, 5))), 0, 0, 0, 0)
	tp0, tp1, tp2 := TopicPartition{"foo", 0}, TopicPartition{"foo", 1}, TopicPartition{"foo", 2}

	codes := func(resp kmsg.Response) []int16 {
		var out []int16
		for _, p := range resp.(*kmsg.StopReplicaResponse).Partitions {
			out = append(out, p.ErrorCode)
		}
		return out
	}
	if got := codes(cc.send(stopReq(e, 1, false, 4, tp0))); !slices.Equal(got, []int16{kerr.FencedLeaderEpoch.Code}) {
		t.Fatalf("older leader epoch: %v", got)
	}
	if got := codes(cc.send(stopReq(e, 1, false, 5, tp0))); !slices.Equal(got, []int16{0}) {
		t.Fatalf("stop without delete: %v", got)
	}
	if got := codes(cc.send(stopReq(e, 1, true, -2, tp1))); !slices.Equal(got, []int16{0}) {
		t.Fatalf("stop with delete: %v", got)
	}
	snap := b.Snapshot()
	_, has0 := snap.Partitions[tp0]
	_, has1 := snap.Partitions[tp1]
	_, log0 := snap.Log[tp0]
	_, log1 := snap.Log[tp1]
	if has0 || has1 || !log0 || log1 || len(snap.Partitions) != 1 {
		t.Fatalf("after stops: partitions %v, log %v", snap.Partitions, snap.Log)
	}
	// Not hosted: NONE, and delete removes the leftover log.
	if got := codes(cc.send(stopReq(e, 1, true, 1, tp0))); !slices.Equal(got, []int16{0}) {
		t.Fatalf("stop of a partition not hosted: %v", got)
	}
	if _, ok := b.Snapshot().Log[tp0]; ok {
		t.Fatal("leftover log not deleted")
	}
	// v1: grouped partition indexes and one delete flag; epoch -1 always passes.
	v1 := kmsg.NewPtrStopReplicaRequest()
	v1.Version, v1.ControllerEpoch, v1.BrokerEpoch, v1.DeletePartitions = 1, 1, e, true
	v1.Topics = []kmsg.StopReplicaRequestTopic{{Topic: "foo", Partitions: []int32{2}}}
	if got := codes(cc.send(v1)); !slices.Equal(got, []int16{0}) || len(b.Partitions()) != 0 {
		t.Fatalf("v1 stop: %v, left %v", got, b.Partitions())
	}
	if _, ok := b.Snapshot().Log[tp2]; ok {
		t.Fatal("v1 delete kept the log")
	}
}

func TestLogDirOffline(t *testing.T) {
	c := startCluster(t, Options{Brokers: specs(1)})
	b := c.Broker(1)
	cc := dialBroker(t, b)
	wantCodes(t, "setup", cc.send(lairReq(b.Epoch(), 1, lead1(0, 1))), 0, 0)
	b.SetLogDirOffline(true)
	wantCodes(t, "offline", cc.send(lairReq(b.Epoch(), 1, lead1(0, 2))), 0, kerr.KafkaStorageError.Code)
	sr := cc.send(stopReq(b.Epoch(), 1, false, 2, TopicPartition{"foo", 0})).(*kmsg.StopReplicaResponse)
	if sr.Partitions[0].ErrorCode != kerr.KafkaStorageError.Code {
		t.Fatalf("StopReplica on an offline dir: %d", sr.Partitions[0].ErrorCode)
	}
	b.SetLogDirOffline(false)
	wantCodes(t, "repaired", cc.send(lairReq(b.Epoch(), 1, lead1(0, 2))), 0, 0)
}

func TestUpdateMetadataCache(t *testing.T) {
	c := startCluster(t, Options{Brokers: specs(1, 2)})
	b := c.Broker(1)
	cc := dialBroker(t, b)
	e := b.Epoch()
	live := brokerEntries(c.Brokers()...)
	resp := cc.send(umReq(e, 1, 2, live, lead1(0, 1), lead1(1, 1))).(*kmsg.UpdateMetadataResponse)
	if resp.ErrorCode != 0 {
		t.Fatalf("UpdateMetadata: %d", resp.ErrorCode)
	}
	snap := b.Snapshot()
	if snap.CachedPartitions != 2 || len(snap.LiveBrokers) != 2 || snap.ControllerID != 2 {
		t.Fatalf("cache: %d partitions, live %+v, controller %d", snap.CachedPartitions, snap.LiveBrokers, snap.ControllerID)
	}
	// Incremental merge: a later request with one partition keeps the
	// other; leader -2 deletes; live brokers are replaced.
	del := lead1(1, 2)
	del.leader = leaderDuringDelete
	resp = cc.send(umReq(e, 1, -1, live[:1], del)).(*kmsg.UpdateMetadataResponse)
	if resp.ErrorCode != 0 {
		t.Fatalf("UpdateMetadata: %d", resp.ErrorCode)
	}
	snap = b.Snapshot()
	if _, ok := b.CachedPartition(TopicPartition{"foo", 1}); ok || snap.CachedPartitions != 1 ||
		len(snap.LiveBrokers) != 1 || snap.ControllerID != -1 {
		t.Fatalf("after merge: %d partitions, live %+v, controller %d", snap.CachedPartitions, snap.LiveBrokers, snap.ControllerID)
	}
	// The same state sent to two brokers is held once.
	cc2 := dialBroker(t, c.Broker(2))
	cc2.send(umReq(c.Broker(2).Epoch(), 1, 2, live, lead1(0, 1)))
	b.mu.Lock()
	p1, _ := b.cache.get(TopicPartition{"foo", 0})
	b.mu.Unlock()
	b2 := c.Broker(2)
	b2.mu.Lock()
	p2, _ := b2.cache.get(TopicPartition{"foo", 0})
	b2.mu.Unlock()
	if p1 == nil || p1 != p2 {
		t.Fatalf("partition state not shared: %p %p", p1, p2)
	}
}

// TestOldVersions: ungrouped LeaderAndIsr v1 answered by name, and
// UpdateMetadata v0 (one host and port) and v2 (ungrouped, endpoints named
// by protocol).
func TestOldVersions(t *testing.T) {
	c := startCluster(t, Options{IBP: "2.7-IV2", Brokers: specs(1)})
	b := c.Broker(1)
	cc := dialBroker(t, b)
	lair := kmsg.NewPtrLeaderAndISRRequest()
	lair.Version, lair.ControllerEpoch = 1, 1
	lair.PartitionStates = []kmsg.LeaderAndISRRequestTopicPartition{
		{Topic: "old", Partition: 3, Leader: 1, LeaderEpoch: 1, ISR: []int32{1}, Replicas: []int32{1}},
		{Topic: "old", Partition: 4, Leader: 2, LeaderEpoch: 1, ISR: []int32{2}, Replicas: []int32{2}},
	}
	resp := cc.send(lair).(*kmsg.LeaderAndISRResponse)
	if len(resp.Partitions) != 2 || resp.Partitions[0].Topic != "old" || resp.Partitions[0].ErrorCode != 0 ||
		resp.Partitions[1].ErrorCode != kerr.UnknownTopicOrPartition.Code {
		t.Fatalf("v1 response: %+v", resp)
	}
	if p := b.Partitions()[TopicPartition{"old", 3}]; p.Role != Leader {
		t.Fatalf("v1 state: %+v", p)
	}

	um0 := kmsg.NewPtrUpdateMetadataRequest()
	um0.Version, um0.ControllerID, um0.ControllerEpoch = 0, 1, 1
	um0.LiveBrokers = []kmsg.UpdateMetadataRequestLiveBroker{{ID: 1, Host: "h1", Port: 9092}}
	um0.PartitionStates = []kmsg.UpdateMetadataRequestTopicPartition{{Topic: "old", Partition: 3, Leader: 1, ISR: []int32{1}, Replicas: []int32{1}}}
	if code := cc.send(um0).(*kmsg.UpdateMetadataResponse).ErrorCode; code != 0 {
		t.Fatalf("v0: %d", code)
	}
	snap := b.Snapshot()
	if len(snap.LiveBrokers) != 1 || snap.LiveBrokers[0].Endpoints[0].String() != "PLAINTEXT://h1:9092" || snap.CachedPartitions != 1 {
		t.Fatalf("after v0: %+v", snap)
	}
	um2 := kmsg.NewPtrUpdateMetadataRequest()
	um2.Version, um2.ControllerID, um2.ControllerEpoch = 2, 1, 1
	um2.LiveBrokers = []kmsg.UpdateMetadataRequestLiveBroker{{ID: 1, Endpoints: []kmsg.UpdateMetadataRequestLiveBrokerEndpoint{
		{Host: "h1", Port: 9093, ListenerName: "ignored before v3", SecurityProtocol: 1}}}}
	um2.PartitionStates = []kmsg.UpdateMetadataRequestTopicPartition{{Topic: "old", Partition: 5, Leader: 1, ISR: []int32{1}, Replicas: []int32{1}}}
	if code := cc.send(um2).(*kmsg.UpdateMetadataResponse).ErrorCode; code != 0 {
		t.Fatalf("v2: %d", code)
	}
	snap = b.Snapshot()
	if snap.LiveBrokers[0].Endpoints[0].String() != "SSL://h1:9093" || snap.CachedPartitions != 2 {
		t.Fatalf("after v2: %+v", snap)
	}
}
