package differential

import (
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Topic names are prefixed by their case, so that the cases (which share
// one cluster per run) never touch each other's topics.

// longName is one character longer than Kafka allows (249).
var longName = strings.Repeat("x", 250)

func createTopicsCase() testCase {
	return testCase{name: "create-topics", steps: []step{
		{name: "v7-valid", req: createTopics(7, 30000, false, newTopic("ct-valid", 3, 2))},
		// ZooKeeper-mode Kafka accepts -1 (the broker default) at
		// every version; only the Java client checks the version.
		{name: "v0-defaults", req: createTopics(0, 30000, false, newTopic("ct-v0", -1, -1))},
		{name: "v5-defaults", req: createTopics(5, 30000, false, newTopic("ct-defaults", -1, -1))},
		{name: "v0-duplicate", req: createTopics(0, 30000, false, newTopic("ct-dup0", 1, 1), newTopic("ct-dup0", 2, 1))},
		{name: "v0-duplicate-cleanup", req: deleteTopics(4, 30000, "ct-dup0"),
			cleanup: "kzadmind keeps the last v0 duplicate (README), Kafka creates nothing"},
		{name: "v0-duplicate-cleaned", req: createTopics(4, 30000, true, newTopic("ct-dup0", 1, 1)), until: created,
			cleanup: "waits until kzadmind has finished deleting it"},
		{name: "v4-duplicate", req: createTopics(4, 30000, false, newTopic("ct-dup4", 1, 1), newTopic("ct-dup4", 1, 1))},
		{name: "v4-rf-above-brokers", req: createTopics(4, 30000, false, newTopic("ct-rf4", 1, 4))},
		{name: "v4-rf-zero", req: createTopics(4, 30000, false, newTopic("ct-rf0", 1, 0))},
		{name: "v4-partitions-zero", req: createTopics(4, 30000, false, newTopic("ct-p0", 0, 1))},
		{name: "v4-partitions-minus-two", req: createTopics(4, 30000, false, newTopic("ct-p-2", -2, 1))},
		{name: "v1-invalid-names", req: createTopics(1, 30000, false, invalidNames()...)},
		{name: "v5-invalid-names", req: createTopics(5, 30000, false, invalidNames()...)},
		{name: "v4-bad-name-and-rf", req: createTopics(4, 30000, false, newTopic("bad/name", 1, 4))},
		{name: "v4-collision-base", req: createTopics(4, 30000, false, assigned("ct.coll", []int32{1}))},
		{name: "v4-collision", req: createTopics(4, 30000, false, assigned("ct_coll", []int32{2}))},
		{name: "v5-unknown-config", req: createTopics(5, 30000, false, newTopic("ct-badkey", 1, 1, cfg("not.a.property", "1")))},
		{name: "v5-invalid-values", req: createTopics(5, 30000, false,
			newTopic("ct-badval1", 1, 1, cfg("retention.ms", "abc")),
			newTopic("ct-badval2", 1, 1, cfg("cleanup.policy", "bogus")))},
		{name: "v5-null-config", req: createTopics(5, 30000, false, newTopic("ct-nullcfg", 1, 1, nullCfg("retention.ms")))},
		// Kafka creates these and waits for leaders: the first never
		// gets one (a short timeout keeps the wait short), the second
		// does, on broker 1.
		{name: "v4-assign-unknown-broker", req: createTopics(4, 2000, false, assigned("ct-a-unknown", []int32{9}))},
		{name: "v4-assign-partly-unknown", req: createTopics(4, 2000, false, assigned("ct-a-partly", []int32{1, 9}))},
		{name: "v4-assign-duplicate-broker", req: createTopics(4, 30000, false, assigned("ct-a-dupbroker", []int32{1, 1}))},
		{name: "v4-assign-inconsistent-rf", req: createTopics(4, 30000, false, assigned("ct-a-rf", []int32{1, 2}, []int32{1}))},
		{name: "v4-assign-gap", req: createTopics(4, 30000, false, assignedAt("ct-a-gap", part(0, 1), part(2, 2)))},
		// The partition ids are checked after the name's collisions and
		// the replica lists, as Kafka's validateTopicCreate does.
		{name: "v4-assign-gap-after-checks", req: createTopics(4, 30000, false,
			assignedAt("ct_coll", part(0, 1), part(2, 2)),
			assignedAt("ct-a-gaprf", part(0, 1, 2), part(2, 2)),
			assignedAt("ct-a-gapdup", part(0, 1, 2), part(3, 2, 2)))},
		{name: "v4-assign-and-counts", req: createTopics(4, 30000, false, withCounts(assigned("ct-a-counts", []int32{1}), 1, -1))},
		{name: "v4-validate-only", req: createTopics(4, 30000, true,
			newTopic("ct-vo-ok", 2, 2), newTopic("ct-vo-bad", 1, 4), newTopic("ct-valid", 1, 1))},
		{name: "v7-validate-only", req: createTopics(7, 30000, true, newTopic("ct-vo7", 1, 1))},
		{name: "v4-validate-only-colliding", req: createTopics(4, 30000, true, newTopic("ct.vo", 1, 1), newTopic("ct_vo", 1, 1))},
		{name: "v4-existing", req: createTopics(4, 30000, false, newTopic("ct-valid", 3, 2))},
		{name: "v5-consumer-offsets", req: createTopics(5, 30000, false, assigned("__consumer_offsets", []int32{1}))},
		{name: "v5-cluster-metadata-topic", req: createTopics(5, 30000, false, assigned("__cluster_metadata", []int32{1}))},
		// A timeout of 0 answers REQUEST_TIMED_OUT at once, but the
		// topic is created all the same.
		{name: "v4-timeout-zero", req: createTopics(4, 0, false, assigned("ct-t0", []int32{2, 3}))},
		{name: "v12-timeout-zero-metadata", req: metadata(12, false, "ct-t0"), until: topicLed("ct-t0", 1)},
		{name: "v12-created-metadata", req: metadata(12, false, "ct-valid", "ct-v0", "ct-defaults", "ct.coll", "ct-a-partly", "__consumer_offsets"),
			placed: []string{"ct-valid", "ct-v0", "ct-defaults"}},
	}}
}

// invalidNames are topics whose names Kafka's Topic.validate rejects.
func invalidNames() []kmsg.CreateTopicsRequestTopic {
	return []kmsg.CreateTopicsRequestTopic{
		newTopic("", 1, 1), newTopic(".", 1, 1), newTopic("..", 1, 1),
		newTopic("a/b", 1, 1), newTopic(longName, 1, 1),
	}
}

func metadataCase() testCase {
	return testCase{name: "metadata", steps: []step{
		{name: "setup", req: createTopics(7, 30000, false, assigned("md-topic", []int32{1, 2}, []int32{2, 3}, []int32{3, 1}))},
		{name: "v0-existing", req: metadata(0, false, "md-topic")},
		{name: "v1-existing", req: metadata(1, false, "md-topic")},
		{name: "v4-existing", req: metadata(4, false, "md-topic")},
		{name: "v9-existing", req: metadata(9, false, "md-topic")},
		{name: "v12-existing", req: metadata(12, false, "md-topic")},
		{name: "v9-same-topic-twice", req: metadata(9, false, "md-topic", "md-topic")},
		{name: "v4-missing", req: metadata(4, false, "md-missing")},
		{name: "v9-missing", req: metadata(9, false, "md-missing")},
		{name: "v12-missing", req: metadata(12, false, "md-missing")},
		{name: "v4-missing-internal", req: metadata(4, false, "__transaction_state")},
		{name: "v1-invalid-name", req: metadata(1, false, "a/b")},
		{name: "v12-invalid-name", req: metadata(12, false, "a/b", longName)},
		{name: "v1-empty-list", req: metadata(1, false)},
		{name: "v12-empty-list", req: metadata(12, false)},
		{name: "v0-all", req: metadataAll(0), namesOnly: true},
		{name: "v1-all", req: metadataAll(1), namesOnly: true},
		{name: "v12-all", req: metadataAll(12), namesOnly: true},
		{name: "v12-by-id", req: metadataByID(12, "md-topic")},
		{name: "v12-by-unknown-id", req: metadataByID(12, "md-never")},
		// Before v4 a Metadata request always allows auto-creation.
		{name: "v0-auto-create", req: metadata(0, false, "md-auto0")},
		{name: "v0-auto-created", req: metadata(4, false, "md-auto0"), until: topicLed("md-auto0", 1), placed: []string{"md-auto0"}},
		{name: "v1-auto-create", req: metadata(1, false, "md-auto1")},
		{name: "v1-auto-created", req: metadata(4, false, "md-auto1"), until: topicLed("md-auto1", 1), placed: []string{"md-auto1"}},
		{name: "v4-auto-create", req: metadata(4, true, "md-auto4")},
		{name: "v4-auto-created", req: metadata(9, false, "md-auto4"), until: topicLed("md-auto4", 1), placed: []string{"md-auto4"}},
		{name: "v4-auto-create-invalid", req: metadata(4, true, "a/b")},
	}}
}

func deleteTopicsCase() testCase {
	return testCase{name: "delete-topics", steps: []step{
		{name: "setup", req: createTopics(7, 30000, false,
			assigned("dt-a", []int32{1}), assigned("dt-b", []int32{2}), assigned("dt-c", []int32{3}), assigned("dt-d", []int32{1}))},
		{name: "v0-missing", req: deleteTopics(0, 30000, "dt-missing")},
		{name: "v4-invalid-name", req: deleteTopics(4, 30000, "a/b")},
		{name: "v4-twice", req: deleteTopics(4, 30000, "dt-a", "dt-a")},
		{name: "v6-unknown-id", req: deleteTopicByID(6, 30000, "dt-never", false)},
		{name: "v6-name-and-id", req: deleteTopicByID(6, 30000, "dt-b", true)},
		{name: "v6-by-id", req: deleteTopicByID(6, 30000, "dt-b", false)},
		{name: "v6-by-name", req: deleteTopics(6, 30000, "dt-c")},
		// Kafka answers once the topic has left the controller's
		// metadata cache, so an all-partitions election right after
		// no longer sees it.
		{name: "v2-elect-all-right-after", req: electLeaders(2, preferred)},
		{name: "v6-missing", req: deleteTopics(6, 30000, "dt-missing")},
		{name: "v1-timeout-zero", req: deleteTopics(1, 0, "dt-d")},
		{name: "v12-after-metadata", req: metadata(12, false, "dt-a", "dt-b", "dt-c", "dt-d"), until: topicGone("dt-d")},
		// Deletion goes on after the answer; once it is over the names
		// are free again. Later cases list every topic, so wait.
		{name: "v4-recreate-validate-only", until: created,
			req: createTopics(4, 30000, true, newTopic("dt-a", 1, 1), newTopic("dt-b", 1, 1), newTopic("dt-c", 1, 1), newTopic("dt-d", 1, 1))},
	}}
}

func createPartitionsCase() testCase {
	const t = "cp-topic"
	return testCase{name: "create-partitions", steps: []step{
		{name: "setup", req: createTopics(7, 30000, false, assigned(t, []int32{1, 2}, []int32{2, 3}))},
		{name: "v0-fewer", req: createPartitions(0, false, grow(t, 1))},
		{name: "v0-same", req: createPartitions(0, false, grow(t, 2))},
		{name: "v0-same-with-assignment", req: createPartitions(0, false, growOnto(t, 2))},
		{name: "v1-negative", req: createPartitions(1, false, grow(t, -5))},
		{name: "v1-unknown-broker", req: createPartitions(1, false, growOnto(t, 3, []int32{1, 9}))},
		{name: "v1-wrong-count", req: createPartitions(1, false, growOnto(t, 4, []int32{1, 2}))},
		{name: "v3-duplicate-brokers", req: createPartitions(3, false, growOnto(t, 3, []int32{1, 1}))},
		{name: "v3-empty-assignment", req: createPartitions(3, false, growOnto(t, 3))},
		{name: "v3-empty-replicas", req: createPartitions(3, false, growOnto(t, 3, []int32{}))},
		{name: "v3-inconsistent-rf", req: createPartitions(3, false, growOnto(t, 3, []int32{1}))},
		{name: "v3-validate-only", req: createPartitions(3, true, growOnto(t, 3, []int32{3, 1}))},
		{name: "v3-validate-only-placed", req: createPartitions(3, true, grow(t, 4))},
		{name: "v1-missing", req: createPartitions(1, false, grow("cp-missing", 2))},
		{name: "v3-twice", req: createPartitions(3, false, grow(t, 3), grow(t, 4))},
		{name: "v3-grow", req: createPartitions(3, false, growOnto(t, 3, []int32{3, 1}))},
		{name: "v12-after-metadata", req: metadata(12, false, t)},
		{name: "v3-grow-timeout-zero", req: createPartitionsTimeout(3, 0, growOnto(t, 4, []int32{1, 2}))},
		{name: "v12-after-timeout-zero-metadata", req: metadata(12, false, t), until: topicLed(t, 4)},
	}}
}
