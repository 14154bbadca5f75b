package brokersim

import (
	"errors"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/replicalog"
)

// TestMetadataWithKadm: a real client bootstraps against a simulated
// broker and sees the brokers and topics it learned from UpdateMetadata.
func TestMetadataWithKadm(t *testing.T) {
	c := startCluster(t, Options{Brokers: specs(1, 2, 3)})
	all := c.Brokers()
	live := brokerEntries(all...)
	bar := part{topic: "bar", partition: 0, leader: 3, leaderEpoch: 4, isr: []int32{3, 1}, replicas: []int32{3, 1}, zkVersion: 2}
	noLeader := part{topic: "bar", partition: 1, leader: -1, leaderEpoch: 5, isr: []int32{2}, replicas: []int32{2, 3}}
	for _, b := range all {
		resp := dialBroker(t, b).send(umReq(b.Epoch(), 1, 2, live, lead1(0, 1), lead1(1, 1), bar, noLeader))
		if code := resp.(*kmsg.UpdateMetadataResponse).ErrorCode; code != 0 {
			t.Fatalf("UpdateMetadata to %d: %d", b.ID(), code)
		}
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Broker(1).Addr()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	adm := kadm.NewClient(cl)
	ctx := testCtx(t)

	meta, err := adm.BrokerMetadata(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if meta.Controller != 2 || meta.Cluster != c.ClusterID() || len(meta.Brokers) != 3 {
		t.Fatalf("metadata: %+v", meta)
	}
	for i, bd := range meta.Brokers {
		b := all[i]
		if bd.NodeID != b.ID() || bd.Rack == nil || *bd.Rack != b.Rack() || bd.Port != int32(b.Port()) {
			t.Errorf("broker %d: %+v", b.ID(), bd)
		}
	}

	topics, err := adm.ListTopics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := topics.Names(); !slices.Equal(got, []string{"bar", "foo"}) {
		t.Fatalf("topics %v", got)
	}
	foo := topics["foo"]
	if foo.ID != kadm.TopicID(fooID()) || len(foo.Partitions) != 2 {
		t.Fatalf("foo: %+v", foo)
	}
	p := topics["bar"].Partitions[0]
	if p.Leader != 3 || p.LeaderEpoch != 4 || !slices.Equal(p.Replicas, []int32{3, 1}) || p.Err != nil {
		t.Fatalf("bar-0: %+v", p)
	}
	p = topics["bar"].Partitions[1]
	if p.Leader != -1 || p.LeaderEpoch != 5 || !errors.Is(p.Err, kerr.LeaderNotAvailable) {
		t.Fatalf("bar-1: %+v", p)
	}
	// A named topic the broker does not know.
	missing, err := adm.ListTopics(ctx, "nope")
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(missing["nope"].Err, kerr.UnknownTopicOrPartition) {
		t.Fatalf("unknown topic: %+v", missing["nope"])
	}
	if n := c.Broker(1).Requests()[kmsg.Metadata.Int16()]; n == 0 {
		t.Fatal("no Metadata request counted")
	}
}

// TestMetadataVersions checks the version-specific answers Kafka gives.
func TestMetadataVersions(t *testing.T) {
	c := startCluster(t, Options{Brokers: specs(1, 2)})
	b := c.Broker(1)
	cc := dialBroker(t, b)
	// Broker 3 is a replica that is not live.
	p := part{topic: "foo", partition: 0, topicID: fooID(), leader: 1, leaderEpoch: 1,
		isr: []int32{1, 3}, replicas: []int32{1, 2, 3}}
	cc.send(umReq(b.Epoch(), 1, 1, brokerEntries(c.Brokers()...), p))

	ask := func(version int16, topics ...string) *kmsg.MetadataResponse {
		req := kmsg.NewPtrMetadataRequest()
		req.Version = version
		req.Topics = []kmsg.MetadataRequestTopic{} // v1+: none, not null (all)
		for _, name := range topics {
			rt := kmsg.NewMetadataRequestTopic()
			rt.Topic = kmsg.StringPtr(name)
			req.Topics = append(req.Topics, rt)
		}
		return cc.send(req).(*kmsg.MetadataResponse)
	}
	v0 := ask(0).Topics[0].Partitions[0]
	if v0.ErrorCode != kerr.ReplicaNotAvailable.Code || !slices.Equal(v0.Replicas, []int32{1, 2}) || !slices.Equal(v0.ISR, []int32{1}) {
		t.Fatalf("v0: %+v", v0)
	}
	v1 := ask(1, "foo").Topics[0].Partitions[0]
	if v1.ErrorCode != 0 || !slices.Equal(v1.Replicas, []int32{1, 2, 3}) {
		t.Fatalf("v1: %+v", v1)
	}
	if resp := ask(1); len(resp.Topics) != 0 {
		t.Fatalf("v1 with an empty list: %d topics", len(resp.Topics))
	}
	if bad := ask(12, "bad/name").Topics[0]; bad.ErrorCode != kerr.InvalidTopicException.Code {
		t.Fatalf("invalid name: %+v", bad)
	}
	byID := kmsg.NewPtrMetadataRequest()
	byID.Version = 12
	byID.Topics = []kmsg.MetadataRequestTopic{{TopicID: fooID()}, {TopicID: [16]byte{7}}}
	resp := cc.send(byID).(*kmsg.MetadataResponse)
	if len(resp.Topics) != 2 || resp.Topics[0].Topic == nil || *resp.Topics[0].Topic != "foo" ||
		resp.Topics[1].ErrorCode != kerr.UnknownTopicID.Code {
		t.Fatalf("by id: %+v", resp.Topics)
	}
}

// TestApiVersions: the served keys are advertised at Kafka 3.9's ranges,
// plus kzadmin's GetReplicaLogInfo v0.
func TestApiVersions(t *testing.T) {
	c := startCluster(t, Options{Brokers: specs(1)})
	cc := dialBroker(t, c.Broker(1))
	if err := cc.c.Negotiate(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	want := map[int16]int16{3: 12, 4: 7, 5: 4, 6: 8, 18: 4, 34: 2, 35: 4, replicalog.GetReplicaLogInfoKey: 0}
	if len(cc.c.Versions()) != len(want) {
		t.Fatalf("advertised %v", cc.c.Versions())
	}
	for key, max := range want {
		if k := cc.c.Versions()[key]; k.MinVersion != 0 || k.MaxVersion != max {
			t.Errorf("key %d: v%d-%d, want v0-%d", key, k.MinVersion, k.MaxVersion, max)
		}
	}
}
