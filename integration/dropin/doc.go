// Package dropin proves kzadmind as a drop-in controller for real Kafka 3.9
// ZooKeeper-mode brokers. Its tests (heavy: skipped only with
// KZADMIN_SKIP_HEAVY=1) start a real ZooKeeper, kzadmind in-process so that
// it wins /controller before any broker, and three real brokers in racks
// r1..r3, then run the core scenario on that one cluster:
//
//   - a topic created through zkadmin (RF 3) gets leaders, and 10k records
//     produced idempotently (which needs AllocateProducerIds from the
//     controller) are all consumed back;
//   - kill -9 of a partition leader: leadership moves, producing goes on,
//     and the restarted broker rejoins the ISR through AlterPartition; a
//     manual preferred election gives its leadership back;
//   - SIGTERM of a broker: the controlled shutdown moves its leadership
//     before it leaves; the auto leader rebalance restores it on return;
//   - a topic with records (RF 2) has each partition moved off its leader
//     onto the broker that had no replica, one through the legacy
//     /admin/reassign_partitions znode and one through
//     AlterPartitionReassignments sent to kzadmind: the new broker leads
//     with the whole log on disk, the dropped replica's directory goes,
//     the znodes hold the target with nothing pending, and a consumer
//     reads every record back;
//   - a broker auto-creates a topic (auto.create.topics.enable, RF 3,
//     ZooKeeper mode, so the broker writes the znode itself and places
//     replicas over every node in its metadata, kzadmind included):
//     kzadmind re-places the replicas on its id before the partitions go
//     online, and records go in and come out;
//   - a topic with records is deleted through DeleteTopics sent to
//     kzadmind: its znodes go, every broker removes its partition
//     directories, no consumer can fetch it, and it can be re-created at
//     once under the same name;
//   - two kzadmind instances: the active one (a child process) is killed
//     with SIGKILL, the standby takes over, the brokers accept its epoch and
//     producing goes on; then the same with a warm standby
//     (kzadmin.warm.standby=true), its figures next to the cold one's;
//   - the active kzadmind (a child) is SIGSTOPped until its session
//     expires and a successor takes over; resumed, it resigns, none of its
//     writes lands (/controller, /controller_epoch and the partition
//     states stay the successor's), and the brokers answer a LeaderAndIsr
//     and an UpdateMetadata at its old epoch with STALE_CONTROLLER_EPOCH;
//   - the same failures again under Kafka's own controller (the brokers
//     elect one of themselves once no kzadmind runs), for timing figures
//     printed side by side.
//
// Every scenario checks what ZooKeeper holds afterwards (partition state
// znodes, /controller, /controller_epoch, /latest_producer_id_block), not
// only what clients saw. Timing figures are printed, never asserted.
package dropin
