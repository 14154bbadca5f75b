package controller

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/integration/brokersim"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// benchPartitionsFlag sizes BenchmarkFailover and BenchmarkTakeover; zero
// falls back to $KZADMIN_BENCH_PARTITIONS, then to 10,000.
var benchPartitionsFlag = flag.Int("bench.partitions", 0,
	"partitions for BenchmarkFailover and BenchmarkTakeover (default $KZADMIN_BENCH_PARTITIONS, else 10000)")

// benchPartsPerTopic is the partitions of each benchmark topic.
const benchPartsPerTopic = 50

// benchSize returns the topics (of benchPartsPerTopic partitions) the
// benchmarks lay out.
func benchSize(b *testing.B) int {
	n := *benchPartitionsFlag
	if n == 0 {
		if env := os.Getenv("KZADMIN_BENCH_PARTITIONS"); env != "" {
			v, err := strconv.Atoi(env)
			if err != nil || v <= 0 {
				b.Fatalf("KZADMIN_BENCH_PARTITIONS=%q: want a positive number", env)
			}
			n = v
		}
	}
	if n == 0 {
		n = 10000
	}
	return (n + benchPartsPerTopic - 1) / benchPartsPerTopic
}

// benchDeadline bounds the waits of a benchmark of n partitions: the
// tests' fixed 30 s is what a 100k-partition cold load overran on a
// loaded two-core machine (about 8k getData/s gives 13 s for the reads
// alone, and the sim brokers decode the full LeaderAndIsr and
// UpdateMetadata at the same time), so it grows with the size.
func benchDeadline(n int) time.Duration {
	return 30*time.Second + time.Duration(n/1000)*time.Second
}

// benchWait polls cond until it holds or d has passed; it polls finely,
// since the benchmarks time what it waits for.
func benchWait(b *testing.B, d time.Duration, what string, cond func() bool) {
	b.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			b.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// benchLayout writes topics × benchPartsPerTopic partitions (replication
// factor 3 over brokers 1–3, leader the first replica) with their state
// znodes, as a running cluster leaves them, and returns the state znode
// paths and their data.
func benchLayout(b *testing.B, zk *zkadmin.Client, topics int) (states []string, data [][]byte) {
	b.Helper()
	ctx := testCtx(b)
	var ops []zkadmin.Op
	for ti := range topics {
		name := fmt.Sprintf("t%05d", ti)
		a := znodes.TopicAssignment{Partitions: map[int32][]int32{}}
		for p := range benchPartsPerTopic {
			a.Partitions[int32(p)] = []int32{int32(1 + (ti+p)%3), int32(1 + (ti+p+1)%3), int32(1 + (ti+p+2)%3)}
		}
		id, _ := znodes.NewTopicID(rand.Reader)
		a.TopicID = id
		enc, _ := a.Encode()
		ops = append(ops, zkadmin.CreateOp(znodes.TopicPath(name), enc, zkadmin.Persistent),
			zkadmin.CreateOp(znodes.PartitionsPath(name), nil, zkadmin.Persistent))
		for p := range benchPartsPerTopic {
			r := a.Partitions[int32(p)]
			st, _ := znodes.PartitionState{Leader: r[0], ISR: r, ControllerEpoch: 1}.Encode()
			path := znodes.PartitionStatePath(name, int32(p))
			ops = append(ops, zkadmin.CreateOp(znodes.PartitionPath(name, int32(p)), nil, zkadmin.Persistent),
				zkadmin.CreateOp(path, st, zkadmin.Persistent))
			states, data = append(states, path), append(data, st)
		}
	}
	if _, err := zk.MultiBatched(ctx, ops, zkadmin.BatchOptions{StopOnError: true, MaxInFlight: 1}); err != nil {
		b.Fatalf("write layout: %v", err)
	}
	return states, data
}

// rawBaselines times, on the same ZooKeeper in the same run, what a
// controller's work reduces to: the pipelined getData of every topic and
// state znode (what a cold failover reads), and a batched multi rewrite
// of every state znode with its own content (what re-electing after a
// broker on every partition dies writes, at least). The rewrite bumps
// the versions, which is harmless before the controller starts.
func rawBaselines(b *testing.B, zk *zkadmin.Client, topics int, states []string, data [][]byte) (read, write time.Duration) {
	b.Helper()
	paths := append([]string(nil), states...)
	for ti := range topics {
		paths = append(paths, znodes.TopicPath(fmt.Sprintf("t%05d", ti)))
	}
	start := time.Now()
	for _, r := range zk.GetMany(testCtx(b), paths, 0) {
		if r.Err != nil {
			b.Fatal(r.Err)
		}
	}
	read = time.Since(start)
	ops := make([]zkadmin.Op, len(states))
	for i, p := range states {
		ops[i] = zkadmin.SetOp(p, data[i], zkadmin.AnyVersion)
	}
	start = time.Now()
	if _, err := zk.MultiBatched(testCtx(b), ops, zkadmin.BatchOptions{}); err != nil {
		b.Fatalf("raw rewrite: %v", err)
	}
	return read, time.Since(start)
}

// startBenchBrokers starts the three simulated brokers under chroot.
func startBenchBrokers(b *testing.B, chroot string) *brokersim.Cluster {
	b.Helper()
	var specs []brokersim.BrokerSpec
	for id := int32(1); id <= 3; id++ {
		specs = append(specs, brokersim.BrokerSpec{ID: id, Rack: fmt.Sprintf("rack-%d", id%3)})
	}
	sim, err := brokersim.Start(testCtx(b), brokersim.Options{
		ZooKeeperServers: []string{env.server.Addr()}, Chroot: chroot, Brokers: specs,
		SessionTimeout: benchSessionTimeout, RequestTimeout: 60 * time.Second,
	})
	if err != nil {
		b.Fatalf("start brokers: %v", err)
	}
	b.Cleanup(sim.Close)
	return sim
}

// benchSessionTimeout is the benchmarks' ZooKeeper session timeout: the
// tests' 4 s expired once while a 100k layout was written on a machine
// with a load average of 19.
const benchSessionTimeout = 10 * time.Second

// benchNodeOpts gives the benchmark controllers a request timeout that a
// broker decoding a 100k-partition LeaderAndIsr meets (the tests' 5 s
// would time out and resend it, loading the machine further), and the
// longer session.
func benchNodeOpts(id int32, warm bool, logs *syncBuffer) nodeOpts {
	o := nodeOpts{id: id, warm: warm, timeout: benchSessionTimeout,
		configure: func(c *config.Config) { c.RequestTimeout = 60 * time.Second }}
	if logs != nil {
		o.logLevel, o.logTo = zerolog.InfoLevel, logs
	}
	return o
}

// BenchmarkFailover measures, at 10k partitions by default (-bench.partitions
// or KZADMIN_BENCH_PARTITIONS for more) on three simulated brokers: the
// cold failover (controller start to ready: election, every read, full
// LeaderAndIsr and UpdateMetadata queued) against the raw pipelined
// getData of the same znodes; then leader re-election after a broker on
// every partition dies (until the controller's snapshot shows no partition
// led by it, and the BrokerChange event's processing time, Kafka's
// LeaderElectionRateAndTimeMs) against a raw batched multi rewrite of
// every state znode. Both baselines come from the same run.
//
//	go test -run '^$' -bench Failover -benchtime 1x ./controller/
//	go test -run '^$' -bench Failover -benchtime 1x -timeout 30m ./controller/ -args -bench.partitions=100000
func BenchmarkFailover(b *testing.B) {
	topics := benchSize(b)
	n := topics * benchPartsPerTopic
	for range b.N {
		b.StopTimer()
		chroot := testChroot(b)
		obs := connectZK(b, chroot, "", benchSessionTimeout)
		states, data := benchLayout(b, obs, topics)
		rawRead, rawWrite := rawBaselines(b, obs, topics, states, data)
		sim := startBenchBrokers(b, chroot)
		logs := &syncBuffer{}
		b.StartTimer()

		start := time.Now()
		ctl := startNode(b, chroot, benchNodeOpts(100, false, logs))
		benchWait(b, benchDeadline(n), "controller ready", func() bool { return ctl.c.Status().Ready })
		cold := time.Since(start)
		// The snapshot (what Metadata answers from) is published after
		// the failover event; the re-election below must start from it.
		waitFullSnapshot(b, ctl.c, topics, benchDeadline(n))
		published := time.Since(start)
		b.ReportMetric(float64(cold.Milliseconds()), "cold-failover-ms")
		b.ReportMetric(float64(published.Milliseconds()), "cold-snapshot-ms")
		b.ReportMetric(float64(rawRead.Milliseconds()), "raw-getdata-ms")
		b.ReportMetric(float64(cold)/float64(rawRead), "cold/raw")
		if load, ok := failoverLoad(logs.String()); ok {
			b.ReportMetric(load, "failover-load-ms")
		}

		before := metricSum(b, ctl, "kafka_controller_ControllerStats_LeaderElectionRateAndTimeMs")
		start = time.Now()
		sim.Broker(1).Kill()
		benchWait(b, benchDeadline(n), "no partition led by broker 1", func() bool { return noneLedBy(ctl.c, 1) })
		b.StopTimer()
		b.ReportMetric(float64(time.Since(start).Milliseconds()), "broker-death-to-leaders-ms")
		b.ReportMetric(metricSum(b, ctl, "kafka_controller_ControllerStats_LeaderElectionRateAndTimeMs")-before,
			"broker-change-event-ms")
		b.ReportMetric(float64(rawWrite.Milliseconds()), "raw-multi-rewrite-ms")
		b.ReportMetric(float64(n), "partitions")
		b.Logf("load average at the end: %s", loadAverage())
	}
}

// waitFullSnapshot waits until c publishes an active snapshot with every
// topic.
func waitFullSnapshot(b *testing.B, c *Controller, topics int, d time.Duration) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if _, err := c.WaitSnapshot(ctx, func(v *MetadataView) bool { return v.Active && v.Topics.Len() == topics }); err != nil {
		b.Fatalf("snapshot with %d topics: %v", topics, err)
	}
}

// noneLedBy reports whether the controller's snapshot has no partition
// led by id.
func noneLedBy(c *Controller, id int32) bool {
	for _, tv := range c.Snapshot().Topics.All() {
		for _, pv := range tv.Partitions {
			if pv.Leader == id {
				return false
			}
		}
	}
	return true
}

// failoverLoad extracts the read phase ("load", ms) from the controller's
// "controller failover complete" log line.
func failoverLoad(logs string) (float64, bool) {
	for _, line := range strings.Split(logs, "\n") {
		if !strings.Contains(line, "controller failover complete") {
			continue
		}
		var rec struct {
			Load float64 `json:"load"`
		}
		if json.Unmarshal([]byte(line), &rec) == nil {
			return rec.Load, true
		}
	}
	return 0, false
}

// loadAverage is /proc/loadavg's first three fields ("?" elsewhere).
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// metricSum reads a histogram's sum from the node's registry.
func metricSum(t testing.TB, n *node, name string) float64 {
	t.Helper()
	mfs, err := n.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name && len(mf.GetMetric()) > 0 {
			return mf.GetMetric()[0].GetHistogram().GetSampleSum()
		}
	}
	t.Fatalf("metric %s not found", name)
	return 0
}
