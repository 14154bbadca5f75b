package handler

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/znodes"
)

// hcfgZK is the handlers over the real zkadmin.Admin and a real ZooKeeper
// (newE2E's stack), called in process.
func hcfgZK(t *testing.T) (*fixture, *e2e) {
	t.Helper()
	e := newE2E(t)
	cfg := config.Default()
	cfg.NodeID = selfID
	h, err := New(Options{Cluster: e.views, Admin: &syncAdmin{Admin: e.admin, ctl: e.ctl}, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, views: e.views, h: h}, e
}

// hcfgCreate creates a topic of n partitions with one replica each and
// returns its result as "code:message".
func hcfgCreate(f *fixture, name string, n int32, configs map[string]*string) string {
	f.t.Helper()
	got := f.call(ctReq(4, 5000, false, ctTopic{name: name, parts: n, rf: 1, configs: configs})).(*kmsg.CreateTopicsResponse)
	r := got.Topics[0]
	return fmt.Sprintf("%d:%s", r.ErrorCode, ptr(r.ErrorMessage))
}

func hcfgAlterResults(r *kmsg.AlterConfigsResponse) []string {
	var out []string
	for _, res := range r.Resources {
		out = append(out, fmt.Sprintf("%d/%s:%d:%s", res.ResourceType, res.ResourceName, res.ErrorCode, ptr(res.ErrorMessage)))
	}
	return out
}

func hcfgIncrementalResults(r *kmsg.IncrementalAlterConfigsResponse) []string {
	var out []string
	for _, res := range r.Resources {
		out = append(out, fmt.Sprintf("%d/%s:%d:%s", res.ResourceType, res.ResourceName, res.ErrorCode, ptr(res.ErrorMessage)))
	}
	return out
}

// hcfgAcReqV sets an AlterConfigs request's version.
func hcfgAcReqV(version int16, validateOnly bool, res ...kmsg.AlterConfigsRequestResource) *kmsg.AlterConfigsRequest {
	r := acReq(validateOnly, res...)
	r.Version = version
	return r
}

// TestAlterConfigsZooKeeperReplacement drives the legacy AlterConfigs at
// v0-v2 against ZooKeeper: the given set replaces every override of the
// topic, validate_only writes nothing, an unknown config name or an
// inconsistent set is INVALID_CONFIG and writes nothing, an empty set
// clears the overrides, DescribeConfigs shows what ZooKeeper holds, and a
// topic queued for deletion, unknown or with an invalid name is
// UNKNOWN_TOPIC_OR_PARTITION "The topic 'T' does not exist." for both
// alter APIs (apis.md §9.2, §9.3).
func TestAlterConfigsZooKeeperReplacement(t *testing.T) {
	f, e := hcfgZK(t)
	if r := hcfgCreate(f, "t", 1, map[string]*string{"retention.ms": sp("1000")}); r != "0:<nil>" {
		t.Fatalf("create: %s", r)
	}
	zkTopic := func() map[string]string { return e.zkConfig(znodes.EntityTopics, "t") }
	steps := []struct {
		version      int16
		validateOnly bool
		kv           []*string
		want         string
		zk           map[string]string
	}{
		{0, false, []*string{sp("segment.ms"), sp("5000"), sp("cleanup.policy"), sp("compact")},
			"0:<nil>", map[string]string{"segment.ms": "5000", "cleanup.policy": "compact"}},
		{1, true, []*string{sp("retention.ms"), sp("1")},
			"0:<nil>", map[string]string{"segment.ms": "5000", "cleanup.policy": "compact"}},
		{2, false, []*string{sp("segment.ms"), sp("6000"), sp("nope"), sp("1")},
			"40:Unknown topic config name: nope", map[string]string{"segment.ms": "5000", "cleanup.policy": "compact"}},
		{2, true, []*string{sp("nope"), sp("1")},
			"40:Unknown topic config name: nope", map[string]string{"segment.ms": "5000", "cleanup.policy": "compact"}},
		{2, false, []*string{sp("retention.ms"), sp("7"), sp("segment.ms"), sp("5000")},
			"0:<nil>", map[string]string{"retention.ms": "7", "segment.ms": "5000"}},
	}
	for i, s := range steps {
		got := f.call(hcfgAcReqV(s.version, s.validateOnly, acRes(topicRes, "t", s.kv...))).(*kmsg.AlterConfigsResponse)
		if have := hcfgAlterResults(got); !reflect.DeepEqual(have, []string{"2/t:" + s.want}) {
			t.Errorf("step %d (v%d): %q, want %q", i, s.version, have, "2/t:"+s.want)
		}
		if zk := zkTopic(); !reflect.DeepEqual(zk, s.zk) {
			t.Errorf("step %d: ZooKeeper holds %v, want %v", i, zk, s.zk)
		}
	}
	// An inconsistent set is refused as a whole.
	got := f.call(acReq(false, acRes(topicRes, "t", sp("min.compaction.lag.ms"), sp("10"),
		sp("max.compaction.lag.ms"), sp("5")))).(*kmsg.AlterConfigsResponse)
	if got.Resources[0].ErrorCode != 40 {
		t.Errorf("min > max compaction lag: %q", hcfgAlterResults(got))
	}
	if zk := zkTopic(); !reflect.DeepEqual(zk, map[string]string{"retention.ms": "7", "segment.ms": "5000"}) {
		t.Errorf("after a refused set ZooKeeper holds %v", zk)
	}

	d := f.call(dcReq(4, false, dcRes(topicRes, "t", "retention.ms", "segment.ms", "cleanup.policy"))).(*kmsg.DescribeConfigsResponse)
	var described []string
	for _, c := range d.Resources[0].Configs {
		described = append(described, fmt.Sprintf("%s=%s@%d", c.Name, ptr(c.Value), c.Source))
	}
	if want := []string{"cleanup.policy=delete@5", "retention.ms=7@1", "segment.ms=5000@1"}; !reflect.DeepEqual(described, want) {
		t.Errorf("described %q, want %q", described, want)
	}

	// The empty set clears every override.
	got = f.call(acReq(false, acRes(topicRes, "t"))).(*kmsg.AlterConfigsResponse)
	if have := hcfgAlterResults(got); !reflect.DeepEqual(have, []string{"2/t:0:<nil>"}) || len(zkTopic()) != 0 {
		t.Errorf("empty set: %q, ZooKeeper %v", have, zkTopic())
	}

	// Queued for deletion, then unknown.
	if dr := f.call(dtReq(4, 5000, "t")).(*kmsg.DeleteTopicsResponse); dr.Topics[0].ErrorCode != 0 && dr.Topics[0].ErrorCode != 7 {
		t.Fatalf("delete: %+v", dr.Topics)
	}
	got = f.call(acReq(false, acRes(topicRes, "t", sp("retention.ms"), sp("1")), acRes(topicRes, "never"),
		acRes(topicRes, "bad/name"))).(*kmsg.AlterConfigsResponse)
	want := []string{"2/t:3:The topic 't' does not exist.", "2/never:3:The topic 'never' does not exist.",
		"2/bad/name:3:The topic 'bad/name' does not exist."}
	if have := hcfgAlterResults(got); !reflect.DeepEqual(have, want) {
		t.Errorf("deleted and unknown topics: %q, want %q", have, want)
	}
	ig := f.call(iacReq(iacRes(topicRes, "t", iop{"retention.ms", kmsg.IncrementalAlterConfigOpSet, sp("1")}),
		iacRes(topicRes, "bad/name", iop{"retention.ms", kmsg.IncrementalAlterConfigOpDelete, nil}))).(*kmsg.IncrementalAlterConfigsResponse)
	want = []string{"2/t:3:The topic 't' does not exist.", "2/bad/name:3:The topic 'bad/name' does not exist."}
	if have := hcfgIncrementalResults(ig); !reflect.DeepEqual(have, want) {
		t.Errorf("incremental, deleted and unknown topics: %q, want %q", have, want)
	}
	if zk := zkTopic(); len(zk) != 0 {
		t.Errorf("a topic queued for deletion was altered: %v", zk)
	}
}

// TestIncrementalAlterConfigsZooKeeperOperations drives SET, DELETE,
// APPEND and SUBTRACT against ZooKeeper (apis.md §9.3): APPEND starts from
// the default of an unset list config, SUBTRACT removes items and can
// empty a list, DELETE of an unset key is a no-op, several
// operations on different keys apply together, validate_only writes
// nothing, an unknown topic config is INVALID_CONFIG, and a broker
// default list config (log.cleanup.policy) is appended to the same way.
func TestIncrementalAlterConfigsZooKeeperOperations(t *testing.T) {
	const (
		set = kmsg.IncrementalAlterConfigOpSet
		del = kmsg.IncrementalAlterConfigOpDelete
		app = kmsg.IncrementalAlterConfigOpAppend
		sub = kmsg.IncrementalAlterConfigOpSubtract
	)
	f, e := hcfgZK(t)
	if r := hcfgCreate(f, "i", 2, nil); r != "0:<nil>" {
		t.Fatalf("create: %s", r)
	}
	steps := []struct {
		version      int16
		validateOnly bool
		res          kmsg.IncrementalAlterConfigsRequestResource
		want         string
		zk           map[string]string
	}{
		{0, false, iacRes(topicRes, "i", iop{"cleanup.policy", app, sp("compact")}),
			"2/i:0:<nil>", map[string]string{"cleanup.policy": "delete,compact"}},
		{1, false, iacRes(topicRes, "i", iop{"cleanup.policy", sub, sp("delete")},
			iop{"leader.replication.throttled.replicas", set, sp("0:1,1:2")}),
			"2/i:0:<nil>", map[string]string{"cleanup.policy": "compact", "leader.replication.throttled.replicas": "0:1,1:2"}},
		{0, false, iacRes(topicRes, "i", iop{"cleanup.policy", sub, sp("compact")},
			iop{"leader.replication.throttled.replicas", sub, sp("0:1")}),
			"2/i:0:<nil>", map[string]string{"cleanup.policy": "", "leader.replication.throttled.replicas": "1:2"}},
		{1, false, iacRes(topicRes, "i", iop{"retention.ms", set, sp("10")}, iop{"cleanup.policy", del, nil},
			iop{"segment.ms", del, nil}, iop{"leader.replication.throttled.replicas", del, sp("ignored")}),
			"2/i:0:<nil>", map[string]string{"retention.ms": "10"}},
		{1, true, iacRes(topicRes, "i", iop{"retention.ms", set, sp("20")}, iop{"segment.ms", set, sp("30")}),
			"2/i:0:<nil>", map[string]string{"retention.ms": "10"}},
		{1, false, iacRes(topicRes, "i", iop{"retention.ms", set, sp("20")}, iop{"nope", set, sp("1")}),
			"2/i:40:Unknown topic config name: nope", map[string]string{"retention.ms": "10"}},
		{0, true, iacRes(topicRes, "i", iop{"nope", set, sp("1")}),
			"2/i:40:Unknown topic config name: nope", map[string]string{"retention.ms": "10"}},
		{1, false, iacRes(topicRes, "i", iop{"retention.ms", del, nil}),
			"2/i:0:<nil>", map[string]string{}},
	}
	for i, s := range steps {
		r := iacReq(s.res)
		r.Version, r.ValidateOnly = s.version, s.validateOnly
		got := f.call(r).(*kmsg.IncrementalAlterConfigsResponse)
		if have := hcfgIncrementalResults(got); !reflect.DeepEqual(have, []string{s.want}) {
			t.Errorf("step %d (v%d): %q, want %q", i, s.version, have, s.want)
		}
		zk := e.zkConfig(znodes.EntityTopics, "i")
		if zk == nil {
			zk = map[string]string{}
		}
		if !reflect.DeepEqual(zk, s.zk) {
			t.Errorf("step %d: ZooKeeper holds %v, want %v", i, zk, s.zk)
		}
	}

	// The broker default: a list config appended from its default, next
	// to a SET, alongside a topic in the same request.
	got := f.call(iacReq(
		iacRes(brokerRes, "", iop{"log.cleanup.policy", app, sp("compact")}, iop{"log.retention.ms", set, sp("100")}),
		iacRes(topicRes, "i", iop{"retention.ms", set, sp("5")}),
	)).(*kmsg.IncrementalAlterConfigsResponse)
	if have := hcfgIncrementalResults(got); !reflect.DeepEqual(have, []string{"4/:0:<nil>", "2/i:0:<nil>"}) {
		t.Errorf("broker default and topic: %q", have)
	}
	if zk := e.zkConfig(znodes.EntityBrokers, znodes.DefaultEntityName); !reflect.DeepEqual(zk,
		map[string]string{"log.cleanup.policy": "delete,compact", "log.retention.ms": "100"}) {
		t.Errorf("broker default in ZooKeeper: %v", zk)
	}
	d := f.call(dcReq(4, false, dcRes(topicRes, "i", "cleanup.policy", "retention.ms"))).(*kmsg.DescribeConfigsResponse)
	var described []string
	for _, c := range d.Resources[0].Configs {
		described = append(described, fmt.Sprintf("%s=%s@%d", c.Name, ptr(c.Value), c.Source))
	}
	if want := []string{"cleanup.policy=delete,compact@3", "retention.ms=5@1"}; !reflect.DeepEqual(described, want) {
		t.Errorf("described %q, want %q", described, want)
	}
}

// TestAlterConfigsBrokerDefaultPartitionLimits sets the cluster-wide
// partition limits through AlterConfigs and IncrementalAlterConfigs on
// the broker default resource ("") and checks that they take effect at
// once on CreateTopics and CreatePartitions (design brief §4), that
// validate_only sets nothing, that the legacy full replacement removes a
// limit it leaves out, and that DELETE lifts one.
func TestAlterConfigsBrokerDefaultPartitionLimits(t *testing.T) {
	const (
		set = kmsg.IncrementalAlterConfigOpSet
		del = kmsg.IncrementalAlterConfigOpDelete
	)
	f, e := hcfgZK(t)
	defaults := func() map[string]string { return e.zkConfig(znodes.EntityBrokers, znodes.DefaultEntityName) }
	overLimit := func(r string) bool { return strings.HasPrefix(r, "44:WILL_EXCEED_PARTITION_LIMITS:") }

	// validate_only: nothing written, no limit.
	got := f.call(acReq(true, acRes(brokerRes, "", sp("max.partitions"), sp("1")))).(*kmsg.AlterConfigsResponse)
	if have := hcfgAlterResults(got); !reflect.DeepEqual(have, []string{"4/:0:<nil>"}) || len(defaults()) != 0 {
		t.Fatalf("validate only: %q, ZooKeeper %v", have, defaults())
	}
	if r := hcfgCreate(f, "a", 2, nil); r != "0:<nil>" {
		t.Fatalf("create a: %s", r)
	}

	// max.partitions=3 with 2 partitions in the cluster: 2 more is over.
	got = f.call(acReq(false, acRes(brokerRes, "", sp("max.partitions"), sp("3"), sp("log.retention.ms"), sp("100")))).(*kmsg.AlterConfigsResponse)
	if have := hcfgAlterResults(got); !reflect.DeepEqual(have, []string{"4/:0:<nil>"}) {
		t.Fatalf("set max.partitions: %q", have)
	}
	if r := hcfgCreate(f, "b", 2, nil); !overLimit(r) || e.zkTopic("b") != nil {
		t.Errorf("create b over max.partitions: %s (written: %v)", r, e.zkTopic("b") != nil)
	}
	// The legacy call replaces the whole set: leaving max.partitions out
	// removes the limit.
	got = f.call(acReq(false, acRes(brokerRes, "", sp("log.retention.ms"), sp("100")))).(*kmsg.AlterConfigsResponse)
	if have := hcfgAlterResults(got); !reflect.DeepEqual(have, []string{"4/:0:<nil>"}) ||
		!reflect.DeepEqual(defaults(), map[string]string{"log.retention.ms": "100"}) {
		t.Fatalf("replace: %q, ZooKeeper %v", have, defaults())
	}
	if r := hcfgCreate(f, "b", 2, nil); r != "0:<nil>" {
		t.Fatalf("create b without the limit: %s", r)
	}

	// max.broker.partitions=2: 4 replicas on 3 brokers leave room for 2.
	ig := f.call(iacReq(iacRes(brokerRes, "", iop{"max.broker.partitions", set, sp("2")}))).(*kmsg.IncrementalAlterConfigsResponse)
	if have := hcfgIncrementalResults(ig); !reflect.DeepEqual(have, []string{"4/:0:<nil>"}) {
		t.Fatalf("set max.broker.partitions: %q", have)
	}
	if r := hcfgCreate(f, "c", 3, nil); !overLimit(r) || e.zkTopic("c") != nil {
		t.Errorf("create c over max.broker.partitions: %s", r)
	}
	ig = f.call(iacReq(iacRes(brokerRes, "", iop{"max.broker.partitions", del, nil}))).(*kmsg.IncrementalAlterConfigsResponse)
	if have := hcfgIncrementalResults(ig); !reflect.DeepEqual(have, []string{"4/:0:<nil>"}) {
		t.Fatalf("delete max.broker.partitions: %q", have)
	}
	if r := hcfgCreate(f, "c", 3, nil); r != "0:<nil>" {
		t.Fatalf("create c without the limit: %s", r)
	}

	// max.partitions at the current count (7) stops CreatePartitions.
	ig = f.call(iacReq(iacRes(brokerRes, "", iop{"max.partitions", set, sp("7")}))).(*kmsg.IncrementalAlterConfigsResponse)
	if have := hcfgIncrementalResults(ig); !reflect.DeepEqual(have, []string{"4/:0:<nil>"}) {
		t.Fatalf("set max.partitions=7: %q", have)
	}
	cp := f.call(cpReq(1, 5000, false, cpTopic{name: "a", count: 3})).(*kmsg.CreatePartitionsResponse)
	if r := cp.Topics[0]; !overLimit(fmt.Sprintf("%d:%s", r.ErrorCode, ptr(r.ErrorMessage))) {
		t.Errorf("CreatePartitions over max.partitions: %d %s", r.ErrorCode, ptr(r.ErrorMessage))
	}
	if zt := e.zkTopic("a"); zt == nil || len(zt.Partitions) != 2 {
		t.Errorf("a in ZooKeeper after the refusal: %+v", zt)
	}

	// DescribeConfigs of the broker default shows what was set.
	d := f.call(dcReq(4, false, dcRes(brokerRes, ""))).(*kmsg.DescribeConfigsResponse)
	var described []string
	for _, c := range d.Resources[0].Configs {
		described = append(described, fmt.Sprintf("%s=%s@%d", c.Name, ptr(c.Value), c.Source))
	}
	if want := []string{"log.retention.ms=100@3", "max.partitions=7@3"}; !reflect.DeepEqual(described, want) {
		t.Errorf("described %q, want %q", described, want)
	}
}
