package handler

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// The tests in this file pin four answers an audit against Kafka 3.9's
// ZooKeeper mode (ConfigHelper, KafkaApis.handleDeleteTopicsRequest,
// ConfigAdminManager.preprocess, ZkAdminManager) found we gave
// differently.

// p4ZK is the handlers over the real Admin and ZooKeeper (as hcfgZK),
// with an authorizer when authz is not nil.
func p4ZK(t *testing.T, authz Authorizer) (*fixture, *e2e) {
	t.Helper()
	e := newE2E(t)
	cfg := config.Default()
	cfg.NodeID = selfID
	h, err := New(Options{Cluster: e.views, Admin: &syncAdmin{Admin: e.admin, ctl: e.ctl}, Config: cfg, Authorizer: authz})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, views: e.views, h: h}, e
}

// p4Synonyms describes a topic's named configs with synonyms and renders
// each as "value@source [name=value@SOURCE ...] ro=false".
func p4Synonyms(f *fixture, topic string, names ...string) map[string]string {
	f.t.Helper()
	got := f.call(dcReq(4, true, dcRes(topicRes, topic, names...))).(*kmsg.DescribeConfigsResponse)
	if len(got.Resources) != 1 || got.Resources[0].ErrorCode != 0 {
		f.t.Fatalf("describe %s: %+v", topic, got.Resources)
	}
	out := map[string]string{}
	for _, c := range got.Resources[0].Configs {
		var syn []string
		for _, s := range c.ConfigSynonyms {
			syn = append(syn, s.Name+"="+ptr(s.Value)+"@"+s.Source.String())
		}
		out[c.Name] = fmt.Sprintf("%s@%d [%s] ro=%v", ptr(c.Value), c.Source, strings.Join(syn, " "), c.ReadOnly)
	}
	return out
}

// TestParity4DescribeNullDefaultSynonyms: the broker synonyms of
// retention.ms, segment.ms, segment.jitter.ms and flush.ms
// (log.retention.ms, log.roll.ms, log.roll.jitter.ms,
// log.flush.interval.ms) have no default in Kafka. ConfigHelper lists a
// DEFAULT_CONFIG synonym only for the config the broker falls back on
// (log.retention.hours, ...), and drops every synonym before the broker
// synonym's own name: with nothing set dynamically the topic config has
// no synonym at all (value the default, source DEFAULT_CONFIG, not read
// only); with a dynamic default, the fallback's default follows it; a
// fallback written to the default znode (Kafka's brokers ignore it, it is
// read-only) changes nothing. Against ZooKeeper.
func TestParity4DescribeNullDefaultSynonyms(t *testing.T) {
	f, e := p4ZK(t, nil)
	if r := hcfgCreate(f, "plain", 1, nil); r != "0:<nil>" {
		t.Fatalf("create plain: %s", r)
	}
	if r := hcfgCreate(f, "own", 1, map[string]*string{"retention.ms": sp("5"), "flush.ms": sp("6")}); r != "0:<nil>" {
		t.Fatalf("create own: %s", r)
	}
	names := []string{"retention.ms", "segment.ms", "segment.jitter.ms", "flush.ms", "segment.bytes"}
	want := map[string]string{
		"retention.ms":      "604800000@5 [] ro=false",
		"segment.ms":        "604800000@5 [] ro=false",
		"segment.jitter.ms": "0@5 [] ro=false",
		"flush.ms":          "9223372036854775807@5 [] ro=false",
		"segment.bytes":     "1073741824@5 [log.segment.bytes=1073741824@DEFAULT_CONFIG] ro=false",
	}
	if got := p4Synonyms(f, "plain", names...); !reflect.DeepEqual(got, want) {
		t.Errorf("nothing set:\n got %v\nwant %v", got, want)
	}
	want["retention.ms"] = "5@1 [retention.ms=5@DYNAMIC_TOPIC_CONFIG] ro=false"
	want["flush.ms"] = "6@1 [flush.ms=6@DYNAMIC_TOPIC_CONFIG] ro=false"
	if got := p4Synonyms(f, "own", names...); !reflect.DeepEqual(got, want) {
		t.Errorf("topic overrides:\n got %v\nwant %v", got, want)
	}

	const set = kmsg.IncrementalAlterConfigOpSet
	got := f.call(iacReq(iacRes(brokerRes, "", iop{"log.retention.ms", set, sp("100")}, iop{"log.roll.ms", set, sp("200")},
		iop{"log.roll.jitter.ms", set, sp("3")}, iop{"log.flush.interval.ms", set, sp("7")}))).(*kmsg.IncrementalAlterConfigsResponse)
	if have := hcfgIncrementalResults(got); !reflect.DeepEqual(have, []string{"4/:0:<nil>"}) {
		t.Fatalf("broker defaults: %q", have)
	}
	dynamic := map[string]string{
		"retention.ms": "100@3 [log.retention.ms=100@DYNAMIC_DEFAULT_BROKER_CONFIG " +
			"log.retention.hours=168@DEFAULT_CONFIG] ro=false",
		"segment.ms": "200@3 [log.roll.ms=200@DYNAMIC_DEFAULT_BROKER_CONFIG log.roll.hours=168@DEFAULT_CONFIG] ro=false",
		"segment.jitter.ms": "3@3 [log.roll.jitter.ms=3@DYNAMIC_DEFAULT_BROKER_CONFIG " +
			"log.roll.jitter.hours=0@DEFAULT_CONFIG] ro=false",
		"flush.ms": "7@3 [log.flush.interval.ms=7@DYNAMIC_DEFAULT_BROKER_CONFIG " +
			"log.flush.scheduler.interval.ms=9223372036854775807@DEFAULT_CONFIG] ro=false",
		"segment.bytes": want["segment.bytes"],
	}
	if got := p4Synonyms(f, "plain", names...); !reflect.DeepEqual(got, dynamic) {
		t.Errorf("dynamic defaults:\n got %v\nwant %v", got, dynamic)
	}
	dynamic["retention.ms"] = "5@1 [retention.ms=5@DYNAMIC_TOPIC_CONFIG log.retention.ms=100@DYNAMIC_DEFAULT_BROKER_CONFIG " +
		"log.retention.hours=168@DEFAULT_CONFIG] ro=false"
	dynamic["flush.ms"] = "6@1 [flush.ms=6@DYNAMIC_TOPIC_CONFIG log.flush.interval.ms=7@DYNAMIC_DEFAULT_BROKER_CONFIG " +
		"log.flush.scheduler.interval.ms=9223372036854775807@DEFAULT_CONFIG] ro=false"
	if got := p4Synonyms(f, "own", names...); !reflect.DeepEqual(got, dynamic) {
		t.Errorf("topic overrides over dynamic defaults:\n got %v\nwant %v", got, dynamic)
	}

	// Only the fallback in the default znode, as another tool could
	// write it (kzadmin and Kafka refuse to): Kafka's brokers drop it,
	// the topic config is untouched.
	dbWriteRaw(e, znodes.DefaultEntityName, map[string]string{"log.retention.hours": "1"})
	if got := p4Synonyms(f, "plain", "retention.ms"); got["retention.ms"] != "604800000@5 [] ro=false" {
		t.Errorf("log.retention.hours alone in the default znode: %v", got)
	}
}

// TestParity4DeleteTopicsDuplicates: Kafka 3.9 keeps DeleteTopics results
// in a collection keyed by name, deletes each topic once and writes the
// outcome of that deletion into the first entry naming the topic; a later
// entry for the same topic (by name, or by id in v6, in any mix) that
// passes the checks keeps code 0, while the checks themselves answer
// every entry. An id-based entry whose name is withheld (no DESCRIBE)
// names no topic, so the next entry naming it gets the outcome.
func TestParity4DeleteTopicsDuplicates(t *testing.T) {
	codes := func(r kmsg.Response) []int16 {
		var out []int16
		for _, tp := range r.(*kmsg.DeleteTopicsResponse).Topics {
			out = append(out, tp.ErrorCode)
		}
		return out
	}
	for version := int16(0); version <= 6; version++ {
		f := newFixture(t, deleteView())
		got := f.call(dtReq(version, 0, "foo", "foo", "missing", "foo"))
		if c := codes(got); !reflect.DeepEqual(c, []int16{7, 0, 3, 0}) || len(f.admin.deletes) != 1 {
			t.Errorf("v%d timeout 0: codes %v, deletions %v; want [7 0 3 0] and foo once", version, c, f.admin.deletes)
		}
	}
	// Deleted within the timeout: every entry 0. Expired: the first 7.
	f := newFixture(t, deleteView())
	f.admin.publish = true
	if c := codes(f.call(dtReq(5, 10000, "foo", "foo"))); !reflect.DeepEqual(c, []int16{0, 0}) {
		t.Errorf("deleted in time: %v", c)
	}
	f = newFixture(t, deleteView())
	if c := codes(f.call(dtReq(5, 50, "foo", "foo"))); !reflect.DeepEqual(c, []int16{7, 0}) {
		t.Errorf("expired: %v", c)
	}
	// v6: ids, and names and ids mixed, in either order.
	for _, tc := range []struct {
		name string
		req  *kmsg.DeleteTopicsRequest
		want *kmsg.DeleteTopicsResponse
	}{
		{"id twice", dtByID(dtByID(dtReq(6, 0), nil, 1), nil, 1),
			dtResp(dtResult(sp("foo"), 1, 7), dtResult(sp("foo"), 1, 0))},
		{"name then id", dtByID(dtReq(6, 0, "foo"), nil, 1),
			dtResp(dtResult(sp("foo"), 0, 7), dtResult(sp("foo"), 1, 0))},
		{"id then name", dtByID(dtByID(dtReq(6, 0), nil, 1), sp("foo"), 0),
			dtResp(dtResult(sp("foo"), 1, 7), dtResult(sp("foo"), 0, 0))},
	} {
		f := newFixture(t, deleteView())
		sameWire(t, f.call(tc.req), tc.want)
		if len(f.admin.deletes) != 1 {
			t.Errorf("%s: deletions %v, want foo once", tc.name, f.admin.deletes)
		}
	}
	f = newFixture(t, deleteView(), func(o *Options) { o.Authorizer = denyAuthz{deny(OpDescribe, "foo"): true} })
	sameWire(t, f.call(dtByID(dtByID(dtReq(6, 0), nil, 1), sp("foo"), 0)),
		dtResp(dtResult(nil, 1, 29), dtResult(sp("foo"), 0, 7)))
	// Admin's refusal goes to the first entry only, and nothing is retried.
	f = newFixture(t, deleteView())
	f.admin.errs["foo"] = adminError(zkadmin.KindInvalidRequest, 42, "refused")
	if c := codes(f.call(dtReq(4, 5000, "foo", "foo"))); !reflect.DeepEqual(c, []int16{42, 0}) || len(f.admin.deletes) != 1 {
		t.Errorf("Admin refuses: codes %v, deletions %v", c, f.admin.deletes)
	}
}

// TestParity4DeleteTopicsDuplicatesZooKeeper: the same through the real
// Admin: one marker, and the duplicate answers 0 with timeout 0 although
// the first is REQUEST_TIMED_OUT.
func TestParity4DeleteTopicsDuplicatesZooKeeper(t *testing.T) {
	env := hcrtNewEnv(t)
	env.create(ctTopic{name: "d1", parts: 1, rf: 1}, ctTopic{name: "d2", parts: 1, rf: 1})
	sameWire(t, env.fx.call(dtReq(3, 0, "d1", "d1")), dtResp(dtResult(sp("d1"), 0, 7), dtResult(sp("d1"), 0, 0)))
	if !env.zkExists(znodes.DeleteTopicPath("d1")) {
		t.Error("d1: no deletion marker")
	}
	id2 := env.zkTopic("d2").TopicID
	req := dtByID(dtReq(6, 0, "d2"), nil, 0)
	req.Topics[1].TopicID = id2
	want := dtResp(dtResult(sp("d2"), 0, 7), dtResult(sp("d2"), 0, 0))
	want.Topics[1].TopicID = id2
	sameWire(t, env.fx.call(req), want)
}

// p4Alter sends the legacy AlterConfigs at v1 and renders its answers.
func p4Alter(f *fixture, validateOnly bool, res ...kmsg.AlterConfigsRequestResource) []string {
	f.t.Helper()
	return hcfgAlterResults(f.call(hcfgAcReqV(1, validateOnly, res...)).(*kmsg.AlterConfigsResponse))
}

// p4Incremental sends IncrementalAlterConfigs v1 and renders its answers.
func p4Incremental(f *fixture, res ...kmsg.IncrementalAlterConfigsRequestResource) []string {
	f.t.Helper()
	return hcfgIncrementalResults(f.call(iacReq(res...)).(*kmsg.IncrementalAlterConfigsResponse))
}

// TestParity4AlterConfigsBrokerResources: both alter APIs refuse a BROKER
// resource name with ConfigAdminManager's wording ("Node id must be an
// integer", "Unexpected broker id, expected N, but received X", no
// "or empty string" as in DescribeConfigs), accept any spelling Kafka
// parses as this node's id, and answer a refused broker config
// INVALID_REQUEST with the validation's message, as Kafka's preprocessing
// does; nothing is written. Against ZooKeeper.
func TestParity4AlterConfigsBrokerResources(t *testing.T) {
	f, e := p4ZK(t, nil)
	const set = kmsg.IncrementalAlterConfigOpSet
	names := map[string]string{
		"x":          "4/x:42:Node id must be an integer, but it is: x",
		" 3000":      "4/ 3000:42:Node id must be an integer, but it is:  3000",
		"2147483648": "4/2147483648:42:Node id must be an integer, but it is: 2147483648",
		"3001":       "4/3001:42:Unexpected broker id, expected 3000, but received 3001",
		"-1":         "4/-1:42:Unexpected broker id, expected 3000, but received -1",
		"+3000":      "4/+3000:0:<nil>",
		"03000":      "4/03000:0:<nil>",
	}
	for name, want := range names {
		if have := p4Alter(f, false, acRes(brokerRes, name, sp("log.retention.ms"), sp("10"))); !reflect.DeepEqual(have, []string{want}) {
			t.Errorf("AlterConfigs broker %q: %q, want %q", name, have, want)
		}
		if have := p4Incremental(f, iacRes(brokerRes, name, iop{"log.roll.ms", set, sp("20")})); !reflect.DeepEqual(have, []string{want}) {
			t.Errorf("IncrementalAlterConfigs broker %q: %q, want %q", name, have, want)
		}
	}
	if zk := e.zkConfig(znodes.EntityBrokers, "3000"); !reflect.DeepEqual(zk, map[string]string{"log.retention.ms": "10", "log.roll.ms": "20"}) {
		t.Errorf("broker 3000 in ZooKeeper: %v", zk)
	}

	refused := []struct {
		name, key, value, want string
	}{
		{"", "log.retention.ms", "abc", "42:Invalid value abc for configuration log.retention.ms: Not a number of type LONG"},
		{"", "log.segment.bytes", "1", "42:Invalid value 1 for configuration log.segment.bytes: Value must be at least 14"},
		{"3000", "log.cleanup.policy", "gone", "42:Invalid value gone for configuration log.cleanup.policy: String must be one of: compact, delete"},
	}
	for _, r := range refused {
		want := []string{"4/" + r.name + ":" + r.want}
		if have := p4Alter(f, false, acRes(brokerRes, r.name, sp(r.key), sp(r.value))); !reflect.DeepEqual(have, want) {
			t.Errorf("AlterConfigs %s=%s: %q, want %q", r.key, r.value, have, want)
		}
		if have := p4Incremental(f, iacRes(brokerRes, r.name, iop{r.key, set, sp(r.value)})); !reflect.DeepEqual(have, want) {
			t.Errorf("IncrementalAlterConfigs %s=%s: %q, want %q", r.key, r.value, have, want)
		}
	}
	// kzadmin's own refusals of a broker config answer the same code.
	if have := p4Incremental(f, iacRes(brokerRes, "3000", iop{"max.partitions", set, sp("5")})); len(have) != 1 ||
		!strings.HasPrefix(have[0], "4/3000:42:max.partitions is cluster-wide") {
		t.Errorf("max.partitions on a broker: %q", have)
	}
	if zk := e.zkConfig(znodes.EntityBrokers, znodes.DefaultEntityName); len(zk) != 0 {
		t.Errorf("refused changes written to the default: %v", zk)
	}
	if zk := e.zkConfig(znodes.EntityBrokers, "3000"); !reflect.DeepEqual(zk, map[string]string{"log.retention.ms": "10", "log.roll.ms": "20"}) {
		t.Errorf("refused changes written to broker 3000: %v", zk)
	}
}

// TestParity4AlterConfigsPreprocessBeforeAuthorization: Kafka checks the
// keys, null values, the resource type and a BROKER resource's name (and,
// for IncrementalAlterConfigs, its operations) before it authorizes
// anything, so a principal without ALTER_CONFIGS gets those errors; the
// answers come in request order, denied ones included.
func TestParity4AlterConfigsPreprocessBeforeAuthorization(t *testing.T) {
	v := withTopics(baseView(), onlineTopic("foo", 1, []int32{1}), onlineTopic("locked", 2, []int32{1}))
	f := newFixture(t, v, func(o *Options) {
		o.Config.NodeID = selfID
		o.Authorizer = denyAuthz{deny(OpAlterConfigs, ClusterResourceName): true, deny(OpAlterConfigs, "locked"): true}
	})
	got := p4Alter(f, false,
		acRes(brokerRes, "x", sp("log.retention.ms"), sp("1")),
		acRes(topicRes, "locked", sp("retention.ms"), sp("1")),
		acRes(topicRes, "foo", sp("retention.ms"), sp("2")),
		acRes(brokerRes, "3001"),
		acRes(topicRes, "nulls", sp("retention.ms"), nil),
		acRes(brokerRes, ""),
	)
	want := []string{
		"4/x:42:Node id must be an integer, but it is: x",
		"2/locked:29:<nil>",
		"2/foo:0:<nil>",
		"4/3001:42:Unexpected broker id, expected 3000, but received 3001",
		"2/nulls:42:Null value not supported for : retention.ms",
		"4/:31:<nil>",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("AlterConfigs\n got %q\nwant %q", got, want)
	}

	const (
		set = kmsg.IncrementalAlterConfigOpSet
		app = kmsg.IncrementalAlterConfigOpAppend
	)
	got = p4Incremental(f,
		iacRes(brokerRes, "3000", iop{"log.retention.ms", set, sp("1")}),
		iacRes(brokerRes, "x", iop{"log.retention.ms", set, sp("1")}),
		iacRes(brokerRes, "", iop{"log.cleanup.policy", app, sp("compact")}, iop{"log.retention.ms", 9, sp("1")}),
		iacRes(brokerRes, "+3000", iop{"log.cleanup.policy", app, sp("compact")}, iop{"log.retention.ms", app, sp("1")}),
		iacRes(topicRes, "locked", iop{"retention.ms", set, sp("1")}, iop{"retention.ms", set, sp("2")}),
		iacRes(topicRes, "foo", iop{"retention.ms", set, sp("3")}),
	)
	want = []string{
		"4/3000:31:<nil>",
		"4/x:42:Node id must be an integer, but it is: x",
		"4/:42:Unknown operations type 9",
		"4/+3000:40:Config value append is not allowed for config key: log.retention.ms",
		"2/locked:42:Error due to duplicate config keys",
		"2/foo:0:<nil>",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("IncrementalAlterConfigs\n got %q\nwant %q", got, want)
	}
}

// TestParity4AlterConfigsNullsAndDuplicateKeys: Kafka 3.9's legacy
// AlterConfigs does not drop null values: ConfigAdminManager refuses a
// resource with any ("Null value not supported for : k1, k2"), and one
// naming a config twice ("Error due to duplicate config keys", checked
// first), for TOPIC and BROKER resources alike, validate_only or not;
// IncrementalAlterConfigs does the same, a DELETE's null excepted. Nothing
// is written. Against ZooKeeper.
func TestParity4AlterConfigsNullsAndDuplicateKeys(t *testing.T) {
	f, e := p4ZK(t, nil)
	if r := hcfgCreate(f, "t", 1, map[string]*string{"retention.ms": sp("1000")}); r != "0:<nil>" {
		t.Fatalf("create: %s", r)
	}
	for _, validateOnly := range []bool{false, true} {
		got := p4Alter(f, validateOnly,
			acRes(topicRes, "t", sp("segment.ms"), sp("5000"), sp("cleanup.policy"), nil, sp("flush.ms"), nil),
			acRes(brokerRes, "", sp("log.retention.ms"), sp("1"), sp("log.roll.ms"), nil),
			acRes(brokerRes, "x", sp("log.roll.ms"), nil),
			acRes(topicRes, "missing", sp("retention.ms"), sp("1"), sp("retention.ms"), sp("2")),
			acRes(brokerRes, "3000", sp("log.roll.ms"), nil, sp("log.roll.ms"), sp("2")),
		)
		want := []string{
			"2/t:42:Null value not supported for : cleanup.policy, flush.ms",
			"4/:42:Null value not supported for : log.roll.ms",
			"4/x:42:Null value not supported for : log.roll.ms",
			"2/missing:42:Error due to duplicate config keys",
			"4/3000:42:Error due to duplicate config keys",
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("AlterConfigs validateOnly=%v\n got %q\nwant %q", validateOnly, got, want)
		}
	}
	const (
		set = kmsg.IncrementalAlterConfigOpSet
		del = kmsg.IncrementalAlterConfigOpDelete
		sub = kmsg.IncrementalAlterConfigOpSubtract
	)
	got := p4Incremental(f,
		iacRes(topicRes, "t", iop{"retention.ms", set, sp("1")}, iop{"retention.ms", del, nil}),
		iacRes(brokerRes, "", iop{"log.retention.ms", set, nil}, iop{"log.roll.ms", del, nil}, iop{"log.cleanup.policy", sub, nil}),
		iacRes(brokerRes, "3000", iop{"log.roll.ms", del, nil}, iop{"log.roll.ms", del, nil}),
	)
	want := []string{
		"2/t:42:Error due to duplicate config keys",
		"4/:42:Null value not supported for : log.retention.ms, log.cleanup.policy",
		"4/3000:42:Error due to duplicate config keys",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("IncrementalAlterConfigs\n got %q\nwant %q", got, want)
	}
	if zk := e.zkConfig(znodes.EntityTopics, "t"); !reflect.DeepEqual(zk, map[string]string{"retention.ms": "1000"}) {
		t.Errorf("t in ZooKeeper: %v", zk)
	}
	for _, entity := range []string{znodes.DefaultEntityName, "3000"} {
		if zk := e.zkConfig(znodes.EntityBrokers, entity); len(zk) != 0 {
			t.Errorf("broker %s in ZooKeeper: %v", entity, zk)
		}
	}
	// A DELETE's null value is fine.
	if have := p4Incremental(f, iacRes(topicRes, "t", iop{"retention.ms", del, nil})); !reflect.DeepEqual(have, []string{"2/t:0:<nil>"}) ||
		len(e.zkConfig(znodes.EntityTopics, "t")) != 0 {
		t.Errorf("DELETE with a null value: %q", have)
	}
}

// TestParity4AlterConfigsResourceTypes: a resource of a type Kafka's
// preprocessing does not serve is refused on its own ("Unknown resource
// type N"; BROKER_LOGGER too for the legacy API) while the others are
// altered; CLIENT_METRICS passes preprocessing and ZkAdminManager refuses
// it, but a denied one fails the whole request (Kafka's handler throws),
// after the other resources were altered.
func TestParity4AlterConfigsResourceTypes(t *testing.T) {
	const cm = kmsg.ConfigResourceTypeClientMetrics
	v := withTopics(baseView(), onlineTopic("foo", 1, []int32{1}))
	f := newFixture(t, v, func(o *Options) { o.Config.NodeID = selfID })
	got := p4Alter(f, false, acRes(kmsg.ConfigResourceTypeBrokerLogger, "3000"), acRes(3, "x"), acRes(32, "g"),
		acRes(cm, "m", sp("interval.ms"), sp("100")), acRes(topicRes, "foo", sp("retention.ms"), sp("1")))
	want := []string{
		"8/3000:42:Unknown resource type 8",
		"3/x:42:Unknown resource type 3",
		"32/g:42:Unknown resource type 32",
		"16/m:42:AlterConfigs is only supported for topics and brokers, but resource type is CLIENT_METRICS",
		"2/foo:0:<nil>",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("AlterConfigs\n got %q\nwant %q", got, want)
	}
	const set = kmsg.IncrementalAlterConfigOpSet
	got = p4Incremental(f, iacRes(3, "x"), iacRes(cm, "m", iop{"interval.ms", set, sp("100")}),
		iacRes(topicRes, "foo", iop{"retention.ms", set, sp("2")}))
	want = []string{
		"3/x:42:Unknown resource type 3",
		"16/m:42:AlterConfigs is only supported for topics and brokers, but resource type is CLIENT_METRICS",
		"2/foo:0:<nil>",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("IncrementalAlterConfigs\n got %q\nwant %q", got, want)
	}

	denied := newFixture(t, v, func(o *Options) {
		o.Config.NodeID = selfID
		o.Authorizer = denyAuthz{deny(OpAlterConfigs, ClusterResourceName): true}
	})
	whole := "42:Unexpected resource type CLIENT_METRICS for resource m"
	got = p4Alter(denied, false, acRes(topicRes, "foo", sp("retention.ms"), sp("3")), acRes(cm, "m"))
	if want := []string{"2/foo:" + whole, "16/m:" + whole}; !reflect.DeepEqual(got, want) {
		t.Errorf("AlterConfigs, CLIENT_METRICS denied\n got %q\nwant %q", got, want)
	}
	got = p4Incremental(denied, iacRes(topicRes, "foo", iop{"retention.ms", set, sp("4")}), iacRes(cm, "m"))
	if want := []string{"2/foo:" + whole, "16/m:" + whole}; !reflect.DeepEqual(got, want) {
		t.Errorf("IncrementalAlterConfigs, CLIENT_METRICS denied\n got %q\nwant %q", got, want)
	}
	if c := denied.admin.configs["topics/foo"]; c["retention.ms"] != "4" {
		t.Errorf("foo's overrides %v: the authorized resources are altered all the same", c)
	}
}

// TestParity4IncrementalAlterConfigsBrokerLogger: a BROKER_LOGGER resource
// is answered as Kafka's RuntimeLoggerManager answers it, on a node
// without Log4j loggers: the cluster permission first, then the node id
// (Kafka's message repeats its own id; ours names the one asked for), then
// each operation (an unknown one is INVALID_REQUEST, where Kafka crashes).
func TestParity4IncrementalAlterConfigsBrokerLogger(t *testing.T) {
	const (
		bl  = kmsg.ConfigResourceTypeBrokerLogger
		set = kmsg.IncrementalAlterConfigOpSet
		del = kmsg.IncrementalAlterConfigOpDelete
		app = kmsg.IncrementalAlterConfigOpAppend
		sub = kmsg.IncrementalAlterConfigOpSubtract
	)
	f := newFixture(t, baseView(), func(o *Options) { o.Config.NodeID = selfID })
	for _, tc := range []struct {
		res  kmsg.IncrementalAlterConfigsRequestResource
		want string
	}{
		{iacRes(bl, "3000"), "8/3000:0:<nil>"},
		{iacRes(bl, "x", iop{"root", set, sp("DEBUG")}), "8/x:42:Node id must be an integer, but it is: x"},
		{iacRes(bl, "1", iop{"root", set, sp("DEBUG")}), "8/1:42:Unexpected node id. Expected 3000, but received 1"},
		{iacRes(bl, "3000", iop{"root", set, sp("DEBUG")}), "8/3000:40:Logger root does not exist!"},
		{iacRes(bl, "3000", iop{"kafka", del, nil}), "8/3000:40:Logger kafka does not exist!"},
		{iacRes(bl, "3000", iop{"kafka", app, sp("x")}), "8/3000:42:APPEND operation is not allowed for the BROKER_LOGGER resource"},
		{iacRes(bl, "3000", iop{"kafka", sub, sp("x")}), "8/3000:42:SUBTRACT operation is not allowed for the BROKER_LOGGER resource"},
		{iacRes(bl, "3000", iop{"kafka", 7, sp("x")}), "8/3000:42:Unknown config operation 7"},
		{iacRes(bl, "x", iop{"root", set, nil}), "8/x:42:Null value not supported for : root"},
	} {
		if have := p4Incremental(f, tc.res); !reflect.DeepEqual(have, []string{tc.want}) {
			t.Errorf("%+v: %q, want %q", tc.res.Configs, have, tc.want)
		}
	}
	denied := newFixture(t, baseView(), func(o *Options) {
		o.Config.NodeID = selfID
		o.Authorizer = denyAuthz{deny(OpAlterConfigs, ClusterResourceName): true}
	})
	if have := p4Incremental(denied, iacRes(bl, "x", iop{"root", set, sp("DEBUG")})); !reflect.DeepEqual(have, []string{"8/x:31:<nil>"}) {
		t.Errorf("denied: %q", have)
	}
}
