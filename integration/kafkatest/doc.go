// Package kafkatest holds the helpers that every suite running real Kafka
// 3.9 brokers needs in the same form: start a test's ZooKeeper with a
// session under the chroot (StartZooKeeper); start a broker set against
// it and wait until each broker knows the others and a controller,
// keeping the logs of a failed test (StartBrokers, KeepLogs); ask one
// broker alone for metadata (Metadata, TopicMetadata); check that a topic
// is fully online (TopicOnline); produce records (Produce,
// ProduceNumbered) and read a topic back from its start (EndOffsets,
// Reader).
//
// It sits on top of integration/kafka, which runs the broker processes;
// scenario code stays in the suites. Helpers that fail the test take a
// testing.TB; the ones a caller polls return errors instead, so that they
// can run inside waitfor.Until.
package kafkatest
