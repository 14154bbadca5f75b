// Package cli is the kzadmin command line: cobra commands that mirror
// kafka-topics.sh, kafka-configs.sh, kafka-reassign-partitions.sh and
// kafka-leader-election.sh, printing human tables or, with -o json, JSON.
// Every command talks to the cluster through a backend.Backend; today that
// is ZooKeeper (--zookeeper), and --bootstrap-server is reserved for the
// Kafka-protocol backend.
//
// Exit codes: 0 success, 1 the request failed (refused, or the cluster
// could not be reached), 2 usage error (bad flags or input files).
package cli
