package controller

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/integration/netcut"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// readSeat reads /controller's id and /controller_epoch's value and version.
func readSeat(t *testing.T, zk *zkadmin.Client) (id, epoch, version int32) {
	t.Helper()
	ctx := testCtx(t)
	id = -1
	if data, _, err := zk.Get(ctx, znodes.ControllerPath); err == nil {
		reg, err := znodes.DecodeControllerRegistration(data)
		if err != nil {
			t.Fatal(err)
		}
		id = reg.BrokerID
	} else if !errors.Is(err, zkadmin.ErrNoNode) {
		t.Fatal(err)
	}
	data, stat, err := zk.Get(ctx, znodes.ControllerEpochPath)
	if err != nil {
		t.Fatal(err)
	}
	if epoch, err = znodes.DecodeControllerEpoch(data); err != nil {
		t.Fatal(err)
	}
	return id, epoch, stat.Version
}

func activeNodes(nodes []*node) []*node {
	var out []*node
	for _, n := range nodes {
		if n.c.IsActive() {
			out = append(out, n)
		}
	}
	return out
}

// TestElectionRace starts three controllers at once: exactly one wins, in
// one multi with the epoch bump; the others stand by and know the winner.
// When the winner stops, one of the others takes over with the next epoch.
func TestElectionRace(t *testing.T) {
	chroot := testChroot(t)
	obs := connectZK(t, chroot, "", 0)
	nodes := []*node{
		startNode(t, chroot, nodeOpts{id: 100}),
		startNode(t, chroot, nodeOpts{id: 101}),
		startNode(t, chroot, nodeOpts{id: 102}),
	}
	waitFor(t, "one active controller, all ready", func() bool {
		act := activeNodes(nodes)
		return len(act) == 1 && act[0].c.Status().Ready
	})
	winner := activeNodes(nodes)[0]
	id, epoch, version := readSeat(t, obs)
	st := winner.c.Status()
	if id != winner.c.nodeID || epoch != 1 || st.Epoch != 1 || st.EpochZkVersion != version {
		t.Fatalf("seat %d epoch %d version %d; winner %+v", id, epoch, version, st)
	}
	for _, n := range nodes {
		n := n
		waitFor(t, "standbys know the winner", func() bool { return n.c.Status().ActiveControllerID == winner.c.nodeID })
		want := 0.0
		if n == winner {
			want = 1
		}
		if got := metricValue(t, n, "kafka_controller_KafkaController_ActiveControllerCount"); got != want {
			t.Errorf("node %d ActiveControllerCount %v, want %v", n.c.nodeID, got, want)
		}
	}
	if snap := winner.c.Snapshot(); !snap.Active || snap.Epoch != 1 || snap.Self.ID != winner.c.nodeID {
		t.Fatalf("winner snapshot %+v", snap)
	}

	winner.stop()
	var rest []*node
	for _, n := range nodes {
		if n != winner {
			rest = append(rest, n)
		}
	}
	waitFor(t, "a standby takes over", func() bool {
		act := activeNodes(rest)
		return len(act) == 1 && act[0].c.Status().Ready
	})
	next := activeNodes(rest)[0]
	id, epoch, _ = readSeat(t, obs)
	if id != next.c.nodeID || epoch != 2 || next.c.Status().Epoch != 2 {
		t.Fatalf("after takeover: seat %d epoch %d, %+v", id, epoch, next.c.Status())
	}
}

// TestRefusesBrokerID: a broker registered with the controller's node.id
// stops the controller from starting.
func TestRefusesBrokerID(t *testing.T) {
	chroot := testChroot(t)
	zk := connectZK(t, chroot, "", 0)
	registerBroker(t, zk, 7, "127.0.0.1", 1)
	conf := testConfig(7)
	c, err := New(Config{Conf: conf, ZK: zk})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Run(testCtx(t)); !errors.Is(err, ErrNodeIDConflict) {
		t.Fatalf("Run: %v", err)
	}
	if _, err := New(Config{Conf: testConfig(-1), ZK: zk}); err == nil {
		t.Fatal("negative node.id accepted")
	}
}

// TestStaleControllerCannotWrite bumps /controller_epoch behind the active
// controller's back, as another controller's election would. Its next write
// (the state znodes of a new topic) fails the fence: nothing lands, it
// resigns, releases /controller and wins a fresh election, after which the
// topic comes online under the new epoch.
func TestStaleControllerCannotWrite(t *testing.T) {
	chroot := testChroot(t)
	obs := connectZK(t, chroot, "", 0)
	registerBroker(t, obs, 1, "127.0.0.1", 1)
	n := startNode(t, chroot, nodeOpts{id: 100})
	waitFor(t, "active", func() bool { return n.c.Status().Ready })
	ctx := testCtx(t)
	if _, err := obs.Set(ctx, znodes.ControllerEpochPath, znodes.EncodeControllerEpoch(5), zkadmin.AnyVersion); err != nil {
		t.Fatal(err)
	}
	createTopic(t, obs, "foo", map[int32][]int32{0: {1}})
	waitFor(t, "re-elected with a newer epoch", func() bool {
		st := n.c.Status()
		return st.Ready && st.Epoch == 6
	})
	st := readState(t, obs, "foo", 0)
	if st.ControllerEpoch != 6 || st.Leader != 1 {
		t.Fatalf("state written under epoch %d (leader %d); want 6", st.ControllerEpoch, st.Leader)
	}
	// The fence itself: a write with the old version is refused whole.
	_, err := obs.FencedMulti(ctx, 1, zkadmin.CreateOp("/x", nil, zkadmin.Persistent))
	if !errors.Is(err, zkadmin.ErrControllerMoved) {
		t.Fatalf("fenced write with a stale version: %v", err)
	}
}

// TestSessionExpiry cuts the active controller's connection until
// ZooKeeper expires its session: the standby takes over; the old
// controller, once reconnected, has resigned and follows the new one; when
// the new one stops, the old one wins again.
func TestSessionExpiry(t *testing.T) {
	chroot := testChroot(t)
	obs := connectZK(t, chroot, "", 0)
	proxy := netcut.New(t, env.server.Addr())
	a := startNode(t, chroot, nodeOpts{id: 100, zkAddr: proxy.Addr(), timeout: 2 * time.Second})
	waitFor(t, "a active", func() bool { return a.c.Status().Ready })
	b := startNode(t, chroot, nodeOpts{id: 101})
	waitFor(t, "b standby", func() bool { return b.c.Status().ActiveControllerID == 100 })

	proxy.Cut()
	waitFor(t, "b takes over", func() bool { return b.c.Status().Ready })
	if id, epoch, _ := readSeat(t, obs); id != 101 || epoch != 2 {
		t.Fatalf("seat %d epoch %d", id, epoch)
	}
	proxy.Heal()
	waitFor(t, "a resigned and follows b", func() bool {
		st := a.c.Status()
		return !st.Active && st.ActiveControllerID == 101
	})
	if metricValue(t, a, "kafka_controller_KafkaController_ActiveControllerCount") != 0 {
		t.Fatal("a still counts itself active")
	}
	b.stop()
	waitFor(t, "a wins again", func() bool { return a.c.Status().Ready && a.c.Status().Epoch == 3 })
}

// TestWaitSnapshot: a waiter sees the snapshot that satisfies it, and gets
// its ctx error otherwise.
func TestWaitSnapshot(t *testing.T) {
	chroot := testChroot(t)
	obs := connectZK(t, chroot, "", 0)
	n := startNode(t, chroot, nodeOpts{id: 100})
	v, err := n.c.WaitSnapshot(testCtx(t), func(v *MetadataView) bool { return v.Active })
	if err != nil || !v.Active || v.Epoch != 1 {
		t.Fatalf("%+v %v", v, err)
	}
	registerBroker(t, obs, 1, "127.0.0.1", 1)
	createTopic(t, obs, "foo", map[int32][]int32{0: {1}})
	v, err = n.c.WaitSnapshot(testCtx(t), func(v *MetadataView) bool {
		tv := v.Topics.Get("foo")
		return tv != nil && len(tv.Partitions) == 1 && tv.Partitions[0].Leader == 1
	})
	if err != nil || len(v.Brokers) != 1 {
		t.Fatalf("%+v %v", v, err)
	}
	ctx, cancel := context.WithTimeout(testCtx(t), 50*time.Millisecond)
	defer cancel()
	if _, err := n.c.WaitSnapshot(ctx, func(*MetadataView) bool { return false }); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("never: %v", err)
	}
}
