package handler

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/zkadmin"
)

// hcfgConfigLine renders one described config as the client sees it:
// name, value, source, type, read-only and sensitive flags, synonyms.
func hcfgConfigLine(c kmsg.DescribeConfigsResponseResourceConfig) string {
	var syn []string
	for _, s := range c.ConfigSynonyms {
		syn = append(syn, s.Name+"="+ptr(s.Value)+"@"+s.Source.String())
	}
	return fmt.Sprintf("%s=%s src=%d type=%d ro=%v sens=%v doc=%s syn=[%s]", c.Name, ptr(c.Value), c.Source,
		c.ConfigType, c.ReadOnly, c.IsSensitive, ptr(c.Documentation), strings.Join(syn, " "))
}

// hcfgConfigLines indexes a resource's configs by name.
func hcfgConfigLines(r kmsg.DescribeConfigsResponseResource) map[string]string {
	out := map[string]string{}
	for _, c := range r.Configs {
		out[c.Name] = hcfgConfigLine(c)
	}
	return out
}

// hcfgDescribeView has topic foo (online) and topic gone (queued for
// deletion).
func hcfgDescribeView() *View {
	gone := onlineTopic("gone", 2, []int32{1})
	gone.Deleting = true
	return withTopics(baseView(), onlineTopic("foo", 1, []int32{1}), gone)
}

// TestDescribeConfigsTopicEveryVersion describes one topic at v0-v4, with
// and without synonyms: every topic config is listed once at every
// version, read_only and is_sensitive are false, sources (v1+), synonyms
// (v1+, only when asked, in Kafka's order TOPIC_CONFIG,
// DYNAMIC_DEFAULT_BROKER_CONFIG, DEFAULT_CONFIG) and types (v3+) are as
// Kafka's ConfigHelper gives them, and the documentation stays null when
// not asked for. (retention.ms and the other configs whose broker synonym
// has no default in Kafka are left out of the synonym checks.)
func TestDescribeConfigsTopicEveryVersion(t *testing.T) {
	f := newFixture(t, hcfgDescribeView())
	f.admin.configs["topics/foo"] = map[string]string{"delete.retention.ms": "5", "preallocate": "true",
		"remote.log.copy.disable": "true"}
	f.admin.configs["brokers/<default>"] = map[string]string{"log.cleaner.delete.retention.ms": "100",
		"log.segment.bytes": "2000", "max.partitions": "10"}
	// name -> (value, source, type, synonyms with IncludeSynonyms).
	type want struct {
		value  string
		source int8
		typ    int8
		syn    string
	}
	wants := map[string]want{
		"delete.retention.ms": {"5", 1, 5, "delete.retention.ms=5@DYNAMIC_TOPIC_CONFIG " +
			"log.cleaner.delete.retention.ms=100@DYNAMIC_DEFAULT_BROKER_CONFIG log.cleaner.delete.retention.ms=86400000@DEFAULT_CONFIG"},
		"segment.bytes": {"2000", 3, 3,
			"log.segment.bytes=2000@DYNAMIC_DEFAULT_BROKER_CONFIG log.segment.bytes=1073741824@DEFAULT_CONFIG"},
		"preallocate":                           {"true", 1, 1, "preallocate=true@DYNAMIC_TOPIC_CONFIG log.preallocate=false@DEFAULT_CONFIG"},
		"remote.log.copy.disable":               {"true", 1, 1, "remote.log.copy.disable=true@DYNAMIC_TOPIC_CONFIG"},
		"remote.storage.enable":                 {"false", 5, 1, ""},
		"cleanup.policy":                        {"delete", 5, 7, "log.cleanup.policy=delete@DEFAULT_CONFIG"},
		"leader.replication.throttled.replicas": {"", 5, 7, ""},
	}
	for version := int16(0); version <= 4; version++ {
		for _, synonyms := range []bool{false, true} {
			got := f.call(dcReq(version, synonyms, dcRes(topicRes, "foo"))).(*kmsg.DescribeConfigsResponse)
			if len(got.Resources) != 1 || got.Resources[0].ErrorCode != 0 || ptr(got.Resources[0].ErrorMessage) != "" {
				t.Fatalf("v%d: %+v", version, got.Resources)
			}
			lines := hcfgConfigLines(got.Resources[0])
			if len(lines) != len(zkadmin.TopicConfigDefs()) || len(got.Resources[0].Configs) != len(lines) {
				t.Errorf("v%d: %d configs (%d names), want each of the %d topic configs once", version,
					len(got.Resources[0].Configs), len(lines), len(zkadmin.TopicConfigDefs()))
			}
			for _, c := range got.Resources[0].Configs {
				if c.ReadOnly || c.IsSensitive || c.Value == nil || c.IsDefault || c.Documentation != nil ||
					(version == 0 || !synonyms) && len(c.ConfigSynonyms) != 0 {
					t.Errorf("v%d synonyms=%v: %s", version, synonyms, hcfgConfigLine(c))
				}
			}
			for name, w := range wants {
				source, typ, syn := w.source, w.typ, w.syn
				if version == 0 {
					source = -1 // not on the wire
				}
				if version < 3 {
					typ = 0
				}
				if version == 0 || !synonyms {
					syn = ""
				}
				exp := fmt.Sprintf("%s=%s src=%d type=%d ro=false sens=false doc=<nil> syn=[%s]", name, w.value, source, typ, syn)
				if lines[name] != exp {
					t.Errorf("v%d synonyms=%v:\n got %s\nwant %s", version, synonyms, lines[name], exp)
				}
			}
		}
	}
}

// TestDescribeConfigsConfigNamesFilter: a null or empty key list means
// every config; a list keeps the named configs once each and silently
// leaves out names that are not configs; a topic queued for deletion is
// UNKNOWN_TOPIC_OR_PARTITION with a null message, as a topic Kafka's
// metadata cache no longer holds.
func TestDescribeConfigsConfigNamesFilter(t *testing.T) {
	f := newFixture(t, hcfgDescribeView(), func(o *Options) { o.Config.NodeID = selfID })
	f.admin.configs["brokers/<default>"] = map[string]string{"max.partitions": "10", "log.retention.ms": "100"}
	all := len(zkadmin.TopicConfigDefs())
	for _, version := range []int16{0, 1, 2, 3, 4} {
		empty := dcRes(topicRes, "foo")
		empty.ConfigNames = []string{}
		r := dcReq(version, true,
			dcRes(topicRes, "foo"),
			empty,
			dcRes(topicRes, "foo", "segment.ms", "nope", "retention.ms", "segment.ms"),
			dcRes(topicRes, "foo", "nope"),
			dcRes(topicRes, "gone"),
			dcRes(brokerRes, "", "max.partitions", "nope"),
		)
		got := f.call(r).(*kmsg.DescribeConfigsResponse)
		var have []string
		for _, res := range got.Resources {
			var names []string
			for _, c := range res.Configs {
				names = append(names, c.Name)
			}
			sort.Strings(names)
			if len(names) == all {
				names = []string{"<all>"}
			}
			have = append(have, fmt.Sprintf("%s:%d:%s:%v", res.ResourceName, res.ErrorCode, ptr(res.ErrorMessage), names))
		}
		want := []string{
			"foo:0::[<all>]",
			"foo:0::[<all>]",
			"foo:0::[retention.ms segment.ms]",
			"foo:0::[]",
			"gone:3::[]",
			":0::[max.partitions]",
		}
		if !reflect.DeepEqual(have, want) {
			t.Errorf("v%d\n got %q\nwant %q", version, have, want)
		}
	}
}

// TestDescribeConfigsBrokerSynonymsAndSensitive: the broker default lists
// only DYNAMIC_DEFAULT_BROKER_CONFIG synonyms; the node's own id lists its
// DYNAMIC_BROKER_CONFIG first, then the default's (the STATIC_BROKER_CONFIG
// and DEFAULT_CONFIG layers after them, which a broker has for all its
// configs and kzadmind for its own keys, are checked in
// TestDescribeConfigsOwnIDStaticLayers; here only the start of those lists
// is checked, but for a key with no such layer); password
// configs are sensitive, with null values in the entry and in every
// synonym. v2, so that no ConfigType is on the wire.
func TestDescribeConfigsBrokerSynonymsAndSensitive(t *testing.T) {
	f := newFixture(t, hcfgDescribeView(), func(o *Options) { o.Config.NodeID = selfID })
	f.admin.configs["brokers/<default>"] = map[string]string{
		"log.retention.ms": "100",
		"ssl.key.password": "encryptedPassword:a",
		"max.partitions":   "10",
		"listener.name.internal.ssl.keystore.password":  "encryptedPassword:b",
		"listener.name.internal.plain.sasl.jaas.config": "encryptedPassword:c",
	}
	f.admin.configs["brokers/3000"] = map[string]string{
		"log.retention.ms":      "7",
		"ssl.key.password":      "encryptedPassword:d",
		"log.flush.interval.ms": "9",
	}
	got := f.call(dcReq(2, true, dcRes(brokerRes, ""), dcRes(brokerRes, "3000"))).(*kmsg.DescribeConfigsResponse)
	if len(got.Resources) != 2 || got.Resources[0].ErrorCode != 0 || got.Resources[1].ErrorCode != 0 {
		t.Fatalf("resources %+v", got.Resources)
	}
	def, own := hcfgConfigLines(got.Resources[0]), hcfgConfigLines(got.Resources[1])
	line := func(name, value string, source int8, sensitive bool, syn string) string {
		return fmt.Sprintf("%s=%s src=%d type=0 ro=false sens=%v doc=<nil> syn=[%s", name, value, source, sensitive, syn)
	}
	check := func(which string, lines map[string]string, name, prefix string, exact bool) {
		t.Helper()
		got := lines[name]
		if exact {
			prefix += "]"
		}
		if !strings.HasPrefix(got, prefix) || exact && got != prefix {
			t.Errorf("%s %s:\n got %s\nwant %s", which, name, got, prefix)
		}
	}
	const dd = "@DYNAMIC_DEFAULT_BROKER_CONFIG"
	const db = "@DYNAMIC_BROKER_CONFIG"
	check("default", def, "log.retention.ms", line("log.retention.ms", "100", 3, false, "log.retention.ms=100"+dd), true)
	check("default", def, "ssl.key.password", line("ssl.key.password", "<nil>", 3, true, "ssl.key.password=<nil>"+dd), true)
	check("default", def, "listener.name.internal.ssl.keystore.password",
		line("listener.name.internal.ssl.keystore.password", "<nil>", 3, true, "listener.name.internal.ssl.keystore.password=<nil>"+dd), true)
	check("default", def, "listener.name.internal.plain.sasl.jaas.config",
		line("listener.name.internal.plain.sasl.jaas.config", "<nil>", 3, true, "listener.name.internal.plain.sasl.jaas.config=<nil>"+dd), true)
	if _, ok := def["log.flush.interval.ms"]; ok {
		t.Errorf("the default lists a per-broker config: %v", def)
	}
	check("own", own, "log.retention.ms", line("log.retention.ms", "7", 2, false, "log.retention.ms=7"+db+" log.retention.ms=100"+dd), false)
	// ssl.key.password is also a key of kzadmind's own (left unset here),
	// which it reads at start-up only: read-only at its own id.
	check("own", own, "ssl.key.password", strings.Replace(line("ssl.key.password", "<nil>", 2, true,
		"ssl.key.password=<nil>"+db+" ssl.key.password=<nil>"+dd), "ro=false", "ro=true", 1), true)
	check("own", own, "log.flush.interval.ms", line("log.flush.interval.ms", "9", 2, false, "log.flush.interval.ms=9"+db), false)
	check("own", own, "listener.name.internal.ssl.keystore.password",
		line("listener.name.internal.ssl.keystore.password", "<nil>", 3, true, "listener.name.internal.ssl.keystore.password=<nil>"+dd), true)

	// Without synonyms the source still follows the first layer.
	got = f.call(dcReq(1, false, dcRes(brokerRes, "3000", "log.retention.ms"))).(*kmsg.DescribeConfigsResponse)
	if c := got.Resources[0].Configs; len(c) != 1 || ptr(c[0].Value) != "7" || c[0].Source != 2 || len(c[0].ConfigSynonyms) != 0 {
		t.Errorf("v1 without synonyms: %+v", c)
	}
}

// TestDescribeConfigsBrokerResourceNames: the names a broker resource may
// carry, at every version (Kafka's ZK broker describes "" and its own id
// only, apis.md §9.1), and their order among authorized and denied
// resources: a denied BROKER resource answers CLUSTER_AUTHORIZATION_FAILED
// with the default message, whatever its name, after the authorized ones.
func TestDescribeConfigsBrokerResourceNames(t *testing.T) {
	f := newFixture(t, hcfgDescribeView(), func(o *Options) { o.Config.NodeID = selfID })
	for version := int16(0); version <= 4; version++ {
		got := f.call(dcReq(version, false,
			dcRes(brokerRes, "-1"),
			dcRes(brokerRes, "2147483648"),
			dcRes(brokerRes, " 3000"),
			dcRes(brokerRes, "3001"),
		)).(*kmsg.DescribeConfigsResponse)
		var have []string
		for _, r := range got.Resources {
			have = append(have, fmt.Sprintf("%s:%d:%s", r.ResourceName, r.ErrorCode, ptr(r.ErrorMessage)))
		}
		want := []string{
			"-1:42:Unexpected broker id, expected 3000 or empty string, but received -1",
			"2147483648:42:Broker id must be an integer, but it is: 2147483648",
			" 3000:42:Broker id must be an integer, but it is:  3000",
			"3001:42:Unexpected broker id, expected 3000 or empty string, but received 3001",
		}
		if !reflect.DeepEqual(have, want) {
			t.Errorf("v%d\n got %q\nwant %q", version, have, want)
		}
	}

	denied := newFixture(t, hcfgDescribeView(), func(o *Options) {
		o.Config.NodeID = selfID
		o.Authorizer = denyAuthz{deny(OpDescribeConfigs, ClusterResourceName): true}
	})
	got := denied.call(dcReq(4, false,
		dcRes(brokerRes, "1"),
		dcRes(topicRes, "foo", "retention.ms"),
		dcRes(brokerRes, ""),
		dcRes(topicRes, "missing"),
		dcRes(brokerRes, "x"),
	)).(*kmsg.DescribeConfigsResponse)
	var have []string
	for _, r := range got.Resources {
		have = append(have, fmt.Sprintf("%d/%s:%d:%s:%d", r.ResourceType, r.ResourceName, r.ErrorCode, ptr(r.ErrorMessage), len(r.Configs)))
	}
	want := []string{
		"2/foo:0::1",
		"2/missing:3::0",
		"4/1:31:Cluster authorization failed.:0",
		"4/:31:Cluster authorization failed.:0",
		"4/x:31:Cluster authorization failed.:0",
	}
	if !reflect.DeepEqual(have, want) {
		t.Errorf("denied broker resources\n got %q\nwant %q", have, want)
	}
}

// TestDescribeConfigsUnknownResourceTypeEveryVersion: a resource of a type
// Kafka does not know (0 UNKNOWN, 3) fails the whole request with
// INVALID_REQUEST at every version: every resource, valid ones included,
// answers it with no configs (apis.md §9.1, §1.2).
func TestDescribeConfigsUnknownResourceTypeEveryVersion(t *testing.T) {
	f := newFixture(t, hcfgDescribeView(), func(o *Options) { o.Config.NodeID = selfID })
	for version := int16(0); version <= 4; version++ {
		for _, typ := range []kmsg.ConfigResourceType{0, 3} {
			got := f.call(dcReq(version, true, dcRes(topicRes, "foo"), dcRes(typ, "x"), dcRes(brokerRes, ""))).(*kmsg.DescribeConfigsResponse)
			var have []string
			for _, r := range got.Resources {
				have = append(have, fmt.Sprintf("%d/%s:%d:%d", r.ResourceType, r.ResourceName, r.ErrorCode, len(r.Configs)))
			}
			want := []string{"2/foo:42:0", fmt.Sprintf("%d/x:42:0", typ), "4/:42:0"}
			if !reflect.DeepEqual(have, want) {
				t.Errorf("v%d type %d: %q, want %q", version, typ, have, want)
			}
		}
	}
}

// TestDescribeConfigsDocumentation: with IncludeDocumentation (v3+) each
// topic config carries kzadmin's documentation of it, and so do the
// broker configs kzadmin knows (its own keys, and the broker synonyms of
// topic configs); other broker configs have none. Without the flag, or
// before v3, every documentation is null.
func TestDescribeConfigsDocumentation(t *testing.T) {
	f := newFixture(t, hcfgDescribeView())
	f.admin.configs["brokers/<default>"] = map[string]string{"max.partitions": "10", "log.segment.bytes": "2000",
		"log.cleaner.threads": "2"}
	maxPartitionsDoc, _ := config.KeyDoc("max.partitions")
	if maxPartitionsDoc == "" {
		t.Fatal("max.partitions has no documentation")
	}
	segmentBytes, _ := zkadmin.LookupTopicConfig("segment.bytes")
	brokerDocs := map[string]string{"max.partitions": maxPartitionsDoc,
		"log.segment.bytes":   "The cluster-wide default of the topic config segment.bytes. " + segmentBytes.Doc(),
		"log.cleaner.threads": ""}
	for _, tc := range []struct {
		version int16
		docs    bool
		want    bool
	}{{2, true, false}, {3, true, true}, {4, true, true}, {4, false, false}} {
		req := dcReq(tc.version, false, dcRes(topicRes, "foo"), dcRes(brokerRes, ""))
		req.IncludeDocumentation = tc.docs
		got := f.call(req).(*kmsg.DescribeConfigsResponse)
		if len(got.Resources) != 2 || len(got.Resources[0].Configs) == 0 || len(got.Resources[1].Configs) == 0 {
			t.Fatalf("v%d: %+v", tc.version, got.Resources)
		}
		for _, c := range got.Resources[0].Configs {
			d, _ := zkadmin.LookupTopicConfig(c.Name)
			if tc.want && ptr(c.Documentation) != d.Doc() || !tc.want && c.Documentation != nil {
				t.Errorf("v%d docs=%v: topic config %s documented %q", tc.version, tc.docs, c.Name, ptr(c.Documentation))
			}
		}
		if len(got.Resources[1].Configs) != len(brokerDocs) {
			t.Errorf("v%d: broker configs %+v", tc.version, got.Resources[1].Configs)
		}
		for _, c := range got.Resources[1].Configs {
			want, known := brokerDocs[c.Name]
			if !known || !tc.want && c.Documentation != nil || tc.want && want == "" && c.Documentation != nil ||
				tc.want && want != "" && ptr(c.Documentation) != want {
				t.Errorf("v%d docs=%v: broker config %s documented %q, want %q", tc.version, tc.docs, c.Name, ptr(c.Documentation), want)
			}
		}
	}
}

// TestDescribeConfigsOwnIDStaticLayers: the node's own id lists its whole
// configuration as a Kafka broker lists its own: a dynamic override over
// the dynamic default over the value given at start-up
// (STATIC_BROKER_CONFIG) over the default (DEFAULT_CONFIG), the
// synonyms in that order; a key given at its default is still static; a
// key left unset has a null value; secrets are null everywhere;
// IsReadOnly is set for the keys kzadmind reads at start-up only (its
// AlterConfigs refuses them at its own id).
func TestDescribeConfigsOwnIDStaticLayers(t *testing.T) {
	f := newFixture(t, hcfgDescribeView(), func(o *Options) {
		o.Config.NodeID = selfID
		o.Config.NumPartitions = 4
		o.Config.Props = map[string]string{"ssl.key.password": "s3cret"}
		o.ConfigSources = map[string]config.Source{"node.id": config.SourceFile, "num.partitions": config.SourceEnv,
			"default.replication.factor": config.SourceFile, "ssl.key.password": config.SourceFile}
	})
	f.admin.configs["brokers/<default>"] = map[string]string{"max.partitions": "100"}
	f.admin.configs["brokers/3000"] = map[string]string{"max.partitions": "50"}
	got := f.call(dcReq(2, true, dcRes(brokerRes, "3000"))).(*kmsg.DescribeConfigsResponse)
	lines := hcfgConfigLines(got.Resources[0])
	const (
		db = "@DYNAMIC_BROKER_CONFIG"
		dd = "@DYNAMIC_DEFAULT_BROKER_CONFIG"
		st = "@STATIC_BROKER_CONFIG"
		df = "@DEFAULT_CONFIG"
	)
	want := map[string]string{
		"num.partitions": "num.partitions=4 src=4 type=0 ro=true sens=false doc=<nil> syn=[num.partitions=4" + st +
			" num.partitions=1" + df + "]",
		"default.replication.factor": "default.replication.factor=1 src=4 type=0 ro=true sens=false doc=<nil> " +
			"syn=[default.replication.factor=1" + st + " default.replication.factor=1" + df + "]",
		"max.partitions": "max.partitions=50 src=2 type=0 ro=false sens=false doc=<nil> syn=[max.partitions=50" + db +
			" max.partitions=100" + dd + " max.partitions=2147483647" + df + "]",
		"ssl.key.password":      "ssl.key.password=<nil> src=4 type=0 ro=true sens=true doc=<nil> syn=[ssl.key.password=<nil>" + st + "]",
		"ssl.keystore.location": "ssl.keystore.location=<nil> src=5 type=0 ro=true sens=false doc=<nil> syn=[]",
	}
	for name, w := range want {
		if lines[name] != w {
			t.Errorf("%s:\n got %s\nwant %s", name, lines[name], w)
		}
	}
	// v0 has no sources; IsReadOnly tells the static keys.
	got = f.call(dcReq(0, false, dcRes(brokerRes, "3000", "zookeeper.connect", "max.partitions"))).(*kmsg.DescribeConfigsResponse)
	ro := map[string]bool{}
	for _, c := range got.Resources[0].Configs {
		ro[c.Name] = c.ReadOnly
	}
	if !ro["zookeeper.connect"] || ro["max.partitions"] || len(ro) != 2 {
		t.Errorf("read-only flags %v, want zookeeper.connect only", ro)
	}
	// v3+ carries each key's type.
	got = f.call(dcReq(3, false, dcRes(brokerRes, "3000", "num.partitions", "auto.create.topics.enable",
		"ssl.key.password", "ssl.enabled.protocols", "zookeeper.connect", "max.partitions"))).(*kmsg.DescribeConfigsResponse)
	types := map[string]kmsg.ConfigType{}
	for _, c := range got.Resources[0].Configs {
		types[c.Name] = c.ConfigType
	}
	wantTypes := map[string]kmsg.ConfigType{"num.partitions": 3, "auto.create.topics.enable": 1, "ssl.key.password": 9,
		"ssl.enabled.protocols": 7, "zookeeper.connect": 2, "max.partitions": 3}
	if !reflect.DeepEqual(types, wantTypes) {
		t.Errorf("types %v, want %v", types, wantTypes)
	}
	// The cluster-wide default lists only the dynamic defaults.
	got = f.call(dcReq(2, true, dcRes(brokerRes, ""))).(*kmsg.DescribeConfigsResponse)
	if c := got.Resources[0].Configs; len(c) != 1 || c[0].Name != "max.partitions" {
		t.Errorf("the default lists %d configs: %+v", len(c), c)
	}
}

// TestConfigsAnsweringForAnotherBroker: handlers given Options.NodeID (a
// simulated broker of dev mode serving them) accept that id, and only it,
// as a BROKER resource, and describe it by its dynamic configs alone (no
// static or default synonyms): they know no configuration for it, and
// kzadmind's own keys are not its.
func TestConfigsAnsweringForAnotherBroker(t *testing.T) {
	sim := int32(1)
	f := newFixture(t, hcfgDescribeView(), func(o *Options) {
		o.Config.NodeID = selfID
		o.NodeID = &sim
	})
	f.admin.configs["brokers/<default>"] = map[string]string{"max.partitions": "100"}
	f.admin.configs["brokers/1"] = map[string]string{"log.cleaner.threads": "2"}
	got := f.call(dcReq(2, true, dcRes(brokerRes, "1"))).(*kmsg.DescribeConfigsResponse)
	lines := hcfgConfigLines(got.Resources[0])
	want := map[string]string{
		"log.cleaner.threads": "log.cleaner.threads=2 src=2 type=0 ro=false sens=false doc=<nil> " +
			"syn=[log.cleaner.threads=2@DYNAMIC_BROKER_CONFIG]",
		"max.partitions": "max.partitions=100 src=3 type=0 ro=false sens=false doc=<nil> " +
			"syn=[max.partitions=100@DYNAMIC_DEFAULT_BROKER_CONFIG]",
	}
	if !reflect.DeepEqual(lines, want) {
		t.Errorf("broker 1 described as:\n%v\nwant\n%v", lines, want)
	}
	got = f.call(dcReq(2, false, dcRes(brokerRes, "3000"))).(*kmsg.DescribeConfigsResponse)
	if r := got.Resources[0]; r.ErrorCode != kerr.InvalidRequest.Code ||
		ptr(r.ErrorMessage) != "Unexpected broker id, expected 1 or empty string, but received 3000" {
		t.Errorf("describe broker 3000: %d %s", r.ErrorCode, ptr(r.ErrorMessage))
	}
	const set = kmsg.IncrementalAlterConfigOpSet
	have := hcfgIncrementalResults(f.call(iacReq(iacRes(brokerRes, "1", iop{"log.cleaner.threads", set, sp("3")}),
		iacRes(brokerRes, "3000", iop{"log.cleaner.threads", set, sp("3")}))).(*kmsg.IncrementalAlterConfigsResponse))
	wantAlter := []string{"4/1:0:<nil>", "4/3000:42:Unexpected broker id, expected 1, but received 3000"}
	if !reflect.DeepEqual(have, wantAlter) {
		t.Errorf("alter: %q, want %q", have, wantAlter)
	}
	if c := f.admin.configs["brokers/1"]; c["log.cleaner.threads"] != "3" {
		t.Errorf("broker 1's configs after the alter: %v", c)
	}
}
