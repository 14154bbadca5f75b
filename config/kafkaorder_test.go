package config

import (
	"strings"
	"testing"
)

// The messages below were recorded from Kafka 3.9.1 (kafka_2.13 jar, Java
// 17, Scala 2.13.15): a Properties filled in the given order, passed
// through DynamicBrokerConfig.resolveVariableConfigs and validateConfigs,
// as ConfigAdminManager does for a legacy AlterConfigs. They pin the
// Java and Scala orders kafkaorder.go reproduces: a small set in the
// Properties' order, a HashSet of five or more in hash order, tables
// resized past twelve entries, and the SSL check's mutable set.
func TestKafkaBrokerConfigMessagesMatchKafka(t *testing.T) {
	for _, tc := range []struct {
		perBroker bool
		keys      string
		want      string
	}{
		{false, "log.retention.hours",
			"Cannot update these configs dynamically: Set(log.retention.hours)"},
		{false, "broker.id zookeeper.connect",
			"Cannot update these configs dynamically: Set(zookeeper.connect, broker.id)"},
		{false, "zookeeper.connect broker.id",
			"Cannot update these configs dynamically: Set(zookeeper.connect, broker.id)"},
		{false, "a log.dirs broker.id zookeeper.connect log.retention.hours",
			"Cannot update these configs dynamically: Set(log.retention.hours, zookeeper.connect, broker.id, log.dirs)"},
		{false, "log.dirs broker.id zookeeper.connect log.retention.hours num.partitions",
			"Cannot update these configs dynamically: HashSet(num.partitions, log.dirs, zookeeper.connect, log.retention.hours, broker.id)"},
		{false, "custom.877.k22 remote.log.reader.max.pending.tasks eligible.leader.replicas.enable",
			"Cannot update these configs dynamically: Set(eligible.leader.replicas.enable, remote.log.reader.max.pending.tasks)"},
		{false, "custom.350.k34 custom.430.k15 custom.531.k1 producer.id.expiration.ms inter.broker.listener.name " +
			"log.flush.interval.messages custom.61.k11 kafka.metrics.reporters log.dirs max.connections.per.ip.overrides " +
			"log.local.retention.ms unclean.leader.election.enable zookeeper.ssl.keystore.type " +
			"log.message.timestamp.difference.max.ms",
			"Cannot update these configs dynamically: " +
				"Set(inter.broker.listener.name, zookeeper.ssl.keystore.type, log.dirs, kafka.metrics.reporters)"},
		{false, "custom.295.k24 delegation.token.master.key min.insync.replicas max.connection.creation.rate " +
			"socket.send.buffer.bytes custom.19.k14 custom.188.k79 log.cleaner.max.compaction.lag.ms broker.id " +
			"unclean.leader.election.enable group.consumer.heartbeat.interval.ms log.cleaner.threads " +
			"log.local.retention.bytes custom.575.k67 custom.237.k10 group.consumer.max.size custom.546.k85 " +
			"replica.socket.receive.buffer.bytes zookeeper.set.acl custom.990.k35 " +
			"remote.log.index.file.cache.total.size.bytes custom.94.k33",
			"Cannot update these configs dynamically: HashSet(group.consumer.heartbeat.interval.ms, " +
				"group.consumer.max.size, zookeeper.set.acl, delegation.token.master.key, socket.send.buffer.bytes, " +
				"broker.id, replica.socket.receive.buffer.bytes)"},
		{true, "ssl.keystore.certificate.chain ssl.truststore.password ssl.keystore.type",
			"These security configs can be dynamically updated only per-listener using the listener prefix: " +
				"HashSet(ssl.keystore.type, ssl.keystore.certificate.chain, ssl.truststore.password)"},
		{false, "ssl.key.password custom.172.k0 ssl.truststore.password",
			"These security configs can be dynamically updated only per-listener using the listener prefix: " +
				"HashSet(ssl.key.password, ssl.truststore.password)"},
		{false, "sasl.jaas.config sasl.login.refresh.window.factor custom.468.k96",
			"Cannot update these configs at default cluster level, broker id must be specified: " +
				"Set(sasl.login.refresh.window.factor, sasl.jaas.config)"},
		{false, "listener.name.l2.ssl.provider listener.name.l0.listeners custom.676.k29",
			"Cannot update these configs at default cluster level, broker id must be specified: " +
				"Set(listener.name.l0.listeners, listener.name.l2.ssl.provider)"},
		{false, "ssl.keymanager.algorithm custom.659.k48 advertised.listeners",
			"Cannot update these configs at default cluster level, broker id must be specified: " +
				"Set(ssl.keymanager.algorithm, advertised.listeners)"},
		{false, "listener.name.a.max.connections max.connections sasl.enabled.mechanisms",
			"Cannot update these configs at default cluster level, broker id must be specified: " +
				"Set(sasl.enabled.mechanisms)"},
		{false, "custom.261.k24 max.connections.per.ip.overrides producer.id.expiration.ms " +
			"sasl.kerberos.ticket.renew.window.factor log.flush.interval.messages custom.893.k29 " +
			"principal.builder.class custom.21.k93 custom.758.k65 sasl.kerberos.service.name " +
			"listener.security.protocol.map unclean.leader.election.enable remote.fetch.max.wait.ms " +
			"log.message.timestamp.before.max.ms transaction.partition.verification.enable " +
			"listener.name.l0.ssl.truststore.location ssl.trustmanager.algorithm log.local.retention.bytes " +
			"custom.791.k65 sasl.mechanism.inter.broker.protocol remote.log.manager.fetch.max.bytes.per.second " +
			"remote.log.manager.copy.max.bytes.per.second",
			"Cannot update these configs at default cluster level, broker id must be specified: " +
				"HashSet(principal.builder.class, listener.security.protocol.map, ssl.trustmanager.algorithm, " +
				"sasl.kerberos.ticket.renew.window.factor, sasl.kerberos.service.name, " +
				"listener.name.l0.ssl.truststore.location, sasl.mechanism.inter.broker.protocol)"},
		{true, "listener.name.a.ssl.keystore.location sasl.enabled.mechanisms custom", ""},
	} {
		err := CheckKafkaBrokerConfigs(strings.Fields(tc.keys), nil, tc.perBroker)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s (perBroker=%v):\n got %q\nwant %q", tc.keys, tc.perBroker, got, tc.want)
		}
	}
}

// Scala's immutable HashSet order, recorded from Set.from on the same
// Scala 2.13.15.
func TestScalaSetStringMatchesScala(t *testing.T) {
	in := strings.Fields("custom.264.k37 custom.299.k49 custom.100.k7 custom.375.k55 custom.550.k10 custom.253.k12 " +
		"custom.780.k26 custom.663.k7 custom.223.k93 custom.35.k50 custom.276.k33 custom.224.k91 custom.567.k9 " +
		"custom.587.k86 custom.22.k11 custom.724.k36 custom.755.k25 custom.449.k47 custom.313.k51")
	want := "HashSet(custom.264.k37, custom.299.k49, custom.449.k47, custom.253.k12, custom.35.k50, custom.724.k36, " +
		"custom.100.k7, custom.224.k91, custom.276.k33, custom.375.k55, custom.663.k7, custom.780.k26, custom.755.k25, " +
		"custom.22.k11, custom.587.k86, custom.550.k10, custom.567.k9, custom.223.k93, custom.313.k51)"
	if got := scalaSetString(in); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := scalaSetString(strings.Fields("a b c d e f g")); got != "HashSet(e, f, a, b, g, c, d)" {
		t.Errorf("a..g: %s", got)
	}
	if got := scalaSetString([]string{"b", "a"}); got != "Set(b, a)" {
		t.Errorf("two: %s", got)
	}
}
