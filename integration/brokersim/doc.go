// Package brokersim simulates ZooKeeper-mode Kafka 3.9 brokers for scale
// tests, benchmarks and `kzadmind --dev`. It never stands in for real
// brokers in correctness tests: those run real Kafka (integration/kafka).
//
// A simulated broker does what a broker does on the controller's side of
// the cluster and nothing else (no logs, no fetching, no produce):
//
//   - It registers /brokers/ids/<id> exactly as Kafka 3.9 does: the checked
//     ephemeral create (a multi of create with null data and setData at
//     version 0), the version 5 JSON with one PLAINTEXT endpoint, its rack,
//     jmx_port -1 and "features":{}; its broker epoch is the czxid. Each
//     broker has its own ZooKeeper session, and re-registers (new epoch)
//     when that session expires, as Kafka does.
//   - It listens on a loopback port and serves LeaderAndIsr (4), StopReplica
//     (5), UpdateMetadata (6), Metadata (3) and ApiVersions at the versions a
//     Kafka 3.9 ZK broker advertises, applying the broker-side acceptance
//     rules of the controller reference §6: the broker-epoch check
//     (STALE_BROKER_EPOCH), the controller-epoch check
//     (STALE_CONTROLLER_EPOCH), the per-partition leader-epoch rule, topic-id
//     consistency and the StopReplica epoch rule (FENCED_LEADER_EPOCH).
//   - It serves kzadmin's GetReplicaLogInfo (replicalog.GetReplicaLogInfoKey),
//     which no real broker has, with log end offsets and epochs a test
//     scripts with SetLogEnd (get_replica_log_info.go).
//   - With Options.AdminRoutes it also serves the routes given for its id:
//     dev mode passes kzadmind's handlers for the admin APIs a real broker
//     answers itself (DescribeConfigs, AlterConfigs,
//     IncrementalAlterConfigs, DescribeCluster), which admin clients send
//     to any broker.
//   - It keeps a replica state map (partition to leader, leader epoch, ISR,
//     partition epoch, replicas, role), a metadata cache fed by
//     UpdateMetadata (live brokers, controller id, partition states) and a
//     "log": the set of partitions it has on disk, which survives restarts.
//   - It talks to the controller like a broker: leaders expand the ISR with
//     AlterPartition (a follower is caught up at once unless the test marks
//     it lagging), and Shutdown sends ControlledShutdown v3 until the
//     controller reports no remaining partitions or the retries run out.
//
// # Finding the controller
//
// A Kafka broker routes requests to the controller named by its last
// UpdateMetadata. The simulator also watches /controller, which is newer
// during a failover: the controller id is the one in /controller when that
// znode exists, else the metadata cache's. Its address is that broker's
// PLAINTEXT endpoint among the cache's live brokers; when the cache does
// not list it, Options.ControllerAddr is used if set.
//
// # Faults
//
// Kill closes the ZooKeeper session (the registration vanishes at once) and
// the listener, like a process that dies and whose session close reaches
// ZooKeeper. Crash cuts every socket instead, so the session is left to
// expire after its timeout, like kill -9 or a lost machine. Pause stops
// answering requests and sending to the controller while the session stays
// alive. Restart registers again with a new session, hence a new broker
// epoch, and an empty replica state and metadata cache; the log is kept.
//
// # Goroutines and locks
//
// Each running broker has the goroutines of its ZooKeeper client, an accept
// loop and one goroutine per connection (controller/wire), one goroutine
// watching /controller and its session, and one AlterPartition sender.
// There is no goroutine per partition, so a hundred brokers with a hundred
// thousand partitions are fine in one process. A broker's state is guarded
// by its mutex, which is never held across I/O; a broker reads other
// brokers' liveness only through atomics, so two brokers never wait on each
// other's locks. UpdateMetadata partition states are interned per Cluster:
// brokers that receive the same state share one copy.
package brokersim
