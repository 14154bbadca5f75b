package differential

import (
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// The cases below widen the ones in cases_topics_test.go and
// cases_cluster_test.go: success paths with configs, more edges of the
// counts and assignments, topics by id, and reassignments that complete.
// They run after the first cases, so nothing those list changes.

func createTopicsConfigsCase() testCase {
	// The topics with configs live on broker 1 alone; only those with
	// counts are placed by the controller (and masked in Metadata).
	on1 := func(name string, configs ...kmsg.CreateTopicsRequestTopicConfig) kmsg.CreateTopicsRequestTopic {
		return withConfigs(assigned(name, []int32{1}), configs...)
	}
	valid := []kmsg.CreateTopicsRequestTopicConfig{
		cfg("retention.ms", "86400000"), cfg("cleanup.policy", "compact,delete"),
		cfg("min.insync.replicas", "1"), cfg("compression.type", "zstd"),
		cfg("message.timestamp.type", "LogAppendTime"),
	}
	return testCase{name: "create-topics-configs", steps: []step{
		{name: "v5-valid-configs", req: createTopics(5, 30000, false, on1("ctc-v5", valid...))},
		{name: "v7-valid-configs", req: createTopics(7, 30000, false, on1("ctc-v7", valid...))},
		// A broker's name for a topic config is no topic config.
		{name: "v5-broker-config-names", req: createTopics(5, 30000, false,
			on1("ctc-brokername1", cfg("log.retention.ms", "1000")),
			on1("ctc-brokername2", cfg("message.max.bytes", "1000")))},
		{name: "v5-edge-values", req: createTopics(5, 30000, false,
			on1("ctc-ret-1", cfg("retention.ms", "-1")),
			on1("ctc-seg-small", cfg("segment.bytes", "10")),
			on1("ctc-maxmsg-0", cfg("max.message.bytes", "0")),
			on1("ctc-minisr-0", cfg("min.insync.replicas", "0")),
			on1("ctc-minisr-3", cfg("min.insync.replicas", "3")),
			on1("ctc-cleanup-empty", cfg("cleanup.policy", "")),
			on1("ctc-zstd-upper", cfg("compression.type", "ZSTD")),
			on1("ctc-spaces", cfg("retention.ms", " 1000 ")),
			on1("ctc-bool-upper", cfg("unclean.leader.election.enable", "TRUE")),
			on1("ctc-plus", cfg("retention.ms", "+1000")),
			on1("ctc-list-spaces", cfg("cleanup.policy", " compact , delete ")),
			on1("ctc-double", cfg("min.cleanable.dirty.ratio", "1")))},
		// Numbers as Java parses them: any Unicode decimal digit, float
		// suffixes and hexadecimal doubles, Infinity spelt so; String.trim
		// leaves a no-break space, so the number does not parse.
		{name: "v5-java-numbers", req: createTopics(5, 30000, false,
			on1("ctc-arabic-digits", cfg("retention.ms", "\u0661\u0660\u0660\u0660")),
			on1("ctc-nbsp", cfg("retention.ms", "\u00a0100")),
			on1("ctc-float-suffix", cfg("min.cleanable.dirty.ratio", "0.5f")),
			on1("ctc-hex-double", cfg("min.cleanable.dirty.ratio", "0x1p-2")),
			on1("ctc-inf", cfg("min.cleanable.dirty.ratio", "inf")),
			on1("ctc-infinity", cfg("min.cleanable.dirty.ratio", "Infinity")))},
		// Kafka takes NaN (its range check compares false); kzadmind
		// refuses it.
		{name: "v5-validate-only-nan", req: createTopics(5, 30000, true,
			on1("ctc-nan", cfg("min.cleanable.dirty.ratio", "NaN")))},
		{name: "v5-validate-only-configs", req: createTopics(5, 30000, true,
			on1("ctc-vo-ok", valid...),
			on1("ctc-vo-bad", cfg("retention.ms", "-1"), cfg("min.insync.replicas", "0")),
			newTopic("ctc-vo-counts", 2, 2, cfg("segment.bytes", "1048576")))},
		{name: "v7-validate-only-configs", req: createTopics(7, 30000, true, on1("ctc-vo7", valid...))},
		// -1 stands for the broker default (num.partitions=1,
		// default.replication.factor=1 in both runs).
		{name: "v5-rf-default", req: createTopics(5, 30000, false, newTopic("ctc-rf-default", 2, -1))},
		{name: "v5-partitions-default", req: createTopics(5, 30000, false, newTopic("ctc-p-default", -1, 2))},
		{name: "v7-rf-default-validate-only", req: createTopics(7, 30000, true, newTopic("ctc-rf-default-vo", 3, -1))},
		{name: "v4-name-lengths", req: createTopics(4, 30000, false,
			assigned(name249, []int32{2}), assigned(name250, []int32{2}))},
		{name: "v4-dotted-names", req: createTopics(4, 30000, false,
			assigned("ctc-a..b", []int32{3}), assigned("ctc...", []int32{3}), assigned("ctc.-_", []int32{3}))},
		{name: "v12-created-metadata", req: metadata(12, false,
			"ctc-v5", "ctc-rf-default", "ctc-p-default", name249, "ctc-a..b", "ctc-ret-1", "ctc-minisr-3"),
			until:  allLed(map[string]int{"ctc-v5": 1, "ctc-rf-default": 2, "ctc-p-default": 1, name249: 1, "ctc-a..b": 1}),
			placed: []string{"ctc-rf-default", "ctc-p-default"}},
		{name: "v4-created-configs", req: describeConfigs(4, true, false,
			described(topicType, "ctc-v5", "retention.ms", "cleanup.policy", "min.insync.replicas",
				"compression.type", "message.timestamp.type"),
			described(topicType, "ctc-spaces", "retention.ms"),
			described(topicType, "ctc-bool-upper", "unclean.leader.election.enable"),
			described(topicType, "ctc-plus", "retention.ms"),
			described(topicType, "ctc-list-spaces", "cleanup.policy"),
			described(topicType, "ctc-double", "min.cleanable.dirty.ratio"))},
	}}
}

// name249 is as long as a topic name may be; name250 one longer.
var (
	name249 = "ctc-" + strings.Repeat("n", 245)
	name250 = "ctc-" + strings.Repeat("n", 246)
)

func createPartitionsMoreCase() testCase {
	const t, big = "cpm-topic", "cpm-big"
	return testCase{name: "create-partitions-more", steps: []step{
		{name: "setup", req: createTopics(7, 30000, false, assigned(t, []int32{1, 2}, []int32{2, 3}), assigned(big, []int32{1}))},
		{name: "v0-grow-with-assignment", req: createPartitions(0, false, growOnto(t, 3, []int32{3, 1}))},
		{name: "v1-replica-count-above-rf", req: createPartitions(1, false, growOnto(t, 4, []int32{1, 2, 3}))},
		{name: "v3-more-lists-than-new", req: createPartitions(3, false, growOnto(t, 4, []int32{1, 2}, []int32{2, 3}))},
		{name: "v3-fewer-lists-than-new", req: createPartitions(3, false, growOnto(t, 6, []int32{1, 2}))},
		{name: "v1-negative-broker", req: createPartitions(1, false, growOnto(t, 4, []int32{-1, 2}))},
		{name: "v1-validate-only", req: createPartitions(1, true, growOnto(t, 4, []int32{1, 2}))},
		{name: "v0-valid-and-missing", req: createPartitions(0, false, growOnto(t, 4, []int32{1, 2}), grow("cpm-missing", 3))},
		{name: "v12-after-metadata", req: metadata(12, false, t), until: topicLed(t, 4)},
		{name: "v0-timeout-zero", req: createPartitionsTimeout(0, 0, growOnto(t, 5, []int32{2, 3}))},
		{name: "v12-after-timeout-zero-metadata", req: metadata(12, false, t), until: topicLed(t, 5)},
		// No partition limit is set in either run.
		{name: "v3-validate-only-many", req: createPartitions(3, true, grow(big, 5000))},
		{name: "v3-grow-many", req: createPartitions(3, false, grow(big, 24))},
		{name: "v12-grown-metadata", req: metadata(12, false, big), until: topicLed(big, 24), placed: []string{big}},
	}}
}

func deleteTopicsMoreCase() testCase {
	names := []string{"dtm-a", "dtm-b", "dtm-c", "dtm-d"}
	return testCase{name: "delete-topics-more", steps: []step{
		// Created at v4, whose answer carries no ids: the ids come from
		// the Metadata v12 answer that follows.
		{name: "setup", req: createTopics(4, 30000, false,
			assigned("dtm-a", []int32{1}), assigned("dtm-b", []int32{2}), assigned("dtm-c", []int32{3}), assigned("dtm-d", []int32{1}))},
		{name: "v12-ids-metadata", req: metadata(12, false, names...), until: allLed(map[string]int{"dtm-a": 1, "dtm-b": 1, "dtm-c": 1, "dtm-d": 1})},
		{name: "v12-by-ids-metadata", req: metadataTopics(12, byID("dtm-a"), byID("dtm-b"))},
		{name: "v6-by-id", req: deleteTopicsEntries(6, 30000, delByID("dtm-a"))},
		{name: "v6-id-then-name", req: deleteTopicsEntries(6, 30000, delByID("dtm-b"), delByName("dtm-b"))},
		{name: "v6-name-then-id", req: deleteTopicsEntries(6, 30000, delByName("dtm-c"), delByID("dtm-c"))},
		{name: "v5-timeout-zero", req: deleteTopics(5, 0, "dtm-d")},
		{name: "v12-after-metadata", req: metadata(12, false, names...), until: topicGone("dtm-d")},
		{name: "v4-recreate-validate-only", until: created, req: createTopics(4, 30000, true,
			newTopic("dtm-a", 1, 1), newTopic("dtm-b", 1, 1), newTopic("dtm-c", 1, 1), newTopic("dtm-d", 1, 1))},
		// The names are free again, so the controller has forgotten the
		// topics and their ids.
		{name: "v6-deleted-id", req: deleteTopicsEntries(6, 30000, delByID("dtm-a"))},
		{name: "v12-deleted-by-id-metadata", req: metadataTopics(12, byID("dtm-a"), byID("dtm-d"))},
	}}
}

func metadataMoreCase() testCase {
	const t = "mdm-topic"
	return testCase{name: "metadata-more", steps: []step{
		{name: "setup", req: createTopics(7, 30000, false, assigned(t, []int32{1, 2}, []int32{2, 3}), assigned("mdm.coll", []int32{3}))},
		{name: "v12-by-id", req: metadataTopics(12, byID(t))},
		{name: "v12-by-id-and-unknown-id", req: metadataTopics(12, byID(t), byID("mdm-never"))},
		// With any id in the list, Kafka answers for the ids only.
		{name: "v12-by-id-and-name", req: metadataTopics(12, byID(t), byName("mdm.coll"))},
		{name: "v12-name-and-its-id", req: metadataTopics(12, byNameAndID(t))},
		{name: "v10-by-name", req: metadata(10, false, t)},
		{name: "v10-name-and-id", req: metadataTopics(10, byNameAndID(t))},
		{name: "v11-id-only", req: metadataTopics(11, byID(t))},
		{name: "v8-authorized-operations", req: metadataOps(8, true, true, t, "mdm-missing")},
		{name: "v10-cluster-operations", req: metadataOps(10, false, true, t)},
		{name: "v9-cluster-operations", req: metadataOps(9, false, true, t)},
		{name: "v12-topic-operations", req: metadataOps(12, true, false, t, "mdm-missing")},
		{name: "v12-by-id-operations", req: metadataOpsByID(12, t)},
		{name: "v9-auto-create", req: metadata(9, true, "mdm-auto9")},
		{name: "v9-auto-created", req: metadata(9, false, "mdm-auto9"), until: topicLed("mdm-auto9", 1), placed: []string{"mdm-auto9"}},
		{name: "v12-auto-create", req: metadata(12, true, "mdm-auto12")},
		{name: "v12-auto-created", req: metadata(12, false, "mdm-auto12"), until: topicLed("mdm-auto12", 1), placed: []string{"mdm-auto12"}},
		{name: "v12-auto-create-invalid", req: metadata(12, true, "mdm bad", longName)},
		{name: "v12-auto-create-colliding", req: metadata(12, true, "mdm_coll")},
		{name: "v12-auto-create-existing-and-missing", req: metadata(12, true, t, "mdm-auto-mixed")},
		{name: "v12-auto-created-mixed", req: metadata(12, false, "mdm-auto-mixed"), until: topicLed("mdm-auto-mixed", 1),
			placed: []string{"mdm-auto-mixed"}},
		{name: "v12-after-colliding", req: metadata(12, false, "mdm_coll")},
		{name: "v4-auto-create-internal", req: metadata(4, true, "__transaction_state")},
		// Kafka's broker gives it its transaction.state.log.* settings
		// (3 partitions of 1 replica in the harness).
		{name: "v4-auto-created-internal", req: metadata(4, false, "__transaction_state"), until: topicLed("__transaction_state", anyCount),
			placed: []string{"__transaction_state"}},
		{name: "v4-auto-created-internal-configs", req: describeConfigs(4, false, false, described(topicType, "__transaction_state",
			"min.insync.replicas", "segment.bytes", "cleanup.policy", "compression.type", "unclean.leader.election.enable"))},
	}}
}

func electLeadersMoreCase() testCase {
	const t = "elm-topic"
	return testCase{name: "elect-leaders-more", steps: []step{
		{name: "setup", req: createTopics(7, 30000, false, assigned(t, []int32{1, 2}, []int32{2, 3}, []int32{3, 1}))},
		{name: "v12-setup-metadata", req: metadata(12, false, t), until: topicLed(t, 3)},
		{name: "v2-unclean-with-leaders", req: electLeaders(2, unclean, elect(t, 0, 1))},
		{name: "v2-unclean-unknown-partition", req: electLeaders(2, unclean, elect(t, 0, 9))},
		// The same replicas in another order: the leader (1) stays, the
		// preferred replica becomes 2.
		{name: "v0-reorder", req: alterReassignments(0, reassign(t, 0, []int32{2, 1}))},
		// Partition 1 leaves its leader (2) behind.
		{name: "v0-move", req: alterReassignments(0, reassign(t, 1, []int32{1, 3}))},
		{name: "v0-reassigned", req: listReassignments(0), until: noReassignments},
		{name: "v12-reassigned-metadata", req: metadata(12, false, t),
			until: partitionsAre(t, map[int32][]int32{0: {2, 1}, 1: {1, 3}})},
		{name: "v1-preferred-after-reorder", req: electLeaders(1, preferred, elect(t, 0, 1, 2))},
		{name: "v12-elected-metadata", req: metadata(12, false, t), until: leadersAre(t, map[int32]int32{0: 2, 1: 1, 2: 3})},
		{name: "v2-preferred-again", req: electLeaders(2, preferred, elect(t, 0))},
		{name: "v2-all-preferred", req: electLeaders(2, preferred)},
	}}
}

func reassignmentsMoreCase() testCase {
	const t = "ram-topic"
	return testCase{name: "reassignments-more", steps: []step{
		{name: "setup", req: createTopics(7, 30000, false, assigned(t, []int32{1, 2}, []int32{2, 3}))},
		{name: "v12-setup-metadata", req: metadata(12, false, t), until: topicLed(t, 2)},
		{name: "v0-move", req: alterReassignments(0, reassign(t, 0, []int32{3, 1}))},
		{name: "v0-same-replicas", req: alterReassignments(0, reassign(t, 1, []int32{2, 3}))},
		{name: "v0-done", req: listReassignments(0), until: noReassignments},
		{name: "v0-list-named-done", req: listReassignments(0, listed(t, 0, 1))},
		{name: "v12-moved-metadata", req: metadata(12, false, t), until: partitionsAre(t, map[int32][]int32{0: {3, 1}, 1: {2, 3}})},
		{name: "v0-grow-rf", req: alterReassignments(0, reassign(t, 1, []int32{2, 3, 1}))},
		{name: "v0-grown", req: listReassignments(0), until: noReassignments},
		// Partition 1's leader epoch: 1 after the same-replicas
		// reassignment completed (Kafka bumps it then), 2 when growing
		// started, 3 when it completed.
		{name: "v12-grown-metadata", req: metadata(12, false, t), until: both(
			partitionsAre(t, map[int32][]int32{0: {3, 1}, 1: {2, 3, 1}}), leaderEpochsReach(t, map[int32]int32{1: 3}))},
		{name: "v0-cancel-done", req: alterReassignments(0, reassign(t, 0, nil))},
	}}
}
