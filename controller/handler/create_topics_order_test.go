package handler

import (
	"errors"
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// hcrtCTCase is one CreateTopics entry and the result Kafka gives it.
type hcrtCTCase struct {
	topic ctTopic
	code  int16
	msg   *string
}

// TestCreateTopicsProcessingOrderRealAdmin sends entries that fail
// several of Kafka's checks at once (reference apis.md §4.1) through the
// real Admin, and checks that the first failing check in Kafka's order
// decides each one, with Kafka's messages, the v7 failure shape (-1/-1,
// no configs, no id) and no wait for a request where nothing was created.
func TestCreateTopicsProcessingOrderRealAdmin(t *testing.T) {
	env := hcrtNewEnv(t)
	env.create(ctTopic{name: "a.b", parts: 1, rf: 1}, ctTopic{name: "taken", parts: 1, rf: 1},
		ctTopic{name: "doomed", parts: 1, rf: 1}, ctTopic{name: "c.d", parts: 1, rf: 1}, ctTopic{name: "doomed2", parts: 1, rf: 1})
	env.markForDeletion("doomed")
	env.markForDeletion("doomed2")
	env.watched.waits.Store(0) // the setup waited for its topics
	null := map[string]*string{"retention.ms": nil}
	cases := []hcrtCTCase{
		// Step 10 (counts) comes before step 11 (the name).
		{ctTopic{name: "bad name", parts: -2, rf: 1}, 37, sp("Number of partitions must be larger than 0.")},
		{ctTopic{name: "bad!name", parts: 1, rf: 0}, 38, sp("Replication factor must be larger than 0.")},
		{ctTopic{name: "parts0", parts: 0, rf: -2}, 37, sp("Number of partitions must be larger than 0.")},
		{ctTopic{name: "rfneg", parts: 2, rf: -2}, 38, sp("Replication factor must be larger than 0.")},
		// Step 6 (the topic exists) comes before step 7 (null values).
		{ctTopic{name: "taken", parts: 1, rf: 1, configs: null}, 36, sp("Topic 'taken' already exists.")},
		{ctTopic{name: "taken", parts: -2, rf: 9}, 36, sp("Topic 'taken' already exists.")},
		// Step 7 (null values) comes before step 10 (counts).
		{ctTopic{name: "nullcfg", parts: -2, rf: 1, configs: null}, 40,
			sp("Null value not supported for topic configs: retention.ms")},
		{ctTopic{name: "doomed", parts: 1, rf: 1}, 36, sp("Topic 'doomed' is marked for deletion.")},
		{ctTopic{name: "a_b", parts: 1, rf: 1}, 17, sp("Topic 'a_b' collides with existing topics: a.b")},
		{ctTopic{name: "toomany", parts: 1, rf: 4}, 38, sp("Replication factor: 4 larger than available brokers: 3.")},
		{ctTopic{name: "unequal", parts: -1, rf: -1, asg: map[int32][]int32{0: {1, 2}, 1: {1}}}, 39,
			sp("All partitions should have the same number of replicas")},
		{ctTopic{name: "gap", parts: -1, rf: -1, asg: map[int32][]int32{0: {1}, 2: {2}}}, 39,
			sp("partitions should be a consecutive 0-based integer sequence")},
		{ctTopic{name: "unknowncfg", parts: 1, rf: 1, configs: map[string]*string{"no.such.config": sp("1")}}, 40,
			sp("Unknown topic config name: no.such.config")},
		{ctTopic{name: "badvalue", parts: 1, rf: 1, configs: map[string]*string{"retention.ms": sp("abc")}}, 40,
			sp("Invalid value abc for configuration retention.ms: Not a number of type LONG")},
		// kzadmin refuses unknown brokers as KRaft does (design brief §3).
		{ctTopic{name: "ghost", parts: -1, rf: -1, asg: map[int32][]int32{0: {9}}}, 39,
			sp("The manual partition assignment includes broker 9, but no such broker is registered.")},
		// Step 11 (the name) comes before the partition ids and after the
		// placement of the counts.
		{ctTopic{name: "bad/gap", parts: -1, rf: -1, asg: map[int32][]int32{0: {1}, 2: {2}}}, 17, sp(nameErr("bad/gap"))},
		{ctTopic{name: "bad/toomany", parts: 1, rf: 4}, 38, sp("Replication factor: 4 larger than available brokers: 3.")},
		// The partition ids come after the topic's state in the cluster
		// and after the replica lists themselves, as in Kafka's
		// validateTopicCreate.
		{ctTopic{name: "doomed2", parts: -1, rf: -1, asg: map[int32][]int32{0: {1}, 2: {2}}}, 36,
			sp("Topic 'doomed2' is marked for deletion.")},
		{ctTopic{name: "c_d", parts: -1, rf: -1, asg: map[int32][]int32{1: {1}}}, 17,
			sp("Topic 'c_d' collides with existing topics: c.d")},
		{ctTopic{name: "gapunequal", parts: -1, rf: -1, asg: map[int32][]int32{0: {1, 2}, 2: {1}}}, 39,
			sp("All partitions should have the same number of replicas")},
		{ctTopic{name: "gapdup", parts: -1, rf: -1, asg: map[int32][]int32{0: {1, 2}, 3: {2, 2}}}, 39,
			sp("Duplicate replica assignment found for partition 3 of topic 'gapdup': broker 2 appears twice in [2,2].")},
		{ctTopic{name: "gapghost", parts: -1, rf: -1, asg: map[int32][]int32{1: {9}}}, 39,
			sp("The manual partition assignment includes broker 9, but no such broker is registered.")},
		{ctTopic{name: "negative", parts: -1, rf: -1, asg: map[int32][]int32{-1: {1}, 0: {2}}}, 39,
			sp("partitions should be a consecutive 0-based integer sequence")},
	}
	var topics []ctTopic
	want := ctResp()
	for _, c := range cases {
		topics = append(topics, c.topic)
		want.Topics = append(want.Topics, ctResult(c.topic.name, c.code, c.msg))
	}
	// "taken" appears twice: v1+ answers both "Found multiple entries", so
	// each entry goes in a request of its own.
	for i, c := range cases {
		for _, version := range []int16{1, 4, 7} {
			got := env.fx.call(ctReq(version, 60000, false, c.topic))
			sameWire(t, got, ctResp(want.Topics[i]))
		}
	}
	if n := env.watched.waits.Load(); n != 0 {
		t.Errorf("the handler waited %d times for requests that created nothing", n)
	}
	for _, name := range []string{"bad name", "nullcfg", "toomany", "unequal", "gap", "unknowncfg", "ghost", "a_b",
		"gapunequal", "gapdup", "gapghost", "negative", "c_d"} {
		if got := env.partitions(name); got != "<missing>" {
			t.Errorf("%s was written: %s", name, got)
		}
	}
	// The same entries in one request (without the second "taken") get
	// the same answers, in request order.
	batch := append(append([]ctTopic{}, topics[:5]...), topics[6:]...)
	wantBatch := ctResp(append(append([]kmsg.CreateTopicsResponseTopic{}, want.Topics[:5]...), want.Topics[6:]...)...)
	sameWire(t, env.fx.call(ctReq(7, 0, false, batch...)), wantBatch)
}

// TestCreateTopicsDefaultCountsAtEveryVersion checks that -1/-1 takes
// num.partitions and default.replication.factor at every version, v0-3
// included (reference apis.md §4 and §13.1: KafkaJS sends -1 at v0-3).
func TestCreateTopicsDefaultCountsAtEveryVersion(t *testing.T) {
	env := hcrtNewEnv(t, func(c *config.Config) { c.NumPartitions, c.DefaultReplicationFactor = 3, 2 })
	for version := int16(0); version <= 7; version++ {
		name := fmt.Sprintf("defaults-v%d", version)
		got := env.fx.call(ctReq(version, 10000, false, ctTopic{name: name, parts: -1, rf: -1})).(*kmsg.CreateTopicsResponse)
		rt := got.Topics[0]
		if rt.ErrorCode != 0 || rt.ErrorMessage != nil {
			t.Fatalf("v%d: %+v", version, rt)
		}
		wantParts, wantRF := int32(-1), int16(-1)
		if version >= 5 {
			wantParts, wantRF = 3, 2
		}
		if rt.NumPartitions != wantParts || rt.ReplicationFactor != wantRF {
			t.Errorf("v%d: partitions %d rf %d, want %d %d", version, rt.NumPartitions, rt.ReplicationFactor, wantParts, wantRF)
		}
		env.checkTopic(name, 3, 2)
	}
}

// TestCreateTopicsRepeatedPartitionIndexOverwrites: a partition index
// given twice in an assignment keeps its last list (reference apis.md
// §4.1 step 10).
func TestCreateTopicsRepeatedPartitionIndexOverwrites(t *testing.T) {
	env := hcrtNewEnv(t)
	req := ctReq(3, 10000, false, ctTopic{name: "twice", parts: -1, rf: -1})
	for _, a := range []struct {
		p        int32
		replicas []int32
	}{{0, []int32{1, 2}}, {1, []int32{2, 3}}, {0, []int32{3, 1}}} {
		ra := kmsg.NewCreateTopicsRequestTopicReplicaAssignment()
		ra.Partition, ra.Replicas = a.p, a.replicas
		req.Topics[0].ReplicaAssignment = append(req.Topics[0].ReplicaAssignment, ra)
	}
	sameWire(t, env.fx.call(req), ctResp(ctResult("twice", 0, nil)))
	if got := env.partitions("twice"); got != "[[3 1] [2 3]]" {
		t.Errorf("ZooKeeper holds %s, want [[3 1] [2 3]]", got)
	}
}

// TestCreateTopicsLaterEntryCollidesWithEarlierOne: the entries are
// created in request order, so a later entry collides with one created
// earlier in the same request, as in Kafka's sequential loop.
func TestCreateTopicsLaterEntryCollidesWithEarlierOne(t *testing.T) {
	env := hcrtNewEnv(t)
	got := env.fx.call(ctReq(1, 10000, false, ctTopic{name: "p.q", parts: 1, rf: 1}, ctTopic{name: "p_q", parts: 1, rf: 1}))
	sameWire(t, got, ctResp(ctResult("p.q", 0, nil), ctResult("p_q", 17, sp("Topic 'p_q' collides with existing topics: p.q"))))
	if env.zkTopic("p.q") == nil || env.zkTopic("p_q") != nil {
		t.Errorf("ZooKeeper: p.q %s, p_q %s", env.partitions("p.q"), env.partitions("p_q"))
	}
}

// TestCreateTopicsWhileDeletionPending: DeleteTopics queues the topic,
// and creating it again is refused until the deletion completes
// (reference apis.md §4.1 step 12, §5 timeout notes; README "Topic
// deletion").
func TestCreateTopicsWhileDeletionPending(t *testing.T) {
	env := hcrtNewEnv(t)
	env.create(ctTopic{name: "again", parts: 2, rf: 1})
	before := env.partitions("again")
	sameWire(t, env.fx.call(dtReq(4, 10000, "again")), dtResp(dtResult(sp("again"), 0, 0)))
	for _, version := range []int16{1, 7} {
		got := env.fx.call(ctReq(version, 10000, false, ctTopic{name: "again", parts: 1, rf: 1}))
		sameWire(t, got, ctResp(ctResult("again", 36, sp("Topic 'again' is marked for deletion."))))
		// validateOnly says the same.
		got = env.fx.call(ctReq(version, 10000, true, ctTopic{name: "again", parts: 1, rf: 1}))
		sameWire(t, got, ctResp(ctResult("again", 36, sp("Topic 'again' is marked for deletion."))))
	}
	if got := env.partitions("again"); got != before || !env.zkExists(znodes.DeleteTopicPath("again")) {
		t.Errorf("the topic znode changed from %s to %s, or its marker is gone", before, got)
	}
}

// TestCreateTopicsErrorMessagesByVersion checks the message rules of
// reference apis.md §1.3 at each version: no message field in v0, a
// message in v1+ except when it is the code's default text, and never one
// for UNKNOWN_SERVER_ERROR or REQUEST_TIMED_OUT.
func TestCreateTopicsErrorMessagesByVersion(t *testing.T) {
	f := newFixture(t, withTopics(baseView(), onlineTopic("exists", 1, []int32{1})))
	f.admin.errs["boom"] = errors.New("zookeeper said something internal")
	f.admin.errs["dflt"] = adminError(zkadmin.KindInvalidConfig, 40, "Configuration is invalid.")
	f.admin.errs["lost"] = fmt.Errorf("create topic lost: %w", zkadmin.ErrConnectionLoss)
	f.admin.errs["named"] = adminError(zkadmin.KindInvalidConfig, 40, "Unknown topic config name: x")
	topics := []ctTopic{{name: "exists", parts: 1, rf: 1}, {name: "boom", parts: 1, rf: 1}, {name: "dflt", parts: 1, rf: 1},
		{name: "lost", parts: 1, rf: 1}, {name: "named", parts: 1, rf: 1}}
	for _, version := range []int16{0, 1, 4, 5, 7} {
		got := f.call(ctReq(version, 0, false, topics...))
		msg := func(s string) *string {
			if version == 0 {
				return nil
			}
			return sp(s)
		}
		sameWire(t, got, ctResp(
			ctResult("exists", 36, msg("Topic 'exists' already exists.")),
			ctResult("boom", -1, nil),
			ctResult("dflt", 40, nil),
			ctResult("lost", 7, nil),
			ctResult("named", 40, msg("Unknown topic config name: x")),
		))
	}
}

// TestCreateTopicsAnswersAtOnceWithoutCreation: validateOnly never waits
// and never times out, and neither does a request whose topics all failed
// (reference apis.md §4.3), whatever the timeout.
func TestCreateTopicsAnswersAtOnceWithoutCreation(t *testing.T) {
	var watched *hcrtWatchedViews
	f := newFixture(t, withTopics(baseView(), onlineTopic("exists", 1, []int32{1})), func(o *Options) {
		watched = &hcrtWatchedViews{Views: o.Cluster.(*Views)}
		o.Cluster = watched
	})
	for _, timeout := range []int32{-1, 0, 60000} {
		got := f.call(ctReq(1, timeout, true, ctTopic{name: "dry", parts: 2, rf: 2})).(*kmsg.CreateTopicsResponse)
		if rt := got.Topics[0]; rt.ErrorCode != 0 || rt.ErrorMessage != nil {
			t.Errorf("validateOnly with timeout %d: %+v", timeout, rt)
		}
		got = f.call(ctReq(7, timeout, false, ctTopic{name: "exists", parts: 1, rf: 1},
			ctTopic{name: "zero", parts: 0, rf: 1})).(*kmsg.CreateTopicsResponse)
		if got.Topics[0].ErrorCode != 36 || got.Topics[1].ErrorCode != 37 {
			t.Errorf("failures with timeout %d: %+v", timeout, got.Topics)
		}
	}
	if n := watched.waits.Load(); n != 0 {
		t.Errorf("waited %d times", n)
	}
	if len(f.admin.creates) != 3 || !f.admin.creates[0].DryRun {
		t.Errorf("Admin saw %+v, want three dry runs", f.admin.creates)
	}
	if f.views.View().Topic("dry") != nil {
		t.Error("validateOnly created the topic")
	}
}

// TestCreateTopicsValidateOnlyV5Configs: validateOnly at v5+ carries the
// topic's metadata and every config with its source, ReadOnly false and
// IsSensitive false (no topic config is sensitive), and no topic id
// (reference apis.md §4.1 step 20, §4.2).
func TestCreateTopicsValidateOnlyV5Configs(t *testing.T) {
	f := newFixture(t, baseView())
	f.admin.configs["brokers/<default>"] = map[string]string{"log.cleanup.policy": "compact"}
	for _, version := range []int16{5, 6, 7} {
		got := f.call(ctReq(version, 0, true, ctTopic{name: "v", parts: 4, rf: 3,
			configs: map[string]*string{"retention.ms": sp("1234")}})).(*kmsg.CreateTopicsResponse)
		rt := got.Topics[0]
		if rt.ErrorCode != 0 || rt.NumPartitions != 4 || rt.ReplicationFactor != 3 || rt.TopicID != [16]byte{} ||
			rt.ConfigErrorCode != 0 {
			t.Fatalf("v%d: %+v", version, rt)
		}
		if len(rt.Configs) != len(zkadmin.TopicConfigDefs()) {
			t.Errorf("v%d: %d configs, want %d", version, len(rt.Configs), len(zkadmin.TopicConfigDefs()))
		}
		for _, c := range rt.Configs {
			if c.ReadOnly || c.IsSensitive || c.Value == nil {
				t.Errorf("v%d: %+v", version, c)
			}
			switch c.Name {
			case "retention.ms":
				if *c.Value != "1234" || c.Source != 1 {
					t.Errorf("v%d: %s=%s source %d", version, c.Name, *c.Value, c.Source)
				}
			case "cleanup.policy":
				if *c.Value != "compact" || c.Source != 3 {
					t.Errorf("v%d: %s=%s source %d", version, c.Name, *c.Value, c.Source)
				}
			}
		}
	}
	if f.views.View().Topic("v") != nil {
		t.Error("validateOnly created the topic")
	}
}

// nameErr is the message of an illegal topic name.
func nameErr(name string) string { return znodes.ValidateTopicName(name).Error() }
