package kafkatest

import (
	"context"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/integration/kafka"
)

// defaultWait is how long StartBrokers waits, by default, for every broker
// to know the others and a controller: three JVMs starting on two busy
// cores next to ZooKeeper take most of a minute.
const defaultWait = 90 * time.Second

// BrokerSet is what StartBrokers starts.
type BrokerSet struct {
	// ZooKeeper is zookeeper.connect, chroot included.
	ZooKeeper string
	// Count is the number of brokers (ids 1..Count, racks r1..rCount).
	Count int
	// Options is the template for every broker.
	Options kafka.ClusterOptions
	// Wait bounds the wait for every broker's metadata to list the others
	// and name a controller; 0 means 90s.
	Wait time.Duration
	// Logs says where to keep the logs of a failed test; the zero value
	// keeps none.
	Logs KeepLogs
}

// StartBrokers starts the broker set, kills it when the test ends and
// waits until a controller has told every broker about the others. It
// returns the cluster, the controller's id and how long all that took.
// When the set keeps logs, they are copied before the brokers' temporary
// directories go, even when the wait is what failed.
func StartBrokers(tb testing.TB, ctx context.Context, set BrokerSet) (c *kafka.Cluster, controller int32, took time.Duration) {
	tb.Helper()
	began := time.Now()
	c, err := kafka.StartCluster(ctx, set.ZooKeeper, set.Count, set.Options)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	// Registered after Close, so it runs before it (cleanups run last
	// first), while the brokers' logs are still on disk.
	set.Logs.register(tb, c)
	wait := set.Wait
	if wait == 0 {
		wait = defaultWait
	}
	controller, err = c.WaitMetadata(ctx, wait)
	if err != nil {
		tb.Fatal(err)
	}
	return c, controller, time.Since(began).Round(time.Millisecond)
}
