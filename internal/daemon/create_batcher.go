package daemon

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/kzadmin/kzadmin/zkadmin"
)

// defaultCreateBatchTopics bounds the topics of one group commit, so that
// one huge batch does not hold back the requests queued behind it for long.
const defaultCreateBatchTopics = 1000

// createBatcher is the admin the handlers of every listener and connection
// share. It group-commits topic creation: while one zkadmin.CreateTopics
// call is running, the CreateTopics requests that arrive queue up, and the
// next call takes all of them (in arrival order, each request's topics in
// request order). Without it, N connections creating at once each read the
// cluster, plan, and race on the partition-limit fence (the version of
// /brokers/topics), so N-1 of them lose, back off and re-plan, round after
// round; measured, 8 connections were 7x slower than one. One committer
// never loses to itself, and one call plans and writes many requests'
// topics in few multis.
//
// What each request sees is what it would see alone, in arrival order:
// zkadmin.CreateTopics plans every topic against the counts the earlier
// topics of the batch leave, so the limits hold for the batch as a whole
// (and, through the fence, against every other creator), a name created
// twice is created once and the later request gets TOPIC_ALREADY_EXISTS,
// and each request gets its own per-topic outcomes in its own order.
//
// Dry runs (validateOnly) are never batched: zkadmin counts a dry-run
// topic against the limits of the topics planned after it, which must not
// refuse another request's real topics; and they write nothing, so they
// do not contend on the fence anyway. They go straight to zkadmin.
//
// A request whose ctx ends while queued or committing gets its ctx error
// at once; if its topics were already in a running commit they may still
// be created (as when a lone create's ctx ends mid-way). The commit's own
// ctx ends only when every request in it has given up.
//
// All other admin operations pass through to the embedded Admin.
type createBatcher struct {
	*zkadmin.Admin
	// create is the batch call, Admin.CreateTopics (tests stand in for it).
	create    func(context.Context, []zkadmin.CreateTopicRequest) ([]zkadmin.CreateTopicOutcome, error)
	maxTopics int

	mu      sync.Mutex
	queue   []*createCall
	running bool // a committer goroutine is draining queue
}

// createCall is one request waiting for its outcomes.
type createCall struct {
	ctx  context.Context
	reqs []zkadmin.CreateTopicRequest
	out  []zkadmin.CreateTopicOutcome
	err  error
	done chan struct{} // closed once out and err are set
}

func newCreateBatcher(a *zkadmin.Admin) *createBatcher {
	return &createBatcher{Admin: a, create: a.CreateTopics, maxTopics: defaultCreateBatchTopics}
}

// CreateTopic creates one topic through the group commit (broker
// auto-creation and the Metadata handler's come this way).
func (b *createBatcher) CreateTopic(ctx context.Context, req zkadmin.CreateTopicRequest) (*zkadmin.CreateTopicResult, error) {
	out, err := b.CreateTopics(ctx, []zkadmin.CreateTopicRequest{req})
	if out[0].Err != nil {
		return nil, out[0].Err
	}
	if err != nil {
		return nil, err
	}
	return out[0].Result, nil
}

// CreateTopics is zkadmin.Admin.CreateTopics through the group commit.
func (b *createBatcher) CreateTopics(ctx context.Context, reqs []zkadmin.CreateTopicRequest) ([]zkadmin.CreateTopicOutcome, error) {
	if len(reqs) == 0 || anyDryRun(reqs) {
		return b.create(ctx, reqs)
	}
	call := &createCall{ctx: ctx, reqs: reqs, done: make(chan struct{})}
	b.mu.Lock()
	b.queue = append(b.queue, call)
	start := !b.running
	b.running = true
	b.mu.Unlock()
	if start {
		go b.commitLoop()
	}
	select {
	case <-call.done:
		return call.out, call.err
	case <-ctx.Done():
		out := make([]zkadmin.CreateTopicOutcome, len(reqs))
		for i, r := range reqs {
			out[i].Err = fmt.Errorf("create topic %s: %w", r.Topic, ctx.Err())
		}
		return out, fmt.Errorf("create topics: %w", ctx.Err())
	}
}

func anyDryRun(reqs []zkadmin.CreateTopicRequest) bool {
	for _, r := range reqs {
		if r.DryRun {
			return true
		}
	}
	return false
}

// commitLoop commits batches until the queue is empty; at most one runs.
func (b *createBatcher) commitLoop() {
	for {
		batch := b.take()
		if len(batch) == 0 {
			return
		}
		b.commit(batch)
	}
}

// take removes the next batch from the queue: whole requests, in arrival
// order, up to maxTopics topics (at least one request). Requests whose
// caller has already given up are dropped. When nothing is left it marks
// the committer stopped, under the same lock as CreateTopics checks it, so
// a request is never left without a committer.
func (b *createBatcher) take() []*createCall {
	b.mu.Lock()
	defer b.mu.Unlock()
	var batch []*createCall
	n := 0
	for len(b.queue) > 0 {
		c := b.queue[0]
		if c.ctx.Err() == nil {
			if len(batch) > 0 && n+len(c.reqs) > b.maxTopics {
				break
			}
			batch = append(batch, c)
			n += len(c.reqs)
		}
		b.queue[0] = nil
		b.queue = b.queue[1:]
	}
	if len(batch) == 0 {
		b.running = false
		b.queue = nil
	}
	return batch
}

// commit creates a batch's topics in one zkadmin call and hands each
// request its slice of the outcomes.
func (b *createBatcher) commit(batch []*createCall) {
	var reqs []zkadmin.CreateTopicRequest
	for _, c := range batch {
		reqs = append(reqs, c.reqs...)
	}
	ctx, cancel := batchContext(batch)
	out, err := b.create(ctx, reqs)
	cancel()
	if len(out) != len(reqs) {
		if err == nil {
			err = fmt.Errorf("create topics: %d outcomes for %d topics", len(out), len(reqs))
		}
		out = make([]zkadmin.CreateTopicOutcome, len(reqs))
		for i := range out {
			out[i].Err = err
		}
	}
	k := 0
	for _, c := range batch {
		c.out, c.err = out[k:k+len(c.reqs):k+len(c.reqs)], err
		k += len(c.reqs)
		close(c.done)
	}
}

// batchContext is the ctx of one commit: it ends once the ctx of every
// request in the batch has ended, so one request giving up does not fail
// the others' topics, and a commit nobody waits for any more stops.
func batchContext(batch []*createCall) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(context.Background())
	var left atomic.Int64
	left.Store(int64(len(batch)))
	stops := make([]func() bool, len(batch))
	for i, c := range batch {
		stops[i] = context.AfterFunc(c.ctx, func() {
			if left.Add(-1) == 0 {
				cancel(context.Cause(c.ctx))
			}
		})
	}
	return ctx, func() {
		for _, stop := range stops {
			stop()
		}
		cancel(nil)
	}
}
