package zkadmin

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
)

// TestMultiAsyncLandsInOrder: multis sent with MultiAsync, each needing
// the version its predecessor leaves, all land while many are unanswered,
// and concurrent senders of other multis do not break that order.
func TestMultiAsyncLandsInOrder(t *testing.T) {
	c := connect(t, Options{})
	ctx := testCtx(t)
	mustCreate(t, c, "/chain", nil, Persistent)
	mustCreate(t, c, "/other", nil, Persistent)

	var wg sync.WaitGroup
	stop := make(chan struct{})
	for g := range 3 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				path := fmt.Sprintf("/other/%d-%d", g, i)
				if _, err := c.Multi(ctx, CreateOp(path, nil, Persistent)); err != nil {
					t.Errorf("unrelated multi: %v", err)
					return
				}
			}
		})
	}
	defer func() {
		close(stop)
		wg.Wait()
	}()
	const n = 300
	pending := make([]*PendingMulti, n)
	for i := range n {
		pending[i] = c.MultiAsync(ctx,
			SetOp("/chain", nil, int32(i)),
			CreateOp(fmt.Sprintf("/chain/%d", i), nil, Persistent))
	}
	for i, p := range pending {
		if _, err := p.Wait(); err != nil {
			t.Fatalf("multi %d: %v", i, err)
		}
	}
	_, st, err := c.Get(ctx, "/chain")
	if err != nil || st.Version != n {
		t.Fatalf("/chain version %d (%v), want %d", st.Version, err, n)
	}
}

// TestMultiAsyncFailureStopsTheChain: when a multi of a chain fails, the
// ones sent after it that expect its version fail too, and the ones before
// it stay applied.
func TestMultiAsyncFailureStopsTheChain(t *testing.T) {
	c := connect(t, Options{})
	ctx := testCtx(t)
	mustCreate(t, c, "/chain", nil, Persistent)
	mustCreate(t, c, "/chain/taken", nil, Persistent)
	var pending []*PendingMulti
	for i := range 6 {
		child := fmt.Sprintf("/chain/%d", i)
		if i == 3 {
			child = "/chain/taken"
		}
		pending = append(pending, c.MultiAsync(ctx, SetOp("/chain", nil, int32(i)), CreateOp(child, nil, Persistent)))
	}
	for i, p := range pending {
		_, err := p.Wait()
		switch {
		case i < 3 && err != nil:
			t.Errorf("multi %d: %v", i, err)
		case i == 3 && !errors.Is(err, ErrNodeExists):
			t.Errorf("multi 3: %v, want node exists", err)
		case i > 3 && !errors.Is(err, ErrBadVersion):
			t.Errorf("multi %d: %v, want bad version", i, err)
		}
	}
}

// TestFencedMultiAsyncReportsAMovedController: the epoch check of a
// pipelined fenced multi maps to ErrControllerMoved, as FencedMulti's.
func TestFencedMultiAsyncReportsAMovedController(t *testing.T) {
	c := connect(t, Options{})
	ctx := testCtx(t)
	mustCreate(t, c, ControllerEpochPath, []byte("1"), Persistent)
	ok := c.FencedMultiAsync(ctx, 0, CreateOp("/a", nil, Persistent))
	moved := c.FencedMultiAsync(ctx, 1, CreateOp("/b", nil, Persistent))
	if res, err := ok.Wait(); err != nil || len(res) != 1 {
		t.Fatalf("fenced multi: %v %v", res, err)
	}
	if _, err := moved.Wait(); !errors.Is(err, ErrControllerMoved) {
		t.Fatalf("fenced multi at a stale epoch: %v", err)
	}
}

// TestMultiAsyncEndedContext: a multi whose ctx has ended is not sent.
func TestMultiAsyncEndedContext(t *testing.T) {
	c := connect(t, Options{})
	ctx, cancel := context.WithCancel(testCtx(t))
	cancel()
	if _, err := c.MultiAsync(ctx, CreateOp("/never", nil, Persistent)).Wait(); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	if ok, _, err := c.Exists(testCtx(t), "/never"); err != nil || ok {
		t.Fatalf("exists %v %v", ok, err)
	}
}
