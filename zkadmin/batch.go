package zkadmin

import (
	"context"
	"errors"
	"sync"
)

// Defaults of BatchOptions, chosen by BenchmarkMultiSize and
// BenchmarkBatched on a 2-core box with a local ZooKeeper (see doc.go).
const (
	DefaultBatchOps      = 500
	DefaultBatchBytes    = 512 << 10
	DefaultBatchInFlight = 4
)

// MaxMultiBytes is a hard ceiling on one multi's request: ZooKeeper's
// default jute.maxbuffer is just under 1 MiB, and a server that receives a
// larger packet drops the whole connection.
const MaxMultiBytes = 1000 << 10

// BatchOptions tune MultiBatched.
type BatchOptions struct {
	// MaxOps bounds the ops of one multi (default DefaultBatchOps).
	MaxOps int
	// MaxBytes bounds the estimated request size of one multi (default
	// DefaultBatchBytes, capped at MaxMultiBytes). A single op larger than
	// this goes alone in its multi.
	MaxBytes int
	// MaxInFlight bounds the multis outstanding at once (default
	// DefaultBatchInFlight). 1 issues them strictly in order.
	MaxInFlight int
	// StopOnError stops issuing batches after the first failure; the ops
	// not yet sent get ErrNotAttempted. Use it with MaxInFlight 1 when
	// later batches depend on earlier ones.
	StopOnError bool
	// Fenced prefixes every multi with the controller epoch check of
	// FencedMulti. A failed check always stops the write.
	Fenced         bool
	EpochZkVersion int32
	// KeepWithPrevious, when set, reports whether ops[i] depends on
	// ops[i-1]'s run (a parent created earlier in the list, say), so that
	// both must go in the same multi: batches are then cut only before an
	// op for which it is false. A run of dependent ops may exceed MaxOps
	// and MaxBytes, but never MaxMultiBytes; a run larger than that is cut
	// anyway, and what depended on the first part may fail.
	KeepWithPrevious func(i int) bool
}

func (o BatchOptions) withDefaults() BatchOptions {
	if o.MaxOps <= 0 {
		o.MaxOps = DefaultBatchOps
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultBatchBytes
	}
	o.MaxBytes = min(o.MaxBytes, MaxMultiBytes)
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = DefaultBatchInFlight
	}
	return o
}

// MultiBatched applies a long list of ops as several multis, split by op
// count and request size and issued with bounded concurrency. Each multi is
// atomic; the whole list is NOT: some batches may apply while others fail,
// and with MaxInFlight > 1 they land in any order. It is for bulk writes
// whose ops are independent of each other (creating the znodes of many
// partitions, deleting many notifications), where one round trip per znode
// is the thing to avoid.
//
// Results are in the order of ops. The error joins every failed batch's
// error (a *MultiError's Index is the position in ops), so errors.Is works
// across them; ops of a failed batch carry their own error or ErrRolledBack,
// ops never sent carry ErrNotAttempted.
func (c *Client) MultiBatched(ctx context.Context, ops []Op, opts BatchOptions) ([]OpResult, error) {
	opts = opts.withDefaults()
	res := make([]OpResult, len(ops))
	batches := splitBatches(ops, opts.MaxOps, opts.MaxBytes, c.opSize, opts.KeepWithPrevious)
	var (
		mu   sync.Mutex
		errs []error
		stop bool
		next int
		wg   sync.WaitGroup
	)
	// take hands out the next batch, or false once done or stopped.
	take := func() (batchRange, bool) {
		mu.Lock()
		defer mu.Unlock()
		if stop || next == len(batches) || ctx.Err() != nil {
			return batchRange{}, false
		}
		b := batches[next]
		next++
		return b, true
	}
	for range min(opts.MaxInFlight, len(batches)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b, ok := take(); ok; b, ok = take() {
				err := c.runBatch(ctx, ops, res, b, opts)
				if err == nil {
					continue
				}
				mu.Lock()
				errs = append(errs, err)
				if opts.StopOnError || errors.Is(err, ErrControllerMoved) {
					stop = true
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for _, b := range batches[next:] {
		for i := b.start; i < b.end; i++ {
			res[i] = OpResult{Path: ops[i].Path, Err: ErrNotAttempted}
		}
	}
	if next < len(batches) && ctx.Err() != nil {
		errs = append(errs, opErr("multi", multiLabel(ops[batches[next].start:]), ctx.Err()))
	}
	return res, errors.Join(errs...)
}

// runBatch issues one batch and stores its results at their positions.
func (c *Client) runBatch(ctx context.Context, ops []Op, res []OpResult, b batchRange, opts BatchOptions) error {
	part := ops[b.start:b.end]
	var r []OpResult
	var err error
	if opts.Fenced {
		r, err = c.FencedMulti(ctx, opts.EpochZkVersion, part...)
	} else {
		r, err = c.Multi(ctx, part...)
	}
	if r == nil {
		// The whole request failed (connection, session, ctx): every op
		// shares the error.
		for i := range part {
			res[b.start+i] = OpResult{Path: part[i].Path, Err: err}
		}
	} else {
		copy(res[b.start:b.end], r)
	}
	var me *MultiError
	if errors.As(err, &me) && me.Index >= 0 {
		shifted := *me
		shifted.Index += b.start
		return &shifted
	}
	return err
}

// batchRange is ops[start:end].
type batchRange struct{ start, end int }

// splitBatches cuts ops into consecutive ranges of at most maxOps ops and
// (except for a lone oversized op) at most maxBytes estimated bytes. With
// keep (nil: every op stands alone), it cuts only before an op for which
// keep is false, and lets a dependent run grow up to MaxMultiBytes; a range
// then ends at the last cut point before it is too full, or in the middle
// of a run that alone is larger than MaxMultiBytes.
func splitBatches(ops []Op, maxOps, maxBytes int, sizeOf func(Op) int, keep func(int) bool) []batchRange {
	var out []batchRange
	start, size := 0, multiOverhead
	// cut is the last index after start where a range may end, and
	// cutSize the range's size up to it (start itself when none).
	cut, cutSize := 0, 0
	for i, o := range ops {
		s := sizeOf(o)
		free := keep == nil || !keep(i)
		if i > start && free {
			cut, cutSize = i, size
		}
		full := i-start >= maxOps || size+s > maxBytes
		if i > start && full && !free && cut > start {
			// Inside a dependent run: end the range where the run began,
			// carrying the run into the next one.
			out = append(out, batchRange{start, cut})
			start, size = cut, multiOverhead+size-cutSize
		}
		if i > start && ((full && free) || size+s > MaxMultiBytes) {
			out = append(out, batchRange{start, i})
			start, size = i, multiOverhead
		}
		size += s
	}
	if start < len(ops) {
		out = append(out, batchRange{start, len(ops)})
	}
	return out
}

// multiOverhead is the request header, the done header and the fencing
// check a batch may carry.
const multiOverhead = 4 + 8 + 9 + 64

// opSize estimates an op's encoded size in this client's multi request
// (jute encoding: 4-byte lengths before strings and buffers).
func (c *Client) opSize(o Op) int {
	n := 9 + 4 + len(c.root) + len(o.Path) + 4 // multi header, path, version or flags
	switch o.Kind {
	case OpCreate:
		n += 4 + len(o.Data) + 4
		acl := o.ACL
		if acl == nil {
			acl = c.aclFor(o.Path)
		}
		for _, a := range acl {
			n += 4 + 4 + len(a.Scheme) + 4 + len(a.ID)
		}
	case OpSet:
		n += 4 + len(o.Data)
	}
	return n
}
