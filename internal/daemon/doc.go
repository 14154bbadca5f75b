// Package daemon assembles kzadmind from its parts: the ZooKeeper session,
// the controller, one Kafka-protocol listener per configured listener (each
// secured as its protocol says, with the routes it serves), the ACL
// authorizer when configured, the HTTP server for metrics and health, and,
// in dev mode, a local ZooKeeper and simulated brokers. cmd/kzadmind parses
// flags and calls Start; integration tests call it in-process.
package daemon
