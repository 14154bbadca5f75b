// Package zktest gives a test package one real ZooKeeper server, started
// by the first test that needs it, and a chroot per test so tests stay
// independent. It replaces the TestMain/connect/chroot helpers each test
// package would otherwise write for itself.
//
//	var sharedZK zktest.Shared
//
//	func TestMain(m *testing.M) { os.Exit(sharedZK.Run(m)) }
//
//	func TestX(t *testing.T) { c, chroot := sharedZK.Connect(t, "x"); ... }
//
// A package whose tests must not pay for the server's start inside their
// own deadlines calls Start from TestMain instead.
//
// The zkadmin package cannot use it (zktest imports zkadmin).
package zktest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/integration/zkserver"
	"github.com/kzadmin/kzadmin/zkadmin"
)

// StartTimeout bounds the server's start.
const StartTimeout = 90 * time.Second

// DefaultSessionTimeout is the sessions' timeout when neither Shared nor
// Session sets one: short, so that expiry tests stay quick, yet well above
// a loaded machine's pauses.
const DefaultSessionTimeout = 6 * time.Second

// connectTimeout bounds opening one session (and creating its chroot).
const connectTimeout = time.Minute

// Shared is one ZooKeeper server for a test package. The zero value is
// ready to use; the exported fields may be set before the first call.
type Shared struct {
	// Options start the server (zero: zkserver's defaults).
	Options zkserver.Options
	// SessionTimeout is the default timeout of the sessions it opens
	// (zero: DefaultSessionTimeout).
	SessionTimeout time.Duration

	once sync.Once
	srv  *zkserver.Server
	err  error
	seq  atomic.Int64
}

// Session adjusts one session opened by ConnectWith; the zero value is
// what ConnectAt opens.
type Session struct {
	// Addr is the address to connect through, e.g. a proxy a test can
	// cut; empty means the shared server's.
	Addr string
	// Timeout is the session timeout; zero means Shared.SessionTimeout.
	Timeout time.Duration
	// TopLevel creates Kafka's top-level znodes (/brokers/ids, /admin,
	// ...) under the chroot, as a broker would on start.
	TopLevel bool
}

// Start starts the server now unless it has started; a failure is kept
// and returned again. TestMain calls it when tests should find the server
// up (ctx bounds the start).
func (s *Shared) Start(ctx context.Context) (*zkserver.Server, error) {
	s.once.Do(func() { s.srv, s.err = zkserver.Start(ctx, s.Options) })
	if s.err != nil {
		return nil, fmt.Errorf("start zookeeper: %w", s.err)
	}
	return s.srv, nil
}

// Server starts the server on first use and returns it; a failure to
// start fails the test.
func (s *Shared) Server(tb testing.TB) *zkserver.Server {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
	defer cancel()
	srv, err := s.Start(ctx)
	if err != nil {
		tb.Fatalf("these tests need ZooKeeper: %v", err)
	}
	return srv
}

// Addr is the server's client address, starting it on first use.
func (s *Shared) Addr(tb testing.TB) string { return s.Server(tb).Addr() }

// Chroot returns a chroot unique to this test, under /prefix.
func (s *Shared) Chroot(tb testing.TB, prefix string) string {
	name := strings.NewReplacer("/", "_", " ", "_").Replace(tb.Name())
	return fmt.Sprintf("/%s/%s-%d", prefix, name, s.seq.Add(1))
}

// Connect opens a session under a fresh chroot of this test (below
// /prefix), closed when the test ends, and returns it with the chroot.
func (s *Shared) Connect(tb testing.TB, prefix string) (*zkadmin.Client, string) {
	tb.Helper()
	chroot := s.Chroot(tb, prefix)
	return s.ConnectAt(tb, chroot), chroot
}

// ConnectAt opens a session under chroot, closed when the test ends.
func (s *Shared) ConnectAt(tb testing.TB, chroot string) *zkadmin.Client {
	tb.Helper()
	return s.ConnectWith(tb, chroot, Session{})
}

// ConnectWith opens a session under chroot as o says, closed when the test
// ends; a failure fails the test.
func (s *Shared) ConnectWith(tb testing.TB, chroot string, o Session) *zkadmin.Client {
	tb.Helper()
	addr := o.Addr
	if addr == "" {
		addr = s.Addr(tb)
	}
	timeout := firstSet(o.Timeout, s.SessionTimeout, DefaultSessionTimeout)
	ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
	defer cancel()
	c, err := zkadmin.Connect(ctx, zkadmin.Options{Servers: []string{addr}, Chroot: chroot, SessionTimeout: timeout})
	if err != nil {
		tb.Fatalf("connect to zookeeper %s%s: %v", addr, chroot, err)
	}
	tb.Cleanup(c.Close)
	if o.TopLevel {
		if err := c.EnsureTopLevelPaths(ctx); err != nil {
			tb.Fatalf("under %s: %v", chroot, err)
		}
	}
	return c
}

// firstSet returns the first non-zero duration.
func firstSet(ds ...time.Duration) time.Duration {
	for _, d := range ds {
		if d != 0 {
			return d
		}
	}
	return 0
}

// Run runs the package's tests, then stops the server if they started it,
// and returns the exit code: TestMain's body.
func (s *Shared) Run(m *testing.M) int {
	defer s.Close()
	return m.Run()
}

// Close stops the server if it was started. Call it from TestMain after
// m.Run (Run does).
func (s *Shared) Close() {
	if s.srv != nil {
		_ = s.srv.Close()
	}
}
