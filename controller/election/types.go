package election

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Leader ids with a special meaning in the partition state znode and in
// UpdateMetadata.
const (
	// NoLeader is stored when a partition has no leader (its last ISR member
	// went offline).
	NoLeader int32 = -1
	// LeaderDuringDelete is what UpdateMetadata carries for partitions of a
	// topic queued for deletion; brokers drop the partition when they see it.
	LeaderDuringDelete int32 = -2
)

// TopicPartition names one partition.
type TopicPartition struct {
	Topic     string
	Partition int32
}

// String renders Kafka's form, "topic-partition", used in every message.
func (tp TopicPartition) String() string {
	return tp.Topic + "-" + strconv.FormatInt(int64(tp.Partition), 10)
}

// LeaderRecoveryState is KIP-704's flag in the partition state (LeaderAndIsr
// v6+). Values are Kafka's bytes.
type LeaderRecoveryState int8

const (
	// Recovered is the normal state; the znode omits the field.
	Recovered LeaderRecoveryState = 0
	// Recovering marks a leader elected from outside the ISR (unclean) until
	// the leader itself reports it recovered through AlterPartition.
	Recovering LeaderRecoveryState = 1
)

// String renders Kafka's names.
func (s LeaderRecoveryState) String() string {
	switch s {
	case Recovered:
		return "RECOVERED"
	case Recovering:
		return "RECOVERING"
	}
	return "LeaderRecoveryState(" + strconv.Itoa(int(s)) + ")"
}

// LeaderAndIsr is one partition's leadership as stored in
// /brokers/topics/<t>/partitions/<p>/state, plus the znode's version.
//
// Values returned by this package never share slices with their inputs, so a
// caller may keep or mutate either side freely.
type LeaderAndIsr struct {
	Leader              int32
	LeaderEpoch         int32
	ISR                 []int32
	LeaderRecoveryState LeaderRecoveryState
	// PartitionEpoch is the ZooKeeper Stat.version of the state znode. A
	// decision carries the version it was computed from; the write must be
	// conditional on it, and the caller replaces it with the version the
	// write returns.
	PartitionEpoch int32
	// ControllerEpoch is the epoch of the controller that wrote the state.
	ControllerEpoch int32
	// ELR and LastKnownELR are KIP-966's extra znode fields, and ELRMinISR
	// the effective min ISR they were computed under (0: none). NextELR is
	// the only place that computes them; elections apply it, other
	// decisions carry them through for the caller to apply it.
	ELR          []int32
	LastKnownELR []int32
	ELRMinISR    int32
}

// Clone returns a deep copy.
func (l LeaderAndIsr) Clone() LeaderAndIsr {
	l.ISR = slices.Clone(l.ISR)
	l.ELR = slices.Clone(l.ELR)
	l.LastKnownELR = slices.Clone(l.LastKnownELR)
	return l
}

// HasLeader reports whether a leader is set (leader >= 0).
func (l LeaderAndIsr) HasLeader() bool { return l.Leader >= 0 }

// String renders the state in the style of Kafka's LeaderAndIsr.toString,
// for state-change logs.
func (l LeaderAndIsr) String() string {
	return fmt.Sprintf("LeaderAndIsr(leader=%d, leaderEpoch=%d, isr=%s, leaderRecoveryState=%s, partitionEpoch=%d)",
		l.Leader, l.LeaderEpoch, scalaList(l.ISR), l.LeaderRecoveryState, l.PartitionEpoch)
}

// next is Kafka's newLeaderAndIsr: a new leader and ISR with the leader
// epoch bumped, the recovery state and partition epoch kept, and the
// controller epoch set to the deciding controller's.
func (l LeaderAndIsr) next(leader int32, isr []int32, controllerEpoch int32) LeaderAndIsr {
	n := l.Clone()
	n.Leader = leader
	n.LeaderEpoch = l.LeaderEpoch + 1
	n.ISR = slices.Clone(isr)
	n.ControllerEpoch = controllerEpoch
	return n
}

// ReplicaAssignment is one partition's entry in /brokers/topics/<t>:
// the full replica list and, during a reassignment, which of those are
// being added and removed (KIP-455).
type ReplicaAssignment struct {
	Replicas []int32
	Adding   []int32
	Removing []int32
}

// Origin is the replica set before the reassignment: Replicas - Adding.
func (a ReplicaAssignment) Origin() []int32 { return without(a.Replicas, a.Adding) }

// Target is the replica set after the reassignment: Replicas - Removing.
func (a ReplicaAssignment) Target() []int32 { return without(a.Replicas, a.Removing) }

// IsBeingReassigned reports whether replicas are being added or removed.
func (a ReplicaAssignment) IsBeingReassigned() bool {
	return len(a.Adding) > 0 || len(a.Removing) > 0
}

// ReassignTo computes the assignment for a reassignment towards target,
// always measured from the original replicas so that a new target supersedes
// an old one. The target comes first in the new replica list, so the
// original order is lost if the reassignment is later cancelled.
func (a ReplicaAssignment) ReassignTo(target []int32) ReplicaAssignment {
	origin := a.Origin()
	full := distinct(append(slices.Clone(target), origin...))
	return ReplicaAssignment{
		Replicas: full,
		Adding:   without(full, origin),
		Removing: without(full, target),
	}
}

// without returns the members of xs not in drop, order kept. Never nil
// aliasing: the result is a fresh slice.
func without(xs, drop []int32) []int32 {
	out := make([]int32, 0, len(xs))
	for _, x := range xs {
		if !slices.Contains(drop, x) {
			out = append(out, x)
		}
	}
	return out
}

// distinct drops repeated ids, keeping first occurrences.
func distinct(xs []int32) []int32 {
	out := make([]int32, 0, len(xs))
	for _, x := range xs {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// filter returns the members of xs for which keep is true, order kept.
func filter(xs []int32, keep func(int32) bool) []int32 {
	out := make([]int32, 0, len(xs))
	for _, x := range xs {
		if keep(x) {
			out = append(out, x)
		}
	}
	return out
}

// first returns the first member of xs for which ok is true.
func first(xs []int32, ok func(int32) bool) (int32, bool) {
	for _, x := range xs {
		if ok(x) {
			return x, true
		}
	}
	return NoLeader, false
}

// scalaList renders ids as Scala prints a List: List(1, 2, 3).
func scalaList(xs []int32) string {
	return "List(" + joinIDs(xs, ", ") + ")"
}

// joinIDs renders ids separated by sep.
func joinIDs(xs []int32, sep string) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatInt(int64(x), 10)
	}
	return strings.Join(parts, sep)
}
