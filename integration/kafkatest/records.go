package kafkatest

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Produce writes recs to topic through a client seeded with addrs and
// configured with opts, and waits for every acknowledgement. Each record
// then carries the partition and offset it was stored at. With
// kgo.ManualPartitioner among opts, the records' Partition fields choose.
func Produce(ctx context.Context, addrs []string, topic string, recs []*kgo.Record, opts ...kgo.Opt) error {
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(addrs...), kgo.DefaultProduceTopic(topic)}, opts...)...)
	if err != nil {
		return fmt.Errorf("producer for %s: %w", topic, err)
	}
	defer cl.Close()
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		return fmt.Errorf("produce %d records to %s: %w", len(recs), topic, err)
	}
	return nil
}

// ProduceNumbered writes n records to partition p of topic, valued from,
// from+1, ... in decimal, and checks that they landed at those offsets:
// the partition held exactly from records before. opts add client
// options (acks, idempotence, timeouts).
func ProduceNumbered(ctx context.Context, addrs []string, topic string, p int32, from, n int, opts ...kgo.Opt) error {
	recs := make([]*kgo.Record, n)
	for i := range recs {
		recs[i] = &kgo.Record{Partition: p, Value: []byte(strconv.Itoa(from + i))}
	}
	opts = append([]kgo.Opt{kgo.RecordPartitioner(kgo.ManualPartitioner())}, opts...)
	if err := Produce(ctx, addrs, topic, recs, opts...); err != nil {
		return err
	}
	if last := recs[n-1].Offset; last != int64(from+n-1) {
		return fmt.Errorf("%s-%d: last record at offset %d, want %d", topic, p, last, from+n-1)
	}
	return nil
}

// EndOffsets asks the leaders of topic's partitions for their end offsets
// (high watermarks), by partition. A partition's error fails the whole
// answer, so callers poll it while leaders move.
func EndOffsets(ctx context.Context, addrs []string, topic string) (map[int32]int64, error) {
	adm, err := kadm.NewOptClient(kgo.SeedBrokers(addrs...))
	if err != nil {
		return nil, fmt.Errorf("admin client: %w", err)
	}
	defer adm.Close()
	lo, err := adm.ListEndOffsets(ctx, topic)
	if err != nil {
		return nil, fmt.Errorf("end offsets of %s: %w", topic, err)
	}
	if err := lo.Error(); err != nil {
		return nil, fmt.Errorf("end offsets of %s: %w", topic, err)
	}
	ends := map[int32]int64{}
	lo.Each(func(o kadm.ListedOffset) { ends[o.Partition] = o.Offset })
	return ends, nil
}

// Reader reads a topic from its start without a consumer group, so that
// nothing but the topic's own records is involved.
type Reader struct {
	// Addrs seed the client.
	Addrs []string
	// Topic is the topic read.
	Topic string
	// Opts add client options (TLS, SASL).
	Opts []kgo.Opt
	// Logf, when set, is told of fetch errors other than the context's
	// end: a broker refusing fetches is what a stalled read looks like.
	Logf func(format string, args ...any)
}

// Until reads records and hands each to each, in fetch order, until done
// reports true. It stops at each's first error, which it returns, and
// when ctx ends, with an error that counts the records read; the records
// of the poll that saw ctx end are not handed over.
func (r Reader) Until(ctx context.Context, done func() bool, each func(*kgo.Record) error) error {
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(r.Addrs...), kgo.ConsumeTopics(r.Topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart())}, r.Opts...)...)
	if err != nil {
		return fmt.Errorf("consumer for %s: %w", r.Topic, err)
	}
	defer cl.Close()
	read := 0
	for !done() {
		fetches := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("read %s: %d records: %w", r.Topic, read, err)
		}
		if r.Logf != nil {
			fetches.EachError(func(topic string, p int32, err error) {
				if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
					r.Logf("fetch %s-%d: %v", topic, p, err)
				}
			})
		}
		for it := fetches.RecordIter(); !it.Done(); {
			read++
			if err := each(it.Next()); err != nil {
				return err
			}
		}
	}
	return nil
}
