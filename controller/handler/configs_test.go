package handler

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/zkadmin"
)

func TestDescribeCluster(t *testing.T) {
	f := newFixture(t, baseView(), func(o *Options) { o.Authorizer = denyAuthz{deny(OpAlter, ClusterResourceName): true} })
	for _, version := range []int16{0, 1} {
		r := kmsg.NewPtrDescribeClusterRequest()
		r.Version, r.IncludeClusterAuthorizedOperations = version, true
		got := f.call(r).(*kmsg.DescribeClusterResponse)
		want := kmsg.NewPtrDescribeClusterResponse()
		want.ClusterID, want.ControllerID, want.ClusterAuthorizedOperations = "cluster-one", selfID, 8096&^(1<<OpAlter)
		for _, b := range mdBrokers(selfID, 1, 2, 3) {
			db := kmsg.NewDescribeClusterResponseBroker()
			db.NodeID, db.Host, db.Port, db.Rack = b.NodeID, b.Host, b.Port, b.Rack
			want.Brokers = append(want.Brokers, db)
		}
		sameWire(t, got, want)
	}
	for _, tc := range []struct {
		typ  int8
		code int16
		msg  string
	}{
		{2, 114, "The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type CONTROLLER"},
		{5, 115, "Unsupported endpoint type 5"},
	} {
		r := kmsg.NewPtrDescribeClusterRequest()
		r.Version, r.EndpointType = 1, tc.typ
		got := f.call(r).(*kmsg.DescribeClusterResponse)
		if got.ErrorCode != tc.code || got.ErrorMessage == nil || *got.ErrorMessage != tc.msg || len(got.Brokers) != 0 {
			t.Errorf("endpoint type %d: %+v", tc.typ, got)
		}
	}
	denied := newFixture(t, baseView(), func(o *Options) { o.Authorizer = denyAuthz{deny(OpDescribe, ClusterResourceName): true} })
	r := kmsg.NewPtrDescribeClusterRequest()
	r.IncludeClusterAuthorizedOperations = true
	if got := denied.call(r).(*kmsg.DescribeClusterResponse); got.ClusterAuthorizedOperations != 0 {
		t.Errorf("operations without DESCRIBE: %d, want 0", got.ClusterAuthorizedOperations)
	}
}

func dcReq(version int16, synonyms bool, res ...kmsg.DescribeConfigsRequestResource) *kmsg.DescribeConfigsRequest {
	r := kmsg.NewPtrDescribeConfigsRequest()
	r.Version, r.IncludeSynonyms, r.Resources = version, synonyms, res
	return r
}

func dcRes(typ kmsg.ConfigResourceType, name string, keys ...string) kmsg.DescribeConfigsRequestResource {
	r := kmsg.NewDescribeConfigsRequestResource()
	r.ResourceType, r.ResourceName, r.ConfigNames = typ, name, keys
	return r
}

const (
	topicRes  = kmsg.ConfigResourceTypeTopic
	brokerRes = kmsg.ConfigResourceTypeBroker
)

func TestDescribeConfigsTopic(t *testing.T) {
	f := newFixture(t, withTopics(baseView(), onlineTopic("foo", 1, []int32{1})))
	f.admin.configs["topics/foo"] = map[string]string{"retention.ms": "5"}
	f.admin.configs["brokers/<default>"] = map[string]string{"log.segment.bytes": "2000", "max.partitions": "10"}

	got := f.call(dcReq(4, true, dcRes(topicRes, "foo"))).(*kmsg.DescribeConfigsResponse)
	cfgs := map[string]kmsg.DescribeConfigsResponseResourceConfig{}
	for _, c := range got.Resources[0].Configs {
		cfgs[c.Name] = c
	}
	if len(cfgs) != len(zkadmin.TopicConfigDefs()) {
		t.Fatalf("%d configs, want all", len(cfgs))
	}
	check := func(name, value string, source kmsg.ConfigSource, synonyms []string) {
		t.Helper()
		c := cfgs[name]
		var syn []string
		for _, s := range c.ConfigSynonyms {
			syn = append(syn, s.Name+"="+*s.Value+"@"+s.Source.String())
		}
		if c.Value == nil || *c.Value != value || c.Source != source || !reflect.DeepEqual(syn, synonyms) {
			t.Errorf("%s: value %v source %v synonyms %v", name, ptr(c.Value), c.Source, syn)
		}
	}
	// log.retention.ms has no default in Kafka: no DEFAULT_CONFIG synonym.
	check("retention.ms", "5", kmsg.ConfigSourceDynamicTopicConfig, []string{"retention.ms=5@DYNAMIC_TOPIC_CONFIG"})
	check("segment.bytes", "2000", kmsg.ConfigSourceDynamicDefaultBrokerConfig,
		[]string{"log.segment.bytes=2000@DYNAMIC_DEFAULT_BROKER_CONFIG", "log.segment.bytes=1073741824@DEFAULT_CONFIG"})
	check("remote.storage.enable", "false", kmsg.ConfigSourceDefaultConfig, nil)
	if cfgs["cleanup.policy"].ConfigType != kmsg.ConfigTypeList {
		t.Errorf("cleanup.policy type %v", cfgs["cleanup.policy"].ConfigType)
	}

	// Named keys only; no synonyms unless asked; v0 has no source.
	got = f.call(dcReq(1, false, dcRes(topicRes, "foo", "retention.ms"))).(*kmsg.DescribeConfigsResponse)
	if c := got.Resources[0].Configs; len(c) != 1 || c[0].ConfigSynonyms != nil || c[0].Source != 1 {
		t.Errorf("named: %+v", c)
	}
	got = f.call(dcReq(0, true, dcRes(topicRes, "foo", "retention.ms"))).(*kmsg.DescribeConfigsResponse)
	if c := got.Resources[0].Configs; len(c) != 1 || c[0].IsDefault || c[0].Source != -1 {
		t.Errorf("v0: %+v", c)
	}
}

func TestDescribeConfigsErrors(t *testing.T) {
	authz := denyAuthz{deny(OpDescribeConfigs, "secret"): true}
	f := newFixture(t, withTopics(baseView(), onlineTopic("secret", 1, []int32{1})), func(o *Options) {
		o.Authorizer, o.Config.NodeID = authz, selfID
	})
	f.admin.configs["brokers/<default>"] = map[string]string{"max.partitions": "10", "ssl.key.password": "x"}
	f.admin.configs["brokers/3000"] = map[string]string{"log.retention.ms": "1"}
	got := f.call(dcReq(4, false,
		dcRes(topicRes, "secret"),
		dcRes(topicRes, "bad/name"),
		dcRes(topicRes, "missing"),
		dcRes(brokerRes, ""),
		dcRes(brokerRes, "1"),
		dcRes(brokerRes, "x"),
		dcRes(brokerRes, "3000"),
		dcRes(kmsg.ConfigResourceTypeBrokerLogger, "3000"),
	)).(*kmsg.DescribeConfigsResponse)
	type res struct {
		name string
		code int16
		msg  string
		n    int
	}
	var have []res
	for _, r := range got.Resources {
		have = append(have, res{r.ResourceName, r.ErrorCode, ptr(r.ErrorMessage), len(r.Configs)})
	}
	want := []res{
		{"bad/name", 17, have[0].msg, 0},
		{"missing", 3, "", 0},
		{"", 0, "", 2},
		{"1", 42, "Unexpected broker id, expected 3000 or empty string, but received 1", 0},
		{"x", 42, "Broker id must be an integer, but it is: x", 0},
		{"3000", 0, "", have[5].n}, // its whole configuration: checked below
		{"3000", 42, "kzadmin has no broker loggers to describe", 0},
		{"secret", 29, "Topic authorization failed.", 0},
	}
	if !reflect.DeepEqual(have, want) {
		t.Errorf("results\n got %+v\nwant %+v", have, want)
	}
	own := map[string]bool{}
	for _, c := range got.Resources[5].Configs {
		own[c.Name] = true
	}
	for _, k := range config.Keys() {
		if !own[k.Name] {
			t.Errorf("the node's own id does not list its key %s", k.Name)
		}
	}
	for _, c := range got.Resources[2].Configs {
		if c.Name == "ssl.key.password" && (c.Value != nil || !c.IsSensitive) {
			t.Errorf("sensitive config shown: %+v", c)
		}
		if c.Name == "max.partitions" && (*c.Value != "10" || c.Source != 3 || c.ConfigType != kmsg.ConfigTypeInt) {
			t.Errorf("max.partitions: %+v", c)
		}
	}
	// An unknown resource type fails the whole request.
	got = f.call(dcReq(4, false, dcRes(topicRes, "secret"), dcRes(kmsg.ConfigResourceTypeClientMetrics, "m"))).(*kmsg.DescribeConfigsResponse)
	for _, r := range got.Resources {
		if r.ErrorCode != 42 {
			t.Errorf("whole-request error: %+v", r)
		}
	}
}

func acReq(validateOnly bool, res ...kmsg.AlterConfigsRequestResource) *kmsg.AlterConfigsRequest {
	r := kmsg.NewPtrAlterConfigsRequest()
	r.Version, r.ValidateOnly, r.Resources = 2, validateOnly, res
	return r
}

func acRes(typ kmsg.ConfigResourceType, name string, kv ...*string) kmsg.AlterConfigsRequestResource {
	r := kmsg.NewAlterConfigsRequestResource()
	r.ResourceType, r.ResourceName = typ, name
	for i := 0; i+1 < len(kv); i += 2 {
		c := kmsg.NewAlterConfigsRequestResourceConfig()
		c.Name, c.Value = *kv[i], kv[i+1]
		r.Configs = append(r.Configs, c)
	}
	return r
}

func TestAlterConfigs(t *testing.T) {
	authz := denyAuthz{deny(OpAlterConfigs, "locked"): true}
	f := newFixture(t, withTopics(baseView(), onlineTopic("foo", 1, []int32{1}), onlineTopic("locked", 2, []int32{1}),
		onlineTopic("dup", 3, []int32{1})), func(o *Options) { o.Authorizer = authz })
	f.admin.configs["topics/foo"] = map[string]string{"retention.ms": "5", "segment.ms": "9"}
	f.admin.errs["bad"] = adminError(zkadmin.KindInvalidConfig, 40, "Unknown topic config name: nope")
	got := f.call(acReq(false,
		acRes(topicRes, "locked"),
		acRes(topicRes, "foo", sp("retention.ms"), sp("7"), sp("cleanup.policy"), sp("compact")),
		acRes(topicRes, "dup"), acRes(topicRes, "dup"),
		acRes(topicRes, ""),
		acRes(topicRes, "gone"),
		acRes(brokerRes, "", sp("max.partitions"), sp("100")),
	)).(*kmsg.AlterConfigsResponse)
	var have []string
	for _, r := range got.Resources {
		have = append(have, r.ResourceName+":"+itoa(r.ErrorCode)+":"+ptr(r.ErrorMessage))
	}
	want := []string{ // in request order, as Kafka 3.9 reassembles them
		"locked:29:<nil>",
		"foo:0:<nil>",
		"dup:42:Each resource must appear at most once.", "dup:42:Each resource must appear at most once.",
		":42:Default topic resources are not allowed.",
		"gone:3:The topic 'gone' does not exist.",
		":0:<nil>",
	}
	if !reflect.DeepEqual(have, want) {
		t.Errorf("results\n got %q\nwant %q", have, want)
	}
	if c := f.admin.configs["topics/foo"]; !reflect.DeepEqual(c, map[string]string{"retention.ms": "7", "cleanup.policy": "compact"}) {
		t.Errorf("foo's overrides %v: want the set replaced", c)
	}
	if c := f.admin.configs["brokers/<default>"]; c["max.partitions"] != "100" {
		t.Errorf("broker defaults %v", c)
	}
	// validateOnly reaches Admin as DryRun; Admin's refusal passes through.
	f.call(acReq(true, acRes(topicRes, "foo", sp("retention.ms"), sp("1"))))
	if a := f.admin.alters[len(f.admin.alters)-1]; !a.DryRun {
		t.Errorf("validateOnly: %+v", a)
	}
	f.views.Publish(withTopics(f.views.View(), onlineTopic("bad", 4, []int32{1})))
	got = f.call(acReq(false, acRes(topicRes, "bad", sp("nope"), sp("1")))).(*kmsg.AlterConfigsResponse)
	if r := got.Resources[0]; r.ErrorCode != 40 || ptr(r.ErrorMessage) != "Unknown topic config name: nope" {
		t.Errorf("invalid config: %+v", r)
	}
	// A BROKER_LOGGER resource is refused on its own (Kafka 3.9's
	// preprocessing); the others are altered.
	got = f.call(acReq(false, acRes(kmsg.ConfigResourceTypeBrokerLogger, "1"), acRes(topicRes, "foo"))).(*kmsg.AlterConfigsResponse)
	if have := hcfgAlterResults(got); !reflect.DeepEqual(have, []string{"8/1:42:Unknown resource type 8", "2/foo:0:<nil>"}) {
		t.Errorf("broker logger: %q", have)
	}
}

func iacReq(res ...kmsg.IncrementalAlterConfigsRequestResource) *kmsg.IncrementalAlterConfigsRequest {
	r := kmsg.NewPtrIncrementalAlterConfigsRequest()
	r.Version, r.Resources = 1, res
	return r
}

type iop struct {
	name  string
	op    kmsg.IncrementalAlterConfigOp
	value *string
}

func iacRes(typ kmsg.ConfigResourceType, name string, ops ...iop) kmsg.IncrementalAlterConfigsRequestResource {
	r := kmsg.NewIncrementalAlterConfigsRequestResource()
	r.ResourceType, r.ResourceName = typ, name
	for _, o := range ops {
		c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		c.Name, c.Op, c.Value = o.name, o.op, o.value
		r.Configs = append(r.Configs, c)
	}
	return r
}

func TestIncrementalAlterConfigs(t *testing.T) {
	const (
		set = kmsg.IncrementalAlterConfigOpSet
		del = kmsg.IncrementalAlterConfigOpDelete
		app = kmsg.IncrementalAlterConfigOpAppend
		sub = kmsg.IncrementalAlterConfigOpSubtract
	)
	f := newFixture(t, withTopics(baseView(), onlineTopic("foo", 1, []int32{1}), onlineTopic("bar", 2, []int32{1}),
		onlineTopic("baz", 3, []int32{1})))
	f.admin.configs["topics/foo"] = map[string]string{"retention.ms": "5", "segment.ms": "9"}
	f.admin.configs["topics/bar"] = map[string]string{"leader.replication.throttled.replicas": "0:1,1:2"}
	got := f.call(iacReq(
		iacRes(topicRes, "foo", iop{"retention.ms", del, nil}, iop{"min.insync.replicas", del, nil},
			iop{"cleanup.policy", app, sp("compact")}, iop{"segment.ms", set, sp("10")}),
		iacRes(topicRes, "bar", iop{"leader.replication.throttled.replicas", sub, sp("0:1")}),
		iacRes(topicRes, "baz", iop{"a", set, sp("1")}, iop{"a", del, nil}),
		iacRes(topicRes, "baz", iop{"a", set, nil}, iop{"b", app, nil}),
		iacRes(brokerRes, "", iop{"max.broker.partitions", set, sp("5")}, iop{"max.partitions", app, sp("1")}),
		iacRes(brokerRes, "", iop{"max.broker.partitions", set, sp("5")}),
	)).(*kmsg.IncrementalAlterConfigsResponse)
	var have []string
	for _, r := range got.Resources {
		have = append(have, r.ResourceName+":"+itoa(r.ErrorCode)+":"+ptr(r.ErrorMessage))
	}
	want := []string{
		"foo:0:<nil>",
		"bar:0:<nil>",
		"baz:42:Each resource must appear at most once.",
		"baz:42:Each resource must appear at most once.",
		":42:Each resource must appear at most once.",
		":42:Each resource must appear at most once.",
	}
	if !reflect.DeepEqual(have, want) {
		t.Errorf("results\n got %q\nwant %q", have, want)
	}
	if c := f.admin.configs["topics/foo"]; !reflect.DeepEqual(c, map[string]string{"segment.ms": "10", "cleanup.policy": "delete,compact"}) {
		t.Errorf("foo: %v", c)
	}
	if c := f.admin.configs["topics/bar"]; c["leader.replication.throttled.replicas"] != "1:2" {
		t.Errorf("bar: %v", c)
	}

	for _, tc := range []struct {
		res  kmsg.IncrementalAlterConfigsRequestResource
		code int16
		msg  string
	}{
		{iacRes(topicRes, "baz", iop{"a", set, sp("1")}, iop{"a", del, nil}), 42, "Error due to duplicate config keys"},
		{iacRes(topicRes, "baz", iop{"a", set, nil}, iop{"b", app, nil}, iop{"c", del, nil}), 42, "Null value not supported for : a, b"},
		{iacRes(brokerRes, "", iop{"max.partitions", app, sp("1")}), 40, "Config value append is not allowed for config key: max.partitions"},
		{iacRes(topicRes, "baz", iop{"retention.ms", sub, sp("1")}), 40, "Config value subtract is not allowed for config key: retention.ms"},
		{iacRes(topicRes, "nope", iop{"retention.ms", set, sp("1")}), 3, "The topic 'nope' does not exist."},
		{iacRes(brokerRes, "", iop{"max.partitions", set, sp("12")}), 0, "<nil>"},
	} {
		got := f.call(iacReq(tc.res)).(*kmsg.IncrementalAlterConfigsResponse)
		if r := got.Resources[0]; r.ErrorCode != tc.code || ptr(r.ErrorMessage) != tc.msg {
			t.Errorf("%+v: got %d %q, want %d %q", tc.res.Configs, r.ErrorCode, ptr(r.ErrorMessage), tc.code, tc.msg)
		}
	}
	if c := f.admin.configs["brokers/<default>"]; c["max.partitions"] != "12" {
		t.Errorf("broker defaults %v", c)
	}
}

func itoa(n int16) string { return strconv.Itoa(int(n)) }
