package znodes

import (
	"fmt"
	"math"
)

// ProducerIDBlockSize is the number of producer ids in one block.
const ProducerIDBlockSize = 1000

// ProducerIDBlock is the payload of /latest_producer_id_block, the last
// block of producer ids handed out:
// {"version":1,"broker":1,"block_start":"2000","block_end":"2999"}.
// block_start and block_end are decimal strings, not JSON numbers.
type ProducerIDBlock struct {
	// Version is what was read; Encode always writes 1.
	Version  int32
	BrokerID int32
	// Start and End are the first and last (inclusive) ids of the block.
	Start int64
	End   int64
}

// Size is the number of ids in the block.
func (b ProducerIDBlock) Size() int64 { return b.End - b.Start + 1 }

// DecodeProducerIDBlock decodes /latest_producer_id_block. Null data means
// "no block allocated yet" and is reported as ErrNoData; use
// NextProducerIDBlock to allocate from raw data. A zero-length payload is an
// error, as it is for Kafka (the znode must be created with null data).
func DecodeProducerIDBlock(data []byte) (ProducerIDBlock, error) {
	d := decoder{znode: LatestProducerIDBlockPath}
	var b ProducerIDBlock
	f, err := d.parse(data)
	if err != nil {
		return b, err
	}
	if b.Version, err = d.optionalInt32(f, "", "version", 0); err != nil {
		return b, err
	}
	if b.BrokerID, err = d.requiredInt32(f, "", "broker"); err != nil {
		return b, err
	}
	if b.Start, err = d.decimalString(f, "block_start"); err != nil {
		return b, err
	}
	if b.End, err = d.decimalString(f, "block_end"); err != nil {
		return b, err
	}
	// Kafka computes the size with Math.toIntExact(end - start + 1).
	size, ok := blockSize(b.Start, b.End)
	if !ok {
		return b, d.fail(sub("", "block_end"), "block %d..%d: size does not fit a 32-bit int", b.Start, b.End)
	}
	if size < 1 {
		return b, d.fail(sub("", "block_end"), "block end %d before start %d", b.End, b.Start)
	}
	return b, nil
}

// blockSize returns end-start+1 and whether it fits an int32 without any
// intermediate int64 overflow.
func blockSize(start, end int64) (int64, bool) {
	if start < 0 && end > math.MaxInt64+start || start > 0 && end < math.MinInt64+start {
		return 0, false
	}
	diff := end - start
	if diff >= math.MaxInt32 || diff < math.MinInt32-1 {
		return 0, false
	}
	return diff + 1, true
}

// decimalString reads a required string holding a decimal long.
func (d decoder) decimalString(f fields, key string) (int64, error) {
	s, err := d.requiredString(f, "", key)
	if err != nil {
		return 0, err
	}
	v, err := parseJavaInt(s, 64)
	if err != nil {
		return 0, d.fail(sub("", key), "want decimal long in a string: %v", err)
	}
	return v, nil
}

// Encode writes {"version":1,"broker":..,"block_start":"..","block_end":".."}.
func (b ProducerIDBlock) Encode() ([]byte, error) {
	var w jsonWriter
	w.beginObject()
	w.intField("version", 1)
	w.intField("broker", int64(b.BrokerID))
	w.strField("block_start", fmt.Sprint(b.Start))
	w.strField("block_end", fmt.Sprint(b.End))
	w.endObject()
	return w.bytes(), nil
}

// NextProducerIDBlock computes the block to write for brokerID given the
// current data of /latest_producer_id_block: null data yields the first
// block 0..999; otherwise the block after the stored one. Running out of the
// int64 id space is an error, as in Kafka.
func NextProducerIDBlock(current []byte, brokerID int32) (ProducerIDBlock, error) {
	if current == nil {
		return ProducerIDBlock{Version: 1, BrokerID: brokerID, Start: 0, End: ProducerIDBlockSize - 1}, nil
	}
	prev, err := DecodeProducerIDBlock(current)
	if err != nil {
		return ProducerIDBlock{}, err
	}
	if prev.End > math.MaxInt64-ProducerIDBlockSize {
		return ProducerIDBlock{}, fmt.Errorf("%s: have exhausted all producer ids", LatestProducerIDBlockPath)
	}
	start := prev.End + 1
	return ProducerIDBlock{Version: 1, BrokerID: brokerID, Start: start, End: start + ProducerIDBlockSize - 1}, nil
}
