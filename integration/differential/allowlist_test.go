package differential

// allowlist maps a "case/step: field path" pattern ('*' matches any run
// of characters) to the reason the difference is deliberate. Only
// differences README.md's compatibility table documents belong here, and
// what they leave behind in later steps; each reason quotes its row.
// Anything else fails the test.
var allowlist = map[string]string{
	// README, Metadata (3): "the controller lists itself among the
	// brokers (that is how clients find it)". Metadata steps outside
	// the metadata cases are named *-metadata.
	"metadata*/*: Brokers[3000]": "Metadata: the controller lists itself among the brokers",
	"*-metadata: Brokers[3000]":  "Metadata: the controller lists itself among the brokers",

	// README, CreateTopics (19).
	"create-topics/v0-duplicate: Topics[ct-dup0*].ErrorCode":         "CreateTopics: v0 keeps the last duplicate, v1+ answers INVALID_REQUEST",
	"create-topics/v4-assign-unknown-broker: Topics[ct-a-unknown].*": "CreateTopics: assignments naming unknown brokers get INVALID_REPLICA_ASSIGNMENT (KRaft behaviour)",
	// Kafka creates ct-a-partly (its one replica on broker 1 leads), so
	// it is in every later list of Kafka's run and missing from kzadmind's.
	"*: Topics[ct-a-partly]*": "CreateTopics: assignments naming unknown brokers get INVALID_REPLICA_ASSIGNMENT (KRaft behaviour); Kafka created this topic",
	// Kafka refuses ct-a-counts, kzadmind creates it from the
	// assignment, so later lists have it in kzadmind's run only.
	"create-topics/v4-assign-and-counts: Topics[ct-a-counts].*": "CreateTopics: when both an assignment and counts are given, the assignment wins (seed 000)",
	"*: Topics[ct-a-counts]":                                    "CreateTopics: when both an assignment and counts are given, the assignment wins; kzadmind created this topic",
	"create-topics/v4-validate-only-colliding: Topics[ct_vo].*": "CreateTopics: validateOnly topics of one request count against each other (limits, collisions)",

	"create-topics/v4-assign-duplicate-broker: Topics[ct-a-dupbroker].ErrorMessage": "CreateTopics: the checks of an explicit assignment use KRaft's messages, " +
		"which name the partition and the broker",
	"create-topics/v4-assign-gap-after-checks: Topics[ct-a-gapdup].ErrorMessage": "CreateTopics: the checks of an explicit assignment use KRaft's messages, " +
		"which name the partition and the broker",

	"create-topics-configs/v5-validate-only-nan: Topics[ctc-nan].*": "Describe/Alter/IncrementalAlterConfigs: a DOUBLE config of NaN is refused, " +
		"where Kafka's range check lets it through",

	// README, ElectLeaders (43).
	"elect-leaders/v2-unknown-type: *": "ElectLeaders: an unknown election type is INVALID_REQUEST \"Unknown election type N\"; Kafka fails with UNKNOWN_SERVER_ERROR",

	// README, DescribeCluster (60).
	"describe-cluster/*: Brokers[3000]": "DescribeCluster: as Metadata, the controller lists itself among the brokers",

	// README, Describe/Alter/IncrementalAlterConfigs (32/33/44).
	"describe-configs/v4-topic-documentation: Resources[dc-topic].Configs[retention.ms].Documentation": "DescribeConfigs: a topic config's documentation is kzadmin's own text, not Kafka's",
	"describe-configs/v4-own-broker: Resources[<controller>].Configs[log.retention.hours]":             "DescribeConfigs of the controller's own id lists kzadmind's own keys, where a Kafka broker lists its whole configuration",
	"describe-configs/v4-own-broker: Resources[<controller>].Configs[auto.leader.rebalance.enable].ReadOnly": "auto.leader.rebalance.enable and " +
		"leader.imbalance.per.broker.percentage are dynamic to kzadmind, static to Kafka's brokers",
	"describe-configs/v4-own-broker: Resources[<controller>].Configs[leader.imbalance.per.broker.percentage].ReadOnly": "auto.leader.rebalance.enable and " +
		"leader.imbalance.per.broker.percentage are dynamic to kzadmind, static to Kafka's brokers",
	"describe-configs/v4-own-broker: Resources[<controller>].Configs[message.max.bytes]": "DescribeConfigs of the controller's own id lists kzadmind's own keys, where a Kafka broker lists its whole configuration",
	// Kafka 3.9 throws building the answer (two entries for one key in
	// AlterConfigsResponse.errors) and never answers.
	"alter-configs/v1-same-resource-twice: <answer>": "AlterConfigs naming one resource twice answers both INVALID_REQUEST; Kafka 3.9 never answers",
	// README, DescribeClientQuotas/AlterClientQuotas (48/49).
	"client-quotas/v1-describe-unknown-match: *": "DescribeClientQuotas: an unknown match type is INVALID_REQUEST \"Unexpected match type: N\"; " +
		"Kafka answers UNKNOWN_SERVER_ERROR without a message",
	"client-quotas/v1-alter-scram-key: *": "AlterClientQuotas: a SCRAM key given as a quota is INVALID_REQUEST saying to use " +
		"AlterUserScramCredentials; Kafka answers UNKNOWN_SERVER_ERROR without a message",
	// The answering broker's own log.cleaner.dedupe.buffer.size limits
	// the cleaner threads; kzadmind cannot see the brokers' static configs.
	"incremental-alter-configs/v1-broker-default-cross-check: *": "Kafka's checks of a new value against the broker's own configuration are not made",
}
