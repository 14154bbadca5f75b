package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/cli"
	"github.com/kzadmin/kzadmin/integration/kafka"
)

// alterDirsRate is the broker config --replica-alter-log-dirs-throttle sets.
const alterDirsRate = "replica.alter.log.dirs.io.max.bytes.per.second"

// TestReassignLogDirsMatchesKafka: a plan whose log_dirs name directories
// moves replicas between the brokers' log directories, and kzadmin (over
// --bootstrap-server) does it as Kafka 3.9's kafka-reassign-partitions
// does, with the same output. Each tool takes one topic through the same
// steps: partition 0 moves from broker 1 to a named directory of broker 2
// (the broker is asked until the reassignment has created the replica
// there), and partition 1, on broker 2, moves to its other directory under
// --replica-alter-log-dirs-throttle 1000, slowly enough (3 MB of records)
// to be seen in progress. verify reports it in progress and keeps the
// throttle (set on broker 2 only); cancel stops the move, which leaves the
// replica where it was; verify then reports it not moving and clears the
// throttle. Each step's output is compared with Kafka's, topic names and
// directories aside.
func TestReassignLogDirsMatchesKafka(t *testing.T) {
	ctx := testCtx(t, 6*time.Minute)
	const fromDir, toDir = "<current dir>", "<other dir>"
	type side struct {
		topic string
		run   func(action string, args ...string) string
	}
	sides := []side{
		{topic: "ld-kafka", run: func(action string, args ...string) string {
			return tool(t, ctx, kafka.ReassignPartitionsCommand, append([]string{"--" + action}, args...)...)
		}},
		{topic: "ld-kzadmin", run: func(action string, args ...string) string {
			t.Helper()
			var out, errOut bytes.Buffer
			code := cli.Run(ctx, append([]string{"reassign", action, "--bootstrap-server", env.kafka.Bootstrap()}, args...),
				&out, &errOut, cli.Options{Terminal: func() bool { return false }})
			if code != 0 {
				t.Fatalf("kzadmin reassign %s: exit %d\n%s%s", action, code, out.String(), errOut.String())
			}
			return out.String()
		}},
	}
	outputs := map[string][]string{}
	for _, s := range sides {
		kzOK(t, ctx, "topics", "create", "--topic", s.topic, "--replica-assignment", "1,2")
		online(t, ctx, s.topic, 2, 1)
		produceTo(t, ctx, s.topic, 1, 3000, 1024)
		current := replicaDirs(t, ctx, 2, s.topic)[1]
		other := otherDir(t, ctx, 2, current.Current)
		plan := writeFile(t, fmt.Sprintf(`{"version":1,"partitions":[`+
			`{"topic":%q,"partition":0,"replicas":[2],"log_dirs":[%q]},`+
			`{"topic":%q,"partition":1,"replicas":[2],"log_dirs":[%q]}]}`, s.topic, other, s.topic, other))
		// One directory's path starts the other's (kafka-logs, kafka-logs-1):
		// the longer is replaced first.
		dirNames := []string{current.Current, fromDir, other, toDir}
		if len(other) > len(current.Current) {
			dirNames = []string{other, toDir, current.Current, fromDir}
		}
		normal := strings.NewReplacer(append([]string{s.topic, "T"}, dirNames...)...)
		record := func(step, out string) {
			var lines []string
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				lines = append(lines, strings.TrimRight(normal.Replace(l), " "))
			}
			outputs[s.topic] = append(outputs[s.topic], "== "+step, strings.Join(lines, "\n"))
		}

		out := s.run("execute", "--reassignment-json-file", plan, "--replica-alter-log-dirs-throttle", "1000")
		for _, want := range []string{
			"Warning: You must run --verify periodically, until the reassignment completes, to ensure the throttle is removed.",
			"The replica-alter-dir throttle limit was set to 1000 B/s",
			"Successfully started moving log directory to " + other + " for replica " + s.topic + "-0 with broker 2",
			"Successfully started moving log directory to " + other + " for replica " + s.topic + "-1 with broker 2",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("%s execute: no %q in\n%s", s.topic, want, out)
			}
		}
		if rates := brokerConfig(t, ctx, alterDirsRate); rates != "2=1000" {
			t.Errorf("%s: %s on brokers %q, want 2=1000", s.topic, alterDirsRate, rates)
		}
		eventually(t, ctx, s.topic+": partition 0 moved, partition 1 moving", time.Minute, func() error {
			for _, p := range describe(t, ctx, s.topic).Partitions {
				if p.Partition == 0 && (ids(p.Replicas) != "[2]" || len(p.Adding)+len(p.Removing) > 0) {
					return fmt.Errorf("partition 0 still being reassigned: %+v", p)
				}
			}
			dirs := replicaDirs(t, ctx, 2, s.topic)
			if dirs[0] != (dirsOf{Current: other}) || dirs[1] != (dirsOf{Current: current.Current, Future: other}) {
				return fmt.Errorf("broker 2 has %+v", dirs)
			}
			return nil
		})
		record("verify while moving", s.run("verify", "--reassignment-json-file", plan))
		if rates := brokerConfig(t, ctx, alterDirsRate); rates != "2=1000" {
			t.Errorf("%s: verify in progress left %s on brokers %q, want 2=1000", s.topic, alterDirsRate, rates)
		}
		record("cancel", s.run("cancel", "--reassignment-json-file", plan))
		eventually(t, ctx, s.topic+": partition 1's move stopped", time.Minute, func() error {
			if d := replicaDirs(t, ctx, 2, s.topic)[1]; d != (dirsOf{Current: current.Current}) {
				return fmt.Errorf("broker 2 has partition 1 at %+v", d)
			}
			return nil
		})
		// Cancel removed the throttles, as Kafka's tool does.
		if rates := brokerConfig(t, ctx, alterDirsRate); rates != "" {
			t.Errorf("%s: cancel left %s on brokers %q", s.topic, alterDirsRate, rates)
		}
		record("verify after cancel", s.run("verify", "--reassignment-json-file", plan))
	}
	kafkaOut, ours := strings.Join(outputs["ld-kafka"], "\n"), strings.Join(outputs["ld-kzadmin"], "\n")
	if kafkaOut != ours {
		t.Errorf("outputs differ\nKafka's tool:\n%s\n\nkzadmin:\n%s", kafkaOut, ours)
	}
	t.Logf("both printed:\n%s", ours)
}

// dirsOf is where a broker keeps a replica: its directory and, while it is
// moved, the future one.
type dirsOf struct{ Current, Future string }

// replicaDirs describes where broker keeps each partition of topic.
func replicaDirs(t *testing.T, ctx context.Context, broker int32, topic string) map[int32]dirsOf {
	t.Helper()
	described, err := env.adm.DescribeBrokerLogDirs(ctx, broker, kadm.TopicsSet{topic: {0: {}, 1: {}}})
	if err != nil {
		t.Fatal(err)
	}
	out := map[int32]dirsOf{}
	for _, d := range described {
		for p, part := range d.Topics[topic] {
			w := out[p]
			if part.IsFuture {
				w.Future = d.Dir
			} else {
				w.Current = d.Dir
			}
			out[p] = w
		}
	}
	return out
}

// otherDir is the log directory of broker that is not dir.
func otherDir(t *testing.T, ctx context.Context, broker int32, dir string) string {
	t.Helper()
	described, err := env.adm.DescribeBrokerLogDirs(ctx, broker, kadm.TopicsSet{})
	if err != nil {
		t.Fatal(err)
	}
	for d := range described {
		if d != dir {
			return d
		}
	}
	t.Fatalf("broker %d has no log directory besides %s: %v", broker, dir, described)
	return ""
}

// produceTo writes n records of size bytes to one partition.
func produceTo(t *testing.T, ctx context.Context, topic string, partition int32, n, size int) {
	t.Helper()
	// Uncompressed, so that the partition's log is n times size bytes.
	cl, err := kgo.NewClient(kgo.SeedBrokers(env.kafka.Addrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerBatchMaxBytes(1<<20), kgo.ProducerBatchCompression(kgo.NoCompression()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	value := bytes.Repeat([]byte("x"), size)
	var records []*kgo.Record
	for range n {
		records = append(records, &kgo.Record{Topic: topic, Partition: partition, Value: value})
	}
	if err := cl.ProduceSync(ctx, records...).FirstErr(); err != nil {
		t.Fatalf("produce to %s-%d: %v", topic, partition, err)
	}
}

// brokerConfig lists the brokers that set key, as "id=value,...".
func brokerConfig(t *testing.T, ctx context.Context, key string) string {
	t.Helper()
	var set []string
	for id := 1; id <= 3; id++ {
		var entities []struct {
			Configs []struct {
				Name  string `json:"name"`
				Value string `json:"value"`
			} `json:"configs"`
		}
		out := kzOK(t, ctx, "configs", "describe", "--entity-type", "brokers", "--entity-name", fmt.Sprint(id), "-o", "json")
		if err := json.Unmarshal([]byte(out), &entities); err != nil || len(entities) != 1 {
			t.Fatalf("configs describe broker %d: %v\n%s", id, err, out)
		}
		for _, c := range entities[0].Configs {
			if c.Name == key {
				set = append(set, fmt.Sprintf("%d=%s", id, c.Value))
			}
		}
	}
	return strings.Join(set, ",")
}

// TestLogDirsDescribeMatchesKafka: kzadmin log-dirs describe prints what
// Kafka 3.9's kafka-log-dirs --describe prints for the same brokers and
// topic: the same two lines, and the same document (directories and
// partitions compared as sets: Kafka's tool prints them in hash order).
func TestLogDirsDescribeMatchesKafka(t *testing.T) {
	ctx := testCtx(t, 3*time.Minute)
	const topic = "ld-describe"
	kzOK(t, ctx, "topics", "create", "--topic", topic, "--replica-assignment", "1:2,2:3,3:1")
	online(t, ctx, topic, 3, 2)
	produceTo(t, ctx, topic, 0, 20, 100)
	// Until the followers have every record: sizes and lags then stay.
	eventually(t, ctx, topic+"-0 replicated", time.Minute, func() error {
		sizes := map[int64]bool{}
		for _, broker := range []int32{1, 2} {
			described, err := env.adm.DescribeBrokerLogDirs(ctx, broker, kadm.TopicsSet{topic: {0: {}}})
			if err != nil {
				return err
			}
			for _, d := range described {
				if p, ok := d.Topics.Lookup(topic, 0); ok {
					sizes[p.Size] = true
				}
			}
		}
		if len(sizes) != 1 || sizes[0] {
			return fmt.Errorf("sizes %v", sizes)
		}
		return nil
	})
	// Every broker, so the controller too (a Kafka broker, which the wire
	// backend must not take for kzadmind); then brokers 1 and 2 by name.
	for _, args := range [][]string{{"--topic-list", topic}, {"--broker-list", "2,1", "--topic-list", topic}} {
		compareLogDirs(t, ctx, args, topic)
	}
}

// compareLogDirs runs kafka-log-dirs --describe and kzadmin log-dirs
// describe with args and compares what they print.
func compareLogDirs(t *testing.T, ctx context.Context, args []string, topic string) {
	t.Helper()
	kafkaOut := tool(t, ctx, kafka.LogDirsCommand, append([]string{"--describe"}, args...)...)
	var out, errOut bytes.Buffer
	if code := cli.Run(ctx, append([]string{"log-dirs", "describe", "--bootstrap-server", env.kafka.Bootstrap()}, args...),
		&out, &errOut, cli.Options{Terminal: func() bool { return false }}); code != 0 {
		t.Fatalf("kzadmin log-dirs describe: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	theirs, ours := logDirsOutput(t, kafkaOut), logDirsOutput(t, out.String())
	if theirs != ours {
		t.Errorf("Kafka's tool:\n%s\nkzadmin:\n%s", theirs, ours)
	}
	if !strings.Contains(ours, topic+"-0") || !strings.Contains(ours, "Received log directory information from brokers 1,2") {
		t.Errorf("kzadmin printed:\n%s", out.String())
	}
	t.Logf("both printed (normalized):\n%s", ours)
}

// printedLogDirs is the document kafka-log-dirs prints.
type printedLogDirs struct {
	Version int                   `json:"version"`
	Brokers []printedBrokerLogDir `json:"brokers"`
}

type printedBrokerLogDir struct {
	Broker  int32 `json:"broker"`
	LogDirs []struct {
		LogDir     string           `json:"logDir"`
		Error      *string          `json:"error"`
		Partitions []map[string]any `json:"partitions"`
	} `json:"logDirs"`
}

// logDirsOutput is kafka-log-dirs' output with its document's lists
// sorted.
func logDirsOutput(t *testing.T, out string) string {
	t.Helper()
	lines := strings.SplitN(strings.TrimSpace(out), "\n", 3)
	if len(lines) != 3 {
		t.Fatalf("not kafka-log-dirs output:\n%s", out)
	}
	var doc printedLogDirs
	if err := json.Unmarshal([]byte(lines[2]), &doc); err != nil {
		t.Fatalf("document %q: %v", lines[2], err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n%s\nversion %d\n", lines[0], lines[1], doc.Version)
	slices.SortFunc(doc.Brokers, func(x, y printedBrokerLogDir) int { return int(x.Broker - y.Broker) })
	for _, br := range doc.Brokers {
		var dirs []string
		for _, d := range br.LogDirs {
			var ps []string
			for _, p := range d.Partitions {
				ps = append(ps, fmt.Sprintf("%v size=%v lag=%v future=%v", p["partition"], p["size"], p["offsetLag"], p["isFuture"]))
			}
			slices.Sort(ps)
			errText := "null"
			if d.Error != nil {
				errText = *d.Error
			}
			dirs = append(dirs, fmt.Sprintf("  %s error=%s %v", d.LogDir, errText, ps))
		}
		slices.Sort(dirs)
		fmt.Fprintf(&b, "broker %d\n%s\n", br.Broker, strings.Join(dirs, "\n"))
	}
	return b.String()
}
