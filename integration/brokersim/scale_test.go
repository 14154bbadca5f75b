package brokersim

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

const (
	scaleBrokers    = 100
	scalePartitions = 100_000
	scaleTopics     = 100 // 1000 partitions each
)

// scaleLayout spreads partitions over brokers 0..n-1 with RF 3: partition
// i of the layout has replicas i, i+1, i+2 (mod n), led by the first.
func scaleLayout(n, partitions, topics int, leaderEpoch int32) []part {
	perTopic := partitions / topics
	out := make([]part, 0, partitions)
	for i := range partitions {
		r := []int32{int32(i % n), int32((i + 1) % n), int32((i + 2) % n)}
		out = append(out, part{topic: fmt.Sprintf("t%03d", i/perTopic), partition: int32(i % perTopic),
			topicID: [16]byte{byte(i / perTopic), 1}, leader: r[0], leaderEpoch: leaderEpoch,
			isr: r, replicas: r, zkVersion: leaderEpoch})
	}
	return out
}

// perBroker splits a layout into one LeaderAndIsr per broker, as the
// controller's batch does.
func perBroker(layout []part, n int, leaderEpoch int32) []*kmsg.LeaderAndISRRequest {
	byBroker := make([][]part, n)
	for _, p := range layout {
		for _, r := range p.replicas {
			byBroker[r] = append(byBroker[r], p)
		}
	}
	out := make([]*kmsg.LeaderAndISRRequest, n)
	for id, parts := range byBroker {
		out[id] = lairReq(-1, 1, parts...)
	}
	return out
}

// sendAll sends reqs[i] to brokers[i] with at most 8 in flight.
func sendAll(tb testing.TB, brokers []*Broker, reqs func(i int) kmsg.Request) {
	tb.Helper()
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	errs := make(chan error, len(brokers))
	for i, b := range brokers {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			c, err := dialKafka(context.Background(), b.Addr(), "scale", 5*time.Minute)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			if _, err := c.RoundTrip(context.Background(), reqs(i)); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		tb.Fatal(err)
	}
}

// TestScale registers 100 brokers, applies a LeaderAndIsr of 100k
// partitions (RF 3) spread over them, then sends every broker an
// UpdateMetadata with all 100k partitions, and reports the times and the
// heap held.
func TestScale(t *testing.T) {
	if testing.Short() {
		t.Skip("scale test")
	}
	ids := make([]int32, scaleBrokers)
	for i := range ids {
		ids[i] = int32(i)
	}
	start := time.Now()
	c := startCluster(t, Options{Brokers: specs(ids...), StartConcurrency: 16})
	t.Logf("registered %d brokers in %v", scaleBrokers, time.Since(start).Round(time.Millisecond))
	brokers := c.Brokers()

	layout := scaleLayout(scaleBrokers, scalePartitions, scaleTopics, 1)
	lairs := perBroker(layout, scaleBrokers, 1)
	start = time.Now()
	sendAll(t, brokers, func(i int) kmsg.Request { return lairs[i] })
	t.Logf("LeaderAndIsr of %d partitions (RF 3) over %d brokers applied in %v",
		scalePartitions, scaleBrokers, time.Since(start).Round(time.Millisecond))
	for _, b := range brokers {
		snap := b.Snapshot()
		if len(snap.Partitions) != 3*scalePartitions/scaleBrokers || len(snap.Leaders()) != scalePartitions/scaleBrokers ||
			snap.PendingAlterPartitions != 0 {
			t.Fatalf("broker %d: %d partitions, %d leaders, %d pending", b.ID(), len(snap.Partitions),
				len(snap.Leaders()), snap.PendingAlterPartitions)
		}
	}
	if raceEnabled {
		return // the full UpdateMetadata fan-out takes minutes under -race
	}
	um := umReq(-1, 1, -1, brokerEntries(brokers...), layout...)
	heapBefore := heapInUse()
	start = time.Now()
	sendAll(t, brokers, func(int) kmsg.Request { return um })
	elapsed := time.Since(start)
	um, lairs, layout = nil, nil, nil
	t.Logf("UpdateMetadata of %d partitions to %d brokers in %v; metadata caches hold %d MiB",
		scalePartitions, scaleBrokers, elapsed.Round(time.Millisecond), (heapInUse()-heapBefore)>>20)
	for _, b := range brokers {
		if n := b.Snapshot().CachedPartitions; n != scalePartitions {
			t.Fatalf("broker %d caches %d partitions", b.ID(), n)
		}
	}
}

func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}

// BenchmarkLeaderAndIsr measures applying one broker's share of a 100k
// partition cluster (3000 partitions, a new leader epoch each round).
func BenchmarkLeaderAndIsr(b *testing.B) {
	c := startCluster(b, Options{Brokers: specs(0, 1, 2)})
	br := c.Broker(0)
	cc := dialBroker(b, br)
	const share = 3 * scalePartitions / scaleBrokers
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		req := perBroker(scaleLayout(3, share, 3, int32(i+1)), 3, int32(i+1))[0]
		b.StartTimer()
		top, codes := lairCodes(cc.send(req))
		if top != 0 || len(codes) != share {
			b.Fatalf("round %d: %d, %d codes", i, top, len(codes))
		}
	}
	b.ReportMetric(float64(b.N*share)/b.Elapsed().Seconds(), "partitions/s")
}
