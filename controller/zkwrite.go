package controller

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/kzadmin/kzadmin/zkadmin"
)

// fencedWrite applies independent ops under the controller epoch fence and
// reports each op's outcome: res[i].Err is nil on success (res[i].Stat is
// the new stat of a set). Ops go in batched multis, many znodes per round
// trip; a multi is all-or-nothing, so when one op of a multi fails, its
// other ops are re-sent one per fenced multi (pipelined), which gives every
// op its own exact outcome, as Kafka's per-partition multis do.
//
// The returned error is set only when nothing more can be written: it
// matches zkadmin.ErrControllerMoved when the fence failed (resign), or is
// the ctx error.
func (c *Controller) fencedWrite(ctx context.Context, ls *leaderState, ops []zkadmin.Op) ([]zkadmin.OpResult, error) {
	if len(ops) == 0 {
		return nil, nil
	}
	res, err := c.zk.MultiBatched(ctx, ops, ls.fenced())
	if errors.Is(err, zkadmin.ErrControllerMoved) {
		return nil, err
	}
	var redo []int
	for i := range res {
		if res[i].Err != nil {
			redo = append(redo, i)
		}
	}
	if len(redo) == 0 {
		return res, nil
	}
	var moved atomic.Bool
	parallel(len(redo), c.maxInFlight(), func(j int) {
		i := redo[j]
		r, err := c.zk.FencedMulti(ctx, ls.zkVersion, ops[i])
		switch {
		case errors.Is(err, zkadmin.ErrControllerMoved):
			moved.Store(true)
			res[i] = zkadmin.OpResult{Path: ops[i].Path, Err: err}
		case len(r) == 1:
			res[i] = r[0]
		default:
			res[i] = zkadmin.OpResult{Path: ops[i].Path, Err: err}
		}
	})
	if moved.Load() {
		return nil, fmt.Errorf("fenced write: %w", zkadmin.ErrControllerMoved)
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	return res, nil
}

func (c *Controller) maxInFlight() int {
	if c.inFlight > 0 {
		return c.inFlight
	}
	return zkadmin.DefaultMaxInFlight
}

// parallel runs do(0..n-1) on at most limit goroutines and waits.
func parallel(n, limit int, do func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(n, limit) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				do(i)
			}
		}()
	}
	wg.Wait()
}

// transient reports whether a ZooKeeper error may go away by itself: the
// connection was lost (the outcome of a write is then unknown) or the
// session expired (the expiry event follows).
func transient(err error) bool {
	return errors.Is(err, zkadmin.ErrConnectionLoss) || errors.Is(err, zkadmin.ErrSessionExpired) ||
		errors.Is(err, context.DeadlineExceeded)
}
