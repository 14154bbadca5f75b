package election

import (
	"fmt"
	"slices"
	"strconv"
)

// PartitionState is the partition state machine's state (section 3.1). The
// values are Kafka's state bytes.
type PartitionState int8

// The partition states.
const (
	NewPartition         PartitionState = 0
	OnlinePartition      PartitionState = 1
	OfflinePartition     PartitionState = 2
	NonExistentPartition PartitionState = 3
)

// String returns Kafka's state name.
func (s PartitionState) String() string {
	switch s {
	case NewPartition:
		return "NewPartition"
	case OnlinePartition:
		return "OnlinePartition"
	case OfflinePartition:
		return "OfflinePartition"
	case NonExistentPartition:
		return "NonExistentPartition"
	}
	return "PartitionState(" + strconv.Itoa(int(s)) + ")"
}

// ValidPrevious lists the states a partition may enter s from, in Kafka's
// order (the order its error message prints). An unknown partition counts as
// NonExistentPartition.
func (s PartitionState) ValidPrevious() []PartitionState {
	switch s {
	case NewPartition:
		return []PartitionState{NonExistentPartition}
	case OnlinePartition, OfflinePartition:
		return []PartitionState{NewPartition, OnlinePartition, OfflinePartition}
	case NonExistentPartition:
		return []PartitionState{OfflinePartition}
	}
	return nil
}

// ValidPartitionTransition reports whether from → to is allowed.
func ValidPartitionTransition(from, to PartitionState) bool {
	return slices.Contains(to.ValidPrevious(), from)
}

// CheckPartitionTransition returns nil for a valid transition and otherwise
// the *InvalidTransitionError Kafka logs before skipping the partition.
func CheckPartitionTransition(tp TopicPartition, from, to PartitionState) error {
	if ValidPartitionTransition(from, to) {
		return nil
	}
	valid := to.ValidPrevious()
	names := make([]string, len(valid))
	for i, v := range valid {
		names[i] = v.String()
	}
	return &InvalidTransitionError{Partition: tp, Replica: -1, From: from.String(), To: to.String(), ValidFrom: names}
}

// OnlineAction says what moving a partition to OnlinePartition does, which
// depends on where it comes from.
type OnlineAction int8

const (
	// OnlineInvalid: the transition is not allowed (from NonExistent).
	OnlineInvalid OnlineAction = iota
	// OnlineInitialize: from NewPartition, create the state znode with
	// InitialLeaderAndIsr.
	OnlineInitialize
	// OnlineElect: from Online or Offline, run the requested strategy.
	OnlineElect
)

// ToOnline classifies a transition to OnlinePartition.
func ToOnline(from PartitionState) OnlineAction {
	switch from {
	case NewPartition:
		return OnlineInitialize
	case OnlinePartition, OfflinePartition:
		return OnlineElect
	}
	return OnlineInvalid
}

// InitialLeaderAndIsr is the New → Online initialisation: leader = the first
// online assigned replica, ISR = every online assigned replica (assignment
// order), leader epoch 0, partition epoch 0, RECOVERED. The caller creates
// the state znode (never overwrites it: NODEEXISTS leaves the partition New)
// and, on success, sends LeaderAndIsr with isNew=true to the returned
// recipients (the ISR). With no online replica the partition stays New and a
// later online-partition trigger retries it. The error text is Kafka's,
// except that it lists no live brokers (Liveness cannot enumerate them).
func InitialLeaderAndIsr(env Env, tp TopicPartition, replicas []int32) (LeaderAndIsr, []int32, error) {
	live := filter(replicas, func(r int32) bool { return ReplicaOnline(env.Live, r, tp) })
	if len(live) == 0 {
		return LeaderAndIsr{}, nil, &StateChangeError{Partition: tp, Msg: fmt.Sprintf(
			"Controller %d epoch %d encountered error during state change of partition %s from New to Online, "+
				"assigned replicas are [%s], live replicas are []. No assigned replica is alive.",
			env.ControllerID, env.ControllerEpoch, tp, joinIDs(replicas, ","))}
	}
	state := LeaderAndIsr{
		Leader:          live[0],
		LeaderEpoch:     0,
		ISR:             live,
		PartitionEpoch:  0,
		ControllerEpoch: env.ControllerEpoch,
	}
	return state, slices.Clone(live), nil
}

// InitialPartitionState is the state machine's startup classification at
// failover: NewPartition without leadership info, OnlinePartition when the
// leader's replica is online, OfflinePartition otherwise (leader -1 included).
func InitialPartitionState(l Liveness, tp TopicPartition, current *LeaderAndIsr) PartitionState {
	switch {
	case current == nil:
		return NewPartition
	case current.HasLeader() && ReplicaOnline(l, current.Leader, tp):
		return OnlinePartition
	}
	return OfflinePartition
}

// LeaderOnline reports whether the partition's leader is online. Partitions
// for which it is false (and whose topic is not queued for deletion) are
// Kafka's partitionsWithOfflineLeader, moved to OfflinePartition when
// replicas go offline.
func LeaderOnline(l Liveness, tp TopicPartition, current LeaderAndIsr) bool {
	return current.HasLeader() && ReplicaOnline(l, current.Leader, tp)
}

// NeedsOnlineTrigger reports whether triggerOnlinePartitionStateChange picks
// the partition: New or Offline, and its topic not queued for deletion. It
// then goes to Online with Offline(false).
func NeedsOnlineTrigger(s PartitionState, topicDeleting bool) bool {
	return !topicDeleting && (s == NewPartition || s == OfflinePartition)
}

// BumpLeaderEpoch is Kafka's updateLeaderEpoch, used by reassignment (phase
// A1, and B3 when the leader stays): same leader and ISR, leader epoch + 1,
// so that brokers accept a LeaderAndIsr carrying the new replica list. It
// fails when the znode is missing or was written by a newer controller.
// The caller writes conditionally and re-reads and retries on BADVERSION.
func BumpLeaderEpoch(env Env, tp TopicPartition, current *LeaderAndIsr) (LeaderAndIsr, error) {
	if current == nil {
		return LeaderAndIsr{}, &StateChangeError{Partition: tp,
			Msg: fmt.Sprintf("Cannot update leader epoch for partition %s as leaderAndIsr path is empty. "+
				"This could mean we somehow tried to reassign a partition that doesn't exist", tp)}
	}
	if current.ControllerEpoch > env.ControllerEpoch {
		return LeaderAndIsr{}, fencedStateError(tp, env.ControllerEpoch, current.ControllerEpoch)
	}
	return current.next(current.Leader, current.ISR, env.ControllerEpoch), nil
}
