package acl

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kzadmin/kzadmin/zkadmin"
)

// runCache runs a cache over zk until the test ends.
func runCache(t *testing.T, zk ZK, mod ...func(*Cache)) *Cache {
	t.Helper()
	c := NewCache(zk, zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.InfoLevel))
	for _, m := range mod {
		m(c)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("Run returned %v", err)
		}
	})
	wctx, wcancel := context.WithTimeout(context.Background(), waitTimeout)
	defer wcancel()
	if err := c.WaitLoaded(wctx); err != nil {
		t.Fatal(err)
	}
	return c
}

func allowed(c *Cache, p Principal, op Operation, name string) bool {
	return c.Index().Authorize(Request{Principal: p, Host: net.ParseIP("127.0.0.1"), Operation: op,
		Type: ResourceTopic, Name: name}, Options{})
}

func TestCacheFollowsChanges(t *testing.T) {
	writer, root := connectZK(t)
	ctx := testCtx(t)
	store := NewStore(writer)
	if err := store.Add(ctx, []Binding{{topic("before"), allow("User:alice", OpRead)}}); err != nil {
		t.Fatal(err)
	}
	reader, _ := connectZK(t, root)
	c := runCache(t, reader)
	if !allowed(c, alice, OpRead, "before") {
		t.Fatal("ACL present at start not loaded")
	}
	// Through the store (one multi per pattern).
	if err := store.Add(ctx, []Binding{{prefix("fin-"), allow("User:alice", OpWrite)},
		{topic("before"), deny("User:alice", OpRead)}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "prefixed ACL and denial", func() bool {
		return allowed(c, alice, OpWrite, "fin-x") && !allowed(c, alice, OpRead, "before")
	})
	// By hand, as Kafka's authorizer writes: the znode, then the
	// notification; a bad notification in between is skipped.
	if _, err := writer.Create(ctx, "/kafka-acl/Topic/manual", []byte(
		`{"version":1,"acls":[{"principal":"User:bob","permissionType":"Allow","operation":"All","host":"*"}]}`), zkadmin.Persistent); err != nil {
		t.Fatal(err)
	}
	for _, note := range []string{"garbage-without-colon", "Topic:manual"} {
		if _, err := writer.Create(ctx, "/kafka-acl-changes/acl_changes_", []byte(note), zkadmin.PersistentSequential); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "hand-written ACL", func() bool { return allowed(c, bob, OpDelete, "manual") })
	// Removal.
	f := MatchAll()
	f.Principal = "User:alice"
	if _, err := store.Remove(ctx, f); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "removal", func() bool { return !allowed(c, alice, OpWrite, "fin-x") && c.Index().Len() == 1 })
}

// TestCachePurgesOldNotifications: with the clock 20 minutes ahead, every
// processed notification is old enough to purge.
func TestCachePurgesOldNotifications(t *testing.T) {
	writer, root := connectZK(t)
	ctx := testCtx(t)
	store := NewStore(writer)
	if err := store.Add(ctx, []Binding{{topic("a"), allow("User:alice", OpRead)}}); err != nil {
		t.Fatal(err)
	}
	reader, _ := connectZK(t, root)
	c := runCache(t, reader, func(c *Cache) { c.now = func() time.Time { return time.Now().Add(20 * time.Minute) } })
	if err := store.Add(ctx, []Binding{{topic("b"), allow("User:alice", OpRead)}, {prefix("c"), allow("User:alice", OpRead)}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "ACLs applied", func() bool { return allowed(c, alice, OpRead, "b") && allowed(c, alice, OpRead, "cc") })
	waitFor(t, "notifications purged", func() bool {
		n1, _, err1 := writer.Children(ctx, "/kafka-acl-changes")
		n2, _, err2 := writer.Children(ctx, "/kafka-acl-extended-changes")
		return err1 == nil && err2 == nil && len(n1)+len(n2) == 0
	})
}

// TestCacheKeepsFreshNotifications: notifications younger than 15 minutes
// stay for other brokers to read.
func TestCacheKeepsFreshNotifications(t *testing.T) {
	zk, _ := connectZK(t)
	ctx := testCtx(t)
	c := runCache(t, zk)
	if err := NewStore(zk).Add(ctx, []Binding{{topic("a"), allow("User:alice", OpRead)}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "ACL applied", func() bool { return allowed(c, alice, OpRead, "a") })
	if n, _, err := zk.Children(ctx, "/kafka-acl-changes"); err != nil || len(n) != 1 {
		t.Fatalf("notifications %v %v", n, err)
	}
}

// TestCacheReloadsAfterSessionLoss: when the watch is dropped, Run starts
// over with a full load and picks up what happened meanwhile.
func TestCacheReloadsAfterSessionLoss(t *testing.T) {
	writer, root := connectZK(t)
	ctx := testCtx(t)
	fz := &flakyZK{ZK: mustConnect(t, root), drop: make(chan struct{})}
	c := runCache(t, fz)
	close(fz.drop) // the next watch event says "not watching"
	if err := NewStore(writer).Add(ctx, []Binding{{topic("late"), allow("User:alice", OpRead)}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "ACL after reload", func() bool { return allowed(c, alice, OpRead, "late") })
	if fz.loads.Load() < 2 {
		t.Fatalf("%d full loads, want a reload", fz.loads.Load())
	}
}

func mustConnect(t *testing.T, root string) ZK {
	zk, _ := connectZK(t, root)
	return zk
}
