// Package kafka runs real Apache Kafka 3.9 brokers in ZooKeeper mode for the
// integration tests: it fetches the broker and tool jars from Maven Central
// into a per-machine cache (Libs), starts brokers as child processes on free
// loopback ports against a test ZooKeeper (StartBroker, StartCluster), and
// runs Kafka's command-line tools with the same classpath (RunTool).
//
// Each broker can be stopped with SIGTERM (a controlled shutdown), killed
// with SIGKILL, paused with SIGSTOP and restarted with the same id, port and
// log directory, which is what the fault tests need. Every process is started
// with a parent-death signal so a crashed test leaves no JVM behind; the
// process handling itself lives in integration/childproc.
//
// The package is a test harness: it imports go-zookeeper only to observe a
// broker's registration znode, never to write.
package kafka
