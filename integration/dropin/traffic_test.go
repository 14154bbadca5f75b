package dropin

import (
	"context"
	"fmt"
	"github.com/kzadmin/kzadmin/integration/kafkatest"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

const (
	topic             = "dropin"
	partitions        = 6
	replicationFactor = 3
)

// where is the partition and offset a record was acknowledged at.
type where struct {
	partition int32
	offset    int64
}

// traffic produces numbered records with an idempotent producer (acks=all,
// franz-go's default), which needs a producer id block from the
// controller, and remembers where each acknowledged record landed.
type traffic struct {
	cl     *kgo.Client
	mu     sync.Mutex
	acked  map[int]where
	failed int
	next   int
	count  atomic.Int64

	cancel context.CancelFunc
	done   chan struct{}
}

func newTraffic(t *testing.T, addrs []string, logPath string) *traffic {
	t.Helper()
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logFile.Close() })
	cl, err := kgo.NewClient(kgo.SeedBrokers(addrs...), kgo.DefaultProduceTopic(topic),
		kgo.WithLogger(kgo.BasicLogger(logFile, kgo.LogLevelInfo, nil)),
		// Learn of moved leaders quickly: the failover figures should
		// show the cluster, not the client's metadata backoff.
		kgo.MetadataMinAge(100*time.Millisecond), kgo.RetryBackoffFn(func(int) time.Duration { return 50 * time.Millisecond }))
	if err != nil {
		t.Fatal(err)
	}
	tr := &traffic{cl: cl, acked: map[int]where{}}
	t.Cleanup(func() {
		tr.stop()
		cl.Close()
	})
	return tr
}

// produce sends n records and waits for all acknowledgements.
func (tr *traffic) produce(ctx context.Context, n int) error {
	tr.mu.Lock()
	first := tr.next
	tr.next += n
	tr.mu.Unlock()
	recs := make([]*kgo.Record, n)
	for i := range recs {
		v := strconv.Itoa(first + i)
		recs[i] = &kgo.Record{Key: []byte("k-" + v), Value: []byte(v)}
	}
	res := tr.cl.ProduceSync(ctx, recs...)
	tr.mu.Lock()
	defer tr.mu.Unlock()
	for _, r := range res {
		if r.Err != nil {
			tr.failed++
			continue
		}
		v, _ := strconv.Atoi(string(r.Record.Value))
		tr.acked[v] = where{r.Record.Partition, r.Record.Offset}
		tr.count.Add(1)
	}
	return res.FirstErr()
}

// start produces in the background, 20 records at a time, until stop.
func (tr *traffic) start() {
	ctx, cancel := context.WithCancel(context.Background())
	tr.cancel, tr.done = cancel, make(chan struct{})
	go func() {
		defer close(tr.done)
		for ctx.Err() == nil {
			_ = tr.produce(ctx, 20)
		}
	}()
}

// stop ends the background producer; records cut short count as failed.
func (tr *traffic) stop() {
	if tr.cancel == nil {
		return
	}
	tr.cancel()
	<-tr.done
	tr.cancel = nil
}

// waitMore waits until n more records than now are acknowledged and
// returns how long that took.
func (tr *traffic) waitMore(t *testing.T, ctx context.Context, what string, n int64, timeout time.Duration) time.Duration {
	t.Helper()
	began, target := time.Now(), tr.count.Load()+n
	err := pollUntil(ctx, timeout, 5*time.Millisecond, func() error {
		if got := tr.count.Load(); got < target {
			return fmt.Errorf("%d of %d acknowledged", got, target)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("%s: producing stalled: %v", what, err)
	}
	return time.Since(began)
}

// verify reads the whole topic back without a consumer group and checks
// that every acknowledged record is there, once, at the offset it was
// acknowledged at, and that each partition's offsets run without gaps.
// Records whose produce failed may or may not be there, but never twice.
func (tr *traffic) verify(t *testing.T, ctx context.Context, addrs []string) {
	t.Helper()
	tr.stop()
	ends := endOffsets(t, ctx, addrs)
	began := time.Now()
	got := consumeAll(t, ctx, addrs, ends)
	tr.mu.Lock()
	defer tr.mu.Unlock()
	for v, w := range tr.acked {
		if g, ok := got[v]; !ok || g != w {
			t.Fatalf("record %d acknowledged at %+v, consumed at %+v (present %v)", v, w, g, ok)
		}
	}
	t.Logf("verified %d acknowledged records (%d produces failed, %d of those landed anyway) in %s",
		len(tr.acked), tr.failed, len(got)-len(tr.acked), since(began))
}

func endOffsets(t *testing.T, ctx context.Context, addrs []string) map[int32]int64 {
	t.Helper()
	var ends map[int32]int64
	err := pollUntil(ctx, time.Minute, 200*time.Millisecond, func() error {
		var err error
		ends, err = kafkatest.EndOffsets(ctx, addrs, topic)
		return err
	})
	if err != nil {
		t.Fatalf("end offsets: %v", err)
	}
	return ends
}

// consumeAll reads every partition up to its end offset and returns where
// each value was found, failing on a gap or a duplicate.
func consumeAll(t *testing.T, ctx context.Context, addrs []string, ends map[int32]int64) map[int]where {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	got := map[int]where{}
	next := map[int32]int64{}
	done := func() bool {
		for p, end := range ends {
			if next[p] < end {
				return false
			}
		}
		return true
	}
	err := kafkatest.Reader{Addrs: addrs, Topic: topic, Logf: t.Logf}.Until(ctx, done, func(r *kgo.Record) error {
		if r.Offset != next[r.Partition] {
			return fmt.Errorf("%s-%d: offset %d after %d: a gap", topic, r.Partition, r.Offset, next[r.Partition]-1)
		}
		next[r.Partition] = r.Offset + 1
		v, err := strconv.Atoi(string(r.Value))
		if err != nil || string(r.Key) != "k-"+string(r.Value) {
			return fmt.Errorf("%s-%d offset %d: bad record %q=%q", topic, r.Partition, r.Offset, r.Key, r.Value)
		}
		if prev, dup := got[v]; dup {
			return fmt.Errorf("record %d twice: at %+v and %s-%d@%d", v, prev, topic, r.Partition, r.Offset)
		}
		got[v] = where{r.Partition, r.Offset}
		return nil
	})
	if err != nil {
		t.Fatalf("consumed %d records, offsets %v of %v: %v", len(got), next, ends, err)
	}
	return got
}

// produceEach writes one record to each of the n partitions of name with an
// idempotent producer and waits for the acknowledgements.
func produceEach(ctx context.Context, addrs []string, name string, n int32) error {
	one := partRecords{parts: n, perPart: 1, value: func(int32, int) []byte { return []byte("after takeover") }}
	return one.produce(ctx, addrs, name)
}
