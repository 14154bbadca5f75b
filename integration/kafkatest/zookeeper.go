package kafkatest

import (
	"context"
	"testing"

	"github.com/kzadmin/kzadmin/integration/zkserver"
	"github.com/kzadmin/kzadmin/zkadmin"
)

// StartZooKeeper starts a ZooKeeper of the test's own and a session on it
// under chroot, through which the test reads and writes what the
// controller and the brokers see. Both end with the test, the session
// first.
func StartZooKeeper(tb testing.TB, ctx context.Context, opts zkserver.Options, chroot string) (*zkserver.Server, *zkadmin.Client) {
	tb.Helper()
	zks, err := zkserver.Start(ctx, opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { zks.Close() })
	zk, err := zkadmin.Connect(ctx, zkadmin.Options{Servers: []string{zks.Addr()}, Chroot: chroot})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(zk.Close)
	return zks, zk
}
