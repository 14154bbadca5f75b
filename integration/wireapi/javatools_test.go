package wireapi

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/integration/kafka"
)

// TestJavaAdminClient runs Kafka 3.9's own kafka-topics and kafka-configs
// (the Java AdminClient) against kzadmind, bootstrapped once from
// kzadmind's listener and once from a broker's. The AdminClient sends
// CreateTopics, CreatePartitions and DeleteTopics to the controller named
// in Metadata (kzadmind either way), and Metadata, DescribeConfigs and
// IncrementalAlterConfigs to whichever node it likes; the log says which
// node served what.
func TestJavaAdminClient(t *testing.T) {
	c := sharedCluster(t)
	ctx := testCtx(t, 3*time.Minute)
	for _, via := range []struct{ name, topic, addr string }{
		{"kzadmind", "java-kz", c.d.KafkaAddr()},
		{"broker 2", "java-broker", c.brokers[2]},
	} {
		t.Run("bootstrap "+via.name, func(t *testing.T) {
			j := &javaRun{t: t, ctx: ctx, c: c, bootstrap: via.addr}
			javaTopics(t, ctx, c, j, via.topic)
			javaConfigs(t, ctx, c, j, via.topic)
			javaDelete(t, ctx, c, j, via.topic)
		})
	}
}

// javaRun runs the tools with one bootstrap address.
type javaRun struct {
	t         *testing.T
	ctx       context.Context
	c         *cluster
	bootstrap string
}

// run runs a tool and returns its stdout, logging which requests kzadmind
// served for it; failure is an error, not fatal.
func (j *javaRun) run(class string, args ...string) (string, error) {
	j.t.Helper()
	before := j.c.served.snapshot()
	began := time.Now()
	out, _, err := kafka.RunTool(j.ctx, class, append([]string{"--bootstrap-server", j.bootstrap}, args...)...)
	short := class[strings.LastIndexByte(class, '.')+1:]
	j.t.Logf("%s %s (%s): kzadmind served %v", short, strings.Join(args, " "),
		time.Since(began).Round(time.Millisecond), j.c.served.since(before))
	return out, err
}

// must runs a tool and fails the test if it fails.
func (j *javaRun) must(class string, args ...string) string {
	j.t.Helper()
	out, err := j.run(class, args...)
	if err != nil {
		j.t.Fatal(err)
	}
	return out
}

func javaTopics(t *testing.T, ctx context.Context, c *cluster, j *javaRun, topic string) {
	out := j.must(kafka.TopicCommand, "--create", "--topic", topic, "--partitions", "3",
		"--replication-factor", "3", "--config", "retention.ms=86400000")
	if !strings.Contains(out, "Created topic "+topic) {
		t.Errorf("kafka-topics --create said: %q", out)
	}
	c.expectTopic(t, ctx, topic, topicWant{partitions: 3, rf: 3,
		config: map[string]string{"retention.ms": "86400000"}, exactConfig: true})

	if _, err := j.run(kafka.TopicCommand, "--create", "--topic", topic, "--partitions", "1"); err == nil ||
		!strings.Contains(err.Error(), "already exists") {
		t.Errorf("kafka-topics --create of an existing topic: %v", err)
	}

	j.must(kafka.TopicCommand, "--alter", "--topic", topic, "--partitions", "5")
	zt := c.expectTopic(t, ctx, topic, topicWant{partitions: 5, rf: 3})

	desc := parseTopicDescribe(t, j.must(kafka.TopicCommand, "--describe", "--topic", topic))
	if desc.partitionCount != 5 || desc.rf != 3 || desc.configs["retention.ms"] != "86400000" {
		t.Errorf("kafka-topics --describe: %+v", desc)
	}
	for _, zp := range zt.Partitions {
		d, ok := desc.partitions[zp.ID]
		if !ok || d.leader != zp.State.Leader || !slices.Equal(d.replicas, zp.Replicas) || !sameSet(d.isr, zp.State.ISR) {
			t.Errorf("kafka-topics --describe %s-%d: %+v, ZooKeeper %v %+v", topic, zp.ID, d, zp.Replicas, zp.State)
		}
	}
	list := j.must(kafka.TopicCommand, "--list")
	if !slices.Contains(strings.Fields(list), topic) {
		t.Errorf("kafka-topics --list lacks %s: %q", topic, list)
	}
}

func javaConfigs(t *testing.T, ctx context.Context, c *cluster, j *javaRun, topic string) {
	entity := []string{"--entity-type", "topics", "--entity-name", topic}
	j.must(kafka.ConfigCommand, append(entity, "--alter", "--add-config", "retention.ms=1000,max.message.bytes=2000000")...)
	want := map[string]string{"retention.ms": "1000", "max.message.bytes": "2000000"}
	c.expectConfig(t, ctx, "topics", topic, topicWant{config: want, exactConfig: true})

	j.must(kafka.ConfigCommand, append(entity, "--alter", "--delete-config", "max.message.bytes")...)
	want = map[string]string{"retention.ms": "1000"}
	c.expectConfig(t, ctx, "topics", topic, topicWant{config: want, exactConfig: true})
	c.compareTopicConfigs(t, ctx, topic, want)

	out := j.must(kafka.ConfigCommand, append(entity, "--describe")...)
	if !strings.Contains(out, "Dynamic configs for topic "+topic) || !strings.Contains(out, "retention.ms=1000 sensitive=false") ||
		strings.Contains(out, "max.message.bytes=") {
		t.Errorf("kafka-configs --describe:\n%s", out)
	}
}

func javaDelete(t *testing.T, ctx context.Context, c *cluster, j *javaRun, topic string) {
	props := filepath.Join(t.TempDir(), "admin.properties")
	ms := strconv.FormatInt(deleteTimeout().Milliseconds()+3000, 10)
	if err := os.WriteFile(props, []byte("default.api.timeout.ms="+ms+"\nrequest.timeout.ms="+ms+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := j.run(kafka.TopicCommand, "--command-config", props, "--delete", "--topic", topic)
	var respErr error
	if err != nil {
		respErr = err
		if !deletionCarriedOut && strings.Contains(err.Error(), "TimeoutException") {
			respErr = nil // the tool's way of saying REQUEST_TIMED_OUT
			t.Logf("kafka-topics --delete timed out, as expected while deletions are not carried out")
		}
	}
	c.expectDeleted(t, ctx, topic, respErr)
}

// topicDescription is what kafka-topics --describe printed for one topic.
type topicDescription struct {
	partitionCount, rf int
	configs            map[string]string
	partitions         map[int32]describedPartition
}

type describedPartition struct {
	leader        int32
	replicas, isr []int32
}

var (
	describeHeader = regexp.MustCompile(`^Topic: (\S+)\s+TopicId: \S+\s+PartitionCount: (\d+)\s+ReplicationFactor: (\d+)\s+Configs: ?(.*)$`)
	describeLine   = regexp.MustCompile(`^\s*Topic: \S+\s+Partition: (\d+)\s+Leader: (-?\d+|none)\s+Replicas: ([\d,]*)\s+Isr: ([\d,]*)`)
)

func parseTopicDescribe(t *testing.T, out string) topicDescription {
	t.Helper()
	d := topicDescription{configs: map[string]string{}, partitions: map[int32]describedPartition{}}
	for _, line := range strings.Split(out, "\n") {
		if m := describeHeader.FindStringSubmatch(line); m != nil {
			d.partitionCount, _ = strconv.Atoi(m[2])
			d.rf, _ = strconv.Atoi(m[3])
			for _, kv := range strings.Split(m[4], ",") {
				if k, v, ok := strings.Cut(kv, "="); ok {
					d.configs[k] = v
				}
			}
		} else if m := describeLine.FindStringSubmatch(line); m != nil {
			p, _ := strconv.Atoi(m[1])
			leader := int32(-1)
			if m[2] != "none" {
				l, _ := strconv.Atoi(m[2])
				leader = int32(l)
			}
			d.partitions[int32(p)] = describedPartition{leader: leader, replicas: ints(m[3]), isr: ints(m[4])}
		}
	}
	if d.partitionCount == 0 {
		t.Fatalf("kafka-topics --describe printed no topic:\n%s", out)
	}
	return d
}

func ints(csv string) []int32 {
	var out []int32
	for _, f := range strings.Split(csv, ",") {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, int32(n))
		}
	}
	return out
}
