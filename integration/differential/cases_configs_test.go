package differential

import (
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

const (
	topicType  = kmsg.ConfigResourceTypeTopic
	brokerType = kmsg.ConfigResourceTypeBroker
	opSet      = kmsg.IncrementalAlterConfigOpSet
	opDelete   = kmsg.IncrementalAlterConfigOpDelete
	opAppend   = kmsg.IncrementalAlterConfigOpAppend
	opSubtract = kmsg.IncrementalAlterConfigOpSubtract
)

// ownBrokerKeys are the broker configs compared for the controller's own
// id: the full list of a broker's configs is not kzadmind's to mirror.
var ownBrokerKeys = []string{"message.max.bytes", "num.partitions", "default.replication.factor",
	"log.retention.hours", "auto.create.topics.enable", "delete.topic.enable", "not.a.key",
	"offsets.topic.num.partitions", "transaction.state.log.min.isr", "auto.leader.rebalance.enable",
	"leader.imbalance.per.broker.percentage", "unclean.leader.election.enable"}

func describeConfigsCase() testCase {
	const t = "dc-topic"
	return testCase{name: "describe-configs", steps: []step{
		{name: "setup", req: createTopics(7, 30000, false, withConfigs(assigned(t, []int32{1, 2}),
			cfg("retention.ms", "3600000"), cfg("cleanup.policy", "compact")))},
		{name: "v0-topic", req: describeConfigs(0, false, false, described(topicType, t))},
		{name: "v1-topic-synonyms", req: describeConfigs(1, true, false, described(topicType, t))},
		{name: "v4-topic-keys", req: describeConfigs(4, true, false,
			described(topicType, t, "retention.ms", "cleanup.policy", "min.insync.replicas", "not.a.key"))},
		{name: "v4-topic-documentation", req: describeConfigs(4, false, true, described(topicType, t, "retention.ms"))},
		{name: "v1-missing-topic", req: describeConfigs(1, false, false, described(topicType, "dc-missing"))},
		{name: "v1-invalid-topic", req: describeConfigs(1, false, false, described(topicType, "a/b"))},
		{name: "v4-several", req: describeConfigs(4, false, false,
			described(topicType, "dc-missing"), described(topicType, t, "retention.ms"))},
		{name: "v1-broker-default", req: describeConfigs(1, true, false, described(brokerType, ""))},
		{name: "v4-own-broker", req: describeConfigs(4, true, false, described(brokerType, ownBroker, ownBrokerKeys...))},
		{name: "v4-other-broker", req: describeConfigs(4, false, false, described(brokerType, "7"))},
		{name: "v4-non-numeric-broker", req: describeConfigs(4, false, false, described(brokerType, "x"))},
	}}
}

func alterConfigsCase() testCase {
	const t = "ac-topic"
	keys := described(topicType, t, "retention.ms", "segment.ms")
	return testCase{name: "alter-configs", steps: []step{
		{name: "setup", req: createTopics(7, 30000, false, withConfigs(assigned(t, []int32{1, 2}), cfg("retention.ms", "3600000")))},
		{name: "v0-unknown-key", req: alterConfigs(0, false, altered(topicType, t, set("not.a.property", "1")))},
		{name: "v0-invalid-value", req: alterConfigs(0, false, altered(topicType, t, set("retention.ms", "abc")))},
		{name: "v1-validate-only", req: alterConfigs(1, true, altered(topicType, t, set("retention.ms", "5000")))},
		{name: "v1-after-validate-only", req: describeConfigs(1, false, false, keys)},
		{name: "v1-same-key-twice", req: alterConfigs(1, false, altered(topicType, t, set("segment.ms", "100000"), set("segment.ms", "200000")))},
		{name: "v1-after-same-key-twice", req: describeConfigs(1, false, false, keys)},
		// AlterConfigs replaces every override; a null value is dropped.
		{name: "v1-null-value", req: alterConfigs(1, false, altered(topicType, t, setNull("retention.ms"), set("segment.ms", "300000")))},
		{name: "v1-after-null-value", req: describeConfigs(1, false, false, keys)},
		{name: "v0-missing-topic", req: alterConfigs(0, false, altered(topicType, "ac-missing", set("retention.ms", "1000")))},
		{name: "v0-default-topic", req: alterConfigs(0, false, altered(topicType, "", set("retention.ms", "1000")))},
		// Kafka 3.9 never answers this: AlterConfigsResponse.errors()
		// collects the results into a map, which throws on the
		// duplicate resource, and the request is dropped; hence the
		// short timeout.
		{name: "v1-same-resource-twice", timeout: 3 * time.Second, req: alterConfigs(1, true,
			altered(topicType, t, set("retention.ms", "1000")), altered(topicType, t, set("segment.ms", "1000")))},
		{name: "v0-broker-default", req: alterConfigs(0, false, altered(brokerType, "", set("message.max.bytes", "1048600")))},
		{name: "v1-after-broker-default", req: describeConfigs(1, true, false, described(brokerType, "")),
			until: configShows("message.max.bytes", "1048600")},
		{name: "v1-topic-after-broker-default", req: describeConfigs(1, true, false, described(topicType, t, "max.message.bytes")),
			until: configShows("max.message.bytes", "1048600")},
		{name: "v0-broker-default-read-only", req: alterConfigs(0, true, altered(brokerType, "", set("zookeeper.connect", "x:1")))},
		{name: "v0-broker-default-per-broker", req: alterConfigs(0, true, altered(brokerType, "", set("ssl.keystore.location", "/x")))},
		{name: "v0-broker-default-invalid-value", req: alterConfigs(0, true, altered(brokerType, "", set("message.max.bytes", "abc")))},
		{name: "v0-broker-default-unknown-key", req: alterConfigs(0, true, altered(brokerType, "", set("not.a.property", "1")))},
		{name: "v1-own-broker", req: alterConfigs(1, true, altered(brokerType, ownBroker, set("log.cleaner.backoff.ms", "20000")))},
		{name: "v0-other-broker", req: alterConfigs(0, true, altered(brokerType, "7", set("message.max.bytes", "1048600")))},
		{name: "v0-non-numeric-broker", req: alterConfigs(0, true, altered(brokerType, "x", set("message.max.bytes", "1048600")))},
		{name: "v0-broker-default-reset", req: alterConfigs(0, false, altered(brokerType, ""))},
		{name: "v1-after-reset", req: describeConfigs(1, true, false, described(brokerType, "")),
			until: configShows("message.max.bytes", "")},
	}}
}

func incrementalAlterConfigsCase() testCase {
	const t = "iac-topic"
	res := func(ops ...kmsg.IncrementalAlterConfigsRequestResourceConfig) kmsg.IncrementalAlterConfigsRequestResource {
		return incremented(topicType, t, ops...)
	}
	return testCase{name: "incremental-alter-configs", steps: []step{
		{name: "setup", req: createTopics(7, 30000, false, withConfigs(assigned(t, []int32{1, 2}), cfg("retention.ms", "3600000")))},
		{name: "v0-unknown-key", req: incrementalAlter(0, false, res(op(opSet, "not.a.property", "1")))},
		{name: "v0-invalid-value", req: incrementalAlter(0, false, res(op(opSet, "retention.ms", "abc")))},
		{name: "v1-null-value", req: incrementalAlter(1, false, res(opNull(opSet, "retention.ms")))},
		{name: "v1-same-key-twice", req: incrementalAlter(1, false, res(op(opSet, "retention.ms", "1000"), op(opSet, "retention.ms", "2000")))},
		{name: "v1-missing-topic", req: incrementalAlter(1, false, incremented(topicType, "iac-missing", op(opSet, "retention.ms", "1000")))},
		{name: "v1-default-topic", req: incrementalAlter(1, false, incremented(topicType, "", op(opSet, "retention.ms", "1000")))},
		{name: "v1-validate-only", req: incrementalAlter(1, true, res(op(opSet, "segment.ms", "100000")))},
		{name: "v1-same-resource-twice", req: incrementalAlter(1, true, res(op(opSet, "segment.ms", "100000")), res(op(opSet, "retention.ms", "1000")))},
		{name: "v1-broker-logger", req: incrementalAlter(1, true, incremented(kmsg.ConfigResourceTypeBrokerLogger, ownBroker, op(opSet, "kafka", "DEBUG")))},
		{name: "v1-append-non-list", req: incrementalAlter(1, false, res(op(opAppend, "retention.ms", "5")))},
		{name: "v1-subtract-non-list", req: incrementalAlter(1, false, res(op(opSubtract, "retention.ms", "5")))},
		{name: "v1-append-list", req: incrementalAlter(1, false, res(op(opAppend, "cleanup.policy", "compact")))},
		{name: "v1-after-append", req: describeConfigs(4, true, false, described(topicType, t, "cleanup.policy"))},
		{name: "v1-subtract-list", req: incrementalAlter(1, false, res(op(opSubtract, "cleanup.policy", "delete")))},
		{name: "v1-delete-unset", req: incrementalAlter(1, false, res(opNull(opDelete, "segment.ms")))},
		{name: "v1-delete-set", req: incrementalAlter(1, false, res(opNull(opDelete, "retention.ms")))},
		{name: "v1-after", req: describeConfigs(4, true, false, described(topicType, t, "retention.ms", "cleanup.policy", "segment.ms"))},
		{name: "v1-broker-default", req: incrementalAlter(1, true, incremented(brokerType, "", op(opSet, "log.cleaner.backoff.ms", "20000")))},
		// Valid alone, but a broker checks it against its own static
		// log.cleaner.dedupe.buffer.size (2 MiB in the harness).
		{name: "v1-broker-default-cross-check", req: incrementalAlter(1, true, incremented(brokerType, "", op(opSet, "log.cleaner.threads", "2")))},
		{name: "v1-broker-default-read-only", req: incrementalAlter(1, true, incremented(brokerType, "", op(opSet, "zookeeper.connect", "x:1")))},
		{name: "v1-broker-default-invalid-value", req: incrementalAlter(1, true, incremented(brokerType, "", op(opSet, "log.cleaner.threads", "abc")))},
		{name: "v1-own-broker", req: incrementalAlter(1, true, incremented(brokerType, ownBroker, op(opSet, "log.cleaner.backoff.ms", "20000")))},
		{name: "v0-other-broker", req: incrementalAlter(0, true, incremented(brokerType, "7", op(opSet, "log.cleaner.threads", "2")))},
		{name: "v0-non-numeric-broker", req: incrementalAlter(0, true, incremented(brokerType, "x", op(opSet, "log.cleaner.threads", "2")))},
	}}
}
