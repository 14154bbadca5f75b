// Package smoke holds the end-to-end smoke test: a real ZooKeeper, three
// real Kafka 3.9 brokers in ZooKeeper mode in racks r1..r3 with Kafka's own
// controller, a topic created with kadm, and 1,000 records produced and
// consumed with franz-go. It proves the integration harness works; the
// package has no code of its own.
package smoke
