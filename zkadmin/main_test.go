package zkadmin

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/integration/zkserver"
)

// testZK is the package's one ZooKeeper server, started by TestMain. Each
// test works under its own chroot, so tests stay independent.
type testEnv struct {
	server *zkserver.Server
	seq    atomic.Int64
}

var env testEnv

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	// A larger heap than the default keeps the benchmarks' bulk writes
	// clear of JVM GC pressure.
	s, err := zkserver.Start(ctx, zkserver.Options{HeapMB: 1024})
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "zkadmin tests need a ZooKeeper server: %v\n", err)
		return 1
	}
	defer s.Close()
	env.server = s
	return m.Run()
}

// testChroot returns a chroot unique to this test.
func testChroot(tb testing.TB) string {
	name := strings.NewReplacer("/", "_", " ", "_").Replace(tb.Name())
	return fmt.Sprintf("/t/%s-%d", name, env.seq.Add(1))
}

// testCtx is a context bounded well under the go test timeout.
func testCtx(tb testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	tb.Cleanup(cancel)
	return ctx
}

// connect opens a client under a fresh chroot of this test (or opts.Chroot
// when set) and closes it at the end of the test.
func connect(tb testing.TB, opts Options) *Client {
	tb.Helper()
	if len(opts.Servers) == 0 {
		opts.Servers = []string{env.server.Addr()}
	}
	if opts.Chroot == "" {
		opts.Chroot = testChroot(tb)
	}
	if opts.SessionTimeout == 0 {
		opts.SessionTimeout = 4 * time.Second
	}
	c, err := Connect(testCtx(tb), opts)
	if err != nil {
		tb.Fatalf("connect: %v", err)
	}
	tb.Cleanup(c.Close)
	return c
}

// waitFor polls cond until it holds or the deadline passes. Polling reads
// state; it never stands in for synchronisation on a known event.
func waitFor(tb testing.TB, what string, timeout time.Duration, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// recv waits for one event on a watch channel.
func recv(tb testing.TB, ch <-chan Event, timeout time.Duration) Event {
	tb.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			tb.Fatalf("watch channel closed without an event")
		}
		return ev
	case <-time.After(timeout):
		tb.Fatalf("no watch event within %v", timeout)
	}
	return Event{}
}
