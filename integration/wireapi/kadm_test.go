package wireapi

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/integration/kafkatest"
)

// newKadm returns a kadm client bootstrapped from seeds.
func newKadm(t *testing.T, seeds ...string) *kadm.Client {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.MetadataMinAge(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return kadm.NewClient(cl)
}

// rawClient is a client whose requests all go to the node at addr.
func rawClient(t *testing.T, addr string) kmsg.Requestor {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl.SeedBrokers()[0]
}

// TestKadm drives every admin API kadm has against kzadmind over real
// brokers, bootstrapped from kzadmind's listener.
func TestKadm(t *testing.T) {
	c := sharedCluster(t)
	ctx := testCtx(t, 3*time.Minute)
	adm := newKadm(t, c.d.KafkaAddr())
	before := c.served.snapshot()

	kadmCreate(t, ctx, c, adm)
	kadmDescribe(t, ctx, c, adm)
	kadmCreatePartitions(t, ctx, c, adm)
	kadmConfigs(t, ctx, c, adm)
	kadmReassignments(t, ctx, c, adm)
	kadmElect(t, ctx, c, adm)
	kadmDelete(t, ctx, c, adm)
	t.Logf("kzadmind served: %v", c.served.since(before))
}

func kadmCreate(t *testing.T, ctx context.Context, c *cluster, adm *kadm.Client) {
	cfg := map[string]*string{"retention.ms": kadm.StringPtr("60000"), "cleanup.policy": kadm.StringPtr("compact")}
	res, err := adm.CreateTopics(ctx, 6, 3, cfg, "kadm-a", "kadm-b")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"kadm-a", "kadm-b"} {
		r := res[name]
		if r.Err != nil || r.NumPartitions != 6 || r.ReplicationFactor != 3 {
			t.Fatalf("create %s: %+v", name, r)
		}
		if v := r.Configs["retention.ms"]; v.Value == nil || *v.Value != "60000" || v.Source != kmsg.ConfigSourceDynamicTopicConfig {
			t.Errorf("create %s: v5+ config retention.ms = %+v", name, v)
		}
		zt := c.expectTopic(t, ctx, name, topicWant{partitions: 6, rf: 3,
			config: map[string]string{"retention.ms": "60000", "cleanup.policy": "compact"}, exactConfig: true})
		if [16]byte(r.ID) != [16]byte(zt.Assignment.TopicID) {
			t.Errorf("create %s: topic id %v, ZooKeeper %v", name, r.ID, zt.Assignment.TopicID)
		}
	}

	again, err := adm.CreateTopic(ctx, 1, 1, nil, "kadm-a")
	if !errors.Is(errOr(err, again.Err), kerr.TopicAlreadyExists) {
		t.Errorf("create kadm-a again: %+v %v", again, err)
	}
	dry, err := adm.ValidateCreateTopics(ctx, 2, 3, nil, "kadm-dry")
	if err != nil || dry["kadm-dry"].Err != nil || dry["kadm-dry"].NumPartitions != 2 {
		t.Errorf("validate only: %+v %v", dry, err)
	}
	if zt, err := c.zkTopic(ctx, "kadm-dry"); err != nil || zt != nil {
		t.Errorf("validateOnly wrote kadm-dry: %+v %v", zt, err)
	}
	tooMany, err := adm.CreateTopic(ctx, 1, 4, nil, "kadm-rf4")
	if !errors.Is(errOr(err, tooMany.Err), kerr.InvalidReplicationFactor) {
		t.Errorf("RF 4 over 3 brokers: %+v %v", tooMany, err)
	}

	// Bootstrapped from a broker, kadm finds kzadmind as the controller in
	// the broker's metadata and sends CreateTopics there.
	viaBroker := newKadm(t, c.brokers[2])
	vb, err := viaBroker.CreateTopic(ctx, 3, 2, nil, "kadm-via-broker")
	if err != nil || vb.Err != nil {
		t.Fatalf("create through a broker's bootstrap: %+v %v", vb, err)
	}
	c.expectTopic(t, ctx, "kadm-via-broker", topicWant{partitions: 3, rf: 2, exactConfig: true})
}

func kadmDescribe(t *testing.T, ctx context.Context, c *cluster, adm *kadm.Client) {
	td, err := adm.ListTopics(ctx, "kadm-a", "kadm-missing")
	if err != nil {
		t.Fatal(err)
	}
	zt, err := c.zkTopic(ctx, "kadm-a")
	if err != nil {
		t.Fatal(err)
	}
	a := td["kadm-a"]
	if a.Err != nil || len(a.Partitions) != 6 || [16]byte(a.ID) != [16]byte(zt.Assignment.TopicID) {
		t.Fatalf("ListTopics kadm-a: %+v", a)
	}
	for _, p := range a.Partitions {
		zp := zt.Partitions[p.Partition]
		if p.Leader != zp.State.Leader || p.LeaderEpoch != zp.State.LeaderEpoch || !sameSet(p.ISR, zp.State.ISR) {
			t.Errorf("ListTopics kadm-a-%d: %+v, ZooKeeper %+v", p.Partition, p, zp.State)
		}
	}
	if m, ok := td["kadm-missing"]; ok && !errors.Is(m.Err, kerr.UnknownTopicOrPartition) {
		t.Errorf("ListTopics kadm-missing: %+v", m)
	}
	md, err := adm.BrokerMetadata(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if md.Controller != controllerID || len(md.Brokers) != numBrokers+1 {
		t.Errorf("Metadata: controller %d, brokers %v", md.Controller, md.Brokers)
	}
	// kadm has no DescribeCluster; ask kzadmind directly.
	kresp, err := kmsg.NewPtrDescribeClusterRequest().RequestWith(ctx, rawClient(t, c.d.KafkaAddr()))
	if err != nil || kresp.ErrorCode != 0 || kresp.ControllerID != controllerID || len(kresp.Brokers) != numBrokers+1 {
		t.Errorf("DescribeCluster: %+v %v", kresp, err)
	}
}

func kadmCreatePartitions(t *testing.T, ctx context.Context, c *cluster, adm *kadm.Client) {
	res, err := adm.CreatePartitions(ctx, 2, "kadm-via-broker")
	if err != nil || res["kadm-via-broker"].Err != nil {
		t.Fatalf("CreatePartitions +2: %+v %v", res, err)
	}
	c.expectTopic(t, ctx, "kadm-via-broker", topicWant{partitions: 5, rf: 2})
	upd, err := adm.UpdatePartitions(ctx, 4, "kadm-via-broker")
	if !errors.Is(errOr(err, upd["kadm-via-broker"].Err), kerr.InvalidPartitions) {
		t.Errorf("shrinking to 4 partitions: %+v %v", upd, err)
	}
	dry, err := adm.ValidateCreatePartitions(ctx, 1, "kadm-via-broker")
	if err != nil || dry["kadm-via-broker"].Err != nil {
		t.Errorf("validate CreatePartitions: %+v %v", dry, err)
	}
	c.expectTopic(t, ctx, "kadm-via-broker", topicWant{partitions: 5, rf: 2})
}

func kadmConfigs(t *testing.T, ctx context.Context, c *cluster, adm *kadm.Client) {
	rc, err := adm.DescribeTopicConfigs(ctx, "kadm-b")
	if err != nil {
		t.Fatal(err)
	}
	got, err := rc.On("kadm-b", nil)
	if err != nil || !hasConfig(got.Configs, "retention.ms", "60000", kmsg.ConfigSourceDynamicTopicConfig) {
		t.Errorf("DescribeTopicConfigs kadm-b: %+v %v", got, err)
	}

	// IncrementalAlterConfigs: set one, delete one, append to a list.
	inc, err := adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{
		{Op: kadm.SetConfig, Name: "segment.ms", Value: kadm.StringPtr("3600000")},
		{Op: kadm.DeleteConfig, Name: "retention.ms"},
		{Op: kadm.AppendConfig, Name: "cleanup.policy", Value: kadm.StringPtr("delete")},
	}, "kadm-b")
	if err != nil || inc[0].Err != nil {
		t.Fatalf("IncrementalAlterConfigs: %+v %v", inc, err)
	}
	want := map[string]string{"segment.ms": "3600000", "cleanup.policy": "compact,delete"}
	c.expectConfig(t, ctx, "topics", "kadm-b", topicWant{config: want, exactConfig: true})
	c.compareTopicConfigs(t, ctx, "kadm-b", want)

	// AlterConfigs replaces the whole set.
	st, err := adm.AlterTopicConfigsState(ctx, []kadm.AlterConfig{
		{Name: "max.message.bytes", Value: kadm.StringPtr("2000000")},
	}, "kadm-b")
	if err != nil || st[0].Err != nil {
		t.Fatalf("AlterConfigs: %+v %v", st, err)
	}
	want = map[string]string{"max.message.bytes": "2000000"}
	c.expectConfig(t, ctx, "topics", "kadm-b", topicWant{config: want, exactConfig: true})
	c.compareTopicConfigs(t, ctx, "kadm-b", want)

	bad, err := adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{
		{Op: kadm.SetConfig, Name: "retention.ms", Value: kadm.StringPtr("soon")},
	}, "kadm-b")
	if !errors.Is(errOr(err, firstAlterErr(bad)), kerr.InvalidConfig) {
		t.Errorf("invalid retention.ms: %+v %v", bad, err)
	}
	c.expectConfig(t, ctx, "topics", "kadm-b", topicWant{config: want, exactConfig: true})
}

func hasConfig(cfgs []kadm.Config, key, value string, src kmsg.ConfigSource) bool {
	for _, c := range cfgs {
		if c.Key == key && c.Value != nil && *c.Value == value && c.Source == src {
			return true
		}
	}
	return false
}

func firstAlterErr(rs kadm.AlterConfigsResponses) error {
	if len(rs) == 0 {
		return nil
	}
	return rs[0].Err
}

func kadmReassignments(t *testing.T, ctx context.Context, c *cluster, adm *kadm.Client) {
	ls, err := adm.ListPartitionReassignments(ctx, kadm.TopicsSet{"kadm-a": {0: {}, 1: {}}})
	if err != nil || len(ls) != 0 {
		t.Errorf("ListPartitionReassignments (none moving): %+v %v", ls, err)
	}
	all, err := adm.ListPartitionReassignments(ctx, nil)
	if err != nil || len(all) != 0 {
		t.Errorf("ListPartitionReassignments (all): %+v %v", all, err)
	}
	// A target naming a broker that does not exist is refused and records
	// nothing. (Moves themselves are not carried out by kzadmind's
	// controller yet, see the controller's package doc.)
	var req kadm.AlterPartitionAssignmentsReq
	req.Assign("kadm-a", 0, []int32{1, 2, 99})
	res, err := adm.AlterPartitionAssignments(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if r := res["kadm-a"][0]; !errors.Is(r.Err, kerr.InvalidReplicaAssignment) {
		t.Errorf("reassignment to broker 99: %+v", r)
	}
	if ok, _, err := c.zkc.Exists(ctx, "/admin/reassign_partitions"); err != nil || ok {
		t.Errorf("a refused reassignment was recorded: %v %v", ok, err)
	}
}

// kadmElect moves leadership off broker 1 with a controlled shutdown,
// brings it back, and gives it its leaderships back with a preferred
// election.
func kadmElect(t *testing.T, ctx context.Context, c *cluster, adm *kadm.Client) {
	const topic = "kadm-a"
	c.bounce(t, ctx, 1, topic)
	lead, err := c.leaders(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	zt, err := c.zkTopic(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	moved := 0
	for _, p := range zt.Partitions {
		if p.Replicas[0] == 1 && lead[p.ID] != 1 {
			moved++
		}
	}
	if moved == 0 {
		t.Fatalf("no partition of %s lost its preferred leader 1 in the bounce: %v", topic, lead)
	}
	res, err := adm.ElectLeaders(ctx, kadm.ElectPreferredReplica, kadm.TopicsSet{topic: {0: {}, 1: {}, 2: {}, 3: {}, 4: {}, 5: {}}})
	if err != nil {
		t.Fatal(err)
	}
	elected := 0
	for _, p := range zt.Partitions {
		r := res[topic][p.ID]
		switch {
		case lead[p.ID] == p.Replicas[0]:
			if !errors.Is(r.Err, kerr.ElectionNotNeeded) {
				t.Errorf("%s-%d already led by its preferred replica: %+v", topic, p.ID, r)
			}
		case r.Err != nil:
			t.Errorf("%s-%d preferred election: %+v", topic, p.ID, r)
		default:
			elected++
		}
	}
	// Every partition is now led by its preferred replica, in ZooKeeper and
	// at every broker.
	zt = c.expectTopic(t, ctx, topic, topicWant{partitions: 6, rf: 3})
	for _, p := range zt.Partitions {
		if p.State.Leader != p.Replicas[0] {
			t.Errorf("%s-%d led by %d after the election, preferred %d", topic, p.ID, p.State.Leader, p.Replicas[0])
		}
	}
	t.Logf("preferred election moved %d partitions back to broker 1", elected)
}

func kadmDelete(t *testing.T, ctx context.Context, c *cluster, adm *kadm.Client) {
	adm.SetTimeoutMillis(int32(deleteTimeout().Milliseconds()))
	res, err := adm.DeleteTopics(ctx, "kadm-b", "kadm-missing")
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(res["kadm-missing"].Err, kerr.UnknownTopicOrPartition) {
		t.Errorf("DeleteTopics kadm-missing: %+v", res["kadm-missing"])
	}
	c.expectDeleted(t, ctx, "kadm-b", res["kadm-b"].Err)
}

// errOr returns err, or else fallback.
func errOr(err, fallback error) error {
	if err != nil {
		return err
	}
	return fallback
}

// TestPinnedConfigs sends the config writes to kzadmind itself: kadm and
// the other clients send DescribeConfigs, AlterConfigs and
// IncrementalAlterConfigs to any node, so a broker may serve them. It also
// sets the cluster-wide max.partitions through the wire and runs into it.
func TestPinnedConfigs(t *testing.T) {
	c := sharedCluster(t)
	ctx := testCtx(t, 2*time.Minute)
	kz := rawClient(t, c.d.KafkaAddr())
	adm := newKadm(t, c.d.KafkaAddr())
	if r, err := adm.CreateTopic(ctx, 2, 2, nil, "pinned"); err != nil || r.Err != nil {
		t.Fatalf("create pinned: %+v %v", r, err)
	}
	c.expectTopic(t, ctx, "pinned", topicWant{partitions: 2, rf: 2, exactConfig: true})

	inc := kmsg.NewPtrIncrementalAlterConfigsRequest()
	res := kmsg.NewIncrementalAlterConfigsRequestResource()
	res.ResourceType, res.ResourceName = kmsg.ConfigResourceTypeTopic, "pinned"
	for _, kv := range [][2]string{{"retention.ms", "5000"}, {"segment.ms", "600000"}} {
		cfg := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		cfg.Name, cfg.Value, cfg.Op = kv[0], kmsg.StringPtr(kv[1]), kmsg.IncrementalAlterConfigOpSet
		res.Configs = append(res.Configs, cfg)
	}
	inc.Resources = append(inc.Resources, res)
	ir, err := inc.RequestWith(ctx, kz)
	if err != nil || len(ir.Resources) != 1 || ir.Resources[0].ErrorCode != 0 {
		t.Fatalf("IncrementalAlterConfigs to kzadmind: %+v %v", ir, err)
	}
	want := map[string]string{"retention.ms": "5000", "segment.ms": "600000"}
	c.expectConfig(t, ctx, "topics", "pinned", topicWant{config: want, exactConfig: true})
	c.compareTopicConfigs(t, ctx, "pinned", want)

	alt := kmsg.NewPtrAlterConfigsRequest()
	ares := kmsg.NewAlterConfigsRequestResource()
	ares.ResourceType, ares.ResourceName = kmsg.ConfigResourceTypeTopic, "pinned"
	acfg := kmsg.NewAlterConfigsRequestResourceConfig()
	acfg.Name, acfg.Value = "cleanup.policy", kmsg.StringPtr("compact")
	ares.Configs = append(ares.Configs, acfg)
	alt.Resources = append(alt.Resources, ares)
	ar, err := alt.RequestWith(ctx, kz)
	if err != nil || len(ar.Resources) != 1 || ar.Resources[0].ErrorCode != 0 {
		t.Fatalf("AlterConfigs to kzadmind: %+v %v", ar, err)
	}
	want = map[string]string{"cleanup.policy": "compact"}
	c.expectConfig(t, ctx, "topics", "pinned", topicWant{config: want, exactConfig: true})
	c.compareTopicConfigs(t, ctx, "pinned", want)

	pinnedLimit(t, ctx, c, kz, adm)
}

// pinnedLimit sets max.partitions on the broker default through
// kzadmind, checks a creation over it is refused before anything is
// written, and removes the limit again.
func pinnedLimit(t *testing.T, ctx context.Context, c *cluster, kz kmsg.Requestor, adm *kadm.Client) {
	setLimit := func(value *string) {
		t.Helper()
		req := kmsg.NewPtrIncrementalAlterConfigsRequest()
		res := kmsg.NewIncrementalAlterConfigsRequestResource()
		res.ResourceType, res.ResourceName = kmsg.ConfigResourceTypeBroker, ""
		cfg := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		cfg.Name, cfg.Value, cfg.Op = "max.partitions", value, kmsg.IncrementalAlterConfigOpSet
		if value == nil {
			cfg.Op = kmsg.IncrementalAlterConfigOpDelete
		}
		res.Configs = append(res.Configs, cfg)
		req.Resources = append(req.Resources, res)
		resp, err := req.RequestWith(ctx, kz)
		if err != nil || len(resp.Resources) != 1 || resp.Resources[0].ErrorCode != 0 {
			t.Fatalf("set max.partitions=%v through kzadmind: %+v %v", value, resp, err)
		}
	}
	md, err := kafkatest.Metadata(ctx, c.d.KafkaAddr(), metadataTimeout)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, mt := range md.Topics {
		total += len(mt.Partitions)
	}
	setLimit(kmsg.StringPtr(strconv.Itoa(total + 1)))
	c.expectConfig(t, ctx, "brokers", "<default>", topicWant{config: map[string]string{"max.partitions": strconv.Itoa(total + 1)}})
	r, err := adm.CreateTopic(ctx, 2, 1, nil, "pinned-over")
	if !errors.Is(errOr(err, r.Err), kerr.PolicyViolation) || !strings.HasPrefix(r.ErrMessage, "WILL_EXCEED_PARTITION_LIMITS:") {
		t.Errorf("2 partitions over a limit of %d with %d: %+v %v", total+1, total, r, err)
	}
	if zt, err := c.zkTopic(ctx, "pinned-over"); err != nil || zt != nil {
		t.Errorf("a topic over the limit was written: %+v %v", zt, err)
	}
	setLimit(nil)
	c.expectConfig(t, ctx, "brokers", "<default>", topicWant{exactConfig: true, config: map[string]string{}})
}
