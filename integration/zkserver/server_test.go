package zkserver

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/kzadmin/kzadmin/integration/childproc"
	"github.com/kzadmin/kzadmin/integration/waitfor"
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

func TestStandaloneKillRestartPauseStop(t *testing.T) {
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
	if err := s.Pause(); err != nil {
		t.Fatal(err)
	}
	// SIGSTOP lands asynchronously: wait for the server to fall silent.
	err = waitfor.Until(ctx, 30*time.Second, 10*time.Millisecond, func() error {
		if _, err := s.Mode(); err == nil {
			return errors.New("paused server still answers")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Resume(); err != nil {
		t.Fatal(err)
	}
	if err := s.WaitServing(ctx, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := s.Stop(); err != nil {
		t.Fatalf("clean stop: %v", err)
	}
	if err := s.Pause(); !errors.Is(err, childproc.ErrNotRunning) {
		t.Fatalf("Pause of a stopped server = %v; want childproc.ErrNotRunning", err)
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

// TestStartFailsFastWhenTheServerDies checks that a server whose JVM exits
// during start-up fails Start at once, not at StartTimeout.
func TestStartFailsFastWhenTheServerDies(t *testing.T) {
	_, err := Start(context.Background(), Options{Java: "false", StartTimeout: time.Hour})
	if !errors.Is(err, childproc.ErrExited) || !strings.Contains(err.Error(), "exit status 1") {
		t.Fatalf("Start with a dying server = %v; want childproc.ErrExited with its status", err)
	}
}

// TestServerLogsAtInfo: without a log4j configuration the server logs
// nothing and formats every debug call anyway (see log4jConfig).
func TestServerLogsAtInfo(t *testing.T) {
	ctx := context.Background()
	s, err := Start(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	out, err := os.ReadFile(s.LogPath())
	if err != nil {
		t.Fatal(err)
	}
	log := string(out)
	if strings.Contains(log, "No appenders could be found") || !strings.Contains(log, " INFO ") {
		t.Fatalf("server.log has no INFO lines, or log4j found no configuration:\n%.2000s", log)
	}
	if strings.Contains(log, " DEBUG ") {
		t.Fatalf("server.log has DEBUG lines:\n%.2000s", log)
	}
}
