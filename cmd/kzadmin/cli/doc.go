// Package cli is the kzadmin command line: cobra commands that mirror
// kafka-topics.sh, kafka-configs.sh, kafka-reassign-partitions.sh and
// kafka-leader-election.sh, printing human tables or, with -o json, JSON.
// Every command talks to the cluster through a backend.Backend: ZooKeeper
// (--zookeeper, package zkbackend) or the Kafka admin wire APIs
// (--bootstrap-server, package wirebackend).
//
// Exit codes: 0 success, 1 the request failed (refused, or the cluster
// could not be reached), 2 usage error (bad flags or input files).
package cli
