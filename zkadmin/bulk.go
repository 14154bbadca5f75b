package zkadmin

import (
	"context"
	"sync"
	"sync/atomic"
)

// DefaultMaxInFlight is the pipelining depth of the bulk reads when the
// caller passes 0. Kafka's controller uses 10 (zookeeper.max.in.flight.
// requests); deeper pipelines pay off on this client (see doc.go).
const DefaultMaxInFlight = 50

// GetResult is one znode of GetMany. Err is per path (ErrNoNode for a
// missing znode) and names the path.
type GetResult struct {
	Path  string
	Data  []byte
	Stat  Stat
	Watch <-chan Event // GetManyW only; nil when Err != nil
	Err   error
}

// ChildrenResult is one znode of ChildrenMany.
type ChildrenResult struct {
	Path     string
	Children []string
	Stat     Stat
	Watch    <-chan Event // ChildrenManyW only; nil when Err != nil
	Err      error
}

// GetMany reads many znodes with up to maxInFlight requests outstanding on
// the one connection (0: DefaultMaxInFlight), which is how a controller
// loads every partition state at failover without a round trip per znode.
// Results are in the order of paths. Once ctx ends, the remaining paths get
// the context error.
func (c *Client) GetMany(ctx context.Context, paths []string, maxInFlight int) []GetResult {
	out := make([]GetResult, len(paths))
	pipeline(len(paths), maxInFlight, func(i int) {
		r := GetResult{Path: paths[i]}
		r.Data, r.Stat, r.Err = c.Get(ctx, paths[i])
		out[i] = r
	})
	return out
}

// GetManyW is GetMany leaving a data watch on every znode read.
func (c *Client) GetManyW(ctx context.Context, paths []string, maxInFlight int) []GetResult {
	out := make([]GetResult, len(paths))
	pipeline(len(paths), maxInFlight, func(i int) {
		r := GetResult{Path: paths[i]}
		r.Data, r.Stat, r.Watch, r.Err = c.GetW(ctx, paths[i])
		out[i] = r
	})
	return out
}

// ChildrenMany lists the children of many znodes, pipelined as GetMany.
func (c *Client) ChildrenMany(ctx context.Context, paths []string, maxInFlight int) []ChildrenResult {
	out := make([]ChildrenResult, len(paths))
	pipeline(len(paths), maxInFlight, func(i int) {
		r := ChildrenResult{Path: paths[i]}
		r.Children, r.Stat, r.Err = c.Children(ctx, paths[i])
		out[i] = r
	})
	return out
}

// ChildrenManyW is ChildrenMany leaving a children watch on every znode.
func (c *Client) ChildrenManyW(ctx context.Context, paths []string, maxInFlight int) []ChildrenResult {
	out := make([]ChildrenResult, len(paths))
	pipeline(len(paths), maxInFlight, func(i int) {
		r := ChildrenResult{Path: paths[i]}
		r.Children, r.Stat, r.Watch, r.Err = c.ChildrenW(ctx, paths[i])
		out[i] = r
	})
	return out
}

// pipeline calls do(i) for every i in [0, n) from at most maxInFlight
// goroutines at once. Each do is one blocking request, so this keeps that
// many requests outstanding; go-zookeeper's Conn queues them on its single
// connection and ZooKeeper answers a session's requests in order. do
// observes the caller's ctx itself: after it ends, each remaining do returns
// the context error at once, so every slot is still filled.
func pipeline(n, maxInFlight int, do func(i int)) {
	if maxInFlight <= 0 {
		maxInFlight = DefaultMaxInFlight
	}
	workers := min(maxInFlight, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	wg.Add(workers)
	for range workers {
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				do(i)
			}
		}()
	}
	wg.Wait()
}
