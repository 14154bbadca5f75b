package zkadmin

import (
	"strings"
	"sync"
	"testing"
	"time"
)

const waitTimeout = 10 * time.Second

// eventLog collects OnEvent deliveries for assertions.
type eventLog struct {
	mu  sync.Mutex
	evs []Event
}

func (l *eventLog) add(ev Event) {
	l.mu.Lock()
	l.evs = append(l.evs, ev)
	l.mu.Unlock()
}

func (l *eventLog) has(match func(Event) bool) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, ev := range l.evs {
		if match(ev) {
			return true
		}
	}
	return false
}

func (l *eventLog) all() []Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Event(nil), l.evs...)
}

func TestWatchesFireWithChrootStrippedPaths(t *testing.T) {
	var log eventLog
	c := connect(t, Options{OnEvent: log.add})
	writer := connect(t, Options{Chroot: c.Chroot()})
	ctx := testCtx(t)
	mustCreate(t, c, "/brokers", nil, Persistent)
	mustCreate(t, c, "/brokers/ids", nil, Persistent)
	mustCreate(t, c, "/data", []byte("1"), Persistent)

	_, _, dataW, err := c.GetW(ctx, "/data")
	if err != nil {
		t.Fatal(err)
	}
	_, _, kidsW, err := c.ChildrenW(ctx, "/brokers/ids")
	if err != nil {
		t.Fatal(err)
	}
	ok, _, existW, err := c.ExistsW(ctx, "/controller")
	if err != nil || ok {
		t.Fatalf("exists /controller: %v %v", ok, err)
	}

	if _, err := writer.Set(ctx, "/data", []byte("2"), AnyVersion); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, writer, "/brokers/ids/1", nil, Ephemeral)
	mustCreate(t, writer, "/controller", nil, Ephemeral)

	checks := []struct {
		ch   <-chan Event
		want Event
	}{
		{dataW, Event{Type: EventNodeDataChanged, Path: "/data"}},
		{kidsW, Event{Type: EventNodeChildrenChanged, Path: "/brokers/ids"}},
		{existW, Event{Type: EventNodeCreated, Path: "/controller"}},
	}
	for _, ck := range checks {
		if ev := recv(t, ck.ch, waitTimeout); ev != ck.want {
			t.Fatalf("event %+v, want %+v", ev, ck.want)
		}
		if _, open := <-ck.ch; open {
			t.Fatal("watch channel not closed after its event")
		}
		waitFor(t, "OnEvent "+ck.want.String(), waitTimeout, func() bool {
			return log.has(func(ev Event) bool { return ev == ck.want })
		})
	}

	// Deletion fires data and exists watches.
	ok, _, existW, _ = c.ExistsW(ctx, "/controller")
	_, _, dataW, _ = c.GetW(ctx, "/controller")
	if !ok {
		t.Fatal("/controller missing")
	}
	if err := writer.Delete(ctx, "/controller", AnyVersion); err != nil {
		t.Fatal(err)
	}
	for _, ch := range []<-chan Event{existW, dataW} {
		if ev := recv(t, ch, waitTimeout); ev.Type != EventNodeDeleted || ev.Path != "/controller" {
			t.Fatalf("event %+v", ev)
		}
	}
	// Watches are one-shot: a second change fires nothing already consumed,
	// and the registry holds nothing.
	waitFor(t, "registry empty", waitTimeout, func() bool { return c.watches.len() == 0 })
	for _, ev := range log.all() {
		if ev.Type != EventSession && strings.HasPrefix(ev.Path, c.Chroot()) {
			t.Fatalf("OnEvent got an unstripped path: %+v", ev)
		}
	}
}

func TestWatchPathsPerChroot(t *testing.T) {
	c := connect(t, Options{})
	root := connect(t, Options{Chroot: "/"})
	ctx := testCtx(t)
	mustCreate(t, c, "/x", nil, Persistent)
	_, _, inChroot, err := c.GetW(ctx, "/x")
	if err != nil {
		t.Fatal(err)
	}
	_, _, atRoot, err := root.GetW(ctx, c.Chroot()+"/x")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Set(ctx, "/x", []byte("1"), AnyVersion); err != nil {
		t.Fatal(err)
	}
	if ev := recv(t, inChroot, waitTimeout); ev.Path != "/x" {
		t.Fatalf("chrooted client got %+v", ev)
	}
	if ev := recv(t, atRoot, waitTimeout); ev.Path != c.Chroot()+"/x" {
		t.Fatalf("unchrooted client got %+v", ev)
	}
}

func TestGetWOnMissingNodeLeavesNoWatch(t *testing.T) {
	c := connect(t, Options{})
	if _, _, w, err := c.GetW(testCtx(t), "/missing"); err == nil || w != nil {
		t.Fatalf("GetW missing: %v %v", w, err)
	}
	if n := c.watches.len(); n != 0 {
		t.Fatalf("%d watches registered", n)
	}
}

func TestCloseEndsWatches(t *testing.T) {
	c := connect(t, Options{})
	mustCreate(t, c, "/x", nil, Persistent)
	_, _, w, err := c.GetW(testCtx(t), "/x")
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	ev := recv(t, w, waitTimeout)
	if ev.Type != EventNotWatching || ev.Path != "/x" || ev.Err != ErrClosed {
		t.Fatalf("event %+v", ev)
	}
}
