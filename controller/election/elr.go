package election

import "slices"

// ELRParams is what NextELR needs besides the two states: the cluster
// switch, the topic's effective min ISR and the partition's replicas.
type ELRParams struct {
	// Enabled is eligible.leader.replicas.enable. Disabled, every state
	// loses its ELR fields, as KRaft clears them when the feature is off.
	Enabled bool
	// MinISR is the effective min ISR (EffectiveMinISR): the topic's
	// min.insync.replicas capped at its replication factor.
	MinISR int32
	// Replicas is the partition's assignment. ELR and last-known ELR never
	// hold other brokers: a replica removed by a reassignment cannot lead.
	Replicas []int32
	// Unclean marks a leader elected from outside the ISR and ELR (or by
	// unclean recovery): the data guarantees are gone, so both lists are
	// cleared, as KRaft does.
	Unclean bool
	// UncleanShutdown lists replicas known to have lost unflushed data.
	// They move from the ELR to the last-known ELR. ZooKeeper-mode brokers
	// never report an unclean shutdown, so the controller passes none and
	// presumes every restart clean (see DESIGN notes in doc.go).
	UncleanShutdown []int32
}

// EffectiveMinISR is KRaft's getTopicEffectiveMinIsr: the topic's
// min.insync.replicas capped at the replication factor, and at least 1.
func EffectiveMinISR(configured int32, replicationFactor int) int32 {
	m := configured
	if int(m) > replicationFactor {
		m = int32(replicationFactor)
	}
	if m < 1 {
		m = 1
	}
	return m
}

// ValidELR returns l's ELR and last-known ELR when they were computed under
// minISR, and nil otherwise. KIP-966 voids both lists when
// min.insync.replicas changes: a replica that left the ISR while it was
// smaller than the old value may miss records acknowledged under a lower
// new one. The stored ELRMinISR stands in for KRaft's ClearElrRecord, so a
// config change needs no watch to be safe.
func ValidELR(l LeaderAndIsr, minISR int32) (elr, lastKnown []int32) {
	if l.ELRMinISR != minISR {
		return nil, nil
	}
	return l.ELR, l.LastKnownELR
}

// NextELR is the one rule for KIP-966's eligible leader replicas. Every
// place the controller writes an ISR (AlterPartition, the broker-failure ISR
// removal, controlled shutdown, elections, reassignment epoch bumps) passes
// the state it read (prev, nil when none) and the state it is about to
// write (next); NextELR returns next with ELR, LastKnownELR and ELRMinISR
// set. Following KRaft's PartitionChangeBuilder:
//
//   - disabled, unclean, or an ISR at or above the min ISR: both lists
//     empty;
//   - otherwise the ELR is every replica that was in prev's ISR or ELR and
//     is not in next's ISR (the replicas that left the ISR while it was
//     below the min ISR kept every acks=all record), minus replicas known
//     to have shut down uncleanly; the last-known ELR is what was in prev's
//     ISR, ELR or last-known ELR and is now in neither next's ISR nor ELR.
//
// Lists are ascending and never hold a broker outside params.Replicas.
// next's other fields are returned unchanged.
func NextELR(prev *LeaderAndIsr, next LeaderAndIsr, p ELRParams) LeaderAndIsr {
	out := next.Clone()
	out.ELR, out.LastKnownELR, out.ELRMinISR = nil, nil, 0
	if !p.Enabled || p.Unclean || len(next.ISR) >= int(p.MinISR) {
		return out
	}
	var prevISR, prevELR, prevLast []int32
	if prev != nil {
		prevISR = prev.ISR
		prevELR, prevLast = ValidELR(*prev, p.MinISR)
	}
	eligible := func(r int32) bool { return slices.Contains(p.Replicas, r) && !slices.Contains(next.ISR, r) }
	candidates := distinct(append(slices.Clone(prevELR), prevISR...))
	out.ELR = sortedOrNil(filter(candidates, func(r int32) bool {
		return eligible(r) && !slices.Contains(p.UncleanShutdown, r)
	}))
	out.LastKnownELR = sortedOrNil(filter(distinct(append(candidates, prevLast...)), func(r int32) bool {
		return eligible(r) && !slices.Contains(out.ELR, r)
	}))
	if len(out.ELR) > 0 || len(out.LastKnownELR) > 0 {
		out.ELRMinISR = p.MinISR
	}
	return out
}

// sortedOrNil sorts xs in place, returning nil for an empty list so that
// states compare equal whether a list was absent or emptied.
func sortedOrNil(xs []int32) []int32 {
	if len(xs) == 0 {
		return nil
	}
	slices.Sort(xs)
	return xs
}
