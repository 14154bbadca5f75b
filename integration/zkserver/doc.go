// Package zkserver starts real Apache ZooKeeper servers (the Debian
// package's jars, or any classpath given in KZADMIN_ZK_CLASSPATH) as child
// processes on free loopback ports: one standalone server, or an ensemble
// of N peers. Each server can be stopped, killed with SIGKILL, paused with
// SIGSTOP and restarted on the same ports and data, which is what the fault
// tests need. The process handling itself lives in integration/childproc.
//
// It is used by the tests (everything that touches ZooKeeper talks to a real
// server; there is no in-memory fake) and by `kzadmind --dev`, which starts
// its own local ZooKeeper.
package zkserver
