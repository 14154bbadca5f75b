package smoke

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kzadmin/kzadmin/integration/kafka"
	"github.com/kzadmin/kzadmin/integration/kafkatest"
	"github.com/kzadmin/kzadmin/integration/waitfor"
	"github.com/kzadmin/kzadmin/integration/zkserver"
)

const (
	topic      = "smoke"
	partitions = 3
	records    = 1000
)

// startCluster starts ZooKeeper and three brokers (chroot /smoke, racks
// r1..r3) and waits until Kafka's controller has told every broker about
// the others.
func startCluster(t *testing.T, ctx context.Context) *kafka.Cluster {
	t.Helper()
	began := time.Now()
	zks, err := zkserver.Start(ctx, zkserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { zks.Close() })
	t.Logf("zookeeper on %s up in %s", zks.Addr(), time.Since(began).Round(time.Millisecond))

	c, controller, took := kafkatest.StartBrokers(t, ctx, kafkatest.BrokerSet{
		ZooKeeper: zks.Addr() + "/smoke", Count: 3, Wait: time.Minute,
		Options: kafka.ClusterOptions{Broker: kafka.BrokerOptions{OffsetsReplicationFactor: 3}},
	})
	for _, b := range c.Brokers {
		t.Logf("broker %d (rack %s) on %s started in %s", b.ID(), b.Rack(), b.Addr(), b.StartDuration().Round(time.Millisecond))
	}
	t.Logf("cluster of 3 ready in %s; Kafka elected broker %d controller", took, controller)
	return c
}

func TestSmokeProduceConsume(t *testing.T) {
	kafka.SkipIfHeavyDisabled(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	c := startCluster(t, ctx)

	adm, err := kadm.NewOptClient(kgo.SeedBrokers(c.Addrs()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(adm.Close)
	if _, err := adm.CreateTopic(ctx, partitions, 3, nil, topic); err != nil {
		t.Fatalf("create topic %s: %v", topic, err)
	}
	waitTopicOnline(t, ctx, adm)

	sent := produce(t, ctx, c)
	got := consume(t, ctx, c)
	for p := range int32(partitions) {
		if len(sent[p]) == 0 {
			t.Errorf("no record hashed to partition %d; keys did not spread", p)
		}
		if !slices.Equal(got[p], sent[p]) {
			t.Errorf("partition %d: consumed %d records %v..., produced %d %v...", p, len(got[p]), head(got[p]), len(sent[p]), head(sent[p]))
		}
	}

	began := time.Now()
	out, _, err := kafka.RunTool(ctx, kafka.TopicCommand, "--bootstrap-server", c.Bootstrap(), "--describe", "--topic", topic)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("kafka-topics --describe ran in %s", time.Since(began).Round(time.Millisecond))
	for _, want := range []string{"PartitionCount: 3", "ReplicationFactor: 3"} {
		if !strings.Contains(out, want) {
			t.Fatalf("kafka-topics --describe lacks %q:\n%s", want, out)
		}
	}
}

// waitTopicOnline waits until every partition has a leader and all three
// replicas in sync.
func waitTopicOnline(t *testing.T, ctx context.Context, adm *kadm.Client) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	err := pollUntil(ctx, func() error {
		_, err := kafkatest.TopicOnline(ctx, adm, topic, partitions, 3)
		return err
	})
	if err != nil {
		t.Fatalf("topic %s not online: %v", topic, err)
	}
}

// produce sends records keyed so that they spread over the partitions and
// returns, per partition, the values in the order they were produced. The
// producer is idempotent (franz-go's default, acks=all), so the broker must
// give them offsets 0, 1, 2, ... in that order.
func produce(t *testing.T, ctx context.Context, c *kafka.Cluster) map[int32][]int {
	t.Helper()
	recs := make([]*kgo.Record, records)
	for i := range recs {
		recs[i] = &kgo.Record{Key: []byte("key-" + strconv.Itoa(i)), Value: []byte(strconv.Itoa(i))}
	}
	began := time.Now()
	if err := kafkatest.Produce(ctx, c.Addrs(), topic, recs); err != nil {
		t.Fatal(err)
	}
	t.Logf("produced %d records in %s", records, time.Since(began).Round(time.Millisecond))
	// recs is in produce order, and each record now carries its partition
	// and offset.
	sent := make(map[int32][]int)
	for i, r := range recs {
		if want := int64(len(sent[r.Partition])); r.Offset != want {
			t.Fatalf("record %d stored at partition %d offset %d, want offset %d", i, r.Partition, r.Offset, want)
		}
		sent[r.Partition] = append(sent[r.Partition], i)
	}
	return sent
}

// consume reads the topic from the start without a group until it has all
// the records, checking that each partition's offsets run 0, 1, 2, ...
func consume(t *testing.T, ctx context.Context, c *kafka.Cluster) map[int32][]int {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	began := time.Now()
	got := make(map[int32][]int)
	n := 0
	rd := kafkatest.Reader{Addrs: c.Addrs(), Topic: topic, Logf: t.Logf}
	err := rd.Until(ctx, func() bool { return n >= records }, func(r *kgo.Record) error {
		if want := int64(len(got[r.Partition])); r.Offset != want {
			return fmt.Errorf("partition %d: offset %d, want %d", r.Partition, r.Offset, want)
		}
		v, err := strconv.Atoi(string(r.Value))
		if err != nil || string(r.Key) != "key-"+string(r.Value) {
			return fmt.Errorf("partition %d offset %d: bad record key %q value %q", r.Partition, r.Offset, r.Key, r.Value)
		}
		got[r.Partition] = append(got[r.Partition], v)
		n++
		return nil
	})
	if err != nil {
		t.Fatalf("consumed %d of %d records: %v", n, records, err)
	}
	t.Logf("consumed %d records in %s", n, time.Since(began).Round(time.Millisecond))
	return got
}

// pollUntil polls check until it succeeds; ctx's deadline bounds it.
func pollUntil(ctx context.Context, check func() error) error {
	return waitfor.Until(ctx, time.Hour, 100*time.Millisecond, check)
}

func head(vs []int) []int { return vs[:min(len(vs), 5)] }
