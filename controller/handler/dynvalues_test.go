package handler

import (
	"reflect"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/znodes"
)

// The tests in this file pin how the alter APIs check the values of a
// BROKER resource's configs, as a Kafka 3.9 broker does
// (DynamicBrokerConfig.validateConfigs → validateConfigTypes →
// DynamicConfig.Broker.validate): each config Kafka takes dynamically is
// parsed with its ConfigDef type and checked with its validator, a
// listener-prefixed one as its base config; IncrementalAlterConfigs checks
// the configs the entity would hold after its operations, without the
// stored values a broker ignores. The messages were checked against the
// kafka_2.13-3.9.1 jar.

const dvDenied = "31:<nil>"

// dvInvalid is Kafka's refusal of a value, as the tests render it.
func dvInvalid(value, name, reason string) string {
	return "42:Invalid value " + value + " for configuration " + name + ": " + reason
}

// dvIncremental sends one IncrementalAlterConfigs resource, validate_only
// or not, and renders its answer.
func dvIncremental(f *fixture, validateOnly bool, name string, ops ...iop) []string {
	f.t.Helper()
	req := iacReq(iacRes(brokerRes, name, ops...))
	req.ValidateOnly = validateOnly
	return hcfgIncrementalResults(f.call(req).(*kmsg.IncrementalAlterConfigsResponse))
}

// TestDynValuesRefusedBeforeAuthorization: a bad value of a config Kafka
// takes dynamically is refused before authorization, with Kafka's
// message, by both APIs, at the default and at the controller's own id;
// values Kafka's types and validators take pass to authorization, among
// them a few kzadmin used to refuse with the topic configs' validators
// (log.flush.interval.ms=-1, log.retention.ms=-5). Nothing is written.
func TestDynValuesRefusedBeforeAuthorization(t *testing.T) {
	f := newFixture(t, baseView(), func(o *Options) {
		o.Config.NodeID = selfID
		o.Authorizer = denyAuthz{deny(OpAlterConfigs, ClusterResourceName): true}
	})
	for _, tc := range []struct {
		name string
		kv   []string
		want string
	}{
		{"", []string{"log.cleaner.threads", "abc"}, dvInvalid("abc", "log.cleaner.threads", "Not a number of type INT")},
		{"", []string{"log.cleaner.threads", "-1"}, dvInvalid("-1", "log.cleaner.threads", "Value must be at least 0")},
		{"3000", []string{"num.io.threads", " 0 "}, dvInvalid("0", "num.io.threads", "Value must be at least 1")},
		{"", []string{"compression.type", "brotli"}, dvInvalid("brotli", "compression.type",
			"String must be one of: uncompressed, zstd, lz4, snappy, gzip, producer")},
		{"", []string{"log.cleaner.min.cleanable.ratio", "2"}, dvInvalid("2.0", "log.cleaner.min.cleanable.ratio",
			"Value must be no more than 1")},
		{"", []string{"unclean.leader.election.enable", "yes"}, dvInvalid("yes", "unclean.leader.election.enable",
			"Expected value to be either true or false")},
		{"", []string{"compression.gzip.level", "0"}, dvInvalid("0", "compression.gzip.level",
			"Value must be between 1 and 9 or equal to -1")},
		{"", []string{"leader.replication.throttled.rate", "-1"}, dvInvalid("-1", "leader.replication.throttled.rate",
			"Value must be at least 0")},
		{"3000", []string{"sasl.login.refresh.buffer.seconds", "40000"}, dvInvalid("40000",
			"sasl.login.refresh.buffer.seconds", "Not a number of type SHORT")},
		{"3000", []string{"listener.name.internal.ssl.client.auth", "maybe"}, dvInvalid("maybe", "ssl.client.auth",
			"String must be one of: required, requested, none")},
		{"3000", []string{"principal.builder.class", " "}, dvInvalid(" ", "principal.builder.class", "Class   could not be found.")},
		// Of several bad values, the first in Kafka's ConfigDef order.
		{"", []string{"log.cleaner.min.cleanable.ratio", "2", "log.preallocate", "maybe"}, dvInvalid("maybe",
			"log.preallocate", "Expected value to be either true or false")},
		{"", []string{"log.flush.interval.ms", "-1", "log.retention.ms", "-5", "num.replica.fetchers", "0",
			"log.cleanup.policy", "", "log.cleaner.io.max.bytes.per.second", "1e400", "metric.reporters", "a.B, c.D"}, dvDenied},
		{"3000", []string{"principal.builder.class", "org.example.Builder", "sasl.kerberos.kinit.cmd", " "}, dvDenied},
	} {
		want := []string{"4/" + tc.name + ":" + tc.want}
		legacy, incremental := dbBoth(f, tc.name, tc.kv...)
		if !reflect.DeepEqual(legacy, want) {
			t.Errorf("AlterConfigs %q %q:\n got %q\nwant %q", tc.name, tc.kv, legacy, want)
		}
		if !reflect.DeepEqual(incremental, want) {
			t.Errorf("IncrementalAlterConfigs %q %q:\n got %q\nwant %q", tc.name, tc.kv, incremental, want)
		}
	}
	if len(f.admin.alters) != 0 {
		t.Errorf("written: %+v", f.admin.alters)
	}
}

// TestDynValuesOrderAmongChecks: the value check comes where Kafka's
// validateConfigs makes it: after the refusal of configs Kafka does not
// take dynamically and of unprefixed SSL configs, before the refusal of
// per-broker configs at the default; a listener-prefixed value is checked
// as its base config's even where the prefix is refused afterwards.
func TestDynValuesOrderAmongChecks(t *testing.T) {
	f := newFixture(t, baseView(), func(o *Options) { o.Config.NodeID = selfID })
	const threads = "Invalid value abc for configuration log.cleaner.threads: Not a number of type INT"
	for _, tc := range []struct {
		name string
		kv   []string
		want string
	}{
		{"", []string{"log.cleaner.threads", "abc", "log.retention.hours", "1"},
			"42:Cannot update these configs dynamically: Set(log.retention.hours)"},
		{"3000", []string{"log.cleaner.threads", "abc", "ssl.keystore.type", "JKS"}, "42:These security configs can be " +
			"dynamically updated only per-listener using the listener prefix: HashSet(ssl.keystore.type)"},
		{"", []string{"log.cleaner.threads", "abc", "listeners", "PLAINTEXT://:9092"}, "42:" + threads},
		{"", []string{"listener.name.internal.log.cleaner.threads", "abc"}, "42:" + threads},
		{"", []string{"listener.name.internal.log.cleaner.threads", "2"}, "42:Cannot update these configs at default " +
			"cluster level, broker id must be specified: Set(listener.name.internal.log.cleaner.threads)"},
		{"", []string{"listener.name.internal.max.connections", "-1"}, dvInvalid("-1", "max.connections", "Value must be at least 0")},
	} {
		want := []string{"4/" + tc.name + ":" + tc.want}
		legacy, incremental := dbBoth(f, tc.name, tc.kv...)
		if !reflect.DeepEqual(legacy, want) || !reflect.DeepEqual(incremental, want) {
			t.Errorf("%q %q:\n got %q and %q\nwant %q", tc.name, tc.kv, legacy, incremental, want)
		}
	}
	if len(f.admin.alters) != 0 {
		t.Errorf("written: %+v", f.admin.alters)
	}
}

// TestDynValuesIncrementalResultingSet: IncrementalAlterConfigs checks
// the values the entity would hold after its operations (an APPEND
// making a bad list, a SET over a stored value), and a stored value
// Kafka's types refuse (a broker ignores it) is left out of that set and
// dropped from ZooKeeper when the entity is rewritten, not with
// validate_only.
func TestDynValuesIncrementalResultingSet(t *testing.T) {
	f, e := p4ZK(t, nil)
	defaults := func() map[string]string { return e.zkConfig(znodes.EntityBrokers, znodes.DefaultEntityName) }
	got := dvIncremental(f, false, "", iop{"log.cleanup.policy", dbApp, sp("gone")})
	if want := []string{"4/:" + dvInvalid("gone", "log.cleanup.policy", "String must be one of: compact, delete")}; !reflect.DeepEqual(got, want) {
		t.Errorf("APPEND to the default list: %q, want %q", got, want)
	}
	got = dvIncremental(f, false, "", iop{"log.cleanup.policy", dbApp, sp("compact")}, iop{"log.flush.interval.ms", dbSet, sp("-1")})
	want := map[string]string{"log.cleanup.policy": "delete,compact", "log.flush.interval.ms": "-1"}
	if !reflect.DeepEqual(got, []string{"4/:0:<nil>"}) || !reflect.DeepEqual(defaults(), want) {
		t.Errorf("good values: %q, ZooKeeper %v", got, defaults())
	}

	// Stored bad values, as another tool could write them: Kafka drops
	// them, and the change is checked without them.
	dbWriteRaw(e, znodes.DefaultEntityName, map[string]string{"log.cleaner.threads": "abc", "log.cleanup.policy": "delete,gone",
		"listener.name.internal.max.connections": "x", "custom.key": "v"})
	got = dvIncremental(f, true, "", iop{"log.cleaner.backoff.ms", dbSet, sp("20000")})
	stored := map[string]string{"log.cleaner.threads": "abc", "log.cleanup.policy": "delete,gone",
		"listener.name.internal.max.connections": "x", "custom.key": "v"}
	if !reflect.DeepEqual(got, []string{"4/:0:<nil>"}) || !reflect.DeepEqual(defaults(), stored) {
		t.Errorf("validate_only over bad stored values: %q, ZooKeeper %v", got, defaults())
	}
	got = dvIncremental(f, false, "", iop{"log.cleanup.policy", dbApp, sp("compact")})
	want = map[string]string{"log.cleanup.policy": "delete,compact", "custom.key": "v"}
	if !reflect.DeepEqual(got, []string{"4/:0:<nil>"}) || !reflect.DeepEqual(defaults(), want) {
		t.Errorf("APPEND over a dropped bad list: %q, ZooKeeper\n got %v\nwant %v", got, defaults(), want)
	}
	got = dvIncremental(f, false, "", iop{"log.cleanup.policy", dbSub, sp("delete")}, iop{"log.cleaner.threads", dbSet, sp("-3")})
	if want := []string{"4/:" + dvInvalid("-3", "log.cleaner.threads", "Value must be at least 0")}; !reflect.DeepEqual(got, want) {
		t.Errorf("SUBTRACT and a bad SET: %q, want %q", got, want)
	}

	// Per broker: a stored listener-prefixed bad value is dropped too.
	dbWriteRaw(e, "3000", map[string]string{"listener.name.internal.max.connections": "x", "num.io.threads": "4"})
	got = dvIncremental(f, false, "3000", iop{"listener.name.internal.ssl.client.auth", dbSet, sp("required")})
	own := map[string]string{"num.io.threads": "4", "listener.name.internal.ssl.client.auth": "required"}
	if zk := e.zkConfig(znodes.EntityBrokers, "3000"); !reflect.DeepEqual(got, []string{"4/3000:0:<nil>"}) || !reflect.DeepEqual(zk, own) {
		t.Errorf("per broker: %q, ZooKeeper %v", got, zk)
	}
}

// TestDynValuesLegacyReplaces: AlterConfigs replaces the entity's
// configs, so only the request's values are checked: a stored bad value
// neither refuses it nor survives it.
func TestDynValuesLegacyReplaces(t *testing.T) {
	f, e := p4ZK(t, nil)
	dbWriteRaw(e, znodes.DefaultEntityName, map[string]string{"log.cleaner.threads": "abc"})
	got := p4Alter(f, false, acRes(brokerRes, "", sp("log.cleaner.threads"), sp("2"), sp("log.retention.ms"), sp("-5")))
	want := map[string]string{"log.cleaner.threads": "2", "log.retention.ms": "-5"}
	if zk := e.zkConfig(znodes.EntityBrokers, znodes.DefaultEntityName); !reflect.DeepEqual(got, []string{"4/:0:<nil>"}) ||
		!reflect.DeepEqual(zk, want) {
		t.Errorf("over a bad stored value: %q, ZooKeeper %v", got, zk)
	}
	got = p4Alter(f, false, acRes(brokerRes, "", sp("log.cleaner.threads"), sp("x")))
	if w := []string{"4/:" + dvInvalid("x", "log.cleaner.threads", "Not a number of type INT")}; !reflect.DeepEqual(got, w) {
		t.Errorf("bad value: %q, want %q", got, w)
	}
	if zk := e.zkConfig(znodes.EntityBrokers, znodes.DefaultEntityName); !reflect.DeepEqual(zk, want) {
		t.Errorf("refused change written: %v", zk)
	}
}
