// Package zktest gives a test package one real ZooKeeper server, started
// by the first test that needs it, and a chroot per test so tests stay
// independent. It replaces the TestMain/connect/chroot helpers each test
// package would otherwise write for itself.
//
//	var zk zktest.Shared
//
//	func TestMain(m *testing.M) { code := m.Run(); zk.Close(); os.Exit(code) }
//
//	func TestX(t *testing.T) { c, chroot := zk.Connect(t, "x"); ... }
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

// Shared is one ZooKeeper server for a test package. The zero value is
// ready to use; Options may be set before the first call.
type Shared struct {
	// Options start the server (zero: zkserver's defaults).
	Options zkserver.Options

	once sync.Once
	srv  *zkserver.Server
	err  error
	seq  atomic.Int64
}

// Server starts the server on first use and returns it; a failure to
// start fails the test.
func (s *Shared) Server(tb testing.TB) *zkserver.Server {
	tb.Helper()
	s.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
		defer cancel()
		s.srv, s.err = zkserver.Start(ctx, s.Options)
	})
	if s.err != nil {
		tb.Fatalf("these tests need ZooKeeper: %v", s.err)
	}
	return s.srv
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
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := zkadmin.Connect(ctx, zkadmin.Options{
		Servers: []string{s.Addr(tb)}, Chroot: chroot, SessionTimeout: 6 * time.Second,
	})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(c.Close)
	return c
}

// Close stops the server if it was started. Call it from TestMain after
// m.Run.
func (s *Shared) Close() {
	if s.srv != nil {
		_ = s.srv.Close()
	}
}
