package cli_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/integration/kafka"
	"github.com/kzadmin/kzadmin/integration/kafkatest"
	"github.com/kzadmin/kzadmin/znodes"
)

// describedTopic is the part of 'kzadmin topics describe -o json' the tests read.
type describedTopic struct {
	Name       string            `json:"name"`
	ID         string            `json:"topic_id"`
	Configs    map[string]string `json:"configs"`
	Error      string            `json:"error"`
	Partitions []struct {
		Partition int32   `json:"partition"`
		Leader    int32   `json:"leader"`
		Replicas  []int32 `json:"replicas"`
		ISR       []int32 `json:"isr"`
		Adding    []int32 `json:"adding_replicas"`
		Removing  []int32 `json:"removing_replicas"`
	} `json:"partitions"`
}

func describe(t *testing.T, ctx context.Context, topic string) describedTopic {
	t.Helper()
	var d struct{ Topics []describedTopic }
	out := kzOK(t, ctx, "topics", "describe", "--topic", topic, "-o", "json")
	if err := json.Unmarshal([]byte(out), &d); err != nil || len(d.Topics) != 1 {
		t.Fatalf("describe %s: %v\n%s", topic, err, out)
	}
	return d.Topics[0]
}

// online waits until Kafka's metadata shows every partition of topic with a
// leader and a full ISR, and returns the metadata.
func online(t *testing.T, ctx context.Context, topic string, partitions, rf int) kafkaTopic {
	t.Helper()
	var got kafkaTopic
	eventually(t, ctx, "topic "+topic+" online in Kafka's metadata", time.Minute, func() error {
		td, err := kafkatest.TopicOnline(ctx, env.adm, topic, partitions, rf)
		if err != nil {
			return err
		}
		got = kafkaTopic{id: td.ID, replicas: map[int32][]int32{}}
		for _, p := range td.Partitions {
			got.replicas[p.Partition] = p.Replicas
		}
		return nil
	})
	return got
}

type kafkaTopic struct {
	id       [16]byte
	replicas map[int32][]int32
}

// A topic created by kzadmin (config and assignment znodes, nothing else)
// is picked up by Kafka's controller, keeps kzadmin's topic id and
// placement, and serves produce and consume.
func TestKzadminTopicServesProduceConsume(t *testing.T) {
	ctx := testCtx(t, 3*time.Minute)
	kzOK(t, ctx, "topics", "create", "--topic", "kz-orders", "--partitions", "3", "--replication-factor", "3",
		"--config", "min.insync.replicas=2")
	began := time.Now()
	md := online(t, ctx, "kz-orders", 3, 3)
	t.Logf("Kafka's controller brought kzadmin's topic online in %s", time.Since(began).Round(time.Millisecond))
	d := describe(t, ctx, "kz-orders")
	id, err := znodes.ParseUUID(d.ID)
	if err != nil || [16]byte(id) != md.id {
		t.Errorf("topic id: kzadmin %s, Kafka %x (%v)", d.ID, md.id, err)
	}
	for _, p := range d.Partitions {
		if !slices.Equal(p.Replicas, md.replicas[p.Partition]) || p.Leader < 0 || len(p.ISR) != 3 {
			t.Errorf("partition %d: kzadmin sees %+v, Kafka replicas %v", p.Partition, p, md.replicas[p.Partition])
		}
	}

	const n = 300
	recs := make([]*kgo.Record, n)
	for i := range recs {
		recs[i] = &kgo.Record{Key: []byte("k" + strconv.Itoa(i)), Value: []byte(strconv.Itoa(i))}
	}
	if err := kafkatest.Produce(ctx, env.kafka.Addrs(), "kz-orders", recs); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	rd := kafkatest.Reader{Addrs: env.kafka.Addrs(), Topic: "kz-orders"}
	err = rd.Until(ctx, func() bool { return len(seen) >= n }, func(r *kgo.Record) error {
		seen[string(r.Value)] = true
		return nil
	})
	if err != nil {
		t.Fatalf("consumed %d of %d: %v", len(seen), n, err)
	}
}

// Topics and configs written by Kafka's own tools (through Kafka's
// controller) read back correctly in kzadmin.
func TestKafkaToolsWritesReadByKzadmin(t *testing.T) {
	ctx := testCtx(t, 4*time.Minute)
	tool(t, ctx, kafka.TopicCommand, "--create", "--topic", "kt", "--partitions", "2", "--replication-factor", "2",
		"--config", "retention.ms=12345")
	tool(t, ctx, kafka.ConfigCommand, "--alter", "--entity-type", "topics", "--entity-name", "kt", "--add-config", "segment.ms=99999")
	tool(t, ctx, kafka.ConfigCommand, "--alter", "--entity-type", "brokers", "--entity-default", "--add-config", "log.cleaner.backoff.ms=16000")
	md := online(t, ctx, "kt", 2, 2)

	d := describe(t, ctx, "kt")
	id, err := znodes.ParseUUID(d.ID)
	if err != nil || [16]byte(id) != md.id || d.Error != "" {
		t.Errorf("topic id: kzadmin %s (%s), Kafka %x", d.ID, d.Error, md.id)
	}
	if d.Configs["retention.ms"] != "12345" || d.Configs["segment.ms"] != "99999" || len(d.Partitions) != 2 {
		t.Errorf("kzadmin reads %+v", d)
	}
	for _, p := range d.Partitions {
		if !slices.Equal(p.Replicas, md.replicas[p.Partition]) || p.Leader != p.ISR[0] && !slices.Contains(p.ISR, p.Leader) {
			t.Errorf("partition %d: %+v vs Kafka %v", p.Partition, p, md.replicas[p.Partition])
		}
	}
	out := kzOK(t, ctx, "configs", "describe", "--entity-type", "brokers", "--entity-default")
	if !strings.Contains(out, "log.cleaner.backoff.ms") || !strings.Contains(out, "16000") {
		t.Errorf("broker defaults:\n%s", out)
	}
	// kzadmin's own checks see the topic too.
	_, errOut, code := kz(t, ctx, "topics", "create", "--topic", "kt", "--partitions", "1", "--replication-factor", "1")
	if code != 1 || !strings.Contains(errOut, "Topic 'kt' already exists.") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// kzadmin's config changes reach the brokers through the change
// notification: DescribeConfigs shows the topic's retention.ms, a lowered
// max.message.bytes makes the partition leader refuse a large record, and a
// cluster-wide broker default shows up as a dynamic default on a broker.
func TestKzadminConfigChangeAppliedByBrokers(t *testing.T) {
	ctx := testCtx(t, 3*time.Minute)
	kzOK(t, ctx, "topics", "create", "--topic", "kz-cfg", "--partitions", "1", "--replication-factor", "2")
	online(t, ctx, "kz-cfg", 1, 2)
	cl, err := kgo.NewClient(kgo.SeedBrokers(env.kafka.Addrs()...), kgo.DefaultProduceTopic("kz-cfg"),
		kgo.RecordRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	// Random bytes, so that compression cannot shrink the record below the limit.
	big := func() *kgo.Record {
		v := make([]byte, 4000)
		rand.Read(v)
		return &kgo.Record{Value: v}
	}
	if err := cl.ProduceSync(ctx, big()).FirstErr(); err != nil {
		t.Fatalf("produce before the change: %v", err)
	}

	began := time.Now()
	kzOK(t, ctx, "configs", "alter", "--entity-type", "topics", "--entity-name", "kz-cfg",
		"--add-config", "retention.ms=3600000,max.message.bytes=1024")
	eventually(t, ctx, "retention.ms in DescribeConfigs", 30*time.Second, func() error {
		rcs, err := env.adm.DescribeTopicConfigs(ctx, "kz-cfg")
		if err != nil {
			return err
		}
		return wantConfig(rcs[0].Configs, "retention.ms", "3600000", kmsg.ConfigSourceDynamicTopicConfig)
	})
	eventually(t, ctx, "the leader applying max.message.bytes=1024", 30*time.Second, func() error {
		err := cl.ProduceSync(ctx, big()).FirstErr()
		if errors.Is(err, kerr.MessageTooLarge) {
			return nil
		}
		return fmt.Errorf("produce of 4000 bytes: %v", err)
	})
	t.Logf("brokers applied kzadmin's topic config change in %s", time.Since(began).Round(time.Millisecond))

	kzOK(t, ctx, "configs", "alter", "--entity-type", "brokers", "--entity-default", "--add-config", "log.retention.ms=7200000")
	eventually(t, ctx, "log.retention.ms as a dynamic default on broker 2", 30*time.Second, func() error {
		rcs, err := env.adm.DescribeBrokerConfigs(ctx, 2)
		if err != nil {
			return err
		}
		return wantConfig(rcs[0].Configs, "log.retention.ms", "7200000", kmsg.ConfigSourceDynamicDefaultBrokerConfig)
	})
}

func wantConfig(cfgs []kadmConfig, key, value string, source kmsg.ConfigSource) error {
	for _, c := range cfgs {
		if c.Key != key {
			continue
		}
		if c.Value == nil || *c.Value != value || c.Source != source {
			v := "<nil>"
			if c.Value != nil {
				v = *c.Value
			}
			return fmt.Errorf("%s=%s from %v", key, v, c.Source)
		}
		return nil
	}
	return fmt.Errorf("%s not described", key)
}

type kadmConfig = kadm.Config
