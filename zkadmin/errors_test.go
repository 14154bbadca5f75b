package zkadmin

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kzadmin/kzadmin/integration/netcut"
)

// TestErrorMapping drives every ZooKeeper error a caller branches on
// through a real server and checks the sentinel, the *OpError and that the
// message names the op and the caller's path (never the chroot).
func TestErrorMapping(t *testing.T) {
	c := connect(t, Options{})
	ctx := testCtx(t)
	mustCreate(t, c, "/node", []byte("x"), Persistent)
	mustCreate(t, c, "/node/child", nil, Persistent)
	mustCreate(t, c, "/eph", nil, Ephemeral)
	if _, err := c.CreateWithACL(ctx, "/locked", nil, Persistent,
		[]ACL{{Perms: PermAll, Scheme: "digest", ID: "someone:AAAAAAAAAAAAAAAAAAAAAAAAAAA="}}); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name, op, path string
		want           error
		do             func() error
	}{
		{"get missing", "get", "/missing", ErrNoNode, func() error { _, _, err := c.Get(ctx, "/missing"); return err }},
		{"set missing", "set", "/missing", ErrNoNode, func() error { _, err := c.Set(ctx, "/missing", nil, AnyVersion); return err }},
		{"delete missing", "delete", "/missing", ErrNoNode, func() error { return c.Delete(ctx, "/missing", AnyVersion) }},
		{"children missing", "children", "/missing", ErrNoNode, func() error { _, _, err := c.Children(ctx, "/missing"); return err }},
		{"create without parent", "create", "/missing/x", ErrNoNode, func() error { _, err := c.Create(ctx, "/missing/x", nil, Persistent); return err }},
		{"create existing", "create", "/node", ErrNodeExists, func() error { _, err := c.Create(ctx, "/node", nil, Persistent); return err }},
		{"set bad version", "set", "/node", ErrBadVersion, func() error { _, err := c.Set(ctx, "/node", nil, 7); return err }},
		{"delete bad version", "delete", "/node/child", ErrBadVersion, func() error { return c.Delete(ctx, "/node/child", 3) }},
		{"delete not empty", "delete", "/node", ErrNotEmpty, func() error { return c.Delete(ctx, "/node", AnyVersion) }},
		{"child of ephemeral", "create", "/eph/x", ErrNoChildrenForEphemerals, func() error { _, err := c.Create(ctx, "/eph/x", nil, Persistent); return err }},
		{"no auth", "get", "/locked", ErrNoAuth, func() error { _, _, err := c.Get(ctx, "/locked"); return err }},
		{"invalid path", "get", "relative", ErrInvalidPath, func() error { _, _, err := c.Get(ctx, "relative"); return err }},
		{"invalid create path", "create", "/a//b", ErrInvalidPath, func() error { _, err := c.Create(ctx, "/a//b", nil, Persistent); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.do()
			checkOpError(t, err, tt.want, tt.op, tt.path)
			if strings.Contains(err.Error(), c.Chroot()) {
				t.Errorf("error leaks the chroot: %v", err)
			}
		})
	}
}

func checkOpError(t *testing.T, err, want error, op, path string) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("err = %v, want %v", err, want)
	}
	var oe *OpError
	if !errors.As(err, &oe) || oe.Op != op || oe.Path != path {
		t.Fatalf("err = %#v, want *OpError{%s %s}", err, op, path)
	}
	if !strings.Contains(err.Error(), op+" "+path) {
		t.Fatalf("message %q does not name %s %s", err, op, path)
	}
}

func mustCreate(t *testing.T, c *Client, path string, data []byte, mode CreateMode) {
	t.Helper()
	if _, err := c.Create(testCtx(t), path, data, mode); err != nil {
		t.Fatal(err)
	}
}

func TestAuthAndACLProvider(t *testing.T) {
	chroot := testChroot(t)
	secure := func(path string) []ACL {
		if strings.HasPrefix(path, "/config/users") {
			return CreatorAllACL()
		}
		return append(CreatorAllACL(), WorldReadACL()...)
	}
	owner := connect(t, Options{Chroot: chroot, ACL: secure, Auth: []Auth{{Scheme: "digest", Credentials: []byte("kafka:secret")}}})
	other := connect(t, Options{Chroot: chroot})
	ctx := testCtx(t)
	if err := owner.EnsurePath(ctx, "/config/users"); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, owner, "/config/users/alice", []byte("scram"), Persistent)
	mustCreate(t, owner, "/config/topics", nil, Persistent)

	if _, _, err := owner.Get(ctx, "/config/users/alice"); err != nil {
		t.Fatalf("owner cannot read its znode: %v", err)
	}
	_, _, err := other.Get(ctx, "/config/users/alice")
	checkOpError(t, err, ErrNoAuth, "get", "/config/users/alice")
	if _, _, err := other.Get(ctx, "/config/topics"); err != nil {
		t.Fatalf("world-readable znode: %v", err)
	}
	_, err = other.Set(ctx, "/config/topics", []byte("x"), AnyVersion)
	checkOpError(t, err, ErrNoAuth, "set", "/config/topics")
}

func TestClosedClient(t *testing.T) {
	c := connect(t, Options{})
	ctx := testCtx(t)
	c.Close()
	c.Close() // idempotent
	_, _, err := c.Get(ctx, "/x")
	checkOpError(t, err, ErrClosed, "get", "/x")
	_, err = c.Multi(ctx, CreateOp("/x", nil, Persistent))
	if !errors.Is(err, ErrClosed) {
		t.Fatalf("multi after close: %v", err)
	}
	if err := c.WaitConnected(ctx); !errors.Is(err, ErrClosed) {
		t.Fatalf("WaitConnected after close: %v", err)
	}
	if c.State() != StateClosed || !c.Session().Expired() {
		t.Fatalf("state %v, session over %v", c.State(), c.Session().Expired())
	}
}

func TestContextAlreadyDone(t *testing.T) {
	c := connect(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := c.Get(ctx, "/x")
	checkOpError(t, err, context.Canceled, "get", "/x")
	// Never sent, so the outcome is known: not a connection loss.
	_, err = c.Create(ctx, "/x", nil, Persistent)
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrConnectionLoss) {
		t.Fatalf("create with done ctx: %v", err)
	}
	if ok, _, _ := c.Exists(testCtx(t), "/x"); ok {
		t.Fatal("create with a done ctx was sent")
	}
}

func TestConnectTimesOut(t *testing.T) {
	// A cut proxy accepts and drops every connection: no session can start.
	p := netcut.New(t, env.server.Addr())
	p.Cut()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := Connect(ctx, Options{Servers: []string{p.Addr()}, SessionTimeout: 2 * time.Second})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("connect: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("connect took %v past its ctx", d)
	}
	if _, err := Connect(ctx, Options{}); err == nil {
		t.Fatal("connect without servers succeeded")
	}
}

// TestMapZkError covers the mapping of every go-zookeeper error, including
// those a test cannot provoke on demand (a request flushed by an expiry).
func TestMapZkError(t *testing.T) {
	tests := []struct {
		in   error
		want error
	}{
		{zk.ErrNoNode, ErrNoNode},
		{zk.ErrNodeExists, ErrNodeExists},
		{zk.ErrBadVersion, ErrBadVersion},
		{zk.ErrNotEmpty, ErrNotEmpty},
		{zk.ErrNoChildrenForEphemerals, ErrNoChildrenForEphemerals},
		{zk.ErrNoAuth, ErrNoAuth},
		{zk.ErrInvalidACL, ErrInvalidACL},
		{zk.ErrInvalidPath, ErrInvalidPath},
		{zk.ErrSessionExpired, ErrSessionExpired},
		{zk.ErrAuthFailed, ErrAuthFailed},
		{zk.ErrConnectionClosed, ErrConnectionLoss},
		{zk.ErrNoServer, ErrConnectionLoss},
		{zk.ErrSessionMoved, ErrConnectionLoss},
		{zk.ErrClosing, ErrClosed},
	}
	for _, tt := range tests {
		if got := mapZkError(tt.in); got != tt.want {
			t.Errorf("mapZkError(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
	if mapZkError(nil) != nil {
		t.Error("nil mapped to an error")
	}
	other := mapZkError(zk.ErrAPIError)
	if other == nil || errors.Is(other, zk.ErrAPIError) || !strings.Contains(other.Error(), "api error") {
		t.Errorf("unknown error mapped to %v", other)
	}
	var c Client
	c.closed = make(chan struct{})
	err := c.fail("set", "/x", ctxEnded{err: context.Canceled, sent: true}, true)
	if !errors.Is(err, context.Canceled) || !errors.Is(err, ErrConnectionLoss) || !strings.Contains(err.Error(), "outcome unknown") {
		t.Errorf("abandoned write: %v", err)
	}
	if err := c.fail("get", "/x", ctxEnded{err: context.Canceled, sent: true}, false); errors.Is(err, ErrConnectionLoss) {
		t.Errorf("abandoned read: %v", err)
	}
}
