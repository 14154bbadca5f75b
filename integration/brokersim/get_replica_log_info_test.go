package brokersim

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kzadmin/kzadmin/controller/replicalog"
	"github.com/kzadmin/kzadmin/znodes"
)

func barID() znodes.UUID { return znodes.UUID{9, 9} }

// logInfo sends one GetReplicaLogInfo request over cc.
func (c *ctl) logInfo(req *replicalog.GetReplicaLogInfoRequest) *replicalog.GetReplicaLogInfoResponse {
	c.tb.Helper()
	return c.send(req).(*replicalog.GetReplicaLogInfoResponse)
}

func probeTarget(b *Broker) replicalog.Target {
	return replicalog.Target{BrokerID: b.ID(), Addr: b.Addr()}
}

func TestGetReplicaLogInfoAdvertised(t *testing.T) {
	c := startCluster(t, Options{Brokers: specs(1)})
	cc := dialBroker(t, c.Broker(1))
	if err := cc.c.Negotiate(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	k, ok := cc.c.Versions()[replicalog.GetReplicaLogInfoKey]
	if !ok || k.MinVersion != 0 || k.MaxVersion != 0 {
		t.Fatalf("ApiVersions entry %+v (present %v), want v0-0", k, ok)
	}
}

// TestGetReplicaLogInfoAnswers drives the broker's state with
// LeaderAndIsr and scripts, and asks with the recovery manager's Prober.
func TestGetReplicaLogInfoAnswers(t *testing.T) {
	c := startCluster(t, Options{Brokers: specs(1)})
	b := c.Broker(1)
	cc := dialBroker(t, b)
	wantCodes(t, "LeaderAndIsr", cc.send(lairReq(b.Epoch(), 1, lead1(0, 3), lead1(1, 4))), 0, 0, 0)
	b.SetLogEnd("foo", 0, 100, 2)
	b.SetLogEnd("foo", 7, 5, 5) // scripted but not hosted: not answered

	fooP := func(i int32) replicalog.Partition {
		return replicalog.Partition{Topic: "foo", TopicID: fooID(), Index: i}
	}
	parts := []replicalog.Partition{fooP(0), fooP(1), fooP(7), {Topic: "bar", TopicID: barID(), Index: 0}}
	infos, err := replicalog.New(replicalog.Options{}).Probe(testCtx(t), probeTarget(b), parts)
	if err != nil {
		t.Fatal(err)
	}
	want := []replicalog.Info{
		{Partition: parts[0], LogEndOffset: 100, LastEpoch: 2},
		{Partition: parts[1], LogEndOffset: 0, LastEpoch: 4}, // unscripted: the leader epoch seen
		{Partition: parts[2], LogEndOffset: -1, LastEpoch: -1, ErrorCode: kerr.UnknownTopicOrPartition.Code},
		{Partition: parts[3], LogEndOffset: -1, LastEpoch: -1, ErrorCode: kerr.UnknownTopicID.Code},
	}
	checkInfos(t, infos, want)
	if n := b.Snapshot().Received[replicalog.GetReplicaLogInfoKey]; n != 1 {
		t.Fatalf("%d GetReplicaLogInfo requests received, want 1", n)
	}

	// Null topics: every partition on disk.
	all := cc.logInfo(&replicalog.GetReplicaLogInfoRequest{BrokerID: 1})
	if all.BrokerEpoch != b.Epoch() || len(all.Topics) != 1 || len(all.Topics[0].Partitions) != 2 {
		t.Fatalf("null topics answered %+v", all)
	}
	// Another broker's id: the whole request is refused.
	wrong := cc.logInfo(&replicalog.GetReplicaLogInfoRequest{BrokerID: 2, Topics: []replicalog.GetReplicaLogInfoRequestTopic{{TopicID: fooID(), Partitions: []int32{0}}}})
	if wrong.ErrorCode != kerr.InvalidRequest.Code || len(wrong.Topics) != 0 {
		t.Fatalf("wrong broker id answered %+v", wrong)
	}

	// An offline log directory fails the hosted partitions.
	b.SetLogDirOffline(true)
	infos, err = replicalog.New(replicalog.Options{}).Probe(testCtx(t), probeTarget(b), parts[:1])
	if err != nil || infos[0].ErrorCode != kerr.KafkaStorageError.Code {
		t.Fatalf("offline log dir: %+v, %v", infos, err)
	}
	b.SetLogDirOffline(false)

	// StopReplica with deletion drops the log and its script.
	cc.send(stopReq(b.Epoch(), 1, true, 3, TopicPartition{"foo", 0}))
	b.SetLogEnd("foo", 1, 50, 4)
	wantCodes(t, "LeaderAndIsr again", cc.send(lairReq(b.Epoch(), 1, lead1(0, 5))), 0, 0)
	infos, err = replicalog.New(replicalog.Options{}).Probe(testCtx(t), probeTarget(b), parts[:2])
	if err != nil {
		t.Fatal(err)
	}
	checkInfos(t, infos, []replicalog.Info{{Partition: parts[0], LogEndOffset: 0, LastEpoch: 5}, {Partition: parts[1], LogEndOffset: 50, LastEpoch: 4}})
}

// TestGetReplicaLogInfoAfterRestart: scripts survive a restart, as the log
// does; an unscripted partition has no epoch until LeaderAndIsr arrives.
func TestGetReplicaLogInfoAfterRestart(t *testing.T) {
	c := startCluster(t, Options{Brokers: specs(1)})
	b := c.Broker(1)
	cc := dialBroker(t, b)
	wantCodes(t, "LeaderAndIsr", cc.send(lairReq(b.Epoch(), 1, lead1(0, 3), lead1(1, 4))), 0, 0, 0)
	b.SetLogEnd("foo", 0, 100, 2)
	b.Kill()
	if err := b.Restart(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	parts := []replicalog.Partition{{Topic: "foo", TopicID: fooID(), Index: 0}, {Topic: "foo", TopicID: fooID(), Index: 1}}
	infos, err := replicalog.New(replicalog.Options{}).Probe(testCtx(t), probeTarget(b), parts)
	if err != nil {
		t.Fatal(err)
	}
	checkInfos(t, infos, []replicalog.Info{{Partition: parts[0], LogEndOffset: 100, LastEpoch: 2}, {Partition: parts[1], LogEndOffset: 0, LastEpoch: -1}})
}

// TestGetReplicaLogInfoLimit: past 2,000 partitions the seed's
// REQUEST_LIMIT_REACHED; the Prober splits and gets everything.
func TestGetReplicaLogInfoLimit(t *testing.T) {
	c := startCluster(t, Options{Brokers: specs(1)})
	b := c.Broker(1)
	cc := dialBroker(t, b)
	const n = 4500
	var leaderships []part
	for i := range int32(n) {
		leaderships = append(leaderships, lead1(i, 1))
	}
	cc.send(lairReq(b.Epoch(), 1, leaderships...))
	for i := range int32(n) {
		b.SetLogEnd("foo", i, int64(i), 1)
	}

	big := &replicalog.GetReplicaLogInfoRequest{BrokerID: 1, Topics: []replicalog.GetReplicaLogInfoRequestTopic{{TopicID: fooID()}}}
	for i := range int32(replicalog.MaxPartitionsPerRequest + 1) {
		big.Topics[0].Partitions = append(big.Topics[0].Partitions, i)
	}
	resp := cc.logInfo(big)
	ps := resp.Topics[0].Partitions
	if len(ps) != replicalog.MaxPartitionsPerRequest+1 {
		t.Fatalf("%d partitions answered", len(ps))
	}
	for i, p := range ps {
		limited := p.ErrorCode == replicalog.RequestLimitReachedCode
		if limited != (i == replicalog.MaxPartitionsPerRequest) || (!limited && (p.ErrorCode != 0 || p.LogEndOffset != int64(i))) {
			t.Fatalf("partition %d answered %+v", i, p)
		}
	}

	before := b.Snapshot().Received[replicalog.GetReplicaLogInfoKey]
	var parts []replicalog.Partition
	for i := range int32(n) {
		parts = append(parts, replicalog.Partition{Topic: "foo", TopicID: fooID(), Index: i})
	}
	infos, err := replicalog.New(replicalog.Options{}).Probe(testCtx(t), probeTarget(b), parts)
	if err != nil {
		t.Fatal(err)
	}
	for i, in := range infos {
		if in.ErrorCode != 0 || in.LogEndOffset != int64(i) || in.LastEpoch != 1 {
			t.Fatalf("partition %d: %+v", i, in)
		}
	}
	if got := b.Snapshot().Received[replicalog.GetReplicaLogInfoKey] - before; got != 3 {
		t.Fatalf("%d requests for %d partitions, want 3", got, n)
	}
}

func checkInfos(t *testing.T, got, want []replicalog.Info) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d infos, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("info %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}
