package zkadmin

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
)

// The benchmarks measure the raw ZooKeeper rates the project's other
// benchmarks compare against, on the package's local test server:
//
//	go test -bench . -run '^$' ./zkadmin/
//
// Payloads are 100 bytes, about a partition state znode.

func benchPayload() []byte {
	return []byte(`{"controller_epoch":1,"leader":1,"version":1,"leader_epoch":0,"isr":[1,2,3],"partition_epoch":0}xx`)
}

func benchClient(b *testing.B) (*Client, context.Context) {
	b.Helper()
	c := connect(b, Options{SessionTimeout: 10e9})
	ctx, cancel := context.WithCancel(context.Background()) // cancellable, as callers' are
	b.Cleanup(cancel)
	if err := c.EnsurePath(ctx, "/p"); err != nil {
		b.Fatal(err)
	}
	// Leave the server as small as it was: hundreds of thousands of
	// leftover znodes would slow every later benchmark (snapshots, GC).
	b.Cleanup(func() { deleteChildren(b, c, "/p") })
	return c, ctx
}

func deleteChildren(b *testing.B, c *Client, parent string) {
	ctx := context.Background()
	kids, _, err := c.Children(ctx, parent)
	if err != nil {
		b.Errorf("cleanup: %v", err)
		return
	}
	ops := make([]Op, len(kids))
	for i, k := range kids {
		ops[i] = DeleteOp(parent+"/"+k, AnyVersion)
	}
	if _, err := c.MultiBatched(ctx, ops, BatchOptions{}); err != nil {
		b.Errorf("cleanup: %v", err)
	}
}

func reportRate(b *testing.B, n int64, unit string) {
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), unit)
}

// BenchmarkCreate: one create per round trip (one fsync each).
func BenchmarkCreate(b *testing.B) {
	c, ctx := benchClient(b)
	data := benchPayload()
	var n int64
	for b.Loop() {
		if _, err := c.Create(ctx, fmt.Sprintf("/p/%d", n), data, Persistent); err != nil {
			b.Fatal(err)
		}
		n++
	}
	reportRate(b, n, "znodes/s")
}

// BenchmarkCreatePipelined: single creates, 10 in flight (Kafka's way:
// each write its own request, pipelined).
func BenchmarkCreatePipelined(b *testing.B) {
	c, ctx := benchClient(b)
	data := benchPayload()
	var n atomic.Int64
	for b.Loop() {
		start := n.Add(1000) - 1000
		pipeline(1000, 10, func(i int) {
			if _, err := c.Create(ctx, fmt.Sprintf("/p/%d", start+int64(i)), data, Persistent); err != nil {
				b.Error(err)
			}
		})
	}
	reportRate(b, n.Load(), "znodes/s")
}

// BenchmarkFencedCreatePipelined: Kafka's controller write, a 2-op multi
// (epoch check + create) per znode, 10 in flight.
func BenchmarkFencedCreatePipelined(b *testing.B) {
	c, ctx := benchClient(b)
	mustCreateB(b, c, ControllerEpochPath)
	data := benchPayload()
	var n atomic.Int64
	for b.Loop() {
		start := n.Add(1000) - 1000
		pipeline(1000, 10, func(i int) {
			if _, err := c.FencedMulti(ctx, 0, CreateOp(fmt.Sprintf("/p/%d", start+int64(i)), data, Persistent)); err != nil {
				b.Error(err)
			}
		})
	}
	reportRate(b, n.Load(), "znodes/s")
}

// BenchmarkMultiSize: one multi of N creates per round trip.
func BenchmarkMultiSize(b *testing.B) {
	for _, size := range []int{1, 10, 100, 500, 1000, 2000} {
		b.Run(fmt.Sprintf("ops=%d", size), func(b *testing.B) {
			c, ctx := benchClient(b)
			data := benchPayload()
			var n int64
			ops := make([]Op, size)
			for b.Loop() {
				for i := range ops {
					ops[i] = CreateOp(fmt.Sprintf("/p/%d", n+int64(i)), data, Persistent)
				}
				if _, err := c.Multi(ctx, ops...); err != nil {
					b.Fatal(err)
				}
				n += int64(size)
			}
			reportRate(b, n, "znodes/s")
		})
	}
}

// BenchmarkMultiBatched: 10k creates through MultiBatched, by batch size
// and multis in flight.
func BenchmarkMultiBatched(b *testing.B) {
	for _, ops := range []int{100, 500} {
		for _, inFlight := range []int{1, 2, 4, 8} {
			b.Run(fmt.Sprintf("ops=%d/inflight=%d", ops, inFlight), func(b *testing.B) {
				benchBatched(b, BatchOptions{MaxOps: ops, MaxInFlight: inFlight})
			})
		}
	}
	b.Run("defaults", func(b *testing.B) { benchBatched(b, BatchOptions{}) })
}

func benchBatched(b *testing.B, opts BatchOptions) {
	c, ctx := benchClient(b)
	data := benchPayload()
	const per = 10000
	var n int64
	ops := make([]Op, per)
	for b.Loop() {
		for i := range ops {
			ops[i] = CreateOp(fmt.Sprintf("/p/%d", n+int64(i)), data, Persistent)
		}
		if _, err := c.MultiBatched(ctx, ops, opts); err != nil {
			b.Fatal(err)
		}
		n += per
	}
	reportRate(b, n, "znodes/s")
}

// BenchmarkGetMany: pipelined getData of 2000 znodes, by requests in flight.
func BenchmarkGetMany(b *testing.B) {
	c, ctx := benchClient(b)
	const count = 2000
	paths := benchReadSet(b, c, ctx, count)
	for _, inFlight := range []int{1, 10, 50, 100, 200} {
		b.Run(fmt.Sprintf("inflight=%d", inFlight), func(b *testing.B) {
			var n int64
			for b.Loop() {
				for _, r := range c.GetMany(ctx, paths, inFlight) {
					if r.Err != nil {
						b.Fatal(r.Err)
					}
				}
				n += count
			}
			reportRate(b, n, "gets/s")
		})
	}
}

// BenchmarkGetManyOverhead compares GetMany with go-zookeeper called
// directly (raw) and with a context that can never end (no goroutine per
// request), to show what this layer costs.
func BenchmarkGetManyOverhead(b *testing.B) {
	c, ctx := benchClient(b)
	paths := benchReadSet(b, c, ctx, 2000)
	for _, inFlight := range []int{1, 50} {
		b.Run(fmt.Sprintf("raw/inflight=%d", inFlight), func(b *testing.B) {
			var n int64
			for b.Loop() {
				pipeline(len(paths), inFlight, func(i int) { _, _, _ = c.conn.Get(c.root.full(paths[i])) })
				n += int64(len(paths))
			}
			reportRate(b, n, "gets/s")
		})
		b.Run(fmt.Sprintf("background/inflight=%d", inFlight), func(b *testing.B) {
			var n int64
			for b.Loop() {
				c.GetMany(context.Background(), paths, inFlight)
				n += int64(len(paths))
			}
			reportRate(b, n, "gets/s")
		})
	}
}

// BenchmarkGetManyClients: the same reads spread over several sessions
// (connections), to see whether one connection is the bottleneck.
func BenchmarkGetManyClients(b *testing.B) {
	c, ctx := benchClient(b)
	const count = 2000
	paths := benchReadSet(b, c, ctx, count)
	clients := []*Client{c}
	for range 3 {
		clients = append(clients, connect(b, Options{Chroot: c.Chroot()}))
	}
	var n int64
	for b.Loop() {
		var wg sync.WaitGroup
		part := count / len(clients)
		for i, cl := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cl.GetMany(ctx, paths[i*part:(i+1)*part], 50)
			}()
		}
		wg.Wait()
		n += int64(part * len(clients))
	}
	reportRate(b, n, "gets/s")
}

// benchReadSet creates count znodes under /p and returns their paths.
func benchReadSet(b *testing.B, c *Client, ctx context.Context, count int) []string {
	b.Helper()
	ops := make([]Op, count)
	paths := make([]string, count)
	for i := range ops {
		paths[i] = fmt.Sprintf("/p/%d", i)
		ops[i] = CreateOp(paths[i], benchPayload(), Persistent)
	}
	if _, err := c.MultiBatched(ctx, ops, BatchOptions{}); err != nil {
		b.Fatal(err)
	}
	return paths
}

func mustCreateB(b *testing.B, c *Client, path string) {
	b.Helper()
	if _, err := c.Create(context.Background(), path, []byte("0"), Persistent); err != nil {
		b.Fatal(err)
	}
}
