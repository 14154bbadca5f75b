package handler

import (
	"errors"
	"strings"
	"testing"

	"github.com/IBM/sarama"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kzadmin/kzadmin/znodes"
)

// TestE2EKadm drives the handlers with franz-go's kadm and checks what
// ZooKeeper holds after each call.
func TestE2EKadm(t *testing.T) {
	e := newE2E(t)
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.addr))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	adm := kadm.NewClient(cl)
	kadmCreate(t, e, adm)
	kadmAlter(t, e, adm)
	kadmLimits(t, e, adm)
}

// kadmCreate creates topics and reads them back.
func kadmCreate(t *testing.T, e *e2e, adm *kadm.Client) {
	ctx := e.ctx
	created, err := adm.CreateTopics(ctx, 3, 2, map[string]*string{"retention.ms": kadm.StringPtr("1000")}, "a", "b")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b"} {
		r := created[name]
		if r.Err != nil || r.NumPartitions != 3 || r.ReplicationFactor != 2 || r.ID == (kadm.TopicID{}) {
			t.Fatalf("create %s: %+v", name, r)
		}
		if zt := e.zkTopic(name); zt == nil || [16]byte(r.ID) != zt.TopicID {
			t.Errorf("%s: response id %v, ZooKeeper %+v", name, r.ID, zt)
		}
		e.checkTopic(name, 3, 2)
		if cfg := e.zkConfig(znodes.EntityTopics, name); cfg["retention.ms"] != "1000" {
			t.Errorf("%s config in ZooKeeper: %v", name, cfg)
		}
	}
	again, err := adm.CreateTopic(ctx, 1, 1, nil, "a")
	if !errors.Is(err, kerr.TopicAlreadyExists) && !errors.Is(again.Err, kerr.TopicAlreadyExists) {
		t.Errorf("re-create: %+v %v", again, err)
	}

	// Metadata and ListTopics answer from the (simulated) controller.
	topics, err := adm.ListTopics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(topics) != 2 || len(topics["a"].Partitions) != 3 || topics["a"].Partitions[0].Leader < 1 {
		t.Errorf("ListTopics: %+v", topics)
	}
	md, err := adm.Metadata(ctx, "b", "missing")
	if err != nil {
		t.Fatal(err)
	}
	if md.Controller != selfID || md.Topics["missing"].Err == nil || md.Topics["b"].Err != nil {
		t.Errorf("Metadata: controller %d, topics %+v", md.Controller, md.Topics)
	}
}

// kadmAlter adds partitions, validates a creation and deletes a topic.
func kadmAlter(t *testing.T, e *e2e, adm *kadm.Client) {
	ctx := e.ctx

	// CreatePartitions continues the placement; ZooKeeper has the result.
	cp, err := adm.CreatePartitions(ctx, 2, "a")
	if err != nil || cp["a"].Err != nil {
		t.Fatalf("CreatePartitions: %+v %v", cp, err)
	}
	e.checkTopic("a", 5, 2)

	// validateOnly writes nothing.
	vr, err := adm.ValidateCreateTopics(ctx, 2, 1, nil, "dry")
	if err != nil || vr["dry"].Err != nil || vr["dry"].NumPartitions != 2 {
		t.Errorf("ValidateCreateTopics: %+v %v", vr, err)
	}
	if e.zkTopic("dry") != nil {
		t.Error("validateOnly created the topic")
	}

	// DeleteTopics queues the deletion in ZooKeeper.
	dr, err := adm.DeleteTopics(ctx, "b")
	if err != nil || dr["b"].Err != nil {
		t.Fatalf("DeleteTopics: %+v %v", dr, err)
	}
	if !e.zkExists(znodes.DeleteTopicPath("b")) {
		t.Error("no deletion marker for b")
	}
	// A fresh client: kgo answers Metadata from its cache for a while.
	fresh, err := kgo.NewClient(kgo.SeedBrokers(e.addr))
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	if md, err := kadm.NewClient(fresh).Metadata(ctx, "b"); err != nil ||
		!errors.Is(md.Topics["b"].Err, kerr.UnknownTopicOrPartition) {
		t.Errorf("deleted topic still visible: %+v %v", md.Topics, err)
	}
}

// kadmLimits sets max.partitions through the wire and runs into it.
func kadmLimits(t *testing.T, e *e2e, adm *kadm.Client) {
	ctx := e.ctx

	// The cluster-wide limit, set through the wire, applies at once and
	// before anything is written.
	ar, err := adm.AlterBrokerConfigs(ctx, []kadm.AlterConfig{{Name: "max.partitions", Value: kadm.StringPtr("9")}})
	if err != nil || ar[0].Err != nil {
		t.Fatalf("AlterBrokerConfigs: %+v %v", ar, err)
	}
	if cfg := e.zkConfig(znodes.EntityBrokers, znodes.DefaultEntityName); cfg["max.partitions"] != "9" {
		t.Errorf("broker defaults in ZooKeeper: %v", cfg)
	}
	lim, err := adm.CreateTopic(ctx, 2, 1, nil, "over") // 5 (a) + 3 (b, being deleted) + 2 > 9
	if err == nil {
		err = lim.Err
	}
	if !errors.Is(err, kerr.PolicyViolation) || !strings.HasPrefix(lim.ErrMessage, "WILL_EXCEED_PARTITION_LIMITS:") {
		t.Errorf("over the limit: %+v %v", lim, err)
	}
	if e.zkTopic("over") != nil {
		t.Error("a topic over the limit was written")
	}
	rc, err := adm.DescribeTopicConfigs(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if v, err := rc.On("a", nil); err != nil || len(v.Configs) == 0 {
		t.Errorf("DescribeTopicConfigs: %+v %v", v, err)
	}
}

// TestE2ESarama drives the handlers with IBM/sarama's ClusterAdmin.
func TestE2ESarama(t *testing.T) {
	e := newE2E(t)
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V3_6_0_0
	adm, err := sarama.NewClusterAdmin([]string{e.addr}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = adm.Close() })
	saramaCreate(t, e, adm)
	saramaAlter(t, e, adm)
}

// saramaCreate creates topics and reads them back.
func saramaCreate(t *testing.T, e *e2e, adm sarama.ClusterAdmin) {
	if err := adm.CreateTopic("s1", &sarama.TopicDetail{NumPartitions: 2, ReplicationFactor: 3}, false); err != nil {
		t.Fatal(err)
	}
	e.checkTopic("s1", 2, 3)
	// sarama sends both counts and an assignment: the assignment wins.
	asg := &sarama.TopicDetail{NumPartitions: 1, ReplicationFactor: 1,
		ReplicaAssignment: map[int32][]int32{0: {2, 1}, 1: {3, 2}}}
	if err := adm.CreateTopic("s2", asg, false); err != nil {
		t.Fatal(err)
	}
	if zt := e.zkTopic("s2"); zt == nil || len(zt.Partitions) != 2 || zt.Partitions[1][0] != 3 {
		t.Errorf("s2 in ZooKeeper: %+v", zt)
	}
	err := adm.CreateTopic("s3", &sarama.TopicDetail{NumPartitions: -1, ReplicationFactor: -1,
		ReplicaAssignment: map[int32][]int32{0: {9}}}, false)
	var te *sarama.TopicError
	if !errors.As(err, &te) || te.Err != sarama.ErrInvalidReplicaAssignment {
		t.Errorf("assignment to an unknown broker: %v", err)
	}

	topics, err := adm.ListTopics()
	if err != nil {
		t.Fatal(err)
	}
	if len(topics) != 2 || topics["s1"].NumPartitions != 2 || topics["s1"].ReplicationFactor != 3 {
		t.Errorf("ListTopics: %+v", topics)
	}
	md, err := adm.DescribeTopics([]string{"s1"})
	if err != nil || len(md) != 1 || len(md[0].Partitions) != 2 || md[0].Err != sarama.ErrNoError {
		t.Errorf("DescribeTopics: %+v %v", md, err)
	}
	brokers, ctl, err := adm.DescribeCluster()
	if err != nil || ctl != selfID || len(brokers) != 4 {
		t.Errorf("DescribeCluster: %d brokers, controller %d, %v", len(brokers), ctl, err)
	}
}

// saramaAlter adds partitions, alters and describes configs, and deletes.
func saramaAlter(t *testing.T, e *e2e, adm sarama.ClusterAdmin) {

	if err := adm.CreatePartitions("s1", 4, nil, false); err != nil {
		t.Fatal(err)
	}
	e.checkTopic("s1", 4, 3)
	if err := adm.AlterConfig(sarama.TopicResource, "s1", map[string]*string{"retention.ms": sp("5")}, false); err != nil {
		t.Fatal(err)
	}
	if c := e.zkConfig(znodes.EntityTopics, "s1"); c["retention.ms"] != "5" {
		t.Errorf("s1 config in ZooKeeper: %v", c)
	}
	described, err := adm.DescribeConfigs([]*sarama.ConfigResource{{Type: sarama.TopicResource, Name: "s1"}},
		sarama.DescribeConfigsOptions{IncludeSynonyms: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(described) != 1 || described[0].ErrorCode != sarama.ErrNoError {
		t.Fatalf("DescribeConfigs s1: %+v", described)
	}
	entries := described[0].Configs
	found := false
	for _, c := range entries {
		found = found || (c.Name == "retention.ms" && c.Value == "5" && c.Source == sarama.SourceTopic)
	}
	if !found {
		t.Errorf("DescribeConfig: %+v", entries)
	}
	if err := adm.DeleteTopic("s2"); err != nil {
		t.Fatal(err)
	}
	if !e.zkExists(znodes.DeleteTopicPath("s2")) {
		t.Error("no deletion marker for s2")
	}
}
