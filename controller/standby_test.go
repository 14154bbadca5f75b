package controller

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kzadmin/kzadmin/integration/netcut"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// checkViewMatchesZooKeeper fails unless every partition of the
// controller's view has the assignment and the leadership (leader, epoch,
// ISR, partition epoch) that ZooKeeper holds.
func checkViewMatchesZooKeeper(t *testing.T, sc *simCluster, c *Controller, topics ...string) {
	t.Helper()
	for _, name := range topics {
		a := readTopicZnode(t, sc.obs, name)
		tv := c.Snapshot().Topics.Get(name)
		if tv == nil || tv.ID != a.TopicID || len(tv.Partitions) != len(a.Partitions) {
			t.Fatalf("topic %s: view %+v, znode %+v", name, tv, a)
		}
		for _, pv := range tv.Partitions {
			st := readState(t, sc.obs, name, pv.Partition)
			if !slices.Equal(pv.Replicas, a.Partitions[pv.Partition]) || pv.Leader != st.Leader ||
				pv.LeaderEpoch != st.LeaderEpoch || pv.PartitionEpoch != st.PartitionEpoch || !slices.Equal(pv.ISR, st.ISR) {
				t.Fatalf("%s-%d: view %+v, ZooKeeper %v %v", name, pv.Partition, pv, a.Partitions[pv.Partition], st)
			}
		}
	}
}

// TestWarmStandbyTakeover: a warm standby loads the cluster while another
// node is the controller and follows what that controller writes (a new
// topic, ISR shrinks and leader changes after a broker death, a
// reassignment); when the controller stops, it takes over without the
// failover reads and its context is exactly ZooKeeper's; then it acts as
// the controller (a broker coming back is brought in).
func TestWarmStandbyTakeover(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3, 4)
	createTopic(t, sc.obs, "foo", threeParts)
	for p, r := range threeParts {
		sc.waitLeader(t, "foo", p, r[0], r...)
	}
	logs := &syncBuffer{}
	standby := startNode(t, sc.chroot, nodeOpts{id: 101, warm: true, logLevel: zerolog.InfoLevel, logTo: logs})
	waitFor(t, "standby warm", func() bool { return standby.c.Status().Warm })

	// Changes the standby must follow.
	createTopic(t, sc.obs, "bar", map[int32][]int32{0: {2, 3}, 1: {3, 1}})
	sc.waitLeader(t, "bar", 0, 2, 2, 3)
	sc.waitLeader(t, "bar", 1, 3, 3, 1)
	sc.sim.Broker(3).Kill()
	sc.waitLeader(t, "foo", 2, 1, 1, 2)
	sc.waitLeader(t, "bar", 1, 1, 1)
	writeReassignZnode(t, sc.obs, znodes.ReassignmentEntry{Topic: "foo", Partition: 0, Replicas: []int32{2, 4}})
	sc.waitAssignment(t, sc.ctl.c, 0, []int32{2, 4}, nil, nil)
	waitFor(t, "request znode deleted", func() bool { return !reassignZnodeExists(t, sc.obs) })
	if !standby.c.Status().Warm || standby.c.Status().Active {
		t.Fatalf("standby status %+v", standby.c.Status())
	}

	// A current context needs no state write at takeover (a stale leader
	// or ISR would be elected or shrunk again, bumping the epoch).
	before := map[TopicPartition]int32{}
	for _, tp := range []TopicPartition{{Topic: "foo", Partition: 0}, {Topic: "foo", Partition: 1},
		{Topic: "foo", Partition: 2}, {Topic: "bar", Partition: 0}, {Topic: "bar", Partition: 1}} {
		before[tp] = readState(t, sc.obs, tp.Topic, tp.Partition).PartitionEpoch
	}
	sc.ctl.stop()
	waitFor(t, "standby takes over", func() bool { return standby.c.Status().Ready })
	for tp, v := range before {
		if st := readState(t, sc.obs, tp.Topic, tp.Partition); st.PartitionEpoch != v {
			t.Errorf("%s rewritten at takeover: version %d -> %d (%v)", tp, v, st.PartitionEpoch, st)
		}
	}
	if !strings.Contains(logs.String(), "warm standby promoted") {
		t.Fatal("the standby took over cold")
	}
	if strings.Contains(logs.String(), "warm standby dropped") {
		t.Fatalf("the standby was dropped: %s", logs.String())
	}
	checkViewMatchesZooKeeper(t, sc, standby.c, "foo", "bar")
	if got := len(standby.c.Snapshot().Brokers); got != 3 {
		t.Fatalf("new controller sees %d brokers, want 3", got)
	}

	// The adopted watches work: broker 3 comes back and leads again after
	// a preferred election; a new topic comes online.
	if err := sc.sim.Broker(3).Restart(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "broker 3 registered", func() bool { return len(standby.c.Snapshot().Brokers) == 4 })
	createTopic(t, sc.obs, "baz", map[int32][]int32{0: {3, 1}})
	sc.waitLeaderOn(t, standby.c, "baz", 0, 3)
	checkViewMatchesZooKeeper(t, sc, standby.c, "foo", "bar", "baz")
}

// waitLeaderOn is waitLeader against another controller than sc.ctl.
func (sc *simCluster) waitLeaderOn(t testing.TB, c *Controller, topic string, p int32, want int32) {
	t.Helper()
	waitFor(t, "leader on the new controller", func() bool {
		st, ok := tryReadState(t, sc.obs, topic, p)
		if !ok || st.Leader != want {
			return false
		}
		pv, ok := partitionView(c, topic, p)
		return ok && pv.Leader == want && pv.PartitionEpoch == st.PartitionEpoch
	})
}

// TestWarmStandbySessionExpiry: the standby's watches end with its
// ZooKeeper session, so it drops its context; with a new session it loads
// again, follows a change made meanwhile, and takes over warm.
func TestWarmStandbySessionExpiry(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3)
	createTopic(t, sc.obs, "foo", threeParts)
	for p, r := range threeParts {
		sc.waitLeader(t, "foo", p, r[0], r...)
	}
	proxy := netcut.New(t, env.server.Addr())
	logs := &syncBuffer{}
	standby := startNode(t, sc.chroot, nodeOpts{id: 101, warm: true, zkAddr: proxy.Addr(), timeout: 2 * time.Second,
		logLevel: zerolog.InfoLevel, logTo: logs})
	waitFor(t, "standby warm", func() bool { return standby.c.Status().Warm })

	// An ephemeral znode of the standby's session tells when the server
	// has expired it.
	if _, err := standby.zk.Create(testCtx(t), "/probe", nil, zkadmin.Ephemeral); err != nil {
		t.Fatal(err)
	}
	proxy.Cut()
	createTopic(t, sc.obs, "bar", map[int32][]int32{0: {2, 3}})
	sc.waitLeader(t, "bar", 0, 2, 2, 3)
	waitFor(t, "standby session expired", func() bool {
		ok, _, err := sc.obs.Exists(testCtx(t), "/probe")
		return err == nil && !ok
	})
	proxy.Heal()
	// Loaded again means a "loaded" line after the "dropped" one: the
	// status may still say warm for a moment after the drop is logged.
	waitFor(t, "standby dropped and loaded again", func() bool {
		st, out := standby.c.Status(), logs.String()
		dropped := strings.Index(out, "warm standby dropped")
		return dropped >= 0 && strings.LastIndex(out, "warm standby loaded") > dropped &&
			st.Warm && st.ActiveControllerID == 100
	})

	sc.ctl.stop()
	waitFor(t, "standby takes over", func() bool { return standby.c.Status().Ready })
	if !strings.Contains(logs.String(), "warm standby promoted") {
		t.Fatal("the standby took over cold")
	}
	checkViewMatchesZooKeeper(t, sc, standby.c, "foo", "bar")
}
