package kafka

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/kzadmin/kzadmin/integration/childproc"
	"github.com/kzadmin/kzadmin/integration/zkserver"
)

func startZooKeeper(t *testing.T) *zkserver.Server {
	t.Helper()
	s, err := zkserver.Start(context.Background(), zkserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func registered(t *testing.T, zkAddr, path string) (bool, int64) {
	t.Helper()
	conn, _, err := zk.Connect([]string{zkAddr}, 6*time.Second, zk.WithLogger(quietLogger{}))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ok, stat, err := conn.Exists(path)
	if err != nil {
		t.Fatalf("exists %s: %v", path, err)
	}
	if !ok {
		return false, 0
	}
	return true, stat.EphemeralOwner
}

// TestBrokerLifecycle starts one broker under a chroot, then stops,
// restarts, kills, restarts and pauses it, checking its registration.
func TestBrokerLifecycle(t *testing.T) {
	SkipIfHeavyDisabled(t)
	ctx := context.Background()
	zks := startZooKeeper(t)
	b, err := StartBroker(ctx, BrokerOptions{ZooKeeper: zks.Addr() + "/lifecycle", ID: 5, Rack: "rack-a"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	t.Logf("broker %d on %s started in %s", b.ID(), b.Addr(), b.StartDuration().Round(time.Millisecond))
	path := "/lifecycle/brokers/ids/5"
	ok, firstOwner := registered(t, zks.Addr(), path)
	if !ok {
		t.Fatalf("%s missing after start", path)
	}

	took, err := b.Stop()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("controlled shutdown took %s", took.Round(time.Millisecond))
	if ok, _ := registered(t, zks.Addr(), path); ok {
		t.Fatalf("%s still there after a clean stop", path)
	}

	if err := b.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("restart after stop took %s", b.StartDuration().Round(time.Millisecond))
	_, secondOwner := registered(t, zks.Addr(), path)
	if secondOwner == firstOwner {
		t.Fatal("registration owned by the old session after a restart")
	}

	// After kill -9 the old registration lingers until its session expires;
	// Restart must wait for the new one rather than take the old one.
	if err := b.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := b.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("restart after kill -9 took %s", b.StartDuration().Round(time.Millisecond))
	if ok, owner := registered(t, zks.Addr(), path); !ok || owner == secondOwner {
		t.Fatalf("after kill and restart: registered=%v owner=0x%x (old 0x%x)", ok, owner, secondOwner)
	}

	if err := b.Pause(); err != nil {
		t.Fatal(err)
	}
	pctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if err := b.Ping(pctx); err == nil {
		t.Fatal("a paused broker answered ApiVersions")
	}
	if err := b.Resume(); err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := b.Ping(rctx); err != nil {
		t.Fatalf("resumed broker: %v", err)
	}
	out, _, err := RunTool(ctx, ConfigCommand, "--bootstrap-server", b.Addr(),
		"--describe", "--entity-type", "brokers", "--entity-name", "5", "--all")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "broker.rack=rack-a") {
		t.Fatalf("kafka-configs does not show the rack:\n%s", out)
	}
}

// TestStartFailsFastWhenTheJVMDies checks that a broker whose process exits
// during start-up fails at once, with the exit status, not at StartTimeout.
func TestStartFailsFastWhenTheJVMDies(t *testing.T) {
	SkipIfHeavyDisabled(t)
	zks := startZooKeeper(t)
	_, err := StartBroker(context.Background(), BrokerOptions{ZooKeeper: zks.Addr(), ID: 1, Java: "false", StartTimeout: time.Hour})
	if !errors.Is(err, childproc.ErrExited) || !strings.Contains(err.Error(), "exit status 1") {
		t.Fatalf("StartBroker with a dying JVM = %v; want childproc.ErrExited with its status", err)
	}
}
