package zkadmin

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/integration/netcut"
)

// TestRememberOnlyWhileArmed: the registry keeps a read only while the
// channel the read armed is registered and no session event came since the
// read was sent; a firing of the key, a session event and closeAll drop it.
func TestRememberOnlyWhileArmed(t *testing.T) {
	r := newWatchRegistry()
	key := watchKey{"/a", watchData}
	rd := watchedRead{data: []byte("1"), stat: Stat{Version: 3}}

	ch := r.add("/a", watchData)
	r.remember(key, ch, r.generation(), rd)
	got, recalled, ok := r.recall(key, nil, true)
	if !ok || string(got.data) != "1" || got.stat.Version != 3 {
		t.Fatalf("recall = %+v, %v; want the remembered read", got, ok)
	}
	r.fire(Event{Type: EventNodeDataChanged, Path: "/a"})
	for _, c := range []chan Event{ch, recalled} {
		if ev, open := <-c; !open || ev.Type != EventNodeDataChanged {
			t.Fatalf("channel got %v (open %v), want the data change", ev, open)
		}
	}
	if _, _, ok := r.recall(key, nil, true); ok {
		t.Fatal("a read was recalled after its watch fired")
	}

	// Fired before the reply was remembered: the read may be stale.
	ch = r.add("/a", watchData)
	r.fire(Event{Type: EventNodeDeleted, Path: "/a"})
	r.remember(key, ch, r.generation(), rd)
	if r.remembered() != 0 {
		t.Fatal("a read whose watch fired before its reply was remembered")
	}

	// A session event between the send and the reply.
	ch = r.add("/a", watchData)
	gen := r.generation()
	r.forgetReads()
	r.remember(key, ch, gen, rd)
	if r.remembered() != 0 {
		t.Fatal("a read sent before a session event was remembered")
	}

	// A session event after the reply, and closing.
	r.remember(key, ch, r.generation(), rd)
	r.forgetReads()
	if r.remembered() != 0 {
		t.Fatal("a session event left a remembered read")
	}
	r.remember(key, ch, r.generation(), rd)
	r.closeAll(ErrClosed)
	if r.remembered() != 0 {
		t.Fatal("closeAll left a remembered read")
	}
}

// TestRecallFollowsZooKeeperFiringRules: a children change drops only the
// remembered listing, a data change the data and existence reads, a
// creation the existence read, a deletion all three.
func TestRecallFollowsZooKeeperFiringRules(t *testing.T) {
	kinds := []watchKind{watchData, watchExist, watchChild}
	for _, tc := range []struct {
		ev      EventType
		dropped []watchKind
	}{
		{EventNodeChildrenChanged, []watchKind{watchChild}},
		{EventNodeDataChanged, []watchKind{watchData, watchExist}},
		{EventNodeCreated, []watchKind{watchExist}},
		{EventNodeDeleted, kinds},
	} {
		r := newWatchRegistry()
		for _, k := range kinds {
			r.remember(watchKey{"/a", k}, r.add("/a", k), r.generation(), watchedRead{exists: true})
		}
		r.fire(Event{Type: tc.ev, Path: "/a"})
		for _, k := range kinds {
			_, _, ok := r.recall(watchKey{"/a", k}, nil, false)
			if want := !slices.Contains(tc.dropped, k); ok != want {
				t.Errorf("%s: kind %d remembered %v, want %v", tc.ev, k, ok, want)
			}
		}
	}
}

// TestWatchedReaderAnswersFromArmedWatches: against ZooKeeper, a second
// WatchedReader read of the same znodes sends no request and returns what
// the first read returned, the W variants' channels fire on the next
// change, and after the changes the reads go to ZooKeeper again.
func TestWatchedReaderAnswersFromArmedWatches(t *testing.T) {
	c := connect(t, Options{})
	writer := connect(t, Options{Chroot: c.Chroot()})
	ctx := testCtx(t)
	mustCreate(t, c, "/d", []byte("1"), Persistent)
	mustCreate(t, c, "/d/kid", nil, Persistent)

	type reads struct {
		get    GetResult
		kids   ChildrenResult
		exists bool
		maybe  GetResult
	}
	read := func() reads {
		t.Helper()
		w, err := c.Watched(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var r reads
		r.get = w.GetManyW(ctx, []string{"/d"}, 0)[0]
		r.kids = w.ChildrenManyW(ctx, []string{"/d"}, 0)[0]
		if r.exists, _, err = w.Exists(ctx, "/missing"); err != nil {
			t.Fatal(err)
		}
		r.maybe = w.GetOrExistsMany(ctx, []string{"/maybe"}, 0)[0]
		return r
	}
	first := read()
	if first.get.Err != nil || string(first.get.Data) != "1" || first.kids.Err != nil ||
		!slices.Equal(first.kids.Children, []string{"kid"}) || first.exists || !errors.Is(first.maybe.Err, ErrNoNode) {
		t.Fatalf("first read: %+v", first)
	}
	sent := c.requests.Load()
	second := read()
	if n := c.requests.Load() - sent; n != 0 {
		t.Errorf("second read sent %d requests, want none", n)
	}
	if string(second.get.Data) != "1" || second.get.Stat != first.get.Stat || second.get.Watch == nil ||
		!slices.Equal(second.kids.Children, first.kids.Children) || second.kids.Watch == nil ||
		second.exists || !errors.Is(second.maybe.Err, ErrNoNode) {
		t.Fatalf("second read differs: %+v", second)
	}

	if _, err := writer.Set(ctx, "/d", []byte("2"), -1); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, writer, "/d/kid2", nil, Persistent)
	mustCreate(t, writer, "/missing", nil, Persistent)
	mustCreate(t, writer, "/maybe", []byte("m"), Persistent)
	for name, ch := range map[string]<-chan Event{"data": second.get.Watch, "children": second.kids.Watch} {
		if _, open := <-ch; !open {
			t.Fatalf("%s watch closed without an event", name)
		}
	}
	// A read whose reply reflects the creations comes after their
	// notifications; the next WatchedReader's barrier takes them in.
	if _, _, err := c.Get(ctx, "/maybe"); err != nil {
		t.Fatal(err)
	}
	sent = c.requests.Load()
	third := read()
	if n := c.requests.Load() - sent; n != 4 {
		t.Errorf("the read after the changes sent %d requests, want 4 (one per znode)", n)
	}
	if string(third.get.Data) != "2" || len(third.kids.Children) != 2 || !third.exists || string(third.maybe.Data) != "m" {
		t.Fatalf("read after the changes: %+v", third)
	}
}

// TestWatchedReaderLeavesNoChannelsBehind: reads that do not keep their
// watch leave no channel registered, however often they are answered, so
// a create path reading the same side znodes every round does not pile
// channels up on watches that rarely fire; the W variants leave one per
// call, which their callers hold.
func TestWatchedReaderLeavesNoChannelsBehind(t *testing.T) {
	c := connect(t, Options{})
	ctx := testCtx(t)
	mustCreate(t, c, "/d", []byte("1"), Persistent)
	for range 20 {
		w, err := c.Watched(ctx)
		if err != nil {
			t.Fatal(err)
		}
		w.GetMany(ctx, []string{"/d"}, 0)
		w.ChildrenMany(ctx, []string{"/d"}, 0)
		w.GetOrExistsMany(ctx, []string{"/d", "/missing"}, 0)
		if _, _, err := w.Exists(ctx, "/missing"); err != nil {
			t.Fatal(err)
		}
	}
	if n := c.watches.len(); n != 0 {
		t.Errorf("%d channels registered after reads that keep none", n)
	}
	if n := c.watches.remembered(); n != 3 {
		t.Errorf("%d reads remembered, want 3 (data and children of /d, /missing)", n)
	}
	w, err := c.Watched(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w.GetManyW(ctx, []string{"/d"}, 0)
	w.GetManyW(ctx, []string{"/d"}, 0)
	if n := c.watches.len(); n != 2 {
		t.Errorf("%d channels registered after two kept reads, want 2", n)
	}
}

// TestWatchedReaderAfterAReplySeesEarlierChanges is the property the
// create path relies on: a WatchedReader taken after a read's reply
// answers with every change that reply reflects, even one another client
// made, whose notification races the reply. The writer changes /x, /a and
// /b in turn; once our session reads the new /b, a WatchedReader must not
// return the old /a. Handling /x's event is held up a little (through
// OnEvent), so that /a's event is still queued behind it when the reply
// for /b arrives: only the WatchedReader's barrier waits for it.
func TestWatchedReaderAfterAReplySeesEarlierChanges(t *testing.T) {
	slow := func(ev Event) {
		if ev.Path == "/x" {
			time.Sleep(20 * time.Millisecond)
		}
	}
	c := connect(t, Options{OnEvent: slow})
	writer := connect(t, Options{Chroot: c.Chroot()})
	ctx := testCtx(t)
	for _, p := range []string{"/x", "/a", "/b"} {
		mustCreate(t, c, p, []byte("0"), Persistent)
	}
	for i := 1; i <= 20; i++ {
		if _, _, _, err := c.GetW(ctx, "/x"); err != nil {
			t.Fatal(err)
		}
		w, err := c.Watched(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if r := w.GetManyW(ctx, []string{"/a"}, 0)[0]; r.Err != nil || string(r.Data) != fmt.Sprint(i-1) {
			t.Fatalf("round %d: /a = %q, %v before the change", i, r.Data, r.Err)
		}
		v := []byte(fmt.Sprint(i))
		for _, p := range []string{"/x", "/a", "/b"} {
			if _, err := writer.Set(ctx, p, v, -1); err != nil {
				t.Fatal(err)
			}
		}
		if b, _, err := c.Get(ctx, "/b"); err != nil || string(b) != string(v) {
			t.Fatalf("round %d: /b = %q, %v", i, b, err)
		}
		w, err = c.Watched(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if r := w.GetManyW(ctx, []string{"/a"}, 0)[0]; r.Err != nil || string(r.Data) != string(v) {
			t.Fatalf("round %d: /a = %q, %v after a reply that reflects its change", i, r.Data, r.Err)
		}
	}
}

// TestWatchedReaderForgetsOnDisconnect: a dropped connection forgets every
// remembered read, so reads after it go to ZooKeeper.
func TestWatchedReaderForgetsOnDisconnect(t *testing.T) {
	proxy := netcut.New(t, env.server.Addr())
	c := connect(t, Options{Servers: []string{proxy.Addr()}})
	ctx := testCtx(t)
	mustCreate(t, c, "/a", []byte("1"), Persistent)
	w, err := c.Watched(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r := w.GetManyW(ctx, []string{"/a"}, 0)[0]; r.Err != nil {
		t.Fatal(r.Err)
	}
	if c.watches.remembered() != 1 {
		t.Fatalf("%d reads remembered, want 1", c.watches.remembered())
	}
	proxy.Cut()
	waitFor(t, "disconnection", waitTimeout, func() bool { return c.State() != StateConnected })
	if _, err := c.syncEvents(ctx); err != nil {
		t.Fatal(err)
	}
	if n := c.watches.remembered(); n != 0 {
		t.Fatalf("%d reads remembered after the disconnection", n)
	}
	proxy.Heal()
	if err := c.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	sent := c.requests.Load()
	w, err = c.Watched(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r := w.GetManyW(ctx, []string{"/a"}, 0)[0]; r.Err != nil || string(r.Data) != "1" {
		t.Fatalf("read after reconnecting: %+v", r)
	}
	if c.requests.Load() == sent {
		t.Error("the read after reconnecting was answered from a forgotten watch")
	}
}

// TestWatchedReadersShareAFlight: readers of the same znodes at once (the
// Admin's warm-up and the controller's watch arming) send one request per
// znode between them; each gets the data and a channel of its own.
func TestWatchedReadersShareAFlight(t *testing.T) {
	c := connect(t, Options{})
	ctx := testCtx(t)
	var paths []string
	for i := range 20 {
		p := fmt.Sprintf("/t%02d", i)
		mustCreate(t, c, p, []byte(p), Persistent)
		paths = append(paths, p)
	}
	sent := c.requests.Load()
	const readers = 4
	results := make([][]GetResult, readers)
	var wg sync.WaitGroup
	for i := range readers {
		wg.Go(func() {
			w, err := c.Watched(ctx)
			if err != nil {
				t.Error(err)
				return
			}
			results[i] = w.GetManyW(ctx, paths, 0)
		})
	}
	wg.Wait()
	if n := c.requests.Load() - sent; n != uint64(len(paths)) {
		t.Errorf("%d readers of %d znodes sent %d requests, want %d", readers, len(paths), n, len(paths))
	}
	for i, res := range results {
		for k, r := range res {
			if r.Err != nil || string(r.Data) != paths[k] || r.Watch == nil {
				t.Fatalf("reader %d, %s: %+v", i, paths[k], r)
			}
		}
	}
	if n := c.watches.len(); n != readers*len(paths) {
		t.Errorf("%d channels registered, want one per reader and znode (%d)", n, readers*len(paths))
	}
}
