package acl

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/integration/zkserver"
	"github.com/kzadmin/kzadmin/integration/zktest"
	"github.com/kzadmin/kzadmin/zkadmin"
)

// waitTimeout bounds every wait; reaching it is a failure.
const waitTimeout = 30 * time.Second

// sharedZK is the package's one ZooKeeper, started by the first test that
// needs it.
var sharedZK = zktest.Shared{Options: zkserver.Options{HeapMB: 256}}

func TestMain(m *testing.M) {
	code := m.Run()
	sharedZK.Close()
	os.Exit(code)
}

func zookeeper(t testing.TB) *zkserver.Server { return sharedZK.Server(t) }

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// connectZK opens a session under a fresh chroot of this test (or the
// given one) and returns it with the chroot.
func connectZK(t testing.TB, chroot ...string) (*zkadmin.Client, string) {
	t.Helper()
	if len(chroot) > 0 {
		return sharedZK.ConnectAt(t, chroot[0]), chroot[0]
	}
	return sharedZK.Connect(t, "acl")
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
