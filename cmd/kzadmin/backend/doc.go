// Package backend is the seam between the kzadmin commands and a cluster:
// the Backend interface, in terms of Kafka's concepts (topics, partitions,
// configs, reassignments, elections) rather than of a transport. The
// ZooKeeper implementation (package zkbackend) writes Kafka's znodes; a
// Kafka-protocol implementation (--bootstrap-server) can implement the same
// interface with the admin APIs, returning no Writes.
//
// To add the Kafka-protocol backend: implement Backend (dry runs become
// validateOnly where the API has it), and open it in cli's app.open for
// --bootstrap-server (or pass it through cli.Options.Open); the commands,
// output and exit codes stay as they are.
//
// Errors a Backend returns for refused requests are *Error values carrying
// Kafka's error code and message, so the commands print and exit the same
// way whichever backend answered.
package backend
