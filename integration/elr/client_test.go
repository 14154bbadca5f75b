package elr

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kzadmin/kzadmin/integration/kafkatest"
)

// produce writes records from..from+n-1 to partition 0 of topic, each
// valued with its expected offset, with acks, giving up after timeout.
// Idempotence is off so that acks=1 is possible and the producer needs no
// producer id. extra adds client options.
func produce(ctx context.Context, addrs []string, topic string, acks kgo.Acks, from, n int,
	timeout time.Duration, extra ...kgo.Opt) error {
	opts := append([]kgo.Opt{kgo.RequiredAcks(acks), kgo.DisableIdempotentWrite(), kgo.RecordDeliveryTimeout(timeout)}, extra...)
	return kafkatest.ProduceNumbered(ctx, addrs, topic, 0, from, n, opts...)
}

// mustProduce is produce that must be acknowledged.
func mustProduce(t *testing.T, ctx context.Context, h *harness, topic string, acks kgo.Acks, from, n int) {
	t.Helper()
	if err := produce(ctx, h.running(), topic, acks, from, n, time.Minute); err != nil {
		t.Fatal(err)
	}
}

// endOffset is partition 0's high watermark as its leader reports it.
func endOffset(t *testing.T, ctx context.Context, h *harness, topic string) int64 {
	t.Helper()
	var end int64
	err := pollUntil(ctx, time.Minute, 100*time.Millisecond, func() error {
		ends, err := kafkatest.EndOffsets(ctx, h.running(), topic)
		if err != nil {
			return err
		}
		o, ok := ends[0]
		if !ok {
			return fmt.Errorf("no end offset of %s-0: %v", topic, ends)
		}
		end = o
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return end
}

// consumeAll reads partition 0 from the start up to its high watermark and
// checks that record i holds value i for every i below acked: no
// acknowledged record is missing or out of place. It returns the count.
func consumeAll(t *testing.T, ctx context.Context, h *harness, topic string, acked int) int64 {
	t.Helper()
	end := endOffset(t, ctx, h, topic)
	if end < int64(acked) {
		t.Fatalf("%s-0 ends at offset %d: acknowledged records %d..%d are lost", topic, end, end, acked-1)
	}
	cctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var values []string
	done := func() bool { return int64(len(values)) >= end }
	err := kafkatest.Reader{Addrs: h.running(), Topic: topic}.Until(cctx, done, func(r *kgo.Record) error {
		if r.Offset != int64(len(values)) {
			return fmt.Errorf("%s-0: record at offset %d after %d records", topic, r.Offset, len(values))
		}
		values = append(values, string(r.Value))
		return nil
	})
	if err != nil {
		t.Fatalf("consume %s-0: %d of %d records: %v", topic, len(values), end, err)
	}
	for i := range acked {
		if values[i] != strconv.Itoa(i) {
			t.Fatalf("%s-0 offset %d holds %q, want the acknowledged %d", topic, i, values[i], i)
		}
	}
	return end
}

// sameSet reports whether xs holds exactly want, in any order.
func sameSet(xs []int32, want ...int32) bool {
	a, b := slices.Clone(xs), slices.Clone(want)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
