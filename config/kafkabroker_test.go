package config

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// The tables pin well-known members of each set, and their shape: every
// dynamic config is a known one, the two dynamic levels do not overlap,
// and the per-broker, SSL, password and list configs are known.
func TestKafkaBrokerConfigTables(t *testing.T) {
	sets := kafkaBrokerSets()
	if n := len(sets.known); n != 328 || n != len(kafkaBrokerConfigNames) {
		t.Errorf("%d known configs (%d listed), want 328 distinct", n, len(kafkaBrokerConfigNames))
	}
	if n := len(sets.dynamic); n != 89 || len(kafkaClusterWideConfigNames) != 52 || len(kafkaPerBrokerConfigNames) != 37 {
		t.Errorf("%d dynamic (%d cluster-wide + %d per broker), want 89 = 52 + 37", n,
			len(kafkaClusterWideConfigNames), len(kafkaPerBrokerConfigNames))
	}
	for _, tc := range []struct {
		list []string
		what string
	}{
		{kafkaClusterWideConfigNames, "cluster-wide"}, {kafkaPerBrokerConfigNames, "per-broker"},
		{kafkaListenerSecurityConfigNames, "SSL"}, {kafkaPasswordConfigNames, "password"}, {kafkaListConfigNames, "list"},
		{kafkaClusterLevelListenerConfigNames, "cluster-level listener"},
	} {
		for _, n := range tc.list {
			if !IsKafkaBrokerConfig(n) {
				t.Errorf("%s config %s is not a known config", tc.what, n)
			}
		}
		if !slices.IsSorted(tc.list) {
			t.Errorf("%s configs are not sorted", tc.what)
		}
	}
	for _, n := range kafkaClusterWideConfigNames {
		if IsKafkaPerBrokerConfig(n) {
			t.Errorf("%s is both cluster-wide and per-broker", n)
		}
	}
	for n := range kafkaDynamicListDefaults {
		if !IsKafkaListBrokerConfig(n) || !IsKafkaDynamicBrokerConfig(n) {
			t.Errorf("list default for %s, not a dynamic list config", n)
		}
	}
	members := map[string][3]bool{ // known, dynamic, per broker
		"broker.id": {true, false, false}, "zookeeper.connect": {true, false, false},
		"log.retention.hours": {true, false, false}, "log.dirs": {true, false, false},
		"num.partitions": {true, false, false}, "auto.leader.rebalance.enable": {true, false, false},
		"log.retention.ms": {true, true, false}, "min.insync.replicas": {true, true, false},
		"unclean.leader.election.enable": {true, true, false}, "max.connections": {true, true, false},
		"num.io.threads": {true, true, false}, "metric.reporters": {true, true, false},
		"listeners": {true, true, true}, "ssl.keystore.location": {true, true, true},
		"sasl.jaas.config": {true, true, true}, "sasl.enabled.mechanisms": {true, true, true},
		"max.partitions": {}, "max.broker.partitions": {}, "leader.replication.throttled.rate": {},
	}
	for n, want := range members {
		got := [3]bool{IsKafkaBrokerConfig(n), IsKafkaDynamicBrokerConfig(n), IsKafkaPerBrokerConfig(n)}
		if got != want {
			t.Errorf("%s: known, dynamic, per broker = %v, want %v", n, got, want)
		}
	}
}

// CheckKafkaBrokerConfigs: Kafka's checks in Kafka's order, with the
// value check between the SSL check and the default-level one; custom
// names and kzadmin's own dynamic keys pass.
func TestCheckKafkaBrokerConfigs(t *testing.T) {
	const badValue = "Invalid value abc for configuration log.cleaner.threads: Not a number of type INT"
	for _, tc := range []struct {
		keys      string
		perBroker bool
		bad       bool // log.cleaner.threads=abc, or under the listener prefix
		want      string
	}{
		{"max.partitions max.broker.partitions custom.thing log.retention.ms", false, false, ""},
		{"auto.leader.rebalance.enable leader.imbalance.per.broker.percentage", false, false, ""},
		{"log.retention.hours ssl.key.password listeners log.cleaner.threads", false, true, "Cannot update these configs dynamically"},
		{"ssl.key.password listeners log.cleaner.threads", false, true, "These security configs"},
		{"listener.name.x.ssl.key.password listeners log.cleaner.threads", false, true, badValue},
		{"listener.name.x.ssl.key.password listeners listener.name.x.log.cleaner.threads", true, true, badValue},
		{"listener.name.x.ssl.key.password listeners", false, false, "Cannot update these configs at default cluster level"},
		{"listener.name.x.ssl.key.password listeners", true, false, ""},
		{"listener.name.x.max.connections listener.name.x.num.network.threads", false, false, ""},
		{"listener.name.x.foo", false, false, "Cannot update these configs at default cluster level"},
	} {
		names := strings.Fields(tc.keys)
		values := map[string]string{}
		for _, n := range names {
			values[n] = "1"
			if tc.bad && strings.HasSuffix(n, "log.cleaner.threads") {
				values[n] = "abc"
			}
		}
		err := CheckKafkaBrokerConfigs(names, values, tc.perBroker)
		if (err == nil) != (tc.want == "") || (err != nil && !strings.HasPrefix(err.Error(), tc.want)) {
			t.Errorf("%s (perBroker=%v): %v, want %q", tc.keys, tc.perBroker, err, tc.want)
		}
	}
}

// KafkaDroppedBrokerConfigs drops what a broker ignores by name, and the
// values it refuses (each one checked on its own, a listener-prefixed
// one as its base config).
func TestKafkaDroppedBrokerConfigs(t *testing.T) {
	keys := []string{"log.retention.hours", "log.retention.ms", "ssl.keystore.type", "listener.name.x.ssl.keystore.type",
		"listeners", "listener.name.x.max.connections", "my.ssl.key.password", "max.partitions",
		"auto.leader.rebalance.enable", "custom"}
	values := map[string]string{}
	for _, k := range keys {
		values[k] = "1"
	}
	want := []string{"log.retention.hours", "ssl.keystore.type", "listener.name.x.ssl.keystore.type", "listeners",
		"my.ssl.key.password"}
	if got := KafkaDroppedBrokerConfigs(keys, values, false); !reflect.DeepEqual(got, want) {
		t.Errorf("default:\n got %q\nwant %q", got, want)
	}
	want = []string{"log.retention.hours", "ssl.keystore.type", "my.ssl.key.password"}
	if got := KafkaDroppedBrokerConfigs(keys, values, true); !reflect.DeepEqual(got, want) {
		t.Errorf("per broker:\n got %q\nwant %q", got, want)
	}
	values["log.retention.ms"], values["listener.name.x.max.connections"], values["custom"] = "abc", "-1", "abc"
	want = []string{"log.retention.hours", "log.retention.ms", "ssl.keystore.type", "listener.name.x.max.connections",
		"my.ssl.key.password"}
	if got := KafkaDroppedBrokerConfigs(keys, values, true); !reflect.DeepEqual(got, want) {
		t.Errorf("bad values:\n got %q\nwant %q", got, want)
	}
}

func TestKafkaBrokerConfigHelpers(t *testing.T) {
	for name, want := range map[string]bool{"ssl.key.password": true, "listener.name.x.ssl.keystore.password": true,
		"listener.name.x.plain.sasl.jaas.config": true, "foo.password": false, "zookeeper.ssl.keystore.password": true} {
		if got := IsKafkaPasswordConfig(name); got != want {
			t.Errorf("IsKafkaPasswordConfig(%s) = %v", name, got)
		}
	}
	for name, want := range map[string]string{"listener.name.x.ssl.protocol": "ssl.protocol", "listener.name..a.b": "a.b",
		"listener.name.x": "listener.name.x", "ssl.protocol": "ssl.protocol"} {
		if got := KafkaBaseConfigName(name); got != want {
			t.Errorf("KafkaBaseConfigName(%s) = %s, want %s", name, got, want)
		}
	}
	if !IsKafkaListBrokerConfig("metric.reporters") || IsKafkaListBrokerConfig("log.retention.ms") ||
		KafkaBrokerListDefault("sasl.enabled.mechanisms") != "GSSAPI" {
		t.Error("list configs")
	}
}
