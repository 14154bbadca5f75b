package wireapi

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/kzadmin/kzadmin/zkadmin"
)

// newSarama returns a ClusterAdmin bootstrapped from kzadmind, speaking
// Kafka 3.9 (the brokers' version); timeout is what it gives requests that
// wait (CreateTopics, DeleteTopics, CreatePartitions).
func newSarama(t *testing.T, addr string, timeout time.Duration) sarama.ClusterAdmin {
	t.Helper()
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V3_9_0_0
	cfg.ClientID = "wireapi-sarama"
	cfg.Admin.Timeout = timeout
	adm, err := sarama.NewClusterAdmin([]string{addr}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = adm.Close() })
	return adm
}

// TestSarama drives IBM/sarama's ClusterAdmin against kzadmind over real
// brokers.
func TestSarama(t *testing.T) {
	c := sharedCluster(t)
	ctx := testCtx(t, 2*time.Minute)
	adm := newSarama(t, c.d.KafkaAddr(), 20*time.Second)
	before := c.served.snapshot()

	saramaCreate(t, ctx, c, adm)
	saramaDescribe(t, ctx, c, adm)
	saramaCreatePartitions(t, ctx, c, adm)
	saramaConfigs(t, ctx, c, adm)
	saramaElectAndReassignments(t, adm)

	del := newSarama(t, c.d.KafkaAddr(), deleteTimeout())
	err := del.DeleteTopic("sarama-b")
	c.expectDeleted(t, ctx, "sarama-b", saramaKErr(err))
	if err := del.DeleteTopic("sarama-missing"); !errors.Is(saramaKErr(err), sarama.ErrUnknownTopicOrPartition) {
		t.Errorf("delete sarama-missing: %v", err)
	}
	t.Logf("kzadmind served: %v", c.served.since(before))
}

// saramaKErr digs the Kafka error out of sarama's wrappers, keeping any
// other error as it is.
func saramaKErr(err error) error {
	var te *sarama.TopicError
	if errors.As(err, &te) {
		return te.Err
	}
	var tpe *sarama.TopicPartitionError
	if errors.As(err, &tpe) {
		return tpe.Err
	}
	return err
}

func saramaCreate(t *testing.T, ctx context.Context, c *cluster, adm sarama.ClusterAdmin) {
	err := adm.CreateTopic("sarama-a", &sarama.TopicDetail{NumPartitions: 4, ReplicationFactor: 3,
		ConfigEntries: map[string]*string{"retention.ms": sp("120000")}}, false)
	if err != nil {
		t.Fatal(err)
	}
	c.expectTopic(t, ctx, "sarama-a", topicWant{partitions: 4, rf: 3,
		config: map[string]string{"retention.ms": "120000"}, exactConfig: true})

	// sarama sends -1 counts with an explicit assignment.
	asg := map[int32][]int32{0: {2, 1}, 1: {3, 2}, 2: {1, 3}}
	err = adm.CreateTopic("sarama-b", &sarama.TopicDetail{NumPartitions: -1, ReplicationFactor: -1, ReplicaAssignment: asg}, false)
	if err != nil {
		t.Fatal(err)
	}
	zt := c.expectTopic(t, ctx, "sarama-b", topicWant{partitions: 3, rf: 2, exactConfig: true})
	for _, p := range zt.Partitions {
		if !slices.Equal(p.Replicas, asg[p.ID]) || p.State.Leader != asg[p.ID][0] {
			t.Errorf("sarama-b-%d: replicas %v leader %d, asked %v", p.ID, p.Replicas, p.State.Leader, asg[p.ID])
		}
	}

	err = adm.CreateTopic("sarama-a", &sarama.TopicDetail{NumPartitions: 1, ReplicationFactor: 1}, false)
	if !errors.Is(saramaKErr(err), sarama.ErrTopicAlreadyExists) {
		t.Errorf("create sarama-a again: %v", err)
	}
	err = adm.CreateTopic("sarama-bad", &sarama.TopicDetail{NumPartitions: -1, ReplicationFactor: -1,
		ReplicaAssignment: map[int32][]int32{0: {1, 42}}}, false)
	if !errors.Is(saramaKErr(err), sarama.ErrInvalidReplicaAssignment) {
		t.Errorf("assignment to broker 42: %v", err)
	}
	if err := adm.CreateTopic("sarama-dry", &sarama.TopicDetail{NumPartitions: 2, ReplicationFactor: 2}, true); err != nil {
		t.Errorf("validate only: %v", err)
	}
	for _, name := range []string{"sarama-bad", "sarama-dry"} {
		if zt, err := c.zkTopic(ctx, name); err != nil || zt != nil {
			t.Errorf("%s written: %+v %v", name, zt, err)
		}
	}
}

func saramaDescribe(t *testing.T, ctx context.Context, c *cluster, adm sarama.ClusterAdmin) {
	topics, err := adm.ListTopics()
	if err != nil {
		t.Fatal(err)
	}
	if d := topics["sarama-a"]; d.NumPartitions != 4 || d.ReplicationFactor != 3 || *d.ConfigEntries["retention.ms"] != "120000" {
		t.Errorf("ListTopics sarama-a: %+v", d)
	}
	md, err := adm.DescribeTopics([]string{"sarama-a", "sarama-missing"})
	if err != nil || len(md) != 2 {
		t.Fatalf("DescribeTopics: %+v %v", md, err)
	}
	zt, err := c.zkTopic(ctx, "sarama-a")
	if err != nil {
		t.Fatal(err)
	}
	for _, tm := range md {
		switch tm.Name {
		case "sarama-a":
			checkSaramaTopic(t, tm, zt.Partitions)
		case "sarama-missing":
			if !errors.Is(tm.Err, sarama.ErrUnknownTopicOrPartition) {
				t.Errorf("DescribeTopics sarama-missing: %v", tm.Err)
			}
		}
	}
	brokers, ctl, err := adm.DescribeCluster()
	if err != nil || ctl != controllerID || len(brokers) != numBrokers+1 {
		t.Errorf("DescribeCluster: %d brokers, controller %d, %v", len(brokers), ctl, err)
	}
}

func checkSaramaTopic(t *testing.T, tm *sarama.TopicMetadata, zps []zkadmin.Partition) {
	t.Helper()
	if tm.Err != sarama.ErrNoError || len(tm.Partitions) != len(zps) {
		t.Fatalf("DescribeTopics %s: %v, %d partitions", tm.Name, tm.Err, len(tm.Partitions))
	}
	for _, p := range tm.Partitions {
		zp := zps[p.ID]
		if p.Leader != zp.State.Leader || p.LeaderEpoch != zp.State.LeaderEpoch ||
			!slices.Equal(p.Replicas, zp.Replicas) || !sameSet(p.Isr, zp.State.ISR) {
			t.Errorf("DescribeTopics %s-%d: %+v, ZooKeeper %v %+v", tm.Name, p.ID, p, zp.Replicas, zp.State)
		}
	}
}

func saramaCreatePartitions(t *testing.T, ctx context.Context, c *cluster, adm sarama.ClusterAdmin) {
	if err := adm.CreatePartitions("sarama-a", 6, nil, false); err != nil {
		t.Fatal(err)
	}
	c.expectTopic(t, ctx, "sarama-a", topicWant{partitions: 6, rf: 3})
	if err := adm.CreatePartitions("sarama-b", 4, [][]int32{{3, 1}}, false); err != nil {
		t.Fatal(err)
	}
	zt := c.expectTopic(t, ctx, "sarama-b", topicWant{partitions: 4, rf: 2})
	if p := zt.Partitions[3]; !slices.Equal(p.Replicas, []int32{3, 1}) {
		t.Errorf("sarama-b-3 replicas %v, asked [3 1]", p.Replicas)
	}
	err := adm.CreatePartitions("sarama-b", 2, nil, false)
	if !errors.Is(saramaKErr(err), sarama.ErrInvalidPartitions) {
		t.Errorf("shrink sarama-b: %v", err)
	}
}

func saramaConfigs(t *testing.T, ctx context.Context, c *cluster, adm sarama.ClusterAdmin) {
	described, err := adm.DescribeConfigs([]*sarama.ConfigResource{{Type: sarama.TopicResource, Name: "sarama-a"}},
		sarama.DescribeConfigsOptions{IncludeSynonyms: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(described) != 1 || described[0].ErrorCode != sarama.ErrNoError {
		t.Fatalf("DescribeConfigs sarama-a: %+v", described)
	}
	entries := described[0].Configs
	if !saramaHas(entries, "retention.ms", "120000", sarama.SourceTopic) {
		t.Errorf("DescribeConfig sarama-a lacks retention.ms=120000 (topic): %d entries", len(entries))
	}

	// AlterConfigs replaces every override.
	err = adm.AlterConfig(sarama.TopicResource, "sarama-a", map[string]*string{
		"segment.bytes": sp("10485760"), "min.insync.replicas": sp("2")}, false)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"segment.bytes": "10485760", "min.insync.replicas": "2"}
	c.expectConfig(t, ctx, "topics", "sarama-a", topicWant{config: want, exactConfig: true})
	c.compareTopicConfigs(t, ctx, "sarama-a", want)

	// IncrementalAlterConfigs changes only what it names.
	err = adm.IncrementalAlterConfig(sarama.TopicResource, "sarama-a", map[string]sarama.IncrementalAlterConfigsEntry{
		"min.insync.replicas": {Operation: sarama.IncrementalAlterConfigsOperationDelete},
		"retention.bytes":     {Operation: sarama.IncrementalAlterConfigsOperationSet, Value: sp("1073741824")},
	}, false)
	if err != nil {
		t.Fatal(err)
	}
	want = map[string]string{"segment.bytes": "10485760", "retention.bytes": "1073741824"}
	c.expectConfig(t, ctx, "topics", "sarama-a", topicWant{config: want, exactConfig: true})
	c.compareTopicConfigs(t, ctx, "sarama-a", want)

	err = adm.AlterConfig(sarama.TopicResource, "sarama-a", map[string]*string{"min.insync.replicas": sp("0")}, false)
	if err == nil {
		t.Error("min.insync.replicas=0 accepted")
	}
	c.expectConfig(t, ctx, "topics", "sarama-a", topicWant{config: want, exactConfig: true})
}

func saramaHas(entries []sarama.ConfigEntry, name, value string, src sarama.ConfigSource) bool {
	for _, e := range entries {
		if e.Name == name && e.Value == value && e.Source == src {
			return true
		}
	}
	return false
}

// saramaElectAndReassignments asks for preferred elections where every
// leader is already preferred, and lists reassignments (none).
func saramaElectAndReassignments(t *testing.T, adm sarama.ClusterAdmin) {
	res, err := adm.ElectLeaders(sarama.PreferredElection, map[string][]int32{"sarama-b": {0, 1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	for p, r := range res["sarama-b"] {
		if r.ErrorCode != sarama.ErrElectionNotNeeded {
			t.Errorf("ElectLeaders sarama-b-%d: %v %v", p, r.ErrorCode, r.ErrorMessage)
		}
	}
	if len(res["sarama-b"]) != 3 {
		t.Errorf("ElectLeaders: %d results, want 3", len(res["sarama-b"]))
	}
	st, err := adm.ListPartitionReassignments("sarama-a", []int32{0, 1})
	if err != nil || len(st["sarama-a"]) != 0 {
		t.Errorf("ListPartitionReassignments: %+v %v", st, err)
	}
}

func sp(s string) *string { return &s }
