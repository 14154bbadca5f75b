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
	cases := []struct {
		name  string
		addr  string
		req   kmsg.Request
		conns int
	}{
		{"kzadmind/ApiVersions", kz, apiVersions(), mdConns},
		{"kzadmind/Metadata-1-topic", kz, one, mdConns},
		{"kzadmind/Metadata-all-10k-topics", kz, all, mdConns},
		{"kzadmind/Metadata-all-10k-topics-unloaded", kz, all, 1},
		{"brokersim/Metadata-1-topic", sim, one, mdConns},
		{"brokersim/Metadata-all-10k-topics", sim, all, mdConns},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				before := loadAvg()
				lat, size := load(b, c.addr, c.req, c.conns)
				b.Logf("load average %s before, %s after", before, loadAvg())
				reportLatency(b, c.name, lat, size, c.conns)
			}
		})
	}
}

func mdRequest(topics ...string) *kmsg.MetadataRequest {
	req := kmsg.NewPtrMetadataRequest()
	req.SetVersion(12)
	if topics != nil {
		for _, name := range topics {
			t := kmsg.NewMetadataRequestTopic()
			t.Topic = kmsg.StringPtr(name)
			req.Topics = append(req.Topics, t)
		}
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

// load runs conns closed-loop connections sending req for mdDuration (and
// at least mdMinSamples requests in all), and returns every latency and
// the response size.
func load(b *testing.B, addr string, req kmsg.Request, conns int) ([]time.Duration, int) {
	b.Helper()
	var mu sync.Mutex
	var all []time.Duration
	size := 0
	var wg sync.WaitGroup
	deadline := time.Now().Add(mdDuration)
	for range conns {
		c, err := dialRaw(addr, req)
		if err != nil {
			b.Fatal(err)
		}
		wg.Go(func() {
			defer c.Close()
			var lat []time.Duration
			last := 0
			for i := 0; time.Now().Before(deadline) || i < mdMinSamples/conns; i++ {
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
			all, size = append(all, lat...), last
			mu.Unlock()
		})
	}
	wg.Wait()
	return all, size
}

func reportLatency(b *testing.B, name string, lat []time.Duration, size, conns int) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	q := func(f float64) time.Duration { return lat[min(len(lat)-1, int(f*float64(len(lat))))] }
	var sum time.Duration
	for _, l := range lat {
		sum += l
	}
	rate := float64(len(lat)) / (sum.Seconds() / float64(conns))
	b.ReportMetric(float64(q(0.50).Microseconds()), "p50-µs")
	b.ReportMetric(float64(q(0.99).Microseconds()), "p99-µs")
	b.ReportMetric(float64(q(0.999).Microseconds()), "p99.9-µs")
	b.ReportMetric(rate, "req/s")
	b.ReportMetric(0, "ns/op")
	b.Logf("%s: %d requests over %d connections, response %d bytes: p50 %s, p99 %s, p99.9 %s, max %s, %.0f req/s",
		name, len(lat), conns, size, q(0.50), q(0.99), q(0.999), lat[len(lat)-1], rate)
}
