package brokersim

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// TestKillAndRestart: Kill closes the session, so the registration is gone
// when Kill returns; Restart registers again with a larger epoch, an empty
// replica state and the same log.
func TestKillAndRestart(t *testing.T) {
	c := startCluster(t, Options{Brokers: specs(1)})
	b := c.Broker(1)
	zk := observer(t, c)
	ctx := testCtx(t)
	path := znodes.BrokerIDPath(1)
	cc := dialBroker(t, b)
	wantCodes(t, "setup", cc.send(lairReq(b.Epoch(), 3, lead1(0, 1))), 0, 0)
	oldEpoch, oldPort := b.Epoch(), b.Port()

	b.Kill()
	if ok, _, err := zk.Exists(ctx, path); err != nil || ok {
		t.Fatalf("registration after Kill: exists %v, %v", ok, err)
	}
	if b.Status() != Stopped {
		t.Fatalf("status %s", b.Status())
	}
	killedCtx, cancelKilled := context.WithTimeout(ctx, 5*time.Second)
	_, err := cc.c.RoundTrip(killedCtx, lairReq(oldEpoch, 3, lead1(0, 2)))
	cancelKilled()
	if err == nil {
		t.Fatal("a killed broker answered")
	}
	b.Kill() // idempotent

	if err := b.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	_, stat, err := zk.Get(ctx, path)
	if err != nil || stat.Czxid != b.Epoch() || b.Epoch() <= oldEpoch {
		t.Fatalf("after restart: czxid %d, epoch %d (old %d), %v", stat.Czxid, b.Epoch(), oldEpoch, err)
	}
	snap := b.Snapshot()
	if len(snap.Partitions) != 0 || snap.ControllerEpoch != 0 || snap.Status != Running || b.Port() != oldPort {
		t.Fatalf("after restart: %+v, port %d (was %d)", snap, b.Port(), oldPort)
	}
	if _, ok := snap.Log[TopicPartition{"foo", 0}]; !ok {
		t.Fatal("restart lost the log")
	}
	// The old epoch is stale now; any leader epoch is new again.
	cc = dialBroker(t, b)
	wantCodes(t, "old epoch", cc.send(lairReq(oldEpoch, 1, lead1(0, 1))), codeStaleBroker, codeStaleBroker)
	wantCodes(t, "new epoch", cc.send(lairReq(b.Epoch(), 1, lead1(0, 1))), 0, 0)
}

// TestCrashLetsSessionExpire: after Crash the registration stays until the
// session expires; Restart waits for that and registers anew.
func TestCrashLetsSessionExpire(t *testing.T) {
	c := startCluster(t, Options{Brokers: specs(1, 2), SessionTimeout: 2 * time.Second})
	b := c.Broker(1)
	zk := observer(t, c)
	ctx := testCtx(t)
	path := znodes.BrokerIDPath(1)
	oldEpoch := b.Epoch()

	crashedAt := time.Now()
	b.Crash()
	exists, _, watch, err := zk.ExistsW(ctx, path)
	if err != nil || !exists {
		t.Fatalf("registration right after Crash: exists %v, %v; want still there", exists, err)
	}
	if b.Status() != Crashed {
		t.Fatalf("status %s", b.Status())
	}
	restarted := make(chan error, 1)
	go func() { restarted <- b.Restart(ctx) }()
	select {
	case ev := <-watch:
		if ev.Type != zkadmin.EventNodeDeleted {
			t.Fatalf("watch: %v, want the registration deleted", ev)
		}
	case <-ctx.Done():
		t.Fatal("the crashed registration never vanished")
	}
	if gone := time.Since(crashedAt); gone < time.Second {
		t.Fatalf("registration vanished after %v, before the session could expire", gone)
	}
	if err := <-restarted; err != nil {
		t.Fatal(err)
	}
	_, stat, err := zk.Get(ctx, path)
	if err != nil || stat.Czxid != b.Epoch() || b.Epoch() <= oldEpoch {
		t.Fatalf("after restart: czxid %d, epoch %d (old %d), %v", stat.Czxid, b.Epoch(), oldEpoch, err)
	}
	// The other broker never noticed.
	if c.Broker(2).Status() != Running {
		t.Fatal("broker 2 affected")
	}
}

// TestPauseResume: a paused broker holds requests until Resume.
func TestPauseResume(t *testing.T) {
	c := startCluster(t, Options{Brokers: specs(1)})
	b := c.Broker(1)
	cc := dialBroker(t, b)
	b.Pause()
	if !b.Snapshot().Paused {
		t.Fatal("not paused")
	}
	ctx, cancel := context.WithTimeout(testCtx(t), 300*time.Millisecond)
	_, err := cc.c.RoundTrip(ctx, lairReq(b.Epoch(), 1, lead1(0, 1)))
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("request to a paused broker: %v, want a timeout", err)
	}
	if n := b.Requests()[kmsg.LeaderAndISR.Int16()]; n != 0 {
		t.Fatalf("paused broker answered %d LeaderAndIsr", n)
	}
	b.Resume()
	// The held request is served once resumed (its connection is gone).
	waitBroker(t, b, "the held LeaderAndIsr", func(s Snapshot) bool { return len(s.Partitions) == 1 })
	wantCodes(t, "after resume", dialBroker(t, b).send(lairReq(b.Epoch(), 1, lead1(0, 2))), 0, 0)
}

// TestSessionExpiryReRegisters: a broker cut off from ZooKeeper past its
// session timeout loses its registration and, once reconnected, registers
// again with a new epoch while keeping its replica state.
func TestSessionExpiryReRegisters(t *testing.T) {
	c := startCluster(t, Options{Brokers: specs(1), SessionTimeout: 2 * time.Second})
	b := c.Broker(1)
	zk := observer(t, c)
	ctx := testCtx(t)
	path := znodes.BrokerIDPath(1)
	wantCodes(t, "setup", dialBroker(t, b).send(lairReq(b.Epoch(), 1, lead1(0, 1))), 0, 0)
	oldEpoch := b.Epoch()

	_, _, watch, err := zk.ExistsW(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	b.DisconnectZooKeeper()
	if ev := <-watch; ev.Type != zkadmin.EventNodeDeleted {
		t.Fatalf("watch: %v, want the registration deleted", ev)
	}
	// Still serving Kafka requests while cut off.
	wantCodes(t, "while cut off", dialBroker(t, b).send(lairReq(oldEpoch, 1, lead1(1, 1))), 0, 0)
	b.ReconnectZooKeeper()
	snap := waitBroker(t, b, "a new epoch", func(s Snapshot) bool { return s.Epoch > oldEpoch })
	_, stat, err := zk.Get(ctx, path)
	if err != nil || stat.Czxid != snap.Epoch || len(snap.Partitions) != 2 || snap.Status != Running {
		t.Fatalf("after re-registration: czxid %d, %+v, %v", stat.Czxid, snap, err)
	}
}
