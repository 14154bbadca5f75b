// Package elr proves KIP-966's eligible leader replicas and unclean
// recovery, as kzadmind brings them to ZooKeeper mode, on three real Kafka
// 3.9 brokers (racks r1..r3) with kzadmind as their controller:
//
//   - the ELR keeps every record acknowledged with acks=all when the last
//     ISR member dies and an ELR member comes back, and stock brokers
//     accept the state znodes that carry the extra fields;
//   - unclean.recovery.strategy=None elects nobody outside the ISR and ELR;
//   - Balanced waits for the ISR and ELR members instead of electing the
//     non-eligible replica that answered, so no acks=all record is lost;
//   - Aggressive elects, without waiting for the dead ISR, the live
//     replica with the longest log.
//
// The strategy is a controller setting, so each phase runs its own
// kzadmind over the same ZooKeeper and brokers (a controller failover,
// which is also what triggers the election of an offline partition).
// Every assertion reads the partition state znode as well.
//
// The test starts JVMs: it honours KZADMIN_SKIP_HEAVY=1 and must run under
// flock /tmp/kzadmin-heavy.lock.
package elr
