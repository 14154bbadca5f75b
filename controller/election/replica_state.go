package election

import (
	"fmt"
	"slices"
	"strconv"
)

// ReplicaState is the replica state machine's state (section 3.2). The
// values are Kafka's state bytes.
type ReplicaState int8

// The replica states.
const (
	NewReplica                ReplicaState = 1
	OnlineReplica             ReplicaState = 2
	OfflineReplica            ReplicaState = 3
	ReplicaDeletionStarted    ReplicaState = 4
	ReplicaDeletionSuccessful ReplicaState = 5
	ReplicaDeletionIneligible ReplicaState = 6
	NonExistentReplica        ReplicaState = 7
)

// String returns Kafka's state name.
func (s ReplicaState) String() string {
	switch s {
	case NewReplica:
		return "NewReplica"
	case OnlineReplica:
		return "OnlineReplica"
	case OfflineReplica:
		return "OfflineReplica"
	case ReplicaDeletionStarted:
		return "ReplicaDeletionStarted"
	case ReplicaDeletionSuccessful:
		return "ReplicaDeletionSuccessful"
	case ReplicaDeletionIneligible:
		return "ReplicaDeletionIneligible"
	case NonExistentReplica:
		return "NonExistentReplica"
	}
	return "ReplicaState(" + strconv.Itoa(int(s)) + ")"
}

// ValidPrevious lists the states a replica may enter s from, in Kafka's
// order. An unknown replica counts as NonExistentReplica.
func (s ReplicaState) ValidPrevious() []ReplicaState {
	switch s {
	case NewReplica:
		return []ReplicaState{NonExistentReplica}
	case OnlineReplica, OfflineReplica:
		return []ReplicaState{NewReplica, OnlineReplica, OfflineReplica, ReplicaDeletionIneligible}
	case ReplicaDeletionStarted:
		return []ReplicaState{OfflineReplica}
	case ReplicaDeletionSuccessful:
		return []ReplicaState{ReplicaDeletionStarted}
	case ReplicaDeletionIneligible:
		return []ReplicaState{OfflineReplica, ReplicaDeletionStarted}
	case NonExistentReplica:
		return []ReplicaState{ReplicaDeletionSuccessful}
	}
	return nil
}

// ValidReplicaTransition reports whether from → to is allowed.
func ValidReplicaTransition(from, to ReplicaState) bool {
	return slices.Contains(to.ValidPrevious(), from)
}

// CheckReplicaTransition returns nil for a valid transition and otherwise
// the *InvalidTransitionError Kafka logs before skipping the replica.
func CheckReplicaTransition(tp TopicPartition, replica int32, from, to ReplicaState) error {
	if ValidReplicaTransition(from, to) {
		return nil
	}
	valid := to.ValidPrevious()
	names := make([]string, len(valid))
	for i, v := range valid {
		names[i] = v.String()
	}
	return &InvalidTransitionError{Partition: tp, Replica: replica, From: from.String(), To: to.String(), ValidFrom: names}
}

// InitialReplicaState is the state machine's startup classification at
// failover: OnlineReplica when the replica is online, else
// ReplicaDeletionIneligible.
func InitialReplicaState(l Liveness, tp TopicPartition, replica int32) ReplicaState {
	if ReplicaOnline(l, replica, tp) {
		return OnlineReplica
	}
	return ReplicaDeletionIneligible
}

// CheckNewReplica decides the NonExistent → NewReplica transition. Without
// leadership info it is a state change only (send false). With it, the
// replica gets LeaderAndIsr(current, isNew=true) (send true), unless it is
// the current leader, which Kafka refuses: the replica keeps its state.
func CheckNewReplica(tp TopicPartition, replica int32, current *LeaderAndIsr) (send bool, err error) {
	if current == nil {
		return false, nil
	}
	if current.Leader == replica {
		return false, &StateChangeError{Partition: tp, Msg: fmt.Sprintf(
			"Replica %d for partition %s cannot be moved to NewReplica state as it is being requested to become leader",
			replica, tp)}
	}
	return true, nil
}

// OnlineReplicaSends reports whether moving a replica to OnlineReplica sends
// it LeaderAndIsr(current state, isNew=false): never from NewReplica (the
// caller appends the replica to the assignment if missing), otherwise only
// when the partition has leadership info.
func OnlineReplicaSends(from ReplicaState, hasLeadership bool) bool {
	return from != NewReplica && hasLeadership
}

// OfflineReplicaRecipients are the brokers that get LeaderAndIsr after a
// replica goes offline: every other assigned replica, or none when the topic
// is queued for deletion. The offline replica itself gets StopReplica
// (deletePartition=false) instead.
func OfflineReplicaRecipients(replicas []int32, replica int32, topicDeleting bool) []int32 {
	if topicDeleting {
		return nil
	}
	return filter(replicas, func(r int32) bool { return r != replica })
}

// IsrOutcome says what to do with one partition after an ISR removal.
type IsrOutcome int8

const (
	// IsrWrite: write LeaderAndIsr conditionally on its PartitionEpoch.
	IsrWrite IsrOutcome = iota
	// IsrUnchanged: the replica was not in the ISR. Nothing is written and
	// the epoch is not bumped; LeaderAndIsr is the current state to cache.
	IsrUnchanged
	// IsrSkip: no state znode and the topic is queued for deletion; the
	// partition is silently left out.
	IsrSkip
	// IsrFailed: Err says why; the replica keeps its state.
	IsrFailed
)

// IsrRemoval is the decision for one partition of an OfflineReplica
// transition (Kafka's removeReplicasFromIsr).
type IsrRemoval struct {
	Partition    TopicPartition
	Outcome      IsrOutcome
	LeaderAndIsr LeaderAndIsr
	Err          error
}

// RemoveReplicaFromISR takes replica out of one partition's ISR, from the
// state just read from ZooKeeper (nil when missing or empty). When the
// replica is in the ISR, the leader becomes -1 if it was the leader, the ISR
// loses the replica unless it is the last member (the ISR never empties:
// the last member stays with leader -1), and the leader epoch is bumped.
//
// As in Kafka, the returned state carries our controller epoch even when
// nothing is written (IsrUnchanged), because Kafka caches it that way and
// that cached epoch is what the following LeaderAndIsr carries.
func RemoveReplicaFromISR(env Env, replica int32, tp TopicPartition, current *LeaderAndIsr, topicDeleting bool) IsrRemoval {
	out := IsrRemoval{Partition: tp}
	switch {
	case current == nil && topicDeleting:
		out.Outcome = IsrSkip
		return out
	case current == nil:
		out.Outcome, out.Err = IsrFailed, &StateChangeError{Partition: tp, Msg: fmt.Sprintf(
			"Failed to change state of replica %d for partition %s since the leader and isr path in zookeeper is empty",
			replica, tp)}
		return out
	case current.ControllerEpoch > env.ControllerEpoch:
		out.Outcome, out.Err = IsrFailed, fencedStateError(tp, env.ControllerEpoch, current.ControllerEpoch)
		return out
	case !slices.Contains(current.ISR, replica):
		out.Outcome, out.LeaderAndIsr = IsrUnchanged, current.Clone()
		out.LeaderAndIsr.ControllerEpoch = env.ControllerEpoch
		return out
	}
	leader := current.Leader
	if leader == replica {
		leader = NoLeader
	}
	isr := current.ISR
	if len(isr) > 1 {
		isr = filter(isr, func(r int32) bool { return r != replica })
	}
	out.Outcome, out.LeaderAndIsr = IsrWrite, current.next(leader, isr, env.ControllerEpoch)
	return out
}
