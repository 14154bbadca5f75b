package acl

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/integration/zkserver"
	"github.com/kzadmin/kzadmin/zkadmin"
)

// waitTimeout bounds every wait; reaching it is a failure.
const waitTimeout = 30 * time.Second

var zkEnv struct {
	once sync.Once
	srv  *zkserver.Server
	err  error
	seq  atomic.Int64
}

func TestMain(m *testing.M) {
	code := m.Run()
	if zkEnv.srv != nil {
		_ = zkEnv.srv.Close()
	}
	os.Exit(code)
}

func zookeeper(t testing.TB) *zkserver.Server {
	t.Helper()
	zkEnv.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		zkEnv.srv, zkEnv.err = zkserver.Start(ctx, zkserver.Options{HeapMB: 256})
	})
	if zkEnv.err != nil {
		t.Fatalf("these tests need ZooKeeper: %v", zkEnv.err)
	}
	return zkEnv.srv
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// connectZK opens a session under a fresh chroot of this test (or the
// given one) and returns it with the chroot.
func connectZK(t testing.TB, chroot ...string) (*zkadmin.Client, string) {
	t.Helper()
	root := fmt.Sprintf("/acl/%s-%d", strings.ReplaceAll(t.Name(), "/", "_"), zkEnv.seq.Add(1))
	if len(chroot) > 0 {
		root = chroot[0]
	}
	zk, err := zkadmin.Connect(testCtx(t), zkadmin.Options{Servers: []string{zookeeper(t).Addr()},
		Chroot: root, SessionTimeout: 6 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(zk.Close)
	return zk, root
}

// waitFor polls cond until it holds or waitTimeout passes; it reads state
// that changes asynchronously (a watch being processed) and is never a
// substitute for waiting on a known event.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
