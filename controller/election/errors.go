package election

import "fmt"

// Reason says why an election produced no leader.
type Reason int8

const (
	// ReasonNoState: the state znode is missing or empty.
	ReasonNoState Reason = iota + 1
	// ReasonFenced: the state znode was written by a controller with a newer
	// epoch, so this controller has probably lost its seat (soft failure).
	ReasonFenced
	// ReasonNoReplicas: the candidate list (assignment or target) is empty.
	ReasonNoReplicas
	// ReasonNoLiveInSyncReplica: Offline, no live ISR member, unclean election
	// not allowed.
	ReasonNoLiveInSyncReplica
	// ReasonNoLiveReplica: Offline with unclean allowed, yet no assigned
	// replica is live.
	ReasonNoLiveReplica
	// ReasonPreferredNotLive: Preferred, the first assigned replica is dead,
	// shutting down or on a failed directory.
	ReasonPreferredNotLive
	// ReasonPreferredNotInISR: Preferred, the first assigned replica is live
	// but not in the ISR.
	ReasonPreferredNotInISR
	// ReasonNoEligibleReplica: Reassign or ControlledShutdown found no
	// candidate meeting every condition of the strategy.
	ReasonNoEligibleReplica
	// ReasonRecoveryNeeded: Offline found no live ISR or ELR member and the
	// topic's recovery strategy (Balanced or Aggressive) asks the replicas
	// for their logs first. The caller starts an unclean recovery.
	ReasonRecoveryNeeded
	// ReasonDesiredNotReplica: Designated, the desired leader is not an
	// assigned replica.
	ReasonDesiredNotReplica
	// ReasonDesiredNotLive: Designated, the desired leader is dead,
	// shutting down or has the partition on a failed directory.
	ReasonDesiredNotLive
	// ReasonDesiredNotEligible: Designated, the desired leader is outside
	// the ISR (and ELR) while a live member of those exists, which would
	// lead cleanly: electing the desired one would throw data away.
	ReasonDesiredNotEligible
)

// String names the reason.
func (r Reason) String() string {
	switch r {
	case ReasonNoState:
		return "no leader and ISR in ZooKeeper"
	case ReasonFenced:
		return "written by a newer controller"
	case ReasonNoReplicas:
		return "no replicas assigned"
	case ReasonNoLiveInSyncReplica:
		return "no live replica in the ISR and unclean election disabled"
	case ReasonNoLiveReplica:
		return "no live assigned replica"
	case ReasonPreferredNotLive:
		return "preferred replica not live"
	case ReasonPreferredNotInISR:
		return "preferred replica not in the ISR"
	case ReasonNoEligibleReplica:
		return "no eligible replica"
	case ReasonRecoveryNeeded:
		return "no live ISR or ELR member; unclean recovery needed"
	case ReasonDesiredNotReplica:
		return "the desired leader is not an assigned replica"
	case ReasonDesiredNotLive:
		return "the desired leader is not live (dead, shutting down, or the partition is on a failed log directory)"
	case ReasonDesiredNotEligible:
		return "the desired leader is not in the ISR (or ELR) while a live member of it is; designate that one"
	}
	return fmt.Sprintf("Reason(%d)", int8(r))
}

// ElectionError is a failed election: Kafka's StateChangeFailedException. The
// partition keeps its state and is not retried within the same call. An
// ElectLeaders handler answers PREFERRED_LEADER_NOT_AVAILABLE (preferred) or
// ELIGIBLE_LEADERS_NOT_AVAILABLE (unclean) with Error() as the message, for
// every Reason.
type ElectionError struct {
	Partition TopicPartition
	Strategy  Strategy
	Reason    Reason
	// Candidates and ISR are what the strategy examined, for Detail.
	Candidates []int32
	ISR        []int32
	// ControllerID and ControllerEpoch are ours; ZnodeControllerEpoch is the
	// newer epoch found in the znode (ReasonFenced only).
	ControllerID         int32
	ControllerEpoch      int32
	ZnodeControllerEpoch int32
}

// Error returns Kafka's message for the failure, word for word, since the
// ElectLeaders response carries it to clients and tests match on it.
func (e *ElectionError) Error() string {
	switch e.Reason {
	case ReasonNoState:
		return fmt.Sprintf("LeaderAndIsr information doesn't exist for partition %s", e.Partition)
	case ReasonFenced:
		return fmt.Sprintf("Aborted leader election for partition %s since the LeaderAndIsr path was "+
			"already written by another controller. This probably means that the current controller %d went "+
			"through a soft failure and another controller was elected with epoch %d.",
			e.Partition, e.ControllerID, e.ZnodeControllerEpoch)
	}
	if e.Strategy.Kind == DesignatedKind {
		// No Kafka message to match: say why, since an operator chose.
		return fmt.Sprintf("Failed to elect leader for partition %s under strategy %s: %s", e.Partition, e.Strategy, e.Reason)
	}
	return fmt.Sprintf("Failed to elect leader for partition %s under strategy %s", e.Partition, e.Strategy)
}

// Detail explains the failure for the state-change log, which Kafka's
// message does not.
func (e *ElectionError) Detail() string {
	return fmt.Sprintf("%s: %s (candidates [%s], isr [%s])",
		e.Partition, e.Reason, joinIDs(e.Candidates, ","), joinIDs(e.ISR, ","))
}

// NoEligibleLeader reports whether the strategy ran and found no leader, as
// opposed to the state being missing or fenced.
func (e *ElectionError) NoEligibleLeader() bool {
	return e.Reason != ReasonNoState && e.Reason != ReasonFenced
}

// StateChangeError is a failed state change outside an election (initial
// leader, ISR removal, NewReplica, epoch bump). Error() is Kafka's message.
type StateChangeError struct {
	Partition TopicPartition
	Msg       string
}

func (e *StateChangeError) Error() string { return e.Msg }

// fencedStateError is Kafka's message when a state znode, read for an ISR
// removal or an epoch bump, was written by a newer controller.
func fencedStateError(tp TopicPartition, ours, theirs int32) *StateChangeError {
	return &StateChangeError{Partition: tp, Msg: fmt.Sprintf("Leader and isr path written by another controller. "+
		"This probably means the current controller with epoch %d went through a soft failure and another "+
		"controller was elected with epoch %d. Aborting state change by this controller", ours, theirs)}
}

// InvalidTransitionError is an invalid state-machine transition. Kafka logs
// it and skips the partition or replica; the rest of the batch proceeds.
type InvalidTransitionError struct {
	Partition TopicPartition
	// Replica is the broker id for replica transitions, -1 for partitions.
	Replica int32
	From    string
	To      string
	// ValidFrom lists the states the target may be entered from.
	ValidFrom []string
}

// Error is Kafka's IllegalStateException message for the transition.
func (e *InvalidTransitionError) Error() string {
	valid := ""
	for i, s := range e.ValidFrom {
		if i > 0 {
			valid += ","
		}
		valid += s
	}
	if e.Replica < 0 {
		return fmt.Sprintf("Partition %s should be in one of %s states before moving to %s state. Instead it is in %s state",
			e.Partition, valid, e.To, e.From)
	}
	return fmt.Sprintf("Replica [Topic=%s,Partition=%d,Replica=%d] should be in the %s states before moving to %s state. "+
		"Instead it is in %s state", e.Partition.Topic, e.Partition.Partition, e.Replica, valid, e.To, e.From)
}
