package election

import (
	"slices"
	"strconv"
)

// RecoveryMode is a topic's KIP-966 unclean recovery behaviour, resolved by
// the controller from unclean.recovery.manager.enabled,
// unclean.recovery.strategy and unclean.leader.election.enable.
type RecoveryMode int8

const (
	// RecoveryOff: the recovery manager is disabled; Kafka's classic unclean
	// election (a live replica, if unclean.leader.election.enable) applies.
	RecoveryOff RecoveryMode = iota
	// RecoveryNone never elects an unclean leader.
	RecoveryNone
	// RecoveryBalanced asks the live replicas for their logs, waits up to
	// unclean.recovery.timeout.ms for every replica of RecoveryWaitSet to
	// answer, and elects the longest log among the answers.
	RecoveryBalanced
	// RecoveryAggressive elects the longest log among the first answers.
	RecoveryAggressive
)

// String names the mode as unclean.recovery.strategy spells it.
func (m RecoveryMode) String() string {
	switch m {
	case RecoveryOff:
		return "Off"
	case RecoveryNone:
		return "None"
	case RecoveryBalanced:
		return "Balanced"
	case RecoveryAggressive:
		return "Aggressive"
	}
	return "RecoveryMode(" + strconv.Itoa(int(m)) + ")"
}

// ReplicaLog is one replica's answer to the recovery manager: where its log
// ends and the epoch of its last record.
type ReplicaLog struct {
	Broker       int32
	LastEpoch    int32
	LogEndOffset int64
}

// RecoveryWaitSet is the set Balanced waits for: the assigned replicas that
// were last known to hold every committed record, ISR ∪ ELR ∪ last-known
// ELR. In KRaft the ISR is empty by then and the ELR members are fenced, so
// the KIP names the last-known ELR; in ZooKeeper mode the last ISR member
// stays in the ISR (leader -1) and brokers report no unclean shutdown, so
// those replicas are still in the ISR and the ELR. A member that comes back
// live ends the recovery with a clean election instead (chooseRecovered).
func RecoveryWaitSet(cur LeaderAndIsr, replicas []int32, minISR int32) []int32 {
	elr, last := ValidELR(cur, minISR)
	all := distinct(append(append(slices.Clone(cur.ISR), elr...), last...))
	return sortedOrNil(filter(all, func(r int32) bool { return slices.Contains(replicas, r) }))
}

// PickRecoveryLeader decides an unclean recovery from the answers so far
// (successful ones only, in arrival order). Balanced decides once every
// member of waitFor has answered, or at the timeout with at least one
// answer; Aggressive as soon as one has answered. The leader is the answer
// with the highest last epoch, then the highest log end offset, then the
// lowest broker id. Epochs count only when every answer has one (>= 0):
// stock brokers, asked with ListOffsets, cannot say the epoch of their
// last record (replicalog reports -1), and an epoch compared with an
// unknown one says nothing, so then log end offsets alone decide. None and
// Off never decide.
func PickRecoveryLeader(mode RecoveryMode, waitFor []int32, answers []ReplicaLog, timedOut bool) (int32, bool) {
	if len(answers) == 0 {
		return NoLeader, false
	}
	switch mode {
	case RecoveryAggressive:
	case RecoveryBalanced:
		if !timedOut {
			for _, w := range waitFor {
				if !slices.ContainsFunc(answers, func(a ReplicaLog) bool { return a.Broker == w }) {
					return NoLeader, false
				}
			}
		}
	default:
		return NoLeader, false
	}
	epochs := !slices.ContainsFunc(answers, func(a ReplicaLog) bool { return a.LastEpoch < 0 })
	best := answers[0]
	for _, a := range answers[1:] {
		if longerLog(a, best, epochs) {
			best = a
		}
	}
	return best.Broker, true
}

// longerLog orders answers: last epoch (when epochs count), then log end
// offset, then the lower broker id for a deterministic tie break.
func longerLog(a, b ReplicaLog, epochs bool) bool {
	switch {
	case epochs && a.LastEpoch != b.LastEpoch:
		return a.LastEpoch > b.LastEpoch
	case a.LogEndOffset != b.LogEndOffset:
		return a.LogEndOffset > b.LogEndOffset
	}
	return a.Broker < b.Broker
}
