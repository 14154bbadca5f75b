package wireapi

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kzadmin/kzadmin/integration/kafka"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// TestJavaToolsUnderMutationQuota: with a controller mutation quota of
// 10 partitions/s on client id quota-tool (a bucket of 110), kadm takes
// the bucket to -100 with one creation of 210 partitions, and its next
// creation is refused with THROTTLING_QUOTA_EXCEEDED. Kafka's kafka-topics,
// with the same client id, is refused too: it asks the AdminClient not to
// retry on a quota violation, and reports Kafka's exception. Run again
// until it succeeds, it creates the topic, and not before the bucket is
// back at zero, 10 s after kadm's creation (KIP-599).
func TestJavaToolsUnderMutationQuota(t *testing.T) {
	kafka.SkipIfHeavyDisabled(t)
	ctx := testCtx(t, 4*time.Minute)
	d := startDevDaemon(t, ctx)
	cl, err := kgo.NewClient(kgo.SeedBrokers(d.KafkaAddr()), kgo.ClientID("quota-tool"), kgo.RequestRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	alter := kadm.AlterClientQuotaEntry{
		Entity: []kadm.ClientQuotaEntityComponent{{Type: "client-id", Name: new("quota-tool")}},
		Ops:    []kadm.AlterClientQuotaOp{{Key: "controller_mutation_rate", Value: 10}},
	}
	if res, err := adm.AlterClientQuotas(ctx, []kadm.AlterClientQuotaEntry{alter}); err != nil || res[0].Err != nil {
		t.Fatalf("set the quota: %v %+v", err, res)
	}
	if res, err := adm.CreateTopic(ctx, 210, 1, nil, "mq-big"); err != nil || res.Err != nil {
		t.Fatalf("create 210 partitions on a full bucket: %v / %v", err, res.Err)
	}
	emptied := time.Now()
	if res, _ := adm.CreateTopic(ctx, 1, 1, nil, "mq-refused"); !errors.Is(res.Err, kerr.ThrottlingQuotaExceeded) {
		t.Fatalf("create below zero: %v, want THROTTLING_QUOTA_EXCEEDED", res.Err)
	}

	cc := filepath.Join(t.TempDir(), "tool.properties")
	if err := os.WriteFile(cc, []byte("client.id=quota-tool\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	create := func() (string, error) {
		stdout, stderr, err := kafka.RunTool(ctx, kafka.TopicCommand, "--bootstrap-server", d.KafkaAddr(), "--command-config", cc,
			"--create", "--topic", "mq-java", "--partitions", "1", "--replication-factor", "1")
		return stdout + stderr, err
	}
	out, err := create()
	if err == nil {
		t.Fatalf("kafka-topics passed with the bucket below zero:\n%s", out)
	}
	outputHas(t, out, "ThrottlingQuotaExceededException: The throttling quota has been exceeded.")
	err = poll(ctx, time.Minute, func() error {
		if out, err = create(); err != nil {
			return fmt.Errorf("kafka-topics: %w\n%s", err, out)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	outputHas(t, out, "Created topic mq-java.")

	zkc, err := zkadmin.Connect(ctx, zkadmin.Options{Servers: d.ZooKeeperServers()})
	if err != nil {
		t.Fatal(err)
	}
	defer zkc.Close()
	_, st, err := zkc.Get(ctx, znodes.TopicPath("mq-java"))
	if err != nil {
		t.Fatalf("mq-java's znode: %v", err)
	}
	// ZooKeeper runs on this machine: its clock is ours. The bucket was
	// at -100 when kadm's answer came; at 10/s it reaches zero 10 s
	// later, and no creation of this client id passes before (1 s of
	// slack for the znode's millisecond stamp and the recording time).
	if created := time.UnixMilli(st.Ctime); created.Before(emptied.Add(9 * time.Second)) {
		t.Fatalf("mq-java was created %s after the bucket emptied, before it refilled", created.Sub(emptied))
	}
	if ok, _, err := zkc.Exists(ctx, znodes.TopicPath("mq-refused")); err != nil || ok {
		t.Fatalf("the refused topic exists: %v %v", ok, err)
	}
	// The metrics count kadm's refusal and at least the tool's first, and
	// the 211 partitions created under the quota.
	families, err := d.Metrics().Gather()
	if err != nil {
		t.Fatal(err)
	}
	counters := map[string]float64{}
	for _, f := range families {
		if len(f.GetMetric()) == 1 && f.GetMetric()[0].GetCounter() != nil {
			counters[f.GetName()] = f.GetMetric()[0].GetCounter().GetValue()
		}
	}
	if counters["kzadmin_controller_mutation_throttled_total"] < 2 || counters["kzadmin_controller_mutation_partitions_total"] != 211 {
		t.Fatalf("metrics: throttled %v, partitions %v", counters["kzadmin_controller_mutation_throttled_total"],
			counters["kzadmin_controller_mutation_partitions_total"])
	}
}
