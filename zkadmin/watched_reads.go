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
// (see syncEvents). So once every event received before some reply R is
// handled, a watch that has not fired vouches for its read as of R: any
// change R reflects would have fired it.
//
// WatchedReader uses that to skip the request. Its reads remember their
// result while their watch stays armed; a later WatchedReader read of the
// same znode and kind, taken after an event barrier, returns the
// remembered result with a new channel on the same server-side watch. The
// answer is as fresh as the last reply the session received before the
// barrier: never older than what the session has already seen, and
// sequentially consistent, as every ZooKeeper read is. It may miss a
// change whose notification is still on its way, which a new read would
// have waited for; a caller that needs the state as of a read of its own
// takes the reader after that read's reply (the create path takes it
// after its fence read). A session event (a disconnection, a new session) forgets
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
// and, with register, a new channel on the same armed watch.
func (r *watchRegistry) recall(key watchKey, accept func(watchedRead) bool, register bool) (watchedRead, chan Event, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rd, ok := r.reads[key]
	if !ok || (accept != nil && !accept(rd)) {
		return watchedRead{}, nil, false
	}
	if !register {
		return rd, nil, true
	}
	ch := make(chan Event, 1)
	r.m[key] = append(r.m[key], ch)
	return rd, ch, true
}

// readFlight is a WatchedReader read in flight; done closes once it is
// answered (and remembered, if it could be).
type readFlight struct{ done chan struct{} }

// join returns the read of key in flight and false, or, when there is
// none, starts one, which the caller sends and ends with land.
func (r *watchRegistry) join(key watchKey) (f *readFlight, sender bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if f := r.flights[key]; f != nil {
		return f, false
	}
	f = &readFlight{done: make(chan struct{})}
	r.flights[key] = f
	return f, true
}

// land ends the caller's flight of key.
func (r *watchRegistry) land(key watchKey, f *readFlight) {
	r.mu.Lock()
	if r.flights[key] == f {
		delete(r.flights, key)
	}
	r.mu.Unlock()
	close(f.done)
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

// The W methods return each znode's watch channel, as Client's do; the
// others are for callers that do not keep the watch (they use what the
// watch vouches for, and read again once it fires): no channel of theirs
// is left registered, so that reading the same znodes round after round
// does not pile channels up on watches that rarely fire.
//
// Concurrent reads of one znode share one request: the Admin's warm-up
// and the controller's watch arming both read each new topic, often at
// once; the later one waits for the earlier one's answer and recalls it.

// GetManyW is Client.GetManyW, answered from armed watches where it can.
func (w *WatchedReader) GetManyW(ctx context.Context, paths []string, maxInFlight int) []GetResult {
	return w.getMany(ctx, paths, maxInFlight, true)
}

// GetMany is GetManyW without the channels.
func (w *WatchedReader) GetMany(ctx context.Context, paths []string, maxInFlight int) []GetResult {
	return w.getMany(ctx, paths, maxInFlight, false)
}

func (w *WatchedReader) getMany(ctx context.Context, paths []string, maxInFlight int, keep bool) []GetResult {
	out := make([]GetResult, len(paths))
	w.many(ctx, paths, maxInFlight, watchData, keep, func(p string) (watchedRead, chan Event, error) {
		data, st, ch, err := w.c.getW(ctx, p, true)
		return watchedRead{data: data, stat: st}, ch, err
	}, func(i int, rd watchedRead, ch chan Event, err error) {
		out[i] = GetResult{Path: paths[i], Data: slices.Clone(rd.data), Stat: rd.stat, Watch: ch, Err: err}
	})
	return out
}

// ChildrenManyW is Client.ChildrenManyW, answered from armed watches where
// it can.
func (w *WatchedReader) ChildrenManyW(ctx context.Context, paths []string, maxInFlight int) []ChildrenResult {
	return w.childrenMany(ctx, paths, maxInFlight, true)
}

// ChildrenMany is ChildrenManyW without the channels.
func (w *WatchedReader) ChildrenMany(ctx context.Context, paths []string, maxInFlight int) []ChildrenResult {
	return w.childrenMany(ctx, paths, maxInFlight, false)
}

func (w *WatchedReader) childrenMany(ctx context.Context, paths []string, maxInFlight int, keep bool) []ChildrenResult {
	out := make([]ChildrenResult, len(paths))
	w.many(ctx, paths, maxInFlight, watchChild, keep, func(p string) (watchedRead, chan Event, error) {
		kids, st, ch, err := w.c.childrenW(ctx, p, true)
		return watchedRead{children: kids, stat: st}, ch, err
	}, func(i int, rd watchedRead, ch chan Event, err error) {
		out[i] = ChildrenResult{Path: paths[i], Children: slices.Clone(rd.children), Stat: rd.stat, Watch: ch, Err: err}
	})
	return out
}

// many answers each of paths with the kind of read send makes: from a
// remembered read where it can, the others through read, pipelined.
// answer gets each one's result (rd's slices are shared: copy them).
func (w *WatchedReader) many(ctx context.Context, paths []string, maxInFlight int, kind watchKind, keep bool,
	send func(path string) (watchedRead, chan Event, error), answer func(i int, rd watchedRead, ch chan Event, err error)) {
	var misses []int
	for i, p := range paths {
		if rd, ch, ok := w.c.watches.recall(watchKey{p, kind}, nil, keep); ok {
			answer(i, rd, ch, nil)
			continue
		}
		misses = append(misses, i)
	}
	pipeline(len(misses), maxInFlight, func(k int) {
		i := misses[k]
		rd, ch, err := w.read(ctx, watchKey{paths[i], kind}, keep, func() (watchedRead, chan Event, error) {
			return send(paths[i])
		})
		answer(i, rd, ch, err)
	})
}

// Exists is Client.Exists, answered from an armed watch when it can, and
// otherwise read with a watch (which it does not return).
func (w *WatchedReader) Exists(ctx context.Context, path string) (bool, Stat, error) {
	if rd, _, ok := w.c.watches.recall(watchKey{path, watchExist}, nil, false); ok {
		return rd.exists, rd.stat, nil
	}
	rd, _, err := w.read(ctx, watchKey{path, watchExist}, false, func() (watchedRead, chan Event, error) {
		ok, st, ch, err := w.c.existsW(ctx, path, true)
		return watchedRead{exists: ok, stat: st}, ch, err
	})
	return rd.exists, rd.stat, err
}

// GetOrExistsMany reads znodes that may be missing, each with a watch it
// does not return: an existing one with its data, a missing one as
// ErrNoNode (its creation fires the watch).
func (w *WatchedReader) GetOrExistsMany(ctx context.Context, paths []string, maxInFlight int) []GetResult {
	out := make([]GetResult, len(paths))
	var misses []int
	for i, p := range paths {
		out[i] = GetResult{Path: p}
		if rd, _, ok := w.c.watches.recall(watchKey{p, watchData}, nil, false); ok {
			out[i].Data, out[i].Stat = slices.Clone(rd.data), rd.stat
			continue
		}
		// A remembered "exists" says nothing of the data: only "missing"
		// answers a get.
		if _, _, ok := w.c.watches.recall(watchKey{p, watchExist}, missing, false); ok {
			out[i].Err = opErr("get", p, ErrNoNode)
			continue
		}
		misses = append(misses, i)
	}
	pipeline(len(misses), maxInFlight, func(k int) {
		r := &out[misses[k]]
		got := w.getMany(ctx, []string{r.Path}, 1, false)[0]
		r.Data, r.Stat, r.Err = got.Data, got.Stat, got.Err
		if !errors.Is(r.Err, ErrNoNode) {
			return
		}
		// A get leaves no watch on a missing znode; an exists does.
		switch ok, _, err := w.Exists(ctx, r.Path); {
		case err != nil:
			r.Err = err
		case ok: // created in between: read it, unremembered
			r.Data, r.Stat, r.Err = w.c.Get(ctx, r.Path)
		}
	})
	return out
}

// read is a miss of key: it waits for a read of key another WatchedReader
// has in flight and recalls its answer, or sends its own (send, which
// remembers it) and lets concurrent readers wait for it. Without keep,
// the channel is unregistered: once remembered, the read stays good until
// the watch fires, whoever holds a channel on it.
func (w *WatchedReader) read(ctx context.Context, key watchKey, keep bool,
	send func() (watchedRead, chan Event, error)) (watchedRead, chan Event, error) {
	for {
		f, sender := w.c.watches.join(key)
		if sender {
			// A flight that landed between the caller's recall and
			// this join has remembered its answer.
			if rd, ch, ok := w.c.watches.recall(key, nil, keep); ok {
				w.c.watches.land(key, f)
				return rd, ch, nil
			}
			rd, ch, err := send()
			w.c.watches.land(key, f)
			if err != nil {
				return watchedRead{}, nil, err
			}
			if !keep {
				w.c.watches.remove(key.path, key.kind, ch)
				ch = nil
			}
			return rd, ch, nil
		}
		select {
		case <-f.done:
		case <-ctx.Done():
			return watchedRead{}, nil, opErr("read", key.path, ctx.Err())
		}
		if rd, ch, ok := w.c.watches.recall(key, nil, keep); ok {
			return rd, ch, nil
		}
		// Not remembered (its watch fired first, or it failed): read.
	}
}

func missing(rd watchedRead) bool { return !rd.exists }
