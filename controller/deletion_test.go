package controller

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/integration/brokersim"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// markForDeletion writes /admin/delete_topics/<t> for every topic, in as
// few multis as possible, as one DeleteTopics request does.
func markForDeletion(t testing.TB, zk *zkadmin.Client, topics ...string) {
	t.Helper()
	ops := make([]zkadmin.Op, len(topics))
	for i, name := range topics {
		ops[i] = zkadmin.CreateOp(znodes.DeleteTopicPath(name), nil, zkadmin.Persistent)
	}
	if _, err := zk.MultiBatched(testCtx(t), ops, zkadmin.BatchOptions{}); err != nil {
		t.Fatalf("mark for deletion: %v", err)
	}
}

// writeTopicConfig writes /config/topics/<t> as kafka-configs does.
func writeTopicConfig(t testing.TB, zk *zkadmin.Client, name string) {
	t.Helper()
	data, err := znodes.EntityConfig{Version: 1, Config: map[string]string{"retention.ms": "1000"}}.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zk.CreateRecursive(testCtx(t), znodes.ConfigEntityPath(znodes.EntityTopics, name), data, zkadmin.Persistent); err != nil {
		t.Fatal(err)
	}
}

func znodeExists(t testing.TB, zk *zkadmin.Client, path string) bool {
	t.Helper()
	ok, _, err := zk.Exists(testCtx(t), path)
	if err != nil && !errors.Is(err, zkadmin.ErrNoNode) {
		t.Fatal(err)
	}
	return ok
}

// topicGone reports whether none of the topic's znodes (assignment,
// config, marker) is left and the controller no longer lists it.
func (sc *simCluster) topicGone(t testing.TB, name string) bool {
	for _, p := range []string{znodes.TopicPath(name), znodes.ConfigEntityPath(znodes.EntityTopics, name), znodes.DeleteTopicPath(name)} {
		if znodeExists(t, sc.obs, p) {
			return false
		}
	}
	return sc.ctl.c.Snapshot().Topics.Get(name) == nil
}

// waitReplicasDeleted waits until no broker hosts or keeps a log of any
// partition of the topic.
func (sc *simCluster) waitReplicasDeleted(t testing.TB, name string, brokers ...*brokersim.Broker) {
	t.Helper()
	if len(brokers) == 0 {
		brokers = sc.sim.Brokers()
	}
	for _, b := range brokers {
		err := b.WaitFor(testCtx(t), func(s brokersim.Snapshot) bool {
			for tp := range s.Log {
				if tp.Topic == name {
					return false
				}
			}
			for tp := range s.Partitions {
				if tp.Topic == name {
					return false
				}
			}
			return true
		})
		if err != nil {
			t.Fatalf("broker %d still holds %s: %v", b.ID(), name, err)
		}
	}
}

// waitHosted waits until every replica of parts is hosted, with its log,
// by its broker.
func (sc *simCluster) waitHosted(t testing.TB, name string, parts map[int32][]int32) {
	t.Helper()
	for p, replicas := range parts {
		for _, r := range replicas {
			tp := brokersim.TopicPartition{Topic: name, Partition: p}
			err := sc.sim.Broker(r).WaitFor(testCtx(t), func(s brokersim.Snapshot) bool {
				_, hosted := s.Partitions[tp]
				_, logged := s.Log[tp]
				return hosted && logged
			})
			if err != nil {
				t.Fatalf("broker %d never hosted %s: %v", r, tp, err)
			}
		}
	}
}

func stopReplicasReceived(sc *simCluster) int64 {
	var n int64
	for _, b := range sc.sim.Brokers() {
		n += b.Requests()[kmsg.StopReplica.Int16()]
	}
	return n
}

// TestDeleteTopic: a marked topic's replicas all get StopReplica with
// delete (their logs go), then its assignment tree, config and marker are
// removed; the topic can be created again at once and comes up as new. A
// marker naming no topic is removed.
func TestDeleteTopic(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3)
	createTopic(t, sc.obs, "doomed", threeParts)
	writeTopicConfig(t, sc.obs, "doomed")
	createTopic(t, sc.obs, "kept", map[int32][]int32{0: {1, 2, 3}})
	for p, r := range threeParts {
		sc.waitLeader(t, "doomed", p, r[0], r...)
	}
	sc.waitHosted(t, "doomed", threeParts)
	oldID := sc.ctl.c.Snapshot().Topics.Get("doomed").ID
	before := stopReplicasReceived(sc)

	markForDeletion(t, sc.obs, "doomed", "no-such-topic")
	waitFor(t, "doomed deleted", func() bool { return sc.topicGone(t, "doomed") })
	sc.waitReplicasDeleted(t, "doomed")
	waitFor(t, "unknown marker removed", func() bool {
		return !znodeExists(t, sc.obs, znodes.DeleteTopicPath("no-such-topic"))
	})
	if got := stopReplicasReceived(sc) - before; got < 3 {
		t.Fatalf("brokers answered %d StopReplica requests, want at least one each", got)
	}
	for _, b := range sc.sim.Brokers() {
		for p := range threeParts {
			if _, ok := b.CachedPartition(brokersim.TopicPartition{Topic: "doomed", Partition: p}); ok {
				t.Fatalf("broker %d still caches doomed-%d", b.ID(), p)
			}
		}
	}
	if !znodeExists(t, sc.obs, znodes.TopicPath("kept")) || sc.ctl.c.Snapshot().Topics.Get("kept") == nil {
		t.Fatal("an unrelated topic was touched")
	}
	if got := metricValue(t, sc.ctl, "kafka_controller_KafkaController_TopicsToDeleteCount"); got != 0 {
		t.Fatalf("TopicsToDeleteCount %v", got)
	}

	// Re-created right away, with another layout: a new topic.
	again := map[int32][]int32{0: {3, 1}, 1: {1, 2}}
	createTopic(t, sc.obs, "doomed", again)
	for p, r := range again {
		sc.waitLeader(t, "doomed", p, r[0], r...)
	}
	sc.waitHosted(t, "doomed", again)
	tv := sc.ctl.c.Snapshot().Topics.Get("doomed")
	if tv == nil || tv.Deleting || tv.ID == oldID || len(tv.Partitions) != 2 {
		t.Fatalf("re-created topic %+v (old id %v)", tv, oldID)
	}
	if st := readState(t, sc.obs, "doomed", 0); st.LeaderEpoch != 0 || st.PartitionEpoch != 0 {
		t.Fatalf("re-created doomed-0 starts from %v", st)
	}
}

// TestDeleteTopicBrokerDown: with a replica's broker down, the topic is
// hidden and its live replicas deleted, but it stays marked (ineligible)
// and partitions added meanwhile are reverted; when the broker returns,
// its replicas are deleted too and the topic goes.
func TestDeleteTopicBrokerDown(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3)
	createTopic(t, sc.obs, "stuck", threeParts)
	for p, r := range threeParts {
		sc.waitLeader(t, "stuck", p, r[0], r...)
	}
	sc.waitHosted(t, "stuck", threeParts)
	sc.sim.Broker(3).Kill()
	waitFor(t, "broker 3 gone", func() bool {
		return !slices.ContainsFunc(sc.ctl.c.Snapshot().Brokers, func(b BrokerView) bool { return b.ID == 3 })
	})

	markForDeletion(t, sc.obs, "stuck")
	sc.waitReplicasDeleted(t, "stuck", sc.sim.Broker(1), sc.sim.Broker(2))
	waitFor(t, "topic ineligible", func() bool {
		return metricValue(t, sc.ctl, "kafka_controller_KafkaController_TopicsIneligibleToDeleteCount") == 1
	})
	if !znodeExists(t, sc.obs, znodes.TopicPath("stuck")) || !znodeExists(t, sc.obs, znodes.DeleteTopicPath("stuck")) {
		t.Fatal("topic or marker removed while a replica was offline")
	}
	if tv := sc.ctl.c.Snapshot().Topics.Get("stuck"); tv == nil || !tv.Deleting {
		t.Fatalf("snapshot %+v, want the topic listed as deleting", tv)
	}
	// The replicas deleted on brokers 1 and 2 leave the count a moment
	// after the deletion znodes show it.
	waitFor(t, "ReplicasToDeleteCount at broker 3's 3", func() bool {
		return metricValue(t, sc.ctl, "kafka_controller_KafkaController_ReplicasToDeleteCount") == 3
	})

	// A partition added now is reverted.
	data, stat, err := sc.obs.Get(testCtx(t), znodes.TopicPath("stuck"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := znodes.DecodeTopicAssignment("stuck", data)
	if err != nil {
		t.Fatal(err)
	}
	a.Partitions[3] = []int32{1, 2, 3}
	enc, _ := a.Encode()
	if _, err := sc.obs.Set(testCtx(t), znodes.TopicPath("stuck"), enc, stat.Version); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "added partition reverted", func() bool {
		data, _, err := sc.obs.Get(testCtx(t), znodes.TopicPath("stuck"))
		if err != nil {
			t.Fatal(err)
		}
		a, err := znodes.DecodeTopicAssignment("stuck", data)
		return err == nil && len(a.Partitions) == 3
	})

	if err := sc.sim.Broker(3).Restart(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "stuck deleted", func() bool { return sc.topicGone(t, "stuck") })
	sc.waitReplicasDeleted(t, "stuck")
	if got := metricValue(t, sc.ctl, "kafka_controller_KafkaController_TopicsIneligibleToDeleteCount"); got != 0 {
		t.Fatalf("TopicsIneligibleToDeleteCount %v", got)
	}
}

// TestDeleteTopicRetriesRefusal: a live broker that refuses StopReplica
// (its log directory failed) holds the topic; the deletion is retried
// after a backoff, without any broker event, and completes once the
// broker accepts.
func TestDeleteTopicRetriesRefusal(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3)
	createTopic(t, sc.obs, "sticky", threeParts)
	for p, r := range threeParts {
		sc.waitLeader(t, "sticky", p, r[0], r...)
	}
	sc.waitHosted(t, "sticky", threeParts)
	sc.sim.Broker(2).SetLogDirOffline(true)
	markForDeletion(t, sc.obs, "sticky")
	sc.waitReplicasDeleted(t, "sticky", sc.sim.Broker(1), sc.sim.Broker(3))
	waitFor(t, "topic held", func() bool {
		return metricValue(t, sc.ctl, "kafka_controller_KafkaController_TopicsIneligibleToDeleteCount") == 1
	})
	if !znodeExists(t, sc.obs, znodes.TopicPath("sticky")) {
		t.Fatal("topic removed while a replica refused deletion")
	}
	before := sc.sim.Broker(2).Requests()[kmsg.StopReplica.Int16()]
	sc.sim.Broker(2).SetLogDirOffline(false)
	waitFor(t, "sticky deleted", func() bool { return sc.topicGone(t, "sticky") })
	sc.waitReplicasDeleted(t, "sticky")
	if after := sc.sim.Broker(2).Requests()[kmsg.StopReplica.Int16()]; after <= before {
		t.Fatalf("broker 2 got no StopReplica after the refusal (%d, then %d)", before, after)
	}
}

// TestDeleteTopicVanished: another tool removes the znodes of a topic
// whose deletion is stuck; the controller forgets the topic and removes
// its marker, and the name can be used again.
func TestDeleteTopicVanished(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3)
	createTopic(t, sc.obs, "handmade", threeParts)
	for p, r := range threeParts {
		sc.waitLeader(t, "handmade", p, r[0], r...)
	}
	sc.sim.Broker(3).Kill()
	markForDeletion(t, sc.obs, "handmade")
	waitFor(t, "topic ineligible", func() bool {
		return metricValue(t, sc.ctl, "kafka_controller_KafkaController_TopicsIneligibleToDeleteCount") == 1
	})
	var ops []zkadmin.Op
	for p := range int32(3) {
		ops = append(ops, zkadmin.DeleteOp(znodes.PartitionStatePath("handmade", p), zkadmin.AnyVersion),
			zkadmin.DeleteOp(znodes.PartitionPath("handmade", p), zkadmin.AnyVersion))
	}
	ops = append(ops, zkadmin.DeleteOp(znodes.PartitionsPath("handmade"), zkadmin.AnyVersion),
		zkadmin.DeleteOp(znodes.TopicPath("handmade"), zkadmin.AnyVersion))
	if _, err := sc.obs.Multi(testCtx(t), ops...); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "marker removed and topic forgotten", func() bool { return sc.topicGone(t, "handmade") })
	waitFor(t, "queue empty", func() bool {
		return metricValue(t, sc.ctl, "kafka_controller_KafkaController_TopicsToDeleteCount") == 0
	})
	createTopic(t, sc.obs, "handmade", map[int32][]int32{0: {1, 2}})
	sc.waitLeader(t, "handmade", 0, 1, 1, 2)
	if tv := sc.ctl.c.Snapshot().Topics.Get("handmade"); tv == nil || tv.Deleting {
		t.Fatalf("re-created topic %+v", tv)
	}
}

// TestDeleteTopicFailover: the controller goes away while a deletion is
// stuck on a dead broker; the standby that takes over resumes it from the
// marker and finishes when the broker returns.
func TestDeleteTopicFailover(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3)
	createTopic(t, sc.obs, "orphan", threeParts)
	writeTopicConfig(t, sc.obs, "orphan")
	for p, r := range threeParts {
		sc.waitLeader(t, "orphan", p, r[0], r...)
	}
	sc.waitHosted(t, "orphan", threeParts)
	standby := startNode(t, sc.chroot, nodeOpts{id: 101})
	waitFor(t, "standby follows", func() bool { return standby.c.Status().ActiveControllerID == 100 })
	sc.sim.Broker(2).Kill()
	waitFor(t, "broker 2 gone", func() bool {
		return !slices.ContainsFunc(sc.ctl.c.Snapshot().Brokers, func(b BrokerView) bool { return b.ID == 2 })
	})
	markForDeletion(t, sc.obs, "orphan")
	sc.waitReplicasDeleted(t, "orphan", sc.sim.Broker(1), sc.sim.Broker(3))

	sc.ctl.stop()
	waitFor(t, "standby takes over", func() bool { return standby.c.Status().Ready })
	if tv := standby.c.Snapshot().Topics.Get("orphan"); tv == nil || !tv.Deleting {
		t.Fatalf("new controller's view %+v, want the topic queued", tv)
	}
	if !znodeExists(t, sc.obs, znodes.TopicPath("orphan")) {
		t.Fatal("topic removed with a replica offline")
	}
	if err := sc.sim.Broker(2).Restart(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "orphan deleted by the new controller", func() bool {
		for _, p := range []string{znodes.TopicPath("orphan"), znodes.ConfigEntityPath(znodes.EntityTopics, "orphan"),
			znodes.DeleteTopicPath("orphan")} {
			if znodeExists(t, sc.obs, p) {
				return false
			}
		}
		return standby.c.Snapshot().Topics.Get("orphan") == nil
	})
	sc.waitReplicasDeleted(t, "orphan")
}

// TestDeleteTopicDisabled: with delete.topic.enable=false every marker is
// removed, at failover and later, and the topics stay as they were.
func TestDeleteTopicDisabled(t *testing.T) {
	disabled := nodeOpts{configure: func(c *config.Config) { c.DeleteTopicEnable = false }}
	sc := startSimClusterWith(t, disabled, func(obs *zkadmin.Client) {
		createTopic(t, obs, "early", map[int32][]int32{0: {1, 2, 3}})
		markForDeletion(t, obs, "early")
	}, 1, 2, 3)
	waitFor(t, "marker removed at failover", func() bool {
		return !znodeExists(t, sc.obs, znodes.DeleteTopicPath("early"))
	})
	createTopic(t, sc.obs, "late", threeParts)
	for p, r := range threeParts {
		sc.waitLeader(t, "late", p, r[0], r...)
	}
	markForDeletion(t, sc.obs, "late")
	waitFor(t, "marker removed", func() bool { return !znodeExists(t, sc.obs, znodes.DeleteTopicPath("late")) })
	sc.waitLeader(t, "early", 0, 1, 1, 2, 3)
	sc.waitHosted(t, "late", threeParts)
	for _, name := range []string{"early", "late"} {
		if !znodeExists(t, sc.obs, znodes.TopicPath(name)) {
			t.Fatalf("topic %s removed with deletion disabled", name)
		}
		if tv := sc.ctl.c.Snapshot().Topics.Get(name); tv == nil || tv.Deleting {
			t.Fatalf("topic %s view %+v", name, tv)
		}
	}
}

// TestDeleteManyTopics: 1,000 topics of 10 partitions (RF 3), 10k
// partitions and 30k replicas, marked in one go as one DeleteTopics of
// 1,000 names does, are all deleted: every znode goes, the controller
// forgets them, every broker drops every log. The times from the markers
// to the last znode gone and to the last log dropped are printed.
func TestDeleteManyTopics(t *testing.T) {
	if testing.Short() {
		t.Skip("scale test")
	}
	const topics, parts = 1000, 10
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3)
	start := time.Now()
	names := createLayout(t, sc.obs, "bulk", topics, parts)
	waitWithin(t, "every partition online", scaleTimeout, func() bool {
		return onlinePartitions(sc.ctl.c.Snapshot()) == topics*parts
	})
	t.Logf("created %d partitions and brought them online in %v", topics*parts, time.Since(start))

	start = time.Now()
	markForDeletion(t, sc.obs, names...)
	waitWithin(t, "all topics deleted", scaleTimeout, func() bool {
		left, _, err := sc.obs.Children(testCtx(t), znodes.TopicsPath)
		if err != nil {
			t.Fatal(err)
		}
		marks, _, err := sc.obs.Children(testCtx(t), znodes.DeleteTopicsPath)
		if err != nil {
			t.Fatal(err)
		}
		cfgs, _, err := sc.obs.Children(testCtx(t), znodes.ConfigEntityTypePath(znodes.EntityTopics))
		if err != nil {
			t.Fatal(err)
		}
		return len(left) == 0 && len(marks) == 0 && len(cfgs) == 0
	})
	inZK := time.Since(start)
	waitWithin(t, "controller forgot them", scaleTimeout, func() bool { return sc.ctl.c.Snapshot().Topics.Len() == 0 })
	for _, b := range sc.sim.Brokers() {
		err := b.WaitFor(testCtx(t), func(s brokersim.Snapshot) bool { return len(s.Log) == 0 && len(s.Partitions) == 0 })
		if err != nil {
			t.Fatalf("broker %d keeps %d partition logs: %v", b.ID(), len(b.Snapshot().Log), err)
		}
	}
	t.Logf("deleted %d partitions (%d topics × %d, %d replicas) in %v; every broker log dropped after %v",
		topics*parts, topics, parts, topics*parts*3, inZK.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	if got := metricValue(t, sc.ctl, "kafka_controller_KafkaController_TopicsToDeleteCount"); got != 0 {
		t.Fatalf("TopicsToDeleteCount %v", got)
	}
}

// scaleTimeout bounds each wait of the scale test: far above what it
// needs, but the race detector on a loaded machine is slow.
const scaleTimeout = 100 * time.Second

// waitWithin is waitFor with its own deadline.
func waitWithin(tb testing.TB, what string, timeout time.Duration, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// createLayout creates topics prefix-0000.. with parts partitions each,
// RF 3 over brokers 1-3 with leaders rotated, each with a config znode
// written before its assignment as Kafka's AdminZkClient does, in as few
// multis as possible; it returns the names.
func createLayout(t testing.TB, zk *zkadmin.Client, prefix string, topics, parts int) []string {
	t.Helper()
	cfg, err := znodes.EntityConfig{}.Encode()
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, topics)
	var ops []zkadmin.Op
	for i := range names {
		names[i] = fmt.Sprintf("%s-%04d", prefix, i)
		a := znodes.TopicAssignment{Partitions: map[int32][]int32{}}
		for p := range parts {
			first := (i + p) % 3
			a.Partitions[int32(p)] = []int32{int32(1 + first), int32(1 + (first+1)%3), int32(1 + (first+2)%3)}
		}
		data, err := a.Encode()
		if err != nil {
			t.Fatal(err)
		}
		ops = append(ops, zkadmin.CreateOp(znodes.ConfigEntityPath(znodes.EntityTopics, names[i]), cfg, zkadmin.Persistent),
			zkadmin.CreateOp(znodes.TopicPath(names[i]), data, zkadmin.Persistent))
	}
	if _, err := zk.MultiBatched(testCtx(t), ops, zkadmin.BatchOptions{}); err != nil {
		t.Fatal(err)
	}
	return names
}

// onlinePartitions counts the partitions with a leader in the view.
func onlinePartitions(v *MetadataView) int {
	n := 0
	for _, tv := range v.Topics.All() {
		for _, pv := range tv.Partitions {
			if pv.Leader >= 0 {
				n++
			}
		}
	}
	return n
}
