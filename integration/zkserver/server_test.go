package zkserver

import (
	"context"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

func connect(t *testing.T, addrs []string) *zk.Conn {
	t.Helper()
	conn, _, err := zk.Connect(addrs, 6*time.Second, zk.WithLogInfo(false))
	if err != nil {
		t.Fatalf("connect %v: %v", addrs, err)
	}
	t.Cleanup(conn.Close)
	return conn
}

func TestStandaloneStopRestartKeepsData(t *testing.T) {
	ctx := context.Background()
	s, err := Start(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if mode, err := s.Mode(); err != nil || mode != "standalone" {
		t.Fatalf("mode = %q, %v; want standalone", mode, err)
	}
	conn := connect(t, []string{s.Addr()})
	if _, err := conn.Create("/kept", []byte("v"), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if err := s.Kill(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Mode(); err == nil {
		t.Fatal("killed server still answers")
	}
	if err := s.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	data, _, err := connect(t, []string{s.Addr()}).Get("/kept")
	if err != nil || string(data) != "v" {
		t.Fatalf("after restart: %q, %v", data, err)
	}
}

func TestEnsembleSurvivesOneNodeDown(t *testing.T) {
	if testing.Short() {
		t.Skip("ensemble start-up is slow")
	}
	ctx := context.Background()
	e, err := StartEnsemble(ctx, 3, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	leader := e.Leader()
	if leader < 0 {
		t.Fatal("no leader in a serving ensemble")
	}
	conn := connect(t, e.Addrs())
	if _, err := conn.Create("/before", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if err := e.Servers[leader].Kill(); err != nil {
		t.Fatal(err)
	}
	// The two survivors elect a new leader and keep serving.
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := conn.Create("/after", nil, 0, zk.WorldACL(zk.PermAll))
		if err == nil || err == zk.ErrNodeExists {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ensemble with one node down does not accept writes: %v", err)
		}
		time.Sleep(100 * time.Millisecond) // poll interval for a condition with a deadline
	}
	if err := e.Servers[leader].Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.WaitQuorum(ctx, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := connect(t, []string{e.Servers[leader].Addr()}).Exists("/after"); err != nil || !ok {
		t.Fatalf("restarted peer did not catch up: exists=%v err=%v", ok, err)
	}
}
