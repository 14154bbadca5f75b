package acl

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/kzadmin/kzadmin/zkadmin"
)

// flakyZK turns the first watch event after drop is closed into
// EventNotWatching, as a lost session does, and counts full loads (reads
// of the literal store's root).
type flakyZK struct {
	ZK
	drop    chan struct{}
	dropped sync.Once
	loads   atomic.Int64
}

func (f *flakyZK) Children(ctx context.Context, path string) ([]string, zkadmin.Stat, error) {
	if path == storeRoot(PatternLiteral) {
		f.loads.Add(1)
	}
	return f.ZK.Children(ctx, path)
}

func (f *flakyZK) ChildrenW(ctx context.Context, path string) ([]string, zkadmin.Stat, <-chan zkadmin.Event, error) {
	children, st, ch, err := f.ZK.ChildrenW(ctx, path)
	if err != nil {
		return children, st, ch, err
	}
	out := make(chan zkadmin.Event, 1)
	go func() {
		ev, ok := <-ch
		if !ok {
			close(out)
			return
		}
		select {
		case <-f.drop:
			f.dropped.Do(func() { ev = zkadmin.Event{Type: zkadmin.EventNotWatching, Path: path, Err: zkadmin.ErrSessionExpired} })
		default:
		}
		out <- ev
		close(out)
	}()
	return children, st, out, nil
}
