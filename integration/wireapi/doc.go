// Package wireapi proves kzadmind's admin wire API (issue 7) end to end
// with real clients: franz-go's kadm, IBM/sarama's ClusterAdmin, Kafka's
// own Java AdminClient (kafka-topics and kafka-configs through
// integration/kafka.RunTool), KafkaJS's admin client and librdkafka's
// (through its Python binding, confluent-kafka). The last two run as
// scripts (testdata/) from the clients clients/install.sh puts in the
// machine's cache (scripts/setup runs it).
//
// The interop tests (heavy: skipped only with KZADMIN_SKIP_HEAVY=1) share
// one cluster per package: a real ZooKeeper, kzadmind in-process
// (internal/daemon, node.id 3000, chroot /kz, auto leader rebalance off),
// started first so that it wins /controller, then three real Kafka 3.9
// brokers (ids 1..3, racks r1..r3). Every test checks its result twice: in
// ZooKeeper (assignment, config and partition state znodes, read with
// zkadmin) and as the brokers see it (a Metadata request sent to each
// broker itself, answered from the metadata kzadmind pushed with
// UpdateMetadata; for configs, the same DescribeConfigs sent to kzadmind
// and to a broker must agree entry by entry).
//
// Clients send CreateTopics, CreatePartitions, DeleteTopics, ElectLeaders
// and the reassignment APIs to the controller named in Metadata, which is
// kzadmind whether they bootstrap from it or from a broker; DescribeConfigs,
// AlterConfigs and IncrementalAlterConfigs go to any node, so a real broker
// may serve them. kzadmind's debug log is counted (served) so each test
// logs which requests kzadmind itself answered, and TestPinnedConfigs sends
// the config writes to kzadmind directly.
//
// TestConcurrentCreateTopics starts its own kzadmind in dev mode (local
// ZooKeeper, simulated brokers) and sends 1,000 CreateTopics requests from
// 20 connections over 300 overlapping names under a max.partitions limit
// that fits only some of them: every name is created at most once, with
// exactly one creating answer, every other answer is one the state allows,
// and ZooKeeper never holds more partitions than the limit.
package wireapi
