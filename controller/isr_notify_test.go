package controller

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/kzadmin/kzadmin/integration/brokersim"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// writeIsrAsLeader does what a partition leader on an IBP below 2.7-IV2
// does instead of AlterPartition: it rewrites the state znode with a new
// ISR, leader and leader epoch unchanged, conditional on the version it
// knows. It returns the new version (the partition epoch).
func writeIsrAsLeader(t testing.TB, zk *zkadmin.Client, topic string, p int32, isr ...int32) int32 {
	t.Helper()
	cur := readState(t, zk, topic, p)
	data := encodeTestState(t, cur.Leader, cur.LeaderEpoch, cur.ControllerEpoch, isr...)
	stat, err := zk.Set(testCtx(t), znodes.PartitionStatePath(topic, p), data, cur.PartitionEpoch)
	if err != nil {
		t.Fatalf("leader's ISR write for %s-%d: %v", topic, p, err)
	}
	return stat.Version
}

// postNotification creates a sequential notification znode (seqPath is
// the directory plus the prefix) with data, as a broker does.
func postNotification(t testing.TB, zk *zkadmin.Client, seqPath string, data []byte) string {
	t.Helper()
	path, err := zk.Create(testCtx(t), seqPath, data, zkadmin.PersistentSequential)
	if err != nil {
		t.Fatalf("post notification %s: %v", seqPath, err)
	}
	return path
}

// postIsrChange posts an ISR change notification naming partitions of
// topic.
func postIsrChange(t testing.TB, zk *zkadmin.Client, topic string, parts ...int32) string {
	t.Helper()
	n := znodes.IsrChangeNotification{}
	for _, p := range parts {
		n.Partitions = append(n.Partitions, znodes.TopicPartition{Topic: topic, Partition: p})
	}
	data, err := n.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return postNotification(t, zk, znodes.IsrChangeSequencePath, data)
}

// notificationsLeft lists the children of a notification directory.
func notificationsLeft(t testing.TB, zk *zkadmin.Client, dir string) []string {
	t.Helper()
	names, _, err := zk.Children(testCtx(t), dir)
	if err != nil {
		t.Fatalf("list %s: %v", dir, err)
	}
	return names
}

// waitIsrEverywhere waits until the controller's view and every simulated
// broker's metadata cache show tp with isr at partition epoch version:
// the controller re-read the state znode and sent UpdateMetadata.
func (sc *simCluster) waitIsrEverywhere(t testing.TB, topic string, p int32, version int32, isr ...int32) {
	t.Helper()
	waitFor(t, fmt.Sprintf("%s-%d with isr %v at version %d everywhere", topic, p, isr, version), func() bool {
		pv, ok := partitionView(sc.ctl.c, topic, p)
		if !ok || !slices.Equal(pv.ISR, isr) || pv.PartitionEpoch != version {
			return false
		}
		for _, b := range sc.sim.Brokers() {
			pm, ok := b.CachedPartition(brokersim.TopicPartition{Topic: topic, Partition: p})
			if !ok || !slices.Equal(pm.ISR, isr) || pm.ZkVersion != version {
				return false
			}
		}
		return true
	})
}

// TestIsrChangeNotification: leaders on an old IBP write ISR changes into
// the state znodes and post a notification; the controller re-reads the
// named partitions (its view takes the new ISR and partition epoch), sends
// UpdateMetadata so every broker's metadata cache has them, and deletes
// the notification. The leader epoch does not move.
func TestIsrChangeNotification(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3)
	createTopic(t, sc.obs, "foo", threeParts)
	for p, replicas := range threeParts {
		sc.waitLeader(t, "foo", p, replicas[0], replicas...)
	}
	v0 := writeIsrAsLeader(t, sc.obs, "foo", 0, 1, 2)
	v1 := writeIsrAsLeader(t, sc.obs, "foo", 1, 2, 3)
	// Nothing happens before the notification: only AlterPartition or a
	// notification tells the controller.
	postIsrChange(t, sc.obs, "foo", 0, 1)
	sc.waitIsrEverywhere(t, "foo", 0, v0, 1, 2)
	sc.waitIsrEverywhere(t, "foo", 1, v1, 2, 3)
	waitFor(t, "notification deleted", func() bool {
		return len(notificationsLeft(t, sc.obs, znodes.IsrChangeNotificationPath)) == 0
	})
	if pv, _ := partitionView(sc.ctl.c, "foo", 0); pv.Leader != 1 || pv.LeaderEpoch != 0 {
		t.Fatalf("foo-0 after the ISR change: %+v", pv)
	}

	// The ISR grows back the same way, in two notifications.
	v0 = writeIsrAsLeader(t, sc.obs, "foo", 0, 1, 2, 3)
	postIsrChange(t, sc.obs, "foo", 0)
	v1 = writeIsrAsLeader(t, sc.obs, "foo", 1, 2, 3, 1)
	postIsrChange(t, sc.obs, "foo", 1, 0)
	sc.waitIsrEverywhere(t, "foo", 0, v0, 1, 2, 3)
	sc.waitIsrEverywhere(t, "foo", 1, v1, 2, 3, 1)
	waitFor(t, "notifications deleted", func() bool {
		return len(notificationsLeft(t, sc.obs, znodes.IsrChangeNotificationPath)) == 0
	})
	if st := readState(t, sc.obs, "foo", 0); st.PartitionEpoch != v0 {
		t.Fatalf("the controller wrote foo-0's state znode: %v", st)
	}
}

// TestIsrChangeNotificationMalformed: notifications that are not JSON,
// lack their partitions, or name partitions nobody knows are logged with
// their path and deleted, and the valid one posted with them is processed.
// A child that is not a notification is left alone.
func TestIsrChangeNotificationMalformed(t *testing.T) {
	logs := &syncBuffer{}
	sc := startSimCluster(t, nodeOpts{logTo: logs}, 1, 2, 3)
	createTopic(t, sc.obs, "foo", threeParts)
	sc.waitLeader(t, "foo", 2, 3, 3, 1, 2)
	if _, err := sc.obs.Create(testCtx(t), znodes.IsrChangeNotificationPath+"/stray", nil, zkadmin.Persistent); err != nil {
		t.Fatal(err)
	}
	bad1 := postNotification(t, sc.obs, znodes.IsrChangeSequencePath, []byte("not json"))
	bad2 := postNotification(t, sc.obs, znodes.IsrChangeSequencePath, []byte(`{"version":1}`))
	postIsrChange(t, sc.obs, "nope", 0)
	v := writeIsrAsLeader(t, sc.obs, "foo", 2, 3, 1)
	postIsrChange(t, sc.obs, "foo", 2)
	sc.waitIsrEverywhere(t, "foo", 2, v, 3, 1)
	waitFor(t, "notifications deleted", func() bool {
		return slices.Equal(notificationsLeft(t, sc.obs, znodes.IsrChangeNotificationPath), []string{"stray"})
	})
	l := logs.String()
	for _, path := range []string{bad1, bad2} {
		if !strings.Contains(l, path) || !strings.Contains(l, "malformed ISR change notification") {
			t.Fatalf("no clear error naming %s in the logs:\n%s", path, l)
		}
	}
	if !strings.Contains(l, "stray") {
		t.Fatalf("the stray child was not reported:\n%s", l)
	}
}

// TestIsrChangeNotificationCompletesReassignment: with leaders on an old
// IBP, the ISR change that brings a reassignment's target into sync
// arrives as a notification, and completes the reassignment.
func TestIsrChangeNotificationCompletesReassignment(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3, 4)
	createTopic(t, sc.obs, "moving", map[int32][]int32{0: {1, 2}})
	sc.waitLeader(t, "moving", 0, 1, 1, 2)
	// Broker 4 lags, so that the simulated leader does not add it itself.
	sc.sim.Broker(4).SetLagging(true)
	writeReassignZnode(t, sc.obs, znodes.ReassignmentEntry{Topic: "moving", Partition: 0, Replicas: []int32{1, 4}})
	waitFor(t, "reassignment started", func() bool {
		pv, ok := partitionView(sc.ctl.c, "moving", 0)
		return ok && slices.Equal(pv.Adding, []int32{4})
	})
	writeIsrAsLeader(t, sc.obs, "moving", 0, 1, 2, 4)
	postIsrChange(t, sc.obs, "moving", 0)
	waitFor(t, "reassignment completed", func() bool {
		pv, ok := partitionView(sc.ctl.c, "moving", 0)
		return ok && slices.Equal(pv.Replicas, []int32{1, 4}) && len(pv.Adding) == 0 && len(pv.Removing) == 0
	})
	waitFor(t, "legacy znode and notification gone", func() bool {
		_, _, err := sc.obs.Get(testCtx(t), znodes.ReassignPartitionsPath)
		return err != nil && len(notificationsLeft(t, sc.obs, znodes.IsrChangeNotificationPath)) == 0
	})
}

// TestDecodeIsrChanges: partitions come out once each, in the order first
// named; unreadable and malformed notifications are skipped.
func TestDecodeIsrChanges(t *testing.T) {
	c := &Controller{log: zerolog.Nop()}
	ns := []notification{
		{name: "isr_change_0000000001", data: []byte(`{"version":1,"partitions":[{"topic":"b","partition":1},{"topic":"a","partition":0}]}`)},
		{name: "isr_change_0000000002", data: []byte(`{"version":1,"partitions":"x"}`)},
		{name: "isr_change_0000000003", err: fmt.Errorf("read failed")},
		{name: "isr_change_0000000004", data: []byte(`{"version":1,"partitions":[{"topic":"a","partition":0},{"topic":"a","partition":2}]}`)},
		{name: "isr_change_0000000005", data: []byte(`{"version":1,"partitions":[]}`)},
	}
	got := c.decodeIsrChanges(ns)
	want := []TopicPartition{{Topic: "b", Partition: 1}, {Topic: "a", Partition: 0}, {Topic: "a", Partition: 2}}
	if !slices.Equal(got, want) {
		t.Fatalf("decodeIsrChanges = %v, want %v", got, want)
	}
	if got := c.decodeIsrChanges(nil); got != nil {
		t.Fatalf("no notifications: %v", got)
	}
}

// TestNotificationEventStates: the notification watches report Kafka's
// controller states while they are processed.
func TestNotificationEventStates(t *testing.T) {
	for path, want := range map[string]State{
		znodes.IsrChangeNotificationPath:   StateIsrChange,
		znodes.LogDirEventNotificationPath: StateLogDirChange,
	} {
		e := &watchEvent{key: watchKey{path: path, kind: watchChildren}}
		if got := e.state(); got != want {
			t.Errorf("%s: state %d, want %d", path, got, want)
		}
	}
}
