package acl

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/kzadmin/kzadmin/zkadmin"
)

// NotificationExpiry is how old a change notification gets before it is
// purged, as Kafka's brokers purge them (15 minutes).
const NotificationExpiry = 15 * time.Minute

// Cache keeps every ACL stored in ZooKeeper in memory, current through
// Kafka's change notifications. Decisions read an immutable Index, so they
// never wait for an update.
type Cache struct {
	zk  ZK
	log zerolog.Logger
	// now is the clock for purging; tests replace it.
	now func() time.Time

	idx        atomic.Pointer[Index]
	loaded     chan struct{}
	loadedOnce sync.Once
}

// NewCache returns an empty cache over zk; Run fills it.
func NewCache(zk ZK, log zerolog.Logger) *Cache {
	c := &Cache{zk: zk, log: log.With().Str("component", "acl-cache").Logger(), now: time.Now,
		loaded: make(chan struct{})}
	c.idx.Store(&Index{})
	return c
}

// Index is the current ACLs; never nil (empty until the first load).
func (c *Cache) Index() *Index { return c.idx.Load() }

// Loaded is closed once the first full load is in.
func (c *Cache) Loaded() <-chan struct{} { return c.loaded }

// WaitLoaded waits for the first full load, or ctx.
func (c *Cache) WaitLoaded(ctx context.Context) error {
	select {
	case <-c.loaded:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("wait for ACLs: %w", ctx.Err())
	}
}

// Run creates the ACL paths if missing, loads every ACL and then follows
// the change notifications until ctx ends. After a ZooKeeper error or a
// lost session it starts over with a full load, so nothing a lost watch
// missed stays missed. It returns ctx's error.
func (c *Cache) Run(ctx context.Context) error {
	backoff := 100 * time.Millisecond
	for {
		err := c.follow(ctx)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		c.log.Warn().Err(err).Dur("retry_in", backoff).Msg("ACL cache: reloading")
		t := time.NewTimer(backoff)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

// changeStore is one change notification root as followed.
type changeStore struct {
	pt     PatternType
	last   int64                // highest sequence processed
	ctimes map[string]time.Time // creation times of children seen
	watch  <-chan zkadmin.Event
}

// follow is one session's worth of Run: watch, load, then apply
// notifications until an error.
func (c *Cache) follow(ctx context.Context) error {
	if err := EnsurePaths(ctx, c.zk); err != nil {
		return err
	}
	stores := make([]*changeStore, 0, 2)
	var listed [][]string
	for _, pt := range storedPatternTypes() {
		// Watch before loading: a change after the listing fires the
		// watch, so it is re-read after the load at worst twice.
		children, _, ch, err := c.zk.ChildrenW(ctx, changeRoot(pt))
		if err != nil {
			return fmt.Errorf("watch %s: %w", changeRoot(pt), err)
		}
		s := &changeStore{pt: pt, last: -1, ctimes: map[string]time.Time{}, watch: ch}
		for _, ch := range children {
			if n, ok := changeSeq(ch); ok && n > s.last {
				s.last = n
			}
		}
		stores, listed = append(stores, s), append(listed, children)
	}
	acls, bad, err := loadAll(ctx, c.zk)
	if err != nil {
		return err
	}
	for _, e := range bad {
		c.log.Error().Err(e).Msg("ACL cache: ignoring unreadable ACL znode")
	}
	c.idx.Store(NewIndex(acls))
	c.loadedOnce.Do(func() { close(c.loaded) })
	c.log.Info().Int("patterns", len(acls)).Msg("ACLs loaded")
	for i, s := range stores {
		c.purge(ctx, s, listed[i])
	}
	return c.watchLoop(ctx, stores)
}

func (c *Cache) watchLoop(ctx context.Context, stores []*changeStore) error {
	for {
		var s *changeStore
		var ev zkadmin.Event
		var open bool
		select {
		case ev, open = <-stores[0].watch:
			s = stores[0]
		case ev, open = <-stores[1].watch:
			s = stores[1]
		case <-ctx.Done():
			return ctx.Err()
		}
		if !open || ev.Type == zkadmin.EventNotWatching {
			return fmt.Errorf("watch on %s dropped: %w", changeRoot(s.pt), ev.Err)
		}
		children, _, ch, err := c.zk.ChildrenW(ctx, changeRoot(s.pt))
		if err != nil {
			return fmt.Errorf("watch %s: %w", changeRoot(s.pt), err)
		}
		s.watch = ch
		if err := c.apply(ctx, s, children); err != nil {
			return err
		}
		c.purge(ctx, s, children)
	}
}

// apply processes the notifications newer than s.last, in order: each
// names a pattern whose znode is re-read.
func (c *Cache) apply(ctx context.Context, s *changeStore, children []string) error {
	type seqChild struct {
		n    int64
		name string
	}
	var fresh []seqChild
	for _, ch := range children {
		if n, ok := changeSeq(ch); ok && n > s.last {
			fresh = append(fresh, seqChild{n, ch})
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	slices.SortFunc(fresh, func(a, b seqChild) int { return cmp.Compare(a.n, b.n) })
	changed := map[Pattern][]Entry{}
	for _, f := range fresh {
		data, st, err := c.zk.Get(ctx, changeRoot(s.pt)+"/"+f.name)
		if errors.Is(err, zkadmin.ErrNoNode) {
			s.last = f.n // purged by someone else: nothing to learn
			continue
		}
		if err != nil {
			return fmt.Errorf("read ACL change %s: %w", f.name, err)
		}
		s.ctimes[f.name] = st.Created()
		p, err := decodeChange(s.pt, data)
		if err != nil {
			c.log.Error().Err(err).Str("notification", f.name).Msg("ACL cache: ignoring bad change notification")
			s.last = f.n
			continue
		}
		es, _, err := readPattern(ctx, c.zk, p)
		if err != nil {
			return fmt.Errorf("re-read %s: %w", resourcePath(p), err)
		}
		changed[p] = es
		s.last = f.n
	}
	if len(changed) > 0 {
		c.idx.Store(c.idx.Load().With(changed))
		c.log.Debug().Int("patterns", len(changed)).Msg("ACLs updated")
	}
	return nil
}

// purge deletes processed notifications older than NotificationExpiry.
// Failures are logged only: another broker may purge the same ones.
func (c *Cache) purge(ctx context.Context, s *changeStore, children []string) {
	var unknown []string
	for _, ch := range children {
		if _, ok := s.ctimes[ch]; !ok {
			unknown = append(unknown, changeRoot(s.pt)+"/"+ch)
		}
	}
	for _, r := range c.zk.GetMany(ctx, unknown, 0) {
		if r.Err == nil {
			s.ctimes[r.Path[len(changeRoot(s.pt))+1:]] = r.Stat.Created()
		}
	}
	cutoff := c.now().Add(-NotificationExpiry)
	for name, ct := range s.ctimes {
		n, _ := changeSeq(name)
		if n > s.last || !ct.Before(cutoff) {
			continue
		}
		err := c.zk.Delete(ctx, changeRoot(s.pt)+"/"+name, -1)
		if err == nil || errors.Is(err, zkadmin.ErrNoNode) {
			delete(s.ctimes, name)
			continue
		}
		c.log.Debug().Err(err).Str("notification", name).Msg("ACL cache: purge failed")
	}
	for name := range s.ctimes {
		if !slices.Contains(children, name) {
			delete(s.ctimes, name) // gone: keep the map from growing
		}
	}
}
