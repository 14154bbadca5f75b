// Package bench measures kzadmind's admin wire API end to end (issue 7,
// item 8) and prints each figure next to a baseline taken in the same run.
// Its benchmarks run only with -bench; each iteration is one whole
// scenario, so run them with -benchtime 1x (more iterations only repeat
// the scenario on a fuller cluster):
//
//	go test ./integration/bench/ -run '^$' -bench . -benchtime 1x
//
// Everything runs against one real ZooKeeper, kzadmind in-process
// (internal/daemon, chroot /kz) and simulated brokers (integration/
// brokersim), so the figures measure the controller and the API, not the
// brokers.
//
//   - BenchmarkCreateTopics: partitions per second created through
//     CreateTopics (timeout > 0: the answer comes once the topic and config
//     znodes, the partition state znodes and the leaders exist), against
//     the same znodes written raw to the same ZooKeeper with
//     zkadmin.MultiBatched, one depth at a time, as a well-written client
//     would. The design brief's target is 50% of raw; Kafka's ZooKeeper
//     controller managed about 170 partitions/s (KIP-599).
//   - BenchmarkMetadata: Metadata v12 latency (p50, p99, p99.9) under load
//     from concurrent connections, for one topic and for all of 10,000
//     topics, against ApiVersions on the same listener (the wire's floor)
//     and the same Metadata served by a simulated broker.
//
// Latencies are measured with a minimal client that writes pre-encoded
// requests and reads whole responses without decoding them, so client
// decoding does not count.
package bench
