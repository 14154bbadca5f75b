package zkadmin

import (
	"context"
	"errors"
	"slices"
)

// Reads answered from armed watches.
//
// A read that leaves a watch also proves something until the watch fires:
// that the znode is as the read returned it. ZooKeeper sends a session's
// notifications and replies in one ordered stream, and the notification of
// a change goes out before the reply to any later request of the session
// (see syncEvents). So once every event received so far is handled, a
// watch that has not fired vouches for its read as well as a new read
// would: a new read could not see a change whose notification has not
// reached us either, because its reply would come after that notification.
//
// WatchedReader uses that to skip the request. Its reads remember their
// result while their watch stays armed; a later WatchedReader read of the
// same znode and kind, taken after an event barrier, returns the
// remembered result with a new channel on the same server-side watch. The
// result is as consistent as the session's other reads: sequentially, as
// every ZooKeeper read is, and never older than what the session has
// already seen. A session event (a disconnection, a new session) forgets
// every remembered read, since go-zookeeper re-arms watches after a
// reconnect asynchronously and a read taken meanwhile could overtake the
// firings it replays; reads in flight across one are not remembered.
//
// Only WatchedReader reads remember, so the cache holds the znodes of the
// paths that use it (the create path's side reads and the new topics'
// watch reads), not every znode the controller watches.

// watchedRead is what a read with a watch returned, kept while the watch
// is armed.
type watchedRead struct {
	data     []byte
	children []string
	exists   bool
	stat     Stat
}

// remember keeps what a read armed ch with, provided ch has not fired yet
// (a firing in between means the read may already be stale) and no
// session event came since the read was sent (gen is readGen from before).
func (r *watchRegistry) remember(key watchKey, ch chan Event, gen uint64, rd watchedRead) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if gen != r.readGen || !slices.Contains(r.m[key], ch) {
		return
	}
	r.reads[key] = rd
}

// recall returns a remembered read of key that accept takes (nil: any),
// with a new channel registered on the same armed watch.
func (r *watchRegistry) recall(key watchKey, accept func(watchedRead) bool) (watchedRead, chan Event, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rd, ok := r.reads[key]
	if !ok || (accept != nil && !accept(rd)) {
		return watchedRead{}, nil, false
	}
	ch := make(chan Event, 1)
	r.m[key] = append(r.m[key], ch)
	return rd, ch, true
}

// generation is the count of session events handled, for remember.
func (r *watchRegistry) generation() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.readGen
}

// forgetReads drops every remembered read (on a session event).
func (r *watchRegistry) forgetReads() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.readGen++
	clear(r.reads)
}

// remembered is the count of remembered reads (tests).
func (r *watchRegistry) remembered() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.reads)
}

// WatchedReader reads with watches, answering from a watch still armed
// where it can instead of asking ZooKeeper again (see above). Take one per
// batch of reads: its barrier is what makes the remembered reads current.
type WatchedReader struct{ c *Client }

// Watched returns a WatchedReader once every event received so far is
// handled.
func (c *Client) Watched(ctx context.Context) (*WatchedReader, error) {
	if _, err := c.syncEvents(ctx); err != nil {
		return nil, err
	}
	return &WatchedReader{c: c}, nil
}

// GetManyW is Client.GetManyW, answered from armed watches where it can.
func (w *WatchedReader) GetManyW(ctx context.Context, paths []string, maxInFlight int) []GetResult {
	out := make([]GetResult, len(paths))
	var misses []int
	for i, p := range paths {
		out[i] = GetResult{Path: p}
		if rd, ch, ok := w.c.watches.recall(watchKey{p, watchData}, nil); ok {
			out[i].Data, out[i].Stat, out[i].Watch = slices.Clone(rd.data), rd.stat, ch
			continue
		}
		misses = append(misses, i)
	}
	pipeline(len(misses), maxInFlight, func(k int) {
		r := &out[misses[k]]
		r.Data, r.Stat, r.Watch, r.Err = w.c.getW(ctx, r.Path, true)
	})
	return out
}

// ChildrenManyW is Client.ChildrenManyW, answered from armed watches where
// it can.
func (w *WatchedReader) ChildrenManyW(ctx context.Context, paths []string, maxInFlight int) []ChildrenResult {
	out := make([]ChildrenResult, len(paths))
	var misses []int
	for i, p := range paths {
		out[i] = ChildrenResult{Path: p}
		if rd, ch, ok := w.c.watches.recall(watchKey{p, watchChild}, nil); ok {
			out[i].Children, out[i].Stat, out[i].Watch = slices.Clone(rd.children), rd.stat, ch
			continue
		}
		misses = append(misses, i)
	}
	pipeline(len(misses), maxInFlight, func(k int) {
		r := &out[misses[k]]
		r.Children, r.Stat, r.Watch, r.Err = w.c.childrenW(ctx, r.Path, true)
	})
	return out
}

// ExistsW is Client.ExistsW, answered from an armed watch when it can.
func (w *WatchedReader) ExistsW(ctx context.Context, path string) (bool, Stat, <-chan Event, error) {
	if rd, ch, ok := w.c.watches.recall(watchKey{path, watchExist}, nil); ok {
		return rd.exists, rd.stat, ch, nil
	}
	return w.c.existsW(ctx, path, true)
}

// GetOrExistsManyW reads znodes that may be missing, each with a watch:
// an existing one with its data and a data watch, a missing one as
// ErrNoNode with Watch set to a watch for its creation. A znode created
// between the two reads is read again without a watch (Watch nil).
func (w *WatchedReader) GetOrExistsManyW(ctx context.Context, paths []string, maxInFlight int) []GetResult {
	out := make([]GetResult, len(paths))
	var misses []int
	for i, p := range paths {
		out[i] = GetResult{Path: p}
		if rd, ch, ok := w.c.watches.recall(watchKey{p, watchData}, nil); ok {
			out[i].Data, out[i].Stat, out[i].Watch = slices.Clone(rd.data), rd.stat, ch
			continue
		}
		// A remembered "exists" says nothing of the data: only "missing"
		// answers a get.
		if _, ch, ok := w.c.watches.recall(watchKey{p, watchExist}, missing); ok {
			out[i].Err, out[i].Watch = opErr("get", p, ErrNoNode), ch
			continue
		}
		misses = append(misses, i)
	}
	pipeline(len(misses), maxInFlight, func(k int) {
		r := &out[misses[k]]
		r.Data, r.Stat, r.Watch, r.Err = w.c.getW(ctx, r.Path, true)
		if !errors.Is(r.Err, ErrNoNode) {
			return
		}
		ok, _, ch, err := w.c.existsW(ctx, r.Path, true)
		switch {
		case err != nil:
			r.Err = err
		case !ok:
			r.Watch = ch
		default:
			r.Data, r.Stat, r.Err = w.c.Get(ctx, r.Path)
			r.Watch = nil
		}
	})
	return out
}

func missing(rd watchedRead) bool { return !rd.exists }
