package bench

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/zkadmin"
)

const (
	mdTopics     = 10000
	mdPartitions = 3
	mdConns      = 8               // concurrent connections under load, each closed-loop
	mdDuration   = 4 * time.Second // per case
	mdMinSamples = 400             // per case, however long it takes
)

// BenchmarkMetadata measures Metadata v12 latency under load from mdConns
// connections on a cluster of 10,000 topics of 3 partitions (RF 3), loaded
// by kzadmind at start-up from znodes written raw.
func BenchmarkMetadata(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	brokers := make([]int32, numBrokers)
	for i := range brokers {
		brokers[i] = int32(i + 1)
	}
	rt := rawTopics{prefix: "md", topics: mdTopics, partitions: mdPartitions, rf: 3,
		brokers: brokers, config: map[string]string{}, controllerEpoch: 0}
	began := time.Now()
	e := startEnv(b, ctx, func(ctx context.Context, zkc *zkadmin.Client) error {
		_, _, err := rt.write(ctx, zkc)
		return err
	})
	sim := e.sim.Broker(1).Addr()
	waitAllTopics(b, ctx, e.d.KafkaAddr(), sim)
	b.Logf("cluster of %d topics x %d partitions written, loaded and served in %s",
		mdTopics, mdPartitions, time.Since(began).Round(time.Millisecond))

	one := mdRequest(rt.name(4242))
	all := mdRequest()
	kz := e.d.KafkaAddr()
	// rate 0 is closed-loop: each connection sends its next request as
	// soon as the last is answered, which saturates the machine (client
	// and server share its 2 cores), so the tail is the queue's. A rate
	// is open-loop: requests go out on a fixed schedule spread over the
	// connections. Latency counts from the send; how late the sends were
	// against the schedule is reported beside it (a stalled server delays
	// a connection's later sends, which shows there, not hidden).
	cases := []struct {
		name  string
		addr  string
		req   kmsg.Request
		conns int
		rate  int // requests per second in all; 0 closed-loop
	}{
		{"kzadmind/ApiVersions", kz, apiVersions(), mdConns, 0},
		{"kzadmind/Metadata-1-topic", kz, one, mdConns, 0},
		{"kzadmind/ApiVersions-5k/s", kz, apiVersions(), mdConns, 5000},
		{"kzadmind/Metadata-1-topic-5k/s", kz, one, mdConns, 5000},
		{"kzadmind/ApiVersions-20k/s", kz, apiVersions(), mdConns, 20000},
		{"kzadmind/Metadata-1-topic-20k/s", kz, one, mdConns, 20000},
		{"kzadmind/Metadata-all-10k-topics", kz, all, mdConns, 0},
		{"kzadmind/Metadata-all-10k-topics-unloaded", kz, all, 1, 0},
		{"brokersim/Metadata-1-topic", sim, one, mdConns, 0},
		{"brokersim/Metadata-all-10k-topics", sim, all, mdConns, 0},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				before := loadAvg()
				r := load(b, c.addr, c.req, c.conns, c.rate)
				b.Logf("load average %s before, %s after", before, loadAvg())
				reportLatency(b, c.name, r, c.conns)
			}
		})
	}
}

func mdRequest(topics ...string) *kmsg.MetadataRequest {
	req := kmsg.NewPtrMetadataRequest()
	req.SetVersion(12)
	for _, name := range topics {
		t := kmsg.NewMetadataRequestTopic()
		t.Topic = kmsg.StringPtr(name)
		req.Topics = append(req.Topics, t)
	}
	return req
}

func apiVersions() *kmsg.ApiVersionsRequest {
	req := kmsg.NewPtrApiVersionsRequest()
	req.SetVersion(3)
	req.ClientSoftwareName, req.ClientSoftwareVersion = "kzadmin-bench", "0"
	return req
}

// waitAllTopics waits until kzadmind and the simulated broker both answer
// Metadata with every topic, each partition led.
func waitAllTopics(b *testing.B, ctx context.Context, addrs ...string) {
	b.Helper()
	for _, addr := range addrs {
		cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
		if err != nil {
			b.Fatal(err)
		}
		err = poll(ctx, 10*time.Minute, func() error {
			kresp, err := cl.SeedBrokers()[0].Request(ctx, mdRequest())
			if err != nil {
				return err
			}
			led := 0
			for _, t := range kresp.(*kmsg.MetadataResponse).Topics {
				for _, p := range t.Partitions {
					if p.Leader >= 0 {
						led++
					}
				}
			}
			if led != mdTopics*mdPartitions {
				return fmt.Errorf("%s: %d of %d partitions led", addr, led, mdTopics*mdPartitions)
			}
			return nil
		})
		cl.Close()
		if err != nil {
			b.Fatal(err)
		}
	}
}

// loadResult is what one load run measured.
type loadResult struct {
	lat  []time.Duration // every request's latency
	lag  []time.Duration // paced runs: how late each send was
	size int             // the response's size
	took time.Duration
}

// load runs conns connections sending req for mdDuration (and at least
// mdMinSamples requests in all), closed-loop when rate is 0 and otherwise
// paced to rate requests per second in all.
func load(b *testing.B, addr string, req kmsg.Request, conns, rate int) loadResult {
	b.Helper()
	var mu sync.Mutex
	var res loadResult
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(mdDuration)
	var every time.Duration // a connection's interval between sends
	if rate > 0 {
		every = time.Duration(int64(time.Second) * int64(conns) / int64(rate))
	}
	for k := range conns {
		c, err := dialRaw(addr, req)
		if err != nil {
			b.Fatal(err)
		}
		wg.Go(func() {
			defer c.Close()
			var lat, lag []time.Duration
			last := 0
			// Connections start staggered, so that the schedule is even.
			next := start.Add(every * time.Duration(k) / time.Duration(conns))
			for i := 0; time.Now().Before(deadline) || i < mdMinSamples/conns; i++ {
				if rate > 0 {
					time.Sleep(time.Until(next)) // pacing, not synchronisation
					lag = append(lag, max(0, time.Since(next)))
					next = next.Add(every)
				}
				began := time.Now()
				n, err := c.roundTrip()
				if err != nil {
					b.Error(err)
					return
				}
				lat = append(lat, time.Since(began))
				last = n
			}
			mu.Lock()
			res.lat, res.lag, res.size = append(res.lat, lat...), append(res.lag, lag...), last
			mu.Unlock()
		})
	}
	wg.Wait()
	res.took = time.Since(start)
	return res
}

func reportLatency(b *testing.B, name string, r loadResult, conns int) {
	lat := r.lat
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	rate := float64(len(lat)) / r.took.Seconds()
	b.ReportMetric(float64(quantile(lat, 0.50).Microseconds()), "p50-µs")
	b.ReportMetric(float64(quantile(lat, 0.99).Microseconds()), "p99-µs")
	b.ReportMetric(float64(quantile(lat, 0.999).Microseconds()), "p99.9-µs")
	b.ReportMetric(rate, "req/s")
	b.ReportMetric(0, "ns/op")
	paced := ""
	if len(r.lag) > 0 {
		slices.Sort(r.lag)
		b.ReportMetric(float64(quantile(r.lag, 0.99).Microseconds()), "send-lag-p99-µs")
		paced = fmt.Sprintf("; sends late against the schedule p50 %s, p99 %s",
			quantile(r.lag, 0.50), quantile(r.lag, 0.99))
	}
	b.Logf("%s: %d requests over %d connections, response %d bytes: p50 %s, p99 %s, p99.9 %s, max %s, %.0f req/s%s",
		name, len(lat), conns, r.size, quantile(lat, 0.50), quantile(lat, 0.99), quantile(lat, 0.999),
		lat[len(lat)-1], rate, paced)
}

// quantile returns the q-quantile of sorted, which is not empty.
func quantile(sorted []time.Duration, q float64) time.Duration {
	return sorted[min(len(sorted)-1, int(q*float64(len(sorted))))]
}
