package bench

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"runtime/pprof"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/zkadmin"
)

// createScenario is one shape of topic creation.
type createScenario struct {
	name       string
	topics     int
	partitions int
	rf         int
	conns      int // connections sending at once
	perRequest int // topics per CreateTopics request
}

// createScenarios: many small topics and a few large ones, each from one
// connection and from eight at once, and the small ones in one request.
var createScenarios = []createScenario{
	{name: "400topics-x10p-1conn", topics: 400, partitions: 10, rf: 3, conns: 1, perRequest: 10},
	{name: "400topics-x10p-8conns", topics: 400, partitions: 10, rf: 3, conns: 8, perRequest: 10},
	// All in one request, as kadm's and the Java AdminClient's createTopics
	// send a collection: the client-side counterpart of the raw baseline's
	// batching.
	{name: "400topics-x10p-1request", topics: 400, partitions: 10, rf: 3, conns: 1, perRequest: 400},
	{name: "8topics-x1000p-1conn", topics: 8, partitions: 1000, rf: 3, conns: 1, perRequest: 1},
	{name: "8topics-x1000p-8conns", topics: 8, partitions: 1000, rf: 3, conns: 8, perRequest: 1},
}

// warmFor: a ZooKeeper JVM just started compiles its hot paths for about
// 12 s on this 2-core machine (its C2 compiler thread alone took 60-70% of
// a core meanwhile), which slowed both sides of the comparison. A
// deployed ZooKeeper has long finished, so measurement starts after it.
var warmFor = flag.Duration("bench.warm", 15*time.Second, "keep warming ZooKeeper up this long before measuring")

// apiProfile: go test's -cpuprofile covers the warm-up and the raw side
// too; this profiles only the timed API sides, where our CPU time is
// what the comparison charges.
var apiProfile = flag.String("bench.apiprofile", "", "write a CPU profile of the timed API sides only to this file")

// BenchmarkCreateTopics measures topic creation through CreateTopics (v7,
// timeout 120 s, so each answer means leaders are elected) against the
// same znodes written raw to the same ZooKeeper, batched as a bulk writer
// would (the target's baseline), and, for reference, written raw in the
// shape of the scenario's requests.
func BenchmarkCreateTopics(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	e := startEnv(b, ctx, nil)
	raw, err := zkadmin.Connect(ctx, zkadmin.Options{Servers: []string{e.zk.Addr()}, Chroot: "/raw"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(raw.Close)
	if err := raw.EnsureTopLevelPaths(ctx); err != nil {
		b.Fatal(err)
	}
	// Warm up ZooKeeper's JVM, and our paths, with a scenario of each
	// shape, raw and through the API, untimed: otherwise the first raw
	// write runs cold and flatters whatever is compared with it.
	warmFrom := time.Now()
	for round := 0; round == 0 || time.Since(warmFrom) < *warmFor; round++ {
		for _, sc := range createScenarios {
			if sc.conns == 1 {
				writeRaw(b, ctx, raw, sc, fmt.Sprintf("warm%d-%s", round, sc.name))
				createViaAPI(b, ctx, e.d.KafkaAddr(), sc, fmt.Sprintf("warm%d-%s", round, sc.name))
			}
		}
	}
	b.Logf("warmed up for %s", time.Since(warmFrom).Round(time.Millisecond))
	profiling := startAPIProfile(b)
	for _, sc := range createScenarios {
		runs := 0 // the framework may call the function more than once: names must not repeat
		b.Run(sc.name, func(b *testing.B) {
			b.StopTimer()
			var ratios, shaped []float64
			for range b.N {
				prefix := fmt.Sprintf("%s-%d", sc.name, runs)
				runs++
				// Raw first, so that it does not run while the controller
				// is still telling the brokers about the API's topics.
				// Each side starts on collected heaps: this process holds
				// kzadmind and the simulated brokers, and ZooKeeper's JVM
				// has its own; a collection of either otherwise lands on
				// one side or the other at random (in ZooKeeper, up to
				// 500 ms of CPU against sides of about 100 ms).
				collectHeaps(b, e.zk.Pid())
				clock := cpuClock{zkPid: e.zk.Pid()}
				cpu0, pk0 := clock.now(), zkPackets(e.zk.Addr())
				rawTook, znodes := writeRaw(b, ctx, raw, sc, prefix)
				rawCPU, rawPackets := clock.now().since(cpu0), zkPackets(e.zk.Addr())-pk0-1
				shapedTook := writeShapedRaw(b, ctx, raw, sc, prefix+"-shaped")
				before := e.d.Controller().Snapshot().Topics.Len()
				load := loadAvg()
				collectHeaps(b, e.zk.Pid())
				cpu1, pk1, ph1 := clock.now(), zkPackets(e.zk.Addr()), readPhases(e.d.Metrics())
				b.StartTimer()
				profiling.resume()
				apiTook, failed := createViaAPI(b, ctx, e.d.KafkaAddr(), sc, prefix)
				profiling.pause()
				b.StopTimer()
				apiCPU, apiPackets := clock.now().since(cpu1), zkPackets(e.zk.Addr())-pk1-1
				b.Logf("load average %s before, %s after; raw side %s, %d ZooKeeper requests; API side %s, %d ZooKeeper requests; %s",
					load, loadAvg(), rawCPU, rawPackets, apiCPU, apiPackets, readPhases(e.d.Metrics()).since(ph1))
				ratios = append(ratios, report(b, sc, apiTook, rawTook, znodes, before, failed))
				shaped = append(shaped, 100*shapedTook.Seconds()/apiTook.Seconds())
				b.Logf("%s: raw shaped like the requests (one multi each, %d connections) took %s, %.0f%% of the batched raw rate; "+
					"the API reached %.0f%% of it", sc.name, sc.conns, shapedTook.Round(time.Millisecond),
					100*rawTook.Seconds()/shapedTook.Seconds(), 100*shapedTook.Seconds()/apiTook.Seconds())
			}
			// Both rates move with the disk and the other tenants of the
			// machine: with -benchtime Nx, the median of the N ratios.
			slices.Sort(ratios)
			med := ratios[len(ratios)/2]
			b.ReportMetric(med, "median-api/raw-%")
			slices.Sort(shaped)
			b.ReportMetric(shaped[len(shaped)/2], "median-api/raw-shaped-%")
			if len(ratios) > 1 {
				b.Logf("%s: API at %.0f%% of raw, median of %d runs (each %v); at %.0f%% of raw shaped like the requests (each %v)",
					sc.name, med, len(ratios), roundAll(ratios), shaped[len(shaped)/2], roundAll(shaped))
			}
		})
	}
}

// createViaAPI sends the scenario's topics over sc.conns connections and
// returns the time until the last answer and the topics that failed (the
// errors are logged: a benchmark reports them rather than failing).
func createViaAPI(b *testing.B, ctx context.Context, addr string, sc createScenario, prefix string) (time.Duration, int) {
	b.Helper()
	var batches [][]string
	for i := 0; i < sc.topics; i += sc.perRequest {
		var names []string
		for j := i; j < min(i+sc.perRequest, sc.topics); j++ {
			names = append(names, fmt.Sprintf("%s-%05d", prefix, j))
		}
		batches = append(batches, names)
	}
	nodes := make([]*kgo.Broker, sc.conns)
	for c := range nodes {
		cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.RequestTimeoutOverhead(5*time.Minute))
		if err != nil {
			b.Fatal(err)
		}
		defer cl.Close()
		nodes[c] = cl.SeedBrokers()[0]
		// Connect (ApiVersions) before the clock starts.
		if _, err := nodes[c].Request(ctx, kmsg.NewPtrApiVersionsRequest()); err != nil {
			b.Fatal(err)
		}
	}
	began := time.Now()
	var wg sync.WaitGroup
	var mu sync.Mutex
	failed := map[string]int{}
	for c, node := range nodes {
		wg.Go(func() {
			for k := c; k < len(batches); k += len(nodes) {
				errs, err := createBatch(ctx, node, batches[k], sc)
				if err != nil {
					b.Error(err)
					return
				}
				mu.Lock()
				for _, e := range errs {
					failed[e]++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	took := time.Since(began)
	n := 0
	for e, k := range failed {
		b.Logf("%s: %d topics failed: %s", sc.name, k, e)
		n += k
	}
	return took, n
}

// createBatch sends one CreateTopics and returns the failed topics'
// errors; err is set when the request itself failed.
func createBatch(ctx context.Context, node *kgo.Broker, names []string, sc createScenario) (failed []string, err error) {
	req := kmsg.NewPtrCreateTopicsRequest()
	req.TimeoutMillis = 120000
	for _, name := range names {
		t := kmsg.NewCreateTopicsRequestTopic()
		t.Topic, t.NumPartitions, t.ReplicationFactor = name, int32(sc.partitions), int16(sc.rf)
		req.Topics = append(req.Topics, t)
	}
	kresp, err := node.Request(ctx, req)
	if err != nil {
		return nil, err
	}
	for _, t := range kresp.(*kmsg.CreateTopicsResponse).Topics {
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
			msg := ""
			if t.ErrorMessage != nil {
				msg = *t.ErrorMessage
			}
			failed = append(failed, fmt.Sprintf("%v %q", err, msg))
		}
	}
	return failed, nil
}

// rawTopicsFor is the scenario's topics, named after prefix, placed over
// the benchmark's brokers.
func rawTopicsFor(sc createScenario, prefix string) rawTopics {
	brokers := make([]int32, numBrokers)
	for i := range brokers {
		brokers[i] = int32(i + 1)
	}
	return rawTopics{prefix: prefix, topics: sc.topics, partitions: sc.partitions, rf: sc.rf,
		brokers: brokers, config: map[string]string{}, controllerEpoch: 1}
}

// writeRaw writes the scenario's znodes under the /raw chroot and returns
// the time and the znode count.
func writeRaw(b *testing.B, ctx context.Context, raw *zkadmin.Client, sc createScenario, prefix string) (time.Duration, int) {
	b.Helper()
	took, n, err := rawTopicsFor(sc, prefix).write(ctx, raw)
	if err != nil {
		b.Fatal(err)
	}
	return took, n
}

// writeShapedRaw writes the scenario's znodes shaped like its requests
// (see rawTopics.writeShaped) and returns the time taken.
func writeShapedRaw(b *testing.B, ctx context.Context, raw *zkadmin.Client, sc createScenario, prefix string) time.Duration {
	b.Helper()
	took, _, err := rawTopicsFor(sc, prefix).writeShaped(ctx, raw, sc.perRequest, sc.conns)
	if err != nil {
		b.Fatal(err)
	}
	return took
}

// roundAll rounds percentages for the log.
func roundAll(xs []float64) []int {
	out := make([]int, len(xs))
	for i, x := range xs {
		out[i] = int(math.Round(x))
	}
	return out
}

// report prints and records the figures, and returns the API rate as a
// percentage of the raw one; the API rate counts only the partitions of
// topics created successfully.
func report(b *testing.B, sc createScenario, apiTook, rawTook time.Duration, znodes, existing, failed int) float64 {
	parts := float64((sc.topics - failed) * sc.partitions)
	b.ReportMetric(float64(failed), "failed-topics")
	api := parts / apiTook.Seconds()
	raw := float64(sc.topics*sc.partitions) / rawTook.Seconds()
	b.ReportMetric(api, "api-partitions/s")
	b.ReportMetric(raw, "raw-partitions/s")
	b.ReportMetric(100*api/raw, "api/raw-%")
	b.ReportMetric(0, "ns/op")
	b.Logf("%s (RF %d, %d connections, %d topics per request, %d topics in the cluster before): API %d partitions in %s = %.0f partitions/s; "+
		"raw %d znodes in %s = %.0f partitions/s (%.0f znodes/s); API at %.0f%% of raw (target 50%%; Kafka's ZK controller ~170 partitions/s)",
		sc.name, sc.rf, sc.conns, sc.perRequest, existing, int(parts), apiTook.Round(time.Millisecond), api,
		znodes, rawTook.Round(time.Millisecond), raw, float64(znodes)/rawTook.Seconds(), 100*api/raw)
	return 100 * api / raw
}

// apiProfiler writes one CPU profile per timed API side, to
// <-bench.apiprofile>.<n>; `go tool pprof` merges the files it is given.
type apiProfiler struct {
	b    *testing.B
	path string
	n    int
	f    *os.File
}

func startAPIProfile(b *testing.B) *apiProfiler { return &apiProfiler{b: b, path: *apiProfile} }

func (p *apiProfiler) resume() {
	if p.path == "" {
		return
	}
	f, err := os.Create(fmt.Sprintf("%s.%d", p.path, p.n))
	if err != nil {
		p.b.Fatal(err)
	}
	p.n++
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		p.b.Fatal(err)
	}
	p.f = f
}

func (p *apiProfiler) pause() {
	if p.f == nil {
		return
	}
	pprof.StopCPUProfile()
	if err := p.f.Close(); err != nil {
		p.b.Fatal(err)
	}
	p.f = nil
}
