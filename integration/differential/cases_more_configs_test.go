package differential

import (
	"github.com/twmb/franz-go/pkg/kmsg"
)

// dynamicDefaults are the cluster-wide broker defaults describeConfigsMoreCase
// sets, and their values; log.segment.bytes is also a topic's
// segment.bytes.
var dynamicDefaults = map[string]string{"log.retention.ms": "7200000", "log.segment.bytes": "20971520"}

// describeConfigsMoreCase describes topics with synonyms while dynamic
// broker defaults are set, then deletes the defaults again so that later
// cases see the static ones.
func describeConfigsMoreCase() testCase {
	const t = "dcm-topic"
	keys := []string{"retention.ms", "segment.bytes", "cleanup.policy", "max.message.bytes"}
	setDefaults := incremented(brokerType, "",
		op(opSet, "log.retention.ms", dynamicDefaults["log.retention.ms"]),
		op(opSet, "log.segment.bytes", dynamicDefaults["log.segment.bytes"]))
	deleteDefaults := incremented(brokerType, "", opNull(opDelete, "log.retention.ms"), opNull(opDelete, "log.segment.bytes"))
	return testCase{name: "describe-configs-more", steps: []step{
		{name: "setup", req: createTopics(7, 30000, false, withConfigs(assigned(t, []int32{1, 2}), cfg("retention.ms", "3600000")))},
		{name: "v2-before-defaults", req: describeConfigs(2, true, false, described(topicType, t, keys...))},
		{name: "v1-set-broker-defaults", req: incrementalAlter(1, false, setDefaults)},
		{name: "v1-broker-defaults", req: describeConfigs(1, true, false, described(brokerType, "", "log.retention.ms", "log.segment.bytes")),
			until: configShows("log.segment.bytes", dynamicDefaults["log.segment.bytes"])},
		// A broker applies the new defaults when the change
		// notification reaches it; the topic shows them from then on.
		{name: "v1-topic-synonyms", req: describeConfigs(1, true, false, described(topicType, t)),
			until: configShows("segment.bytes", dynamicDefaults["log.segment.bytes"])},
		{name: "v2-topic-synonyms", req: describeConfigs(2, true, false, described(topicType, t, keys...))},
		{name: "v3-topic-synonyms", req: describeConfigs(3, true, false, described(topicType, t, keys...))},
		{name: "v4-topic-synonyms", req: describeConfigs(4, true, false, described(topicType, t, keys...))},
		{name: "v3-topic-no-synonyms", req: describeConfigs(3, false, false, described(topicType, t, keys...))},
		{name: "v5-created-under-defaults", req: createTopics(5, 30000, false, assigned("dcm-new", []int32{3}))},
		{name: "v1-delete-broker-defaults", req: incrementalAlter(1, false, deleteDefaults)},
		{name: "v1-broker-defaults-deleted", req: describeConfigs(1, true, false, described(brokerType, "", "log.retention.ms", "log.segment.bytes")),
			until: configShows("log.segment.bytes", "")},
		{name: "v4-topic-after-delete", req: describeConfigs(4, true, false, described(topicType, t, keys...)),
			until: configShows("segment.bytes", "1073741824")},
	}}
}

// incrementalAlterMoreCase appends to and subtracts from list configs,
// deletes unset keys and sets several keys, describing after each.
func incrementalAlterMoreCase() testCase {
	const t = "iacm-topic"
	res := func(ops ...kmsg.IncrementalAlterConfigsRequestResourceConfig) kmsg.IncrementalAlterConfigsRequestResource {
		return incremented(topicType, t, ops...)
	}
	lists := described(topicType, t, "cleanup.policy", "leader.replication.throttled.replicas", "follower.replication.throttled.replicas")
	return testCase{name: "incremental-alter-more", steps: []step{
		{name: "setup", req: createTopics(7, 30000, false, assigned(t, []int32{1, 2}, []int32{2, 3}))},
		// Appending to an unset list starts from its default (delete).
		{name: "v1-append-to-default", req: incrementalAlter(1, false, res(op(opAppend, "cleanup.policy", "compact")))},
		{name: "v1-after-append-to-default", req: describeConfigs(4, true, false, lists)},
		{name: "v1-append-present", req: incrementalAlter(1, false, res(op(opAppend, "cleanup.policy", "compact")))},
		{name: "v1-after-append-present", req: describeConfigs(4, true, false, lists)},
		{name: "v1-subtract-absent", req: incrementalAlter(1, false, res(op(opSubtract, "cleanup.policy", "bogus")))},
		{name: "v1-subtract-all", req: incrementalAlter(1, false, res(op(opSubtract, "cleanup.policy", "compact,delete")))},
		{name: "v1-after-subtract-all", req: describeConfigs(4, true, false, lists)},
		{name: "v1-append-throttled", req: incrementalAlter(1, false, res(op(opAppend, "leader.replication.throttled.replicas", "0:1")))},
		{name: "v1-append-throttled-more", req: incrementalAlter(1, false, res(op(opAppend, "leader.replication.throttled.replicas", "1:2,1:3")))},
		{name: "v1-after-append-throttled", req: describeConfigs(4, true, false, lists)},
		{name: "v1-subtract-throttled", req: incrementalAlter(1, false, res(op(opSubtract, "leader.replication.throttled.replicas", "0:1")))},
		{name: "v1-after-subtract-throttled", req: describeConfigs(4, true, false, lists)},
		{name: "v1-append-invalid-throttled", req: incrementalAlter(1, false, res(op(opAppend, "follower.replication.throttled.replicas", "x")))},
		{name: "v1-subtract-unset", req: incrementalAlter(1, false, res(op(opSubtract, "follower.replication.throttled.replicas", "0:1")))},
		{name: "v1-after-subtract-unset", req: describeConfigs(4, true, false, lists)},
		{name: "v1-append-wildcard", req: incrementalAlter(1, false, res(op(opAppend, "follower.replication.throttled.replicas", "*")))},
		{name: "v1-after-append-wildcard", req: describeConfigs(4, true, false, lists)},
		{name: "v0-delete-unset", req: incrementalAlter(0, false, res(opNull(opDelete, "segment.ms")))},
		{name: "v1-delete-unknown", req: incrementalAlter(1, false, res(opNull(opDelete, "not.a.key")))},
		{name: "v1-set-several", req: incrementalAlter(1, false, res(
			op(opSet, "retention.ms", "600000"), op(opSet, "min.insync.replicas", "2"), op(opSet, "compression.type", "lz4")))},
		{name: "v1-after-set-several", req: describeConfigs(4, true, false,
			described(topicType, t, "retention.ms", "min.insync.replicas", "compression.type", "cleanup.policy"))},
		{name: "v1-set-and-delete-same-key", req: incrementalAlter(1, false, res(op(opSet, "segment.ms", "100000"), opNull(opDelete, "segment.ms")))},
		{name: "v1-set-invalid-with-valid", req: incrementalAlter(1, false, res(op(opSet, "segment.ms", "100000"), op(opSet, "min.insync.replicas", "0")))},
		{name: "v1-after-invalid", req: describeConfigs(4, true, false, described(topicType, t, "segment.ms", "min.insync.replicas"))},
		{name: "v0-full-after", req: describeConfigs(0, false, false, described(topicType, t))},
	}}
}
