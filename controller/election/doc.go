// Package election is the pure decision core of the controller: Kafka's
// partition leader election strategies, the partition and replica state
// machines' transition rules, the ISR shrink when a replica goes offline,
// the auto leader rebalance check and the controlled-shutdown plan, all
// exactly as Kafka's ZooKeeper-mode controller decides them (controller
// reference, sections 2.10–2.12, 3, 4 and 9).
//
// Everything here is a function of its arguments: no I/O, no goroutines, no
// clock, no package state. The controller event loop owns the context and
// the ZooKeeper and broker traffic; it asks this package what to do and then
// does it. Every edge case is therefore a table row in the tests.
//
// # What the package decides
//
//   - ElectLeaders / ElectLeader: for a batch of partitions and one Strategy
//     (Offline(allowUnclean), Reassign, Preferred, ControlledShutdown), the
//     new LeaderAndIsr (leader epoch + 1, ISR per the strategy, controller
//     epoch = ours) and the brokers that must receive LeaderAndIsr, or an
//     *ElectionError whose Error() is Kafka's message.
//   - InitialLeaderAndIsr: New → Online (first online replica leads, ISR =
//     online replicas, epochs 0).
//   - RemoveReplicaFromISR: the OfflineReplica ISR shrink (leader -1 if it
//     was the leader; the last ISR member stays; epoch + 1).
//   - BumpLeaderEpoch: the reassignment "epoch bump only" update.
//   - ValidPartitionTransition / ValidReplicaTransition and the Check*
//     variants returning Kafka's invalid-transition message.
//   - CheckImbalance: which partitions auto rebalance elects, per preferred
//     broker, given leader.imbalance.per.broker.percentage.
//   - PlanControlledShutdown / RemainingLeaders / ValidateControlledShutdown.
//   - NextELR: KIP-966's eligible leader replicas, the one rule every ISR
//     write goes through (elections apply it themselves; the controller
//     applies it to AlterPartition, ISR removals and epoch bumps). With
//     Env.ELR, Offline elects from the ISR, then the ELR, then takes the
//     unclean path: Kafka's classic one (RecoveryOff), never (None), or
//     ReasonRecoveryNeeded, after which the caller asks the replicas for
//     their logs, decides with PickRecoveryLeader and elects with
//     Recover(leader), which re-checks the ISR and ELR first.
//
// # ELR in ZooKeeper mode
//
// Kafka's ZooKeeper controller never empties the ISR: its last member stays,
// with leader -1. NextELR works on that ISR unchanged, so the last member
// stays in the ISR and is elected first when it returns, as in Kafka.
// ZooKeeper-mode brokers never say whether they shut down cleanly, and a
// lost session looks the same as a crash, so a broker restart is presumed
// clean: ELR members keep their place across it, exactly as the last ISR
// member always has in ZooKeeper mode. The last-known ELR therefore only
// fills when a caller passes ELRParams.UncleanShutdown. Without the
// broker-side high-watermark rule of KIP-966, the ELR protects records
// acknowledged with acks=all (which brokers refuse below
// min.insync.replicas), not acks=1 ones. ELRMinISR stamps the min ISR the
// lists were computed under; a min.insync.replicas change voids them at the
// next decision (KRaft clears them at once).
//
// # What the caller must do with a decision
//
// Elections and ISR changes are computed from the partition state read
// fresh from ZooKeeper, not from the cache. The caller then:
//
//  1. writes each new LeaderAndIsr to its state znode as a setData
//     conditional on LeaderAndIsr.PartitionEpoch (the znode version the
//     decision was computed from), inside the controller-epoch-fenced multi;
//  2. on success, stores it in the context with PartitionEpoch replaced by
//     the version the write returned, and adds LeaderAndIsr (isNew=false)
//     for Result.Recipients plus UpdateMetadata for the partition to every
//     broker to the current request batch (brokers that are not registered
//     are dropped at send time);
//  3. on BADVERSION, re-reads the znode and asks again (no backoff);
//  4. on an *ElectionError, leaves the partition's state unchanged and logs
//     Detail(); the ElectLeaders handler answers PREFERRED_LEADER_NOT_AVAILABLE
//     or ELIGIBLE_LEADERS_NOT_AVAILABLE with Error() as the message;
//  5. marks UncleanLeaderElectionsPerSec for each Result.Unclean.
//
// For Offline elections the caller resolves each topic's effective
// unclean.leader.election.enable only for partitions where NeedsUncleanConfig
// is true, as Kafka reads /config/topics/<t> only then.
//
// Liveness is an interface so the context can answer from the maps it
// already keeps; Snapshot is a plain-map implementation.
package election
