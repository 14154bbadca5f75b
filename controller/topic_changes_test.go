package controller

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/integration/brokersim"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// raRawTopic reads /brokers/topics/<name> as stored, with its version.
func raRawTopic(t testing.TB, zk *zkadmin.Client, name string) (string, int32) {
	t.Helper()
	data, st, err := zk.Get(testCtx(t), znodes.TopicPath(name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data), st.Version
}

// raSetTopic overwrites /brokers/topics/<name> as another tool does.
func raSetTopic(t testing.TB, zk *zkadmin.Client, name string, data []byte) {
	t.Helper()
	if _, err := zk.Set(testCtx(t), znodes.TopicPath(name), data, zkadmin.AnyVersion); err != nil {
		t.Fatalf("rewrite topic %s: %v", name, err)
	}
}

// raWaitHostedWithID waits until broker id hosts topic-p with topic id
// in its replica state and its log (the LeaderAndIsr carried the id).
func raWaitHostedWithID(t testing.TB, b *brokersim.Broker, topic string, p int32, id znodes.UUID) {
	t.Helper()
	tp := brokersim.TopicPartition{Topic: topic, Partition: p}
	err := b.WaitFor(testCtx(t), func(s brokersim.Snapshot) bool {
		ps, ok := s.Partitions[tp]
		return ok && ps.TopicID == id && s.Log[tp] == id
	})
	if err != nil {
		t.Fatalf("broker %d never hosted %s with topic id %v (has %+v): %v", b.ID(), tp, id, b.Snapshot().Partitions[tp], err)
	}
}

// TestTopicChangeForeignTopicZnode: a topic znode written by another tool (v1,
// no topic_id, a field kzadmin does not know) is brought online as is.
// From IBP 2.8-IV0 the controller writes a topic id back (fenced, as
// Kafka's processTopicIds), keeping the partitions and the unknown field
// (README: unknown fields are kept on rewrite), and the brokers get that
// id with their LeaderAndIsr; below 2.8 the znode is left alone.
func TestTopicChangeForeignTopicZnode(t *testing.T) {
	for _, tc := range []struct {
		ibp    string
		withID bool
	}{{"", true}, {"2.7-IV2", false}} {
		t.Run(fmt.Sprintf("ibp=%s", tc.ibp), func(t *testing.T) {
			o := nodeOpts{}
			if tc.ibp != "" {
				ibp, err := config.ParseIBP(tc.ibp)
				if err != nil {
					t.Fatal(err)
				}
				o.configure = func(c *config.Config) { c.InterBrokerProtocolVersion = ibp }
			}
			sc := startSimCluster(t, o, 1, 2, 3)
			raw := `{"version":1,"partitions":{"0":[1,2],"1":[2,3]},"owner":"ops-team"}`
			if _, err := sc.obs.Create(testCtx(t), znodes.TopicPath("legacy"), []byte(raw), zkadmin.Persistent); err != nil {
				t.Fatal(err)
			}
			sc.waitLeader(t, "legacy", 0, 1, 1, 2)
			sc.waitLeader(t, "legacy", 1, 2, 2, 3)

			data, version := raRawTopic(t, sc.obs, "legacy")
			a, err := znodes.DecodeTopicAssignment("legacy", []byte(data))
			if err != nil {
				t.Fatal(err)
			}
			tv := sc.ctl.c.Snapshot().Topics.Get("legacy")
			if !tc.withID {
				if data != raw || version != 0 || !tv.ID.IsZero() {
					t.Fatalf("below IBP 2.8 the znode was rewritten or an id made up: %s (version %d), view id %v", data, version, tv.ID)
				}
				return
			}
			if a.TopicID.IsZero() || a.Version != znodes.TopicAssignmentVersion || version != 1 {
				t.Fatalf("topic id not written back: %s (version %d)", data, version)
			}
			if !strings.Contains(data, `"owner":"ops-team"`) ||
				!slices.Equal(a.Partitions[0], []int32{1, 2}) || !slices.Equal(a.Partitions[1], []int32{2, 3}) {
				t.Fatalf("rewrite lost the partitions or the unknown field: %s", data)
			}
			if tv.ID != a.TopicID {
				t.Fatalf("snapshot topic id %v, znode %v", tv.ID, a.TopicID)
			}
			for p, replicas := range map[int32][]int32{0: {1, 2}, 1: {2, 3}} {
				for _, r := range replicas {
					raWaitHostedWithID(t, sc.sim.Broker(r), "legacy", p, a.TopicID)
				}
			}
		})
	}
}

// TestTopicChangeAddedPartitions: an admin rewrites a topic znode with more
// partitions (Kafka's PartitionModifications, reference §2.4). Only the
// partitions the controller does not know are created: the new one goes
// online (first live replica leads, epochs 0); the replica list of an
// existing partition changed in the same write is ignored (reassignments
// have their own path) and its state is untouched. A new partition whose
// only replica is down stays NewPartition: no state znode, no leader, not
// counted offline nor among the partitions with leadership; it comes
// online when the broker registers.
func TestTopicChangeAddedPartitions(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3, 4)
	sc.sim.Broker(4).Kill()
	waitFor(t, "controller sees broker 4 gone", func() bool { return len(sc.ctl.c.Snapshot().Brokers) == 3 })
	createTopic(t, sc.obs, "grow", map[int32][]int32{0: {1, 2}, 1: {2, 3}})
	sc.waitLeader(t, "grow", 0, 1, 1, 2)
	sc.waitLeader(t, "grow", 1, 2, 2, 3)
	before0, before1 := readState(t, sc.obs, "grow", 0), readState(t, sc.obs, "grow", 1)
	id := readTopicZnode(t, sc.obs, "grow").TopicID

	enc, err := znodes.TopicAssignment{TopicID: id,
		Partitions: map[int32][]int32{0: {3, 2, 1}, 1: {2, 3}, 2: {3, 1}, 3: {4}}}.Encode()
	if err != nil {
		t.Fatal(err)
	}
	raSetTopic(t, sc.obs, "grow", enc)
	sc.waitLeader(t, "grow", 2, 3, 3, 1)
	if st := readState(t, sc.obs, "grow", 2); st.LeaderEpoch != 0 || st.PartitionEpoch != 0 {
		t.Fatalf("new partition grow-2 %v, want epochs 0", st)
	}
	sc.waitBrokerRole(t, 1, "grow", 2, 3)

	if _, ok := tryReadState(t, sc.obs, "grow", 3); ok {
		t.Fatal("grow-3 got a state znode with its only replica down")
	}
	pv, ok := partitionView(sc.ctl.c, "grow", 3)
	if !ok || pv.Leader != -1 || pv.LeaderEpoch != -1 || !slices.Equal(pv.Offline, []int32{4}) {
		t.Fatalf("grow-3 in the snapshot %+v, want no leadership and replica 4 offline", pv)
	}
	if pv, _ := partitionView(sc.ctl.c, "grow", 0); !slices.Equal(pv.Replicas, []int32{1, 2}) {
		t.Fatalf("grow-0's replicas changed by a partition-count write: %v", pv.Replicas)
	}
	for p, before := range map[int32]election.LeaderAndIsr{0: before0, 1: before1} {
		if st := readState(t, sc.obs, "grow", p); !reflect.DeepEqual(st, before) {
			t.Fatalf("existing grow-%d touched: %+v, was %+v", p, st, before)
		}
	}
	// Kafka's GlobalPartitionCount counts partitions with leadership.
	if got := metricValue(t, sc.ctl, "kafka_controller_KafkaController_GlobalPartitionCount"); got != 3 {
		t.Fatalf("GlobalPartitionCount %v, want 3 (grow-3 has no leadership)", got)
	}
	if got := metricValue(t, sc.ctl, "kafka_controller_KafkaController_OfflinePartitionsCount"); got != 0 {
		t.Fatalf("OfflinePartitionsCount %v, want 0 (a NewPartition is not offline)", got)
	}
	if tv := sc.ctl.c.Snapshot().Topics.Get("grow"); tv.ID != id {
		t.Fatalf("topic id changed from %v to %v", id, tv.ID)
	}

	if err := sc.sim.Broker(4).Restart(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	sc.waitLeader(t, "grow", 3, 4, 4)
	if st := readState(t, sc.obs, "grow", 3); st.LeaderEpoch != 0 || st.PartitionEpoch != 0 {
		t.Fatalf("grow-3 initialised late %v, want epochs 0", st)
	}
	sc.waitBrokerRole(t, 4, "grow", 3, 4)
	if got := metricValue(t, sc.ctl, "kafka_controller_KafkaController_GlobalPartitionCount"); got != 4 {
		t.Fatalf("GlobalPartitionCount %v once grow-3 is online, want 4", got)
	}
}

// TestTopicChangeMalformedNewTopics: topic znodes that do not decode (bad JSON,
// replicas of the wrong type, a non-numeric partition key) are logged
// with their path and skipped, while the topics created with them come
// online; the bad znodes are not written to. A partition with an empty
// replica list decodes but has no replica to lead: it stays without a
// state znode while its topic's other partition goes online. The
// controller keeps handling later changes.
func TestTopicChangeMalformedNewTopics(t *testing.T) {
	logs := &syncBuffer{}
	sc := startSimCluster(t, nodeOpts{logTo: logs}, 1, 2, 3)
	bad := map[string]string{
		"bad-json":  `{"version":1,"partitions":{"0":[1,2]`,
		"bad-types": `{"version":1,"partitions":{"0":["1","2"]}}`,
		"bad-key":   `{"version":1,"partitions":{"zero":[1,2]}}`,
	}
	good, _ := znodes.TopicAssignment{Partitions: map[int32][]int32{0: {1, 2}}}.Encode()
	ops := []zkadmin.Op{
		zkadmin.CreateOp(znodes.TopicPath("good"), good, zkadmin.Persistent),
		zkadmin.CreateOp(znodes.TopicPath("hollow"), []byte(`{"version":1,"partitions":{"0":[],"1":[2,3]}}`), zkadmin.Persistent),
	}
	for name, data := range bad {
		ops = append(ops, zkadmin.CreateOp(znodes.TopicPath(name), []byte(data), zkadmin.Persistent))
	}
	if _, err := sc.obs.Multi(testCtx(t), ops...); err != nil {
		t.Fatal(err)
	}
	sc.waitLeader(t, "good", 0, 1, 1, 2)
	sc.waitLeader(t, "hollow", 1, 2, 2, 3)

	for name, data := range bad {
		if tv := sc.ctl.c.Snapshot().Topics.Get(name); tv != nil {
			t.Errorf("malformed topic %s in the snapshot: %+v", name, tv)
		}
		if got, v := raRawTopic(t, sc.obs, name); got != data || v != 0 {
			t.Errorf("malformed topic %s rewritten: %s (version %d)", name, got, v)
		}
		if znodeExists(t, sc.obs, znodes.PartitionsPath(name)) {
			t.Errorf("malformed topic %s got partition znodes", name)
		}
		if !strings.Contains(logs.String(), znodes.TopicPath(name)) {
			t.Errorf("no log naming %s", znodes.TopicPath(name))
		}
	}
	if _, ok := tryReadState(t, sc.obs, "hollow", 0); ok {
		t.Fatal("hollow-0 (no replicas) got a state znode")
	}
	if pv, ok := partitionView(sc.ctl.c, "hollow", 0); !ok || pv.Leader != -1 || len(pv.Replicas) != 0 {
		t.Fatalf("hollow-0 in the snapshot %+v, want listed with no replicas and no leader", pv)
	}
	if got := metricValue(t, sc.ctl, "kafka_controller_KafkaController_GlobalTopicCount"); got != 2 {
		t.Fatalf("GlobalTopicCount %v, want 2 (good, hollow)", got)
	}

	createTopic(t, sc.obs, "later", map[int32][]int32{0: {3, 1}})
	sc.waitLeader(t, "later", 0, 3, 3, 1)
}

// TestTopicChangeMalformedTopicFixedLater: a new topic whose znode does not
// decode is skipped, and when someone fixes the znode the topic comes
// online at once, through its data watch, without waiting for another
// topic to be created or deleted. Kafka keeps such a topic among its
// topics with its modification handler, which creates the partitions when
// the znode changes.
func TestTopicChangeMalformedTopicFixedLater(t *testing.T) {
	logs := &syncBuffer{}
	sc := startSimCluster(t, nodeOpts{logTo: logs}, 1, 2, 3)
	if _, err := sc.obs.Create(testCtx(t), znodes.TopicPath("mended"), []byte(`{not json`), zkadmin.Persistent); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the malformed topic logged", func() bool {
		return strings.Contains(logs.String(), znodes.TopicPath("mended"))
	})
	enc, err := znodes.TopicAssignment{Partitions: map[int32][]int32{0: {2, 3}}}.Encode()
	if err != nil {
		t.Fatal(err)
	}
	raSetTopic(t, sc.obs, "mended", enc)
	sc.waitLeader(t, "mended", 0, 2, 2, 3)
	if id := readTopicZnode(t, sc.obs, "mended").TopicID; id.IsZero() {
		t.Fatal("the mended topic got no topic id")
	}
}

// TestTopicChangeRewriteWithoutIDKeepsTheID: a tool older than 2.8 adding a
// partition rewrites the topic znode without its topic_id. The topic
// keeps the id it has, in the znode and in what the brokers get: its
// partitions' logs carry that id, and a broker refuses a LeaderAndIsr
// naming another (INCONSISTENT_TOPIC_ID), which left the old partitions
// unable to change leader when a new id was minted.
func TestTopicChangeRewriteWithoutIDKeepsTheID(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3)
	createTopic(t, sc.obs, "foo", map[int32][]int32{0: {1, 2, 3}})
	sc.waitLeader(t, "foo", 0, 1, 1, 2, 3)
	id := readTopicZnode(t, sc.obs, "foo").TopicID
	raSetTopic(t, sc.obs, "foo", []byte(`{"version":1,"partitions":{"0":[1,2,3],"1":[2,3,1]}}`))
	sc.waitLeader(t, "foo", 1, 2, 2, 3, 1)
	if got := readTopicZnode(t, sc.obs, "foo").TopicID; got != id {
		t.Fatalf("topic id in the znode %v after a rewrite without one, want the topic's %v", got, id)
	}
	if tv := sc.ctl.c.Snapshot().Topics.Get("foo"); tv == nil || tv.ID != id {
		t.Fatalf("topic id in the snapshot %+v, want %v", tv, id)
	}
	raWaitHostedWithID(t, sc.sim.Broker(2), "foo", 1, id)
	// The old partition still changes leader: broker 2 takes foo-0 over.
	sc.sim.Broker(1).Kill()
	sc.waitLeader(t, "foo", 0, 2, 2, 3)
	sc.waitBrokerRole(t, 2, "foo", 0, 2)
}

// TestTopicChangeMalformedRewriteOfKnownTopic: an existing topic's znode
// overwritten with something that does not decode is logged and ignored:
// the topic keeps its id, partitions and leaders. The data watch stays
// armed, so a valid rewrite adding a partition afterwards is handled.
func TestTopicChangeMalformedRewriteOfKnownTopic(t *testing.T) {
	logs := &syncBuffer{}
	sc := startSimCluster(t, nodeOpts{logTo: logs}, 1, 2, 3)
	createTopic(t, sc.obs, "foo", map[int32][]int32{0: {1, 2, 3}})
	sc.waitLeader(t, "foo", 0, 1, 1, 2, 3)
	id := readTopicZnode(t, sc.obs, "foo").TopicID
	before := readState(t, sc.obs, "foo", 0)

	raSetTopic(t, sc.obs, "foo", []byte(`{"version":3,"partitions":{"0":[1,2,3],"1":"2,3"}}`))
	waitFor(t, "the bad rewrite logged", func() bool {
		return strings.Contains(logs.String(), "ignoring a topic assignment that does not decode")
	})
	tv := sc.ctl.c.Snapshot().Topics.Get("foo")
	if tv == nil || tv.ID != id || len(tv.Partitions) != 1 || tv.Partitions[0].Leader != 1 {
		t.Fatalf("foo after a bad rewrite %+v, want id %v with one partition led by 1", tv, id)
	}
	if st := readState(t, sc.obs, "foo", 0); !reflect.DeepEqual(st, before) {
		t.Fatalf("foo-0 touched by a bad rewrite: %+v, was %+v", st, before)
	}

	enc, _ := znodes.TopicAssignment{TopicID: id, Partitions: map[int32][]int32{0: {1, 2, 3}, 1: {2, 3, 1}}}.Encode()
	raSetTopic(t, sc.obs, "foo", enc)
	sc.waitLeader(t, "foo", 1, 2, 2, 3, 1)
}

// TestTopicChangeAllReplicasOffline: when every replica of a partition is down
// the partition goes OfflinePartition: the state znode keeps the last ISR
// member with leader -1 (ZooKeeper mode never empties the ISR, reference
// §3.2), the brokers' metadata shows no leader, OfflinePartitionsCount
// counts it, and partitions elsewhere are untouched. When the broker
// returns, it leads again.
func TestTopicChangeAllReplicasOffline(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3)
	createTopic(t, sc.obs, "mixed", map[int32][]int32{0: {1, 2}, 1: {3}})
	sc.waitLeader(t, "mixed", 0, 1, 1, 2)
	sc.waitLeader(t, "mixed", 1, 3, 3)
	before := readState(t, sc.obs, "mixed", 0)

	sc.sim.Broker(3).Kill()
	sc.waitLeader(t, "mixed", 1, -1, 3)
	if st := readState(t, sc.obs, "mixed", 1); st.LeaderEpoch != 1 {
		t.Fatalf("mixed-1 offline %v, want leader epoch 1", st)
	}
	pv, _ := partitionView(sc.ctl.c, "mixed", 1)
	if !slices.Equal(pv.Offline, []int32{3}) {
		t.Fatalf("mixed-1 offline replicas %v, want [3]", pv.Offline)
	}
	waitFor(t, "offline partition counted", func() bool {
		return metricValue(t, sc.ctl, "kafka_controller_KafkaController_OfflinePartitionsCount") == 1
	})
	tp := brokersim.TopicPartition{Topic: "mixed", Partition: 1}
	err := sc.sim.Broker(1).WaitFor(testCtx(t), func(brokersim.Snapshot) bool {
		m, ok := sc.sim.Broker(1).CachedPartition(tp)
		return ok && m.Leader == -1
	})
	if err != nil {
		t.Fatalf("broker 1's metadata never showed mixed-1 leaderless: %v", err)
	}
	if st := readState(t, sc.obs, "mixed", 0); !reflect.DeepEqual(st, before) {
		t.Fatalf("mixed-0 touched: %+v, was %+v", st, before)
	}

	if err := sc.sim.Broker(3).Restart(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	sc.waitLeader(t, "mixed", 1, 3, 3)
	sc.waitBrokerRole(t, 3, "mixed", 1, 3)
	waitFor(t, "no offline partition", func() bool {
		return metricValue(t, sc.ctl, "kafka_controller_KafkaController_OfflinePartitionsCount") == 0
	})
}

// TestTopicChangeTopicRemovedByHand: a topic whose znodes someone deletes from
// /brokers/topics without going through /admin/delete_topics disappears
// from the controller's snapshot and counts when the listing no longer
// shows it (Kafka's TopicChange deletedTopics), other topics untouched;
// its id is forgotten (AlterPartition with it: UNKNOWN_TOPIC_ID), and the
// name, created again, is a new topic with a new id.
func TestTopicChangeTopicRemovedByHand(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3)
	createTopic(t, sc.obs, "keep", map[int32][]int32{0: {1, 2}})
	createTopic(t, sc.obs, "gone", map[int32][]int32{0: {1, 2}, 1: {2, 3}})
	sc.waitLeader(t, "keep", 0, 1, 1, 2)
	sc.waitLeader(t, "gone", 0, 1, 1, 2)
	sc.waitLeader(t, "gone", 1, 2, 2, 3)
	oldID := readTopicZnode(t, sc.obs, "gone").TopicID
	keep := readState(t, sc.obs, "keep", 0)

	var ops []zkadmin.Op
	for p := range int32(2) {
		ops = append(ops, zkadmin.DeleteOp(znodes.PartitionStatePath("gone", p), zkadmin.AnyVersion),
			zkadmin.DeleteOp(znodes.PartitionPath("gone", p), zkadmin.AnyVersion))
	}
	ops = append(ops, zkadmin.DeleteOp(znodes.PartitionsPath("gone"), zkadmin.AnyVersion),
		zkadmin.DeleteOp(znodes.TopicPath("gone"), zkadmin.AnyVersion))
	if _, err := sc.obs.Multi(testCtx(t), ops...); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "gone leaves the snapshot", func() bool { return sc.ctl.c.Snapshot().Topics.Get("gone") == nil })
	if got := metricValue(t, sc.ctl, "kafka_controller_KafkaController_GlobalTopicCount"); got != 1 {
		t.Fatalf("GlobalTopicCount %v, want 1", got)
	}
	if got := metricValue(t, sc.ctl, "kafka_controller_KafkaController_GlobalPartitionCount"); got != 1 {
		t.Fatalf("GlobalPartitionCount %v, want 1", got)
	}
	if tv := sc.ctl.c.Snapshot().Topics.Get("keep"); tv == nil || len(tv.Partitions) != 1 || tv.Partitions[0].Leader != 1 {
		t.Fatalf("keep after the removal %+v", tv)
	}
	if st := readState(t, sc.obs, "keep", 0); !reflect.DeepEqual(st, keep) {
		t.Fatalf("keep-0 touched: %+v, was %+v", st, keep)
	}

	req := kmsg.NewPtrAlterPartitionRequest()
	req.Version, req.BrokerID, req.BrokerEpoch = 2, 1, sc.sim.Broker(1).Epoch()
	rp := kmsg.NewAlterPartitionRequestTopicPartition()
	rp.Partition, rp.NewISR = 0, []int32{1}
	req.Topics = []kmsg.AlterPartitionRequestTopic{{TopicID: oldID, Partitions: []kmsg.AlterPartitionRequestTopicPartition{rp}}}
	resp, err := sc.ctl.c.AlterPartition(testCtx(t), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.ErrorCode != 0 || len(resp.Topics) != 1 || resp.Topics[0].Partitions[0].ErrorCode != kerr.UnknownTopicID.Code {
		t.Fatalf("AlterPartition for the removed topic's id: %+v, want UNKNOWN_TOPIC_ID", resp)
	}

	createTopic(t, sc.obs, "gone", map[int32][]int32{0: {3, 1}})
	sc.waitLeader(t, "gone", 0, 3, 3, 1)
	tv := sc.ctl.c.Snapshot().Topics.Get("gone")
	if tv == nil || len(tv.Partitions) != 1 || tv.ID.IsZero() || tv.ID == oldID {
		t.Fatalf("re-created gone %+v, want one partition and a new id (old %v)", tv, oldID)
	}
	if st := readState(t, sc.obs, "gone", 0); st.LeaderEpoch != 0 || st.PartitionEpoch != 0 {
		t.Fatalf("re-created gone-0 %v, want a fresh state at epochs 0", st)
	}
}
