package dropin

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kzadmin/kzadmin/integration/kafkatest"
)

// partRecords are perPart records in each of parts partitions of a topic:
// record i of partition p is valued value(p, i), so a reader knows what
// each offset must hold.
type partRecords struct {
	parts   int32
	perPart int
	value   func(p int32, i int) []byte
	opts    []kgo.Opt // the producer's, beyond the partitioner
}

// numbered are records valued "p-i", as the deletion scenario writes them.
func numbered(parts int32, perPart int) partRecords {
	return partRecords{parts: parts, perPart: perPart, value: func(p int32, i int) []byte { return fmt.Appendf(nil, "%d-%d", p, i) }}
}

// sized are records of movedValue bytes each (their name, padded),
// produced uncompressed so that the bytes on disk show how much a
// reassignment copies.
func sized(parts int32, perPart int) partRecords {
	return partRecords{parts: parts, perPart: perPart, value: sizedValue,
		opts: []kgo.Opt{kgo.ProducerBatchCompression(kgo.NoCompression())}}
}

// sizedValue is record i of partition p: its name padded to movedValue
// bytes.
func sizedValue(p int32, i int) []byte {
	v := []byte(fmt.Sprintf("%d-%d ", p, i))
	return append(v, make([]byte, movedValue-len(v))...)
}

// produce writes the records to name within a minute.
func (pr partRecords) produce(ctx context.Context, addrs []string, name string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	recs := make([]*kgo.Record, 0, int(pr.parts)*pr.perPart)
	for p := range pr.parts {
		for i := range pr.perPart {
			recs = append(recs, &kgo.Record{Partition: p, Value: pr.value(p, i)})
		}
	}
	opts := append([]kgo.Opt{kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.MetadataMinAge(100 * time.Millisecond)}, pr.opts...)
	return kafkatest.Produce(ctx, addrs, name, recs, opts...)
}

// consume reads every partition of name from the start, within a minute,
// and wants exactly the records produce wrote, in order, from offset 0.
func (pr partRecords) consume(ctx context.Context, addrs []string, name string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	next := map[int32]int64{}
	n, total := 0, int(pr.parts)*pr.perPart
	err := kafkatest.Reader{Addrs: addrs, Topic: name}.Until(ctx, func() bool { return n >= total }, func(r *kgo.Record) error {
		want := pr.value(r.Partition, int(next[r.Partition]))
		if r.Offset != next[r.Partition] || !bytes.Equal(r.Value, want) {
			return fmt.Errorf("%s-%d@%d holds %.24q, want %.24q at offset %d", name, r.Partition, r.Offset, r.Value, want, next[r.Partition])
		}
		next[r.Partition]++
		n++
		return nil
	})
	if err != nil {
		return fmt.Errorf("consume %s: %d of %d records (%v): %w", name, n, total, next, err)
	}
	return nil
}
