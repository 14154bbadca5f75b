package zkadmin

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/integration/netcut"
	"github.com/kzadmin/kzadmin/integration/zkserver"
)

// TestSessionExpiry makes the server expire a live client's session: a
// proxy between them is cut for longer than the session timeout, so the
// server hears nothing while the client keeps retrying. (Pausing the server
// does not work reliably: on resume the client's reconnect races the
// server's expiry thread.)
func TestSessionExpiry(t *testing.T) {
	proxy := netcut.New(t, env.server.Addr())
	var log eventLog
	victim := connect(t, Options{Servers: []string{proxy.Addr()}, SessionTimeout: 2 * time.Second, OnEvent: log.add})
	observer := connect(t, Options{Chroot: victim.Chroot()})
	ctx := testCtx(t)
	mustCreate(t, victim, "/controller", []byte(`{"brokerid":1}`), Ephemeral)
	mustCreate(t, victim, "/data", nil, Persistent)
	sess := victim.Session()
	oldID := victim.SessionID()
	if sess.ID != oldID || sess.Expired() || victim.State() != StateConnected {
		t.Fatalf("session %+v, id %x, state %v", sess, oldID, victim.State())
	}
	_, _, dataW, err := victim.GetW(ctx, "/data")
	if err != nil {
		t.Fatal(err)
	}
	// The server deleting the victim's ephemeral is the expiry itself.
	_, _, gone, err := observer.ExistsW(ctx, "/controller")
	if err != nil {
		t.Fatal(err)
	}

	proxy.Cut()
	if ev := recv(t, gone, 30*time.Second); ev.Type != EventNodeDeleted {
		t.Fatalf("observer got %+v", ev)
	}
	waitFor(t, "victim disconnected", waitTimeout, func() bool { return victim.State() != StateConnected })
	if sess.Expired() {
		t.Fatal("session reported over before the client could know")
	}
	proxy.Heal()

	select {
	case <-sess.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("expiry not detected after the connection healed")
	}
	if err := victim.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	newSess := victim.Session()
	if newSess.ID == oldID || newSess.ID != victim.SessionID() || newSess.Expired() {
		t.Fatalf("new session %x (old %x)", newSess.ID, oldID)
	}
	if ev := recv(t, dataW, waitTimeout); ev.Type != EventNotWatching || ev.Path != "/data" || !errors.Is(ev.Err, ErrSessionExpired) {
		t.Fatalf("watch after expiry: %+v", ev)
	}
	waitFor(t, "expired and reconnected events", waitTimeout, func() bool {
		return log.has(func(ev Event) bool { return ev.State == StateExpired && ev.SessionID == oldID }) &&
			log.has(func(ev Event) bool { return ev.State == StateConnected && ev.SessionID == newSess.ID })
	})
	// The new session works; the old ephemeral is gone.
	if ok, _, err := victim.Exists(ctx, "/controller"); ok || err != nil {
		t.Fatalf("ephemeral after expiry: %v %v", ok, err)
	}
	mustCreate(t, victim, "/controller", nil, Ephemeral)
}

// TestConnectionLossOnServerKill uses its own server, since it kills it.
func TestConnectionLossOnServerKill(t *testing.T) {
	ctx := testCtx(t)
	s, err := zkserver.Start(ctx, zkserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var log eventLog
	c := connect(t, Options{Servers: []string{s.Addr()}, SessionTimeout: 6 * time.Second, OnEvent: log.add})
	mustCreate(t, c, "/x", []byte("before"), Persistent)

	// A paused server holds requests; the ctx still bounds them.
	if err := s.Pause(); err != nil {
		t.Fatal(err)
	}
	// SIGSTOP lands asynchronously: wait until the server stops answering.
	waitFor(t, "server paused", waitTimeout, func() bool {
		out, _ := zkserver.FourLetterWord(s.Addr(), "ruok", 100*time.Millisecond)
		return out != "imok"
	})
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	start := time.Now()
	_, _, err = c.Get(short, "/x")
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrConnectionLoss) || time.Since(start) > 2*time.Second {
		t.Fatalf("get on a paused server: %v after %v", err, time.Since(start))
	}
	short, cancel = context.WithTimeout(ctx, 200*time.Millisecond)
	_, err = c.Set(short, "/x", []byte("abandoned"), AnyVersion)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrConnectionLoss) {
		t.Fatalf("abandoned write must be outcome-unknown: %v", err)
	}

	// A write in flight when the server dies: outcome unknown.
	inFlight := make(chan error, 1)
	go func() {
		_, err := c.Set(ctx, "/x", []byte("in-flight"), AnyVersion)
		inFlight <- err
	}()
	if err := s.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := <-inFlight; !errors.Is(err, ErrConnectionLoss) {
		t.Fatalf("in-flight write: %v", err)
	}
	// Requests while no server answers fail the same way, promptly.
	_, _, err = c.Get(ctx, "/x")
	checkOpError(t, err, ErrConnectionLoss, "get", "/x")
	_, err = c.Multi(ctx, CreateOp("/y", nil, Persistent))
	if !errors.Is(err, ErrConnectionLoss) {
		t.Fatalf("multi while down: %v", err)
	}
	waitFor(t, "disconnected event", waitTimeout, func() bool {
		return log.has(func(ev Event) bool { return ev.State == StateDisconnected })
	})

	if err := s.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	// Re-read: any of the three writes may have landed.
	data, _, err := c.Get(ctx, "/x")
	if err != nil {
		t.Fatal(err)
	}
	switch string(data) {
	case "before", "abandoned", "in-flight":
	default:
		t.Fatalf("after restart /x = %q", data)
	}
}
