package config

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// The table of types: 92 configs, the 89 dynamic ones and the 3 broker
// quota configs; its LIST and PASSWORD configs are the ones the name
// lists say; and its order is a java.util.HashMap's of 128 buckets (the
// bucket of each name's hash never goes down), as Kafka's is.
func TestKafkaBrokerTypeTable(t *testing.T) {
	defs := kafkaDynamicBrokerConfigDefs
	names := map[string]bool{}
	for i, d := range defs {
		if names[d.name] {
			t.Errorf("%s twice", d.name)
		}
		names[d.name] = true
		quota := i < 3
		if quota == IsKafkaDynamicBrokerConfig(d.name) {
			t.Errorf("row %d %s: dynamic = %v", i, d.name, !quota)
		}
		if (d.typ == kafkaList) != IsKafkaListBrokerConfig(d.name) {
			t.Errorf("%s: LIST = %v, the list of LIST configs says otherwise", d.name, d.typ == kafkaList)
		}
		if (d.typ == kafkaPassword) != slices.Contains(kafkaPasswordConfigNames, d.name) {
			t.Errorf("%s: PASSWORD = %v, the list of password configs says otherwise", d.name, d.typ == kafkaPassword)
		}
		if i > 3 && javaSpread(d.name)&127 < javaSpread(defs[i-1].name)&127 {
			t.Errorf("row %d %s: out of HashMap order", i, d.name)
		}
	}
	if len(defs) != 92 || len(names) != 92 || len(kafkaBrokerSets().dynamic) != 89 {
		t.Errorf("%d rows, %d names; want 92 = 89 dynamic + 3 quota", len(defs), len(names))
	}
	for _, q := range []string{"leader.replication.throttled.rate", "follower.replication.throttled.rate",
		"replica.alter.log.dirs.io.max.bytes.per.second"} {
		if !names[q] {
			t.Errorf("quota config %s missing", q)
		}
	}
}

// Each row's answer is the kafka_2.13-3.9.1 jar's
// (DynamicConfig.Broker.validate of that one config), but for the class
// name, which kzadmin cannot load.
func TestKafkaBrokerValues(t *testing.T) {
	for _, tc := range []struct{ name, value, want string }{
		{"leader.replication.throttled.rate", "-1", "Invalid value -1 for configuration leader.replication.throttled.rate: Value must be at least 0"},
		{"log.flush.interval.messages", "0", "Invalid value 0 for configuration log.flush.interval.messages: Value must be at least 1"},
		{"log.local.retention.ms", "-3", "Invalid value -3 for configuration log.local.retention.ms: Value must be at least -2"},
		{"principal.builder.class", " ", "Invalid value   for configuration principal.builder.class: Class   could not be found."},
		{"principal.builder.class", "org.example.Foo", ""}, // Kafka: Class org.example.Foo could not be found.
		{"log.flush.interval.ms", "-1", ""},
		{"log.retention.ms", "-3", ""},
		{"log.retention.ms", "9223372036854775808", "Invalid value 9223372036854775808 for configuration log.retention.ms: Not a number of type LONG"},
		{"num.replica.fetchers", "0", ""},
		{"compression.lz4.level", "18", "Invalid value 18 for configuration compression.lz4.level: Value must be no more than 17"},
		{"compression.zstd.level", "-131073", "Invalid value -131073 for configuration compression.zstd.level: Value must be at least -131072"},
		{"compression.gzip.level", "-1", ""},
		{"compression.gzip.level", "0", "Invalid value 0 for configuration compression.gzip.level: Value must be between 1 and 9 or equal to -1"},
		{"compression.gzip.level", "10", "Invalid value 10 for configuration compression.gzip.level: Value must be between 1 and 9 or equal to -1"},
		{"log.cleanup.policy", "", ""},
		{"log.cleanup.policy", " compact\t,\tdelete ", ""},
		{"log.cleanup.policy", "compact,", "Invalid value  for configuration log.cleanup.policy: String must be one of: compact, delete"},
		{"log.cleanup.policy", "Compact", "Invalid value Compact for configuration log.cleanup.policy: String must be one of: compact, delete"},
		{"log.preallocate", "TRUE ", ""},
		{"log.preallocate", "\ttrue\n", ""},
		{"unclean.leader.election.enable", "False", ""},
		{"log.preallocate", "yes", "Invalid value yes for configuration log.preallocate: Expected value to be either true or false"},
		{"sasl.login.refresh.buffer.seconds", "-1", ""},
		{"sasl.login.refresh.buffer.seconds", "32768", "Invalid value 32768 for configuration sasl.login.refresh.buffer.seconds: Not a number of type SHORT"},
		{"compression.type", " GZIP", "Invalid value GZIP for configuration compression.type: String must be one of: uncompressed, zstd, lz4, snappy, gzip, producer"},
		{"ssl.client.auth", "NONE", "Invalid value NONE for configuration ssl.client.auth: String must be one of: required, requested, none"},
		{"log.message.timestamp.type", "createtime", "Invalid value createtime for configuration log.message.timestamp.type: String must be one of: CreateTime, LogAppendTime"},
		{"log.cleaner.threads", "abc", "Invalid value abc for configuration log.cleaner.threads: Not a number of type INT"},
		{"log.cleaner.threads", "", "Invalid value  for configuration log.cleaner.threads: Not a number of type INT"},
		{"log.cleaner.threads", " 5 ", ""},
		{"log.cleaner.threads", "+5", ""},
		{"log.cleaner.threads", "-1", "Invalid value -1 for configuration log.cleaner.threads: Value must be at least 0"},
		{"log.cleaner.threads", "2147483648", "Invalid value 2147483648 for configuration log.cleaner.threads: Not a number of type INT"},
		{"log.cleaner.threads", "-", "Invalid value - for configuration log.cleaner.threads: Not a number of type INT"},
		{"log.cleaner.threads", "٣", ""},  // ARABIC-INDIC DIGIT THREE
		{"log.cleaner.threads", "１２", ""}, // fullwidth
		{"log.cleaner.threads", "𝟓", "Invalid value 𝟓 for configuration log.cleaner.threads: Not a number of type INT"},
		{"max.connections", "x\u0085", "Invalid value x\u0085 for configuration max.connections: Not a number of type INT"},
		{"max.connections", "\u00a05", "Invalid value \u00a05 for configuration max.connections: Not a number of type INT"},
		{"log.cleaner.io.max.bytes.per.second", "1e400", ""},
		{"log.cleaner.min.cleanable.ratio", "NaN", ""},
		{"log.cleaner.min.cleanable.ratio", "2", "Invalid value 2.0 for configuration log.cleaner.min.cleanable.ratio: Value must be no more than 1"},
		{"log.cleaner.min.cleanable.ratio", "2147483647", "Invalid value 2.147483647E9 for configuration log.cleaner.min.cleanable.ratio: Value must be no more than 1"},
		{"log.cleaner.min.cleanable.ratio", "-0.001", "Invalid value -0.001 for configuration log.cleaner.min.cleanable.ratio: Value must be at least 0"},
		{"log.cleaner.min.cleanable.ratio", "1e10", "Invalid value 1.0E10 for configuration log.cleaner.min.cleanable.ratio: Value must be no more than 1"},
		{"log.cleaner.min.cleanable.ratio", "-Infinity", "Invalid value -Infinity for configuration log.cleaner.min.cleanable.ratio: Value must be at least 0"},
		{"log.cleaner.min.cleanable.ratio", "inf", "Invalid value inf for configuration log.cleaner.min.cleanable.ratio: Not a number of type DOUBLE"},
		{"log.cleaner.min.cleanable.ratio", "0x1p3", "Invalid value 8.0 for configuration log.cleaner.min.cleanable.ratio: Value must be no more than 1"},
		{"log.cleaner.min.cleanable.ratio", "2.5F", "Invalid value 2.5 for configuration log.cleaner.min.cleanable.ratio: Value must be no more than 1"},
		{"log.cleaner.min.cleanable.ratio", "1_0", "Invalid value 1_0 for configuration log.cleaner.min.cleanable.ratio: Not a number of type DOUBLE"},
		{"ssl.key.password", " ", ""},
		{"listeners", "a b", ""},
		{"max.partitions", "abc", ""}, // not Kafka's: a custom config to it
	} {
		got := ""
		if err := ValidateKafkaBrokerValues(map[string]string{tc.name: tc.value}); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s=%q:\n got %q\nwant %q", tc.name, tc.value, got, tc.want)
		}
	}
}

// Several bad values: the first in the ConfigDef's order is reported,
// whatever the request's order. A change's listener-prefixed config is
// checked as its base config, and of a config and its prefixed forms the
// last in Kafka's Properties order wins; a complete stored set is checked
// by name as it is. Checked against the 3.9.1 jar.
func TestKafkaBrokerValuesOrder(t *testing.T) {
	const threads = "Invalid value abc for configuration log.cleaner.threads: Not a number of type INT"
	const preallocate = "Invalid value maybe for configuration log.preallocate: Expected value to be either true or false"
	const conns = "Invalid value abc for configuration max.connections: Not a number of type INT"
	for _, tc := range []struct {
		kv   string // name=value ..., in request order
		raw  bool   // ValidateKafkaBrokerValues rather than CheckKafkaBrokerConfigs
		want string
	}{
		{"log.cleaner.min.cleanable.ratio=2 log.cleaner.threads=abc", false, threads},
		{"log.cleaner.threads=abc log.cleaner.min.cleanable.ratio=2", true, threads},
		{"log.cleaner.min.cleanable.ratio=2 log.preallocate=maybe", false, preallocate},
		{"listener.name.x.max.connections=abc", false, conns},
		{"listener.name.x.max.connections=abc", true, ""},
		{"listener.name.x.max.connections=abc max.connections=5", false, ""},
		{"max.connections=abc listener.name.x.max.connections=5", false, conns},
		{"listener.name.a.max.connections=abc listener.name.b.max.connections=5", false, ""},
		{"listener.name.a.max.connections=5 listener.name.b.max.connections=abc", false, conns},
	} {
		var names []string
		values := map[string]string{}
		for _, f := range strings.Fields(tc.kv) {
			k, v, _ := strings.Cut(f, "=")
			names = append(names, k)
			values[k] = v
		}
		err := CheckKafkaBrokerConfigs(names, values, true)
		if tc.raw {
			err = ValidateKafkaBrokerValues(values)
		}
		if got := errString(err); got != tc.want {
			t.Errorf("%s (raw %v):\n got %q\nwant %q", tc.kv, tc.raw, got, tc.want)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// Double.toString's two notations, as Java 17 prints these values.
func TestJavaDoubleString(t *testing.T) {
	for f, want := range map[float64]string{
		0: "0.0", math.Copysign(0, -1): "-0.0", 1: "1.0", 0.5: "0.5", 0.001: "0.001", 0.0001: "1.0E-4",
		9999999: "9999999.0", 1e7: "1.0E7", 1.5e300: "1.5E300", -2.5e-9: "-2.5E-9", math.MaxFloat64: "1.7976931348623157E308",
		math.Inf(1): "Infinity", math.NaN(): "NaN",
	} {
		if got := javaDoubleString(f); got != want {
			t.Errorf("javaDoubleString(%v) = %s, want %s", f, got, want)
		}
	}
}
