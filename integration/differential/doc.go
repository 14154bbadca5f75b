// Package differential is a differential test of kzadmind's admin wire
// API: it sends the same requests, at the same pinned versions, to Kafka
// 3.9's own ZooKeeper-mode controller and to kzadmind, and compares the
// answers field by field.
//
// TestDifferential (heavy: KZADMIN_SKIP_HEAVY=1 skips it) starts one
// ZooKeeper server and runs two clusters on it, one after the other so
// that never more than three broker JVMs run at once:
//
//   - kafka-controller: three real Kafka 3.9 brokers under the chroot
//     /kafkactl; one of them wins /controller. Every request goes to that
//     broker, which alone serves the controller-bound APIs.
//   - kzadmind: kzadmind in-process (node.id 3000, chroot /kzadmind), then
//     three brokers that follow it. Every request goes to kzadmind.
//
// Both clusters start empty, and the cases (cases_*_test.go) run in the
// same order against each: a case is a name and an ordered list of steps,
// each one request at a pinned version, sent over a raw connection
// (internal/kafkaconn) so that no client negotiates the version away.
// Later steps build on earlier ones (create, then describe), and may
// name topics by the ids the run's earlier answers gave them (CreateTopics
// v7, Metadata v10+); some wait, by re-sending until a condition holds,
// for what the brokers or the controller do asynchronously (applying a
// dynamic config, electing an auto-created topic's leader, finishing a
// reassignment, forgetting a deleted topic).
//
// Before comparing, each answer is normalized (normalize.go): throttle
// times are zeroed; topic ids become a placeholder that keeps zero apart
// from non-zero; the cluster id becomes <cluster-id> (null stays null);
// the run's controller id becomes -1000 (ControllerID) or <controller> (a
// config resource name, "expected <id>" in an error message); advertised
// addresses become "<addr of N>", N the node that owns the address; the
// lists Kafka builds from hash maps (Metadata's brokers, topics and
// partitions, config entries, the results of CreatePartitions,
// ElectLeaders, the reassignment and the config-alter APIs) are sorted;
// where Kafka placed replicas itself from a random start, only the shape
// of the placement is kept; and all-topics Metadata lists keep only the
// names. Everything else is compared exactly, null and "" apart.
//
// Reading the output: every difference is one log line
//
//	DIFF: case/step: field path: kafka=<value> kzadmind=<value>
//
// where the path names list entries by key (Topics[foo].Partitions[0]),
// "[order]" is a different order of the entries both sides have, and
// <present>/<absent> an entry one side lacks. Lines starting "allowed:"
// are differences the allowlist (allowlist_test.go) explains, each with
// the README compatibility-table row that documents it; "DIFF:" lines are
// unexplained and fail the test. <answer> means one side did not answer
// at all. KZADMIN_DIFF_VERBOSE=1 also logs both normalized answers to
// every step, and KZADMIN_DIFF_KEEP_LOGS=1 keeps the brokers' and
// kzadmind's logs.
package differential
