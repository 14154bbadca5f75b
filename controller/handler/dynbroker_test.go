package handler

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// The tests in this file pin how the alter APIs take BROKER resources, as
// a Kafka 3.9 broker does (ConfigAdminManager.preprocess,
// DynamicBrokerConfig.validateConfigs and fromPersistentProps,
// ZkAdminManager.alterBrokerConfigs): configs Kafka does not take
// dynamically are refused before authorization, with Kafka's messages.

const (
	dbSet = kmsg.IncrementalAlterConfigOpSet
	dbDel = kmsg.IncrementalAlterConfigOpDelete
	dbApp = kmsg.IncrementalAlterConfigOpAppend
	dbSub = kmsg.IncrementalAlterConfigOpSubtract
)

// dbWriteRaw writes a broker entity's configs straight into ZooKeeper, as
// another tool could, bypassing every check.
func dbWriteRaw(e *e2e, entity string, cfg map[string]string) {
	e.t.Helper()
	data, err := znodes.EntityConfig{Config: cfg}.Encode()
	if err != nil {
		e.t.Fatal(err)
	}
	path := znodes.ConfigEntityPath(znodes.EntityBrokers, entity)
	if _, err = e.zk.Set(e.ctx, path, data, -1); errors.Is(err, zkadmin.ErrNoNode) {
		_, err = e.zk.Create(e.ctx, path, data, zkadmin.Persistent)
	}
	if err != nil {
		e.t.Fatal(err)
	}
}

// dbBoth sends the configs as one legacy AlterConfigs resource and as one
// IncrementalAlterConfigs resource of SETs, and returns both answers.
func dbBoth(f *fixture, name string, kv ...string) (legacy, incremental []string) {
	f.t.Helper()
	var ac []*string
	var ops []iop
	for i := 0; i+1 < len(kv); i += 2 {
		ac = append(ac, sp(kv[i]), sp(kv[i+1]))
		ops = append(ops, iop{kv[i], dbSet, sp(kv[i+1])})
	}
	return p4Alter(f, false, acRes(brokerRes, name, ac...)), p4Incremental(f, iacRes(brokerRes, name, ops...))
}

// TestDynBrokerRefusedBeforeAuthorization: a principal without
// ALTER_CONFIGS on the cluster still gets Kafka's refusals of configs a
// broker does not take dynamically (known static configs; SSL configs
// without a listener prefix; bad values; per-broker configs at the
// default), for both APIs, names listed in Kafka's order; configs Kafka
// takes, custom ones and kzadmin's own dynamic keys pass to
// authorization. Nothing is written.
func TestDynBrokerRefusedBeforeAuthorization(t *testing.T) {
	f := newFixture(t, baseView(), func(o *Options) {
		o.Config.NodeID = selfID
		o.Authorizer = denyAuthz{deny(OpAlterConfigs, ClusterResourceName): true}
	})
	const denied = "31:<nil>"
	for _, tc := range []struct {
		name string
		kv   []string
		want string
	}{
		{"", []string{"log.retention.hours", "1"}, "42:Cannot update these configs dynamically: Set(log.retention.hours)"},
		{"3000", []string{"broker.id", "1", "zookeeper.connect", "zk:2181", "log.retention.ms", "5"},
			"42:Cannot update these configs dynamically: Set(zookeeper.connect, broker.id)"},
		{"", []string{"log.dirs", "/d", "broker.id", "1", "zookeeper.connect", "zk", "log.retention.hours", "1", "num.partitions", "3"},
			"42:Cannot update these configs dynamically: " +
				"HashSet(num.partitions, log.dirs, zookeeper.connect, log.retention.hours, broker.id)"},
		{"+3000", []string{"ssl.keystore.location", "/k.pem"}, "42:These security configs can be dynamically " +
			"updated only per-listener using the listener prefix: HashSet(ssl.keystore.location)"},
		{"", []string{"log.retention.ms", "abc", "listeners", "PLAINTEXT://:9092"},
			"42:Invalid value abc for configuration log.retention.ms: Not a number of type LONG"},
		{"", []string{"listener.name.internal.ssl.keystore.location", "/k.pem", "listeners", "PLAINTEXT://:9092"},
			"42:Cannot update these configs at default cluster level, broker id must be specified: " +
				"Set(listeners, listener.name.internal.ssl.keystore.location)"},
		{"", []string{"max.partitions", "5", "log.retention.ms", "1", "leader.replication.throttled.rate", "10",
			"listener.name.internal.max.connections", "9", "custom.key", "v"}, denied},
		{"", []string{"auto.leader.rebalance.enable", "false"}, denied},
		{"3000", []string{"listener.name.internal.ssl.keystore.location", "/k.pem", "sasl.kerberos.kinit.cmd", "kinit"}, denied},
	} {
		want := []string{"4/" + tc.name + ":" + tc.want}
		legacy, incremental := dbBoth(f, tc.name, tc.kv...)
		if !reflect.DeepEqual(legacy, want) {
			t.Errorf("AlterConfigs %q %v:\n got %q\nwant %q", tc.name, tc.kv, legacy, want)
		}
		if !reflect.DeepEqual(incremental, want) {
			t.Errorf("IncrementalAlterConfigs %q %v:\n got %q\nwant %q", tc.name, tc.kv, incremental, want)
		}
	}
	// A DELETE is not refused (Kafka checks what remains); APPEND to a
	// static list config is, to a dynamic one is not.
	for _, tc := range []struct {
		res  kmsg.IncrementalAlterConfigsRequestResource
		want string
	}{
		{iacRes(brokerRes, "", iop{"log.retention.hours", dbDel, nil}, iop{"broker.id", dbDel, nil}), denied},
		{iacRes(brokerRes, "", iop{"process.roles", dbApp, sp("broker")}),
			"42:Cannot update these configs dynamically: Set(process.roles)"},
		{iacRes(brokerRes, "", iop{"log.retention.hours", dbApp, sp("1")}),
			"40:Config value append is not allowed for config key: log.retention.hours"},
		{iacRes(brokerRes, "", iop{"metric.reporters", dbApp, sp("a.B")}), denied},
	} {
		if got := p4Incremental(f, tc.res); !reflect.DeepEqual(got, []string{"4/:" + tc.want}) {
			t.Errorf("IncrementalAlterConfigs %+v: %q, want %q", tc.res.Configs, got, tc.want)
		}
	}
	if len(f.admin.alters) != 0 {
		t.Errorf("written: %+v", f.admin.alters)
	}
}

// TestDynBrokerZooKeeper: against ZooKeeper, refused changes write
// nothing (validate_only or not); accepted ones write what Kafka's broker
// would: IncrementalAlterConfigs keeps the stored configs a broker takes
// and drops the ones it ignores by name (static, unprefixed SSL,
// per-broker at the default, passwords), and APPEND and SUBTRACT start
// from Kafka's default of a dynamic list config.
func TestDynBrokerZooKeeper(t *testing.T) {
	f, e := p4ZK(t, nil)
	defaults := func() map[string]string { return e.zkConfig(znodes.EntityBrokers, znodes.DefaultEntityName) }
	for _, validateOnly := range []bool{false, true} {
		got := p4Alter(f, validateOnly, acRes(brokerRes, "", sp("max.partitions"), sp("5"), sp("log.retention.hours"), sp("1")))
		if want := []string{"4/:42:Cannot update these configs dynamically: Set(log.retention.hours)"}; !reflect.DeepEqual(got, want) {
			t.Errorf("validateOnly=%v: %q, want %q", validateOnly, got, want)
		}
	}
	if len(defaults()) != 0 {
		t.Fatalf("refused change written: %v", defaults())
	}

	dbWriteRaw(e, znodes.DefaultEntityName, map[string]string{
		"log.retention.ms": "100", "max.partitions": "9", "custom.key": "v", // kept
		"log.retention.hours": "1", "listeners": "PLAINTEXT://:9092", "ssl.keystore.type": "PEM", // ignored by Kafka
		"listener.name.a.ssl.key.password": "p", "my.ssl.key.password": "p",
	})
	got := p4Incremental(f, iacRes(brokerRes, "", iop{"log.segment.bytes", dbSet, sp("1048576")},
		iop{"metric.reporters", dbApp, sp("a.B")}))
	want := map[string]string{"log.retention.ms": "100", "max.partitions": "9", "custom.key": "v",
		"log.segment.bytes": "1048576", "metric.reporters": "a.B"}
	if !reflect.DeepEqual(got, []string{"4/:0:<nil>"}) || !reflect.DeepEqual(defaults(), want) {
		t.Errorf("over ignored configs: %q, ZooKeeper\n got %v\nwant %v", got, defaults(), want)
	}
	got = p4Incremental(f, iacRes(brokerRes, "", iop{"metric.reporters", dbApp, sp("c.D")}, iop{"log.retention.hours", dbDel, nil},
		iop{"custom.key", dbDel, nil}))
	want["metric.reporters"] = "a.B,c.D"
	delete(want, "custom.key")
	if !reflect.DeepEqual(got, []string{"4/:0:<nil>"}) || !reflect.DeepEqual(defaults(), want) {
		t.Errorf("append, delete: %q, ZooKeeper\n got %v\nwant %v", got, defaults(), want)
	}

	// A stored value Kafka's types refuse is ignored and dropped, as a
	// Kafka broker's rewrite drops it (more in dynvalues_test.go).
	dbWriteRaw(e, znodes.DefaultEntityName, map[string]string{"log.roll.ms": "abc", "custom.key": "v"})
	got = p4Incremental(f, iacRes(brokerRes, "", iop{"max.partitions", dbSet, sp("7")}))
	if want := map[string]string{"max.partitions": "7", "custom.key": "v"}; !reflect.DeepEqual(got, []string{"4/:0:<nil>"}) ||
		!reflect.DeepEqual(defaults(), want) {
		t.Errorf("over a bad stored value: %q, ZooKeeper %v", got, defaults())
	}

	// The controller's own entity takes per-broker configs; SUBTRACT
	// starts from Kafka's default.
	got = p4Incremental(f, iacRes(brokerRes, "3000", iop{"log.cleanup.policy", dbSub, sp("delete")},
		iop{"listener.name.internal.ssl.keystore.location", dbSet, sp("/k.pem")}))
	own := map[string]string{"log.cleanup.policy": "", "listener.name.internal.ssl.keystore.location": "/k.pem"}
	if zk := e.zkConfig(znodes.EntityBrokers, "3000"); !reflect.DeepEqual(got, []string{"4/3000:0:<nil>"}) || !reflect.DeepEqual(zk, own) {
		t.Errorf("per broker: %q, ZooKeeper %v", got, zk)
	}
}

// TestDynBrokerPasswords: after authorization, a password config is
// INVALID_CONFIG (kzadmind has no password.encoder.secret; the default
// takes none), unless validate_only, which succeeds as in Kafka; nothing
// is written.
func TestDynBrokerPasswords(t *testing.T) {
	f, e := p4ZK(t, nil)
	const (
		secret = "40:Invalid config value for resource ConfigResource(type=BROKER, name='%s'): Password encoder secret not configured"
		level  = "40:Invalid config value for resource ConfigResource(type=BROKER, name=''): " +
			"Password config can be defined only at broker level"
	)
	for _, tc := range []struct {
		name, key, want string
	}{
		{"3000", "listener.name.internal.ssl.key.password", "4/3000:" + fmt.Sprintf(secret, "3000")},
		{"03000", "listener.name.internal.plain.sasl.jaas.config", "4/03000:" + fmt.Sprintf(secret, "03000")},
		{"", "my.ssl.keystore.password", "4/:" + level},
	} {
		if got := p4Alter(f, false, acRes(brokerRes, tc.name, sp(tc.key), sp("s"))); !reflect.DeepEqual(got, []string{tc.want}) {
			t.Errorf("AlterConfigs %s: %q, want %q", tc.key, got, tc.want)
		}
		if got := p4Incremental(f, iacRes(brokerRes, tc.name, iop{tc.key, dbSet, sp("s")})); !reflect.DeepEqual(got, []string{tc.want}) {
			t.Errorf("IncrementalAlterConfigs %s: %q, want %q", tc.key, got, tc.want)
		}
		if got := p4Alter(f, true, acRes(brokerRes, tc.name, sp(tc.key), sp("s"))); !reflect.DeepEqual(got, []string{"4/" + tc.name + ":0:<nil>"}) {
			t.Errorf("AlterConfigs validate_only %s: %q", tc.key, got)
		}
	}
	for _, entity := range []string{znodes.DefaultEntityName, "3000"} {
		if zk := e.zkConfig(znodes.EntityBrokers, entity); len(zk) != 0 {
			t.Errorf("broker %s in ZooKeeper: %v", entity, zk)
		}
	}
}

// TestDynBrokerApplyOpsReportsDropped: the stored configs a Kafka broker
// ignores leave the entity with the rewrite and are reported (for the
// log), unless an operation sets them again; an explicit DELETE of a
// kept config is a deletion, not a drop.
func TestDynBrokerApplyOpsReportsDropped(t *testing.T) {
	set := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
	set.Op, set.Name, set.Value = kmsg.IncrementalAlterConfigOpSet, "log.roll.hours", kmsg.StringPtr("1")
	del := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
	del.Op, del.Name = kmsg.IncrementalAlterConfigOpDelete, "max.partitions"
	stored := map[string]string{
		"log.retention.hours":    "1",   // not dynamic in Kafka: dropped
		"log.roll.hours":         "2",   // not dynamic, but set again by the request
		"log.cleaner.threads":    "abc", // a value Kafka's type refuses: dropped
		"log.cleaner.backoff.ms": "100", // kept
		"max.partitions":         "10",  // kzadmin's own key, deleted
	}
	bc := applyBrokerOps("<default>", stored, []kmsg.IncrementalAlterConfigsRequestResourceConfig{set, del})
	if want := []string{"log.cleaner.threads", "log.retention.hours"}; !slices.Equal(bc.dropped, want) {
		t.Errorf("dropped %v, want %v", bc.dropped, want)
	}
	slices.Sort(bc.del)
	if want := []string{"log.cleaner.threads", "log.retention.hours", "max.partitions"}; !slices.Equal(bc.del, want) {
		t.Errorf("deleted %v, want %v", bc.del, want)
	}
	if _, kept := bc.after["log.cleaner.backoff.ms"]; !kept || bc.set["log.roll.hours"] != "1" {
		t.Errorf("after %v, set %v", bc.after, bc.set)
	}
}
