package brokersim

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/integration/zktest"
	"github.com/kzadmin/kzadmin/zkadmin"
)

// sharedZK is the package's one ZooKeeper; each test works under its own
// chroot.
var sharedZK zktest.Shared

func TestMain(m *testing.M) {
	code := m.Run()
	sharedZK.Close()
	os.Exit(code)
}

func testChroot(tb testing.TB) string { return sharedZK.Chroot(tb, "bs") }

// testCtx is bounded well under the go test timeout.
func testCtx(tb testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	tb.Cleanup(cancel)
	return ctx
}

// startCluster starts brokers under a fresh chroot; opts fields left zero
// get test-friendly values. Close runs at cleanup.
func startCluster(tb testing.TB, opts Options) *Cluster {
	tb.Helper()
	opts.ZooKeeperServers = []string{sharedZK.Addr(tb)}
	if opts.Chroot == "" {
		opts.Chroot = testChroot(tb)
	}
	if opts.SessionTimeout == 0 {
		opts.SessionTimeout = 4 * time.Second
	}
	if opts.ControlledShutdownBackoff == 0 {
		opts.ControlledShutdownBackoff = 20 * time.Millisecond
	}
	if opts.RequestTimeout == 0 {
		opts.RequestTimeout = 5 * time.Second
	}
	c, err := Start(testCtx(tb), opts)
	if err != nil {
		tb.Fatalf("start cluster: %v", err)
	}
	tb.Cleanup(c.Close)
	return c
}

func specs(ids ...int32) []BrokerSpec {
	out := make([]BrokerSpec, len(ids))
	for i, id := range ids {
		out[i] = BrokerSpec{ID: id, Rack: fmt.Sprintf("rack-%d", id%3)}
	}
	return out
}

// observer opens a ZooKeeper client under the cluster's chroot.
func observer(tb testing.TB, c *Cluster) *zkadmin.Client {
	tb.Helper()
	return sharedZK.ConnectAt(tb, c.set.Chroot)
}

// waitBroker waits for cond on b's snapshot, failing the test after 30 s.
func waitBroker(tb testing.TB, b *Broker, what string, cond func(Snapshot) bool) Snapshot {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := b.WaitFor(ctx, cond); err != nil {
		tb.Fatalf("broker %d: waiting for %s: %v\nstate: %+v", b.ID(), what, err, b.Snapshot())
	}
	return b.Snapshot()
}
