package controller

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/znodes"
)

// The pure steps of partition reassignment (controller reference §2.6),
// kept apart from the I/O so that each rule is a table row in the tests.

// reassignError is a partition's refusal, with the code and message the
// AlterPartitionReassignments API answers.
type reassignError struct {
	code int16
	msg  string
}

func (e *reassignError) Error() string {
	if e.msg == "" {
		if ke := kerr.TypedErrorForCode(e.code); ke != nil {
			return ke.Description
		}
	}
	return e.msg
}

func invalidAssignment(format string, args ...any) *reassignError {
	return &reassignError{code: kerr.InvalidReplicaAssignment.Code, msg: fmt.Sprintf(format, args...)}
}

// errPartitionDoesNotExist is Kafka's answer for a partition it has no
// assignment for, or whose topic is queued for deletion.
var errPartitionDoesNotExist = &reassignError{code: kerr.UnknownTopicOrPartition.Code, msg: "The partition does not exist."}

// errNoReassignment answers a cancel of a partition that is not moving.
var errNoReassignment = &reassignError{code: kerr.NoReassignmentInProgress.Code}

// validateReassignTarget is Kafka's validateReplicas for the API path:
// a target must be non-empty, without duplicates or negative ids, and the
// replicas it adds (measured from the original replicas) must be on live
// brokers (registered and not shutting down). Replicas the partition
// already has may be on dead brokers. live is ascending.
func validateReassignTarget(current election.ReplicaAssignment, target []int32, live []int32) *reassignError {
	switch {
	case len(target) == 0:
		return invalidAssignment("Empty replica list specified in partition reassignment.")
	case hasDuplicate(target):
		return invalidAssignment("Duplicate replica ids in partition reassignment replica list: %s", scalaBuffer(target))
	case slices.ContainsFunc(target, func(r int32) bool { return r < 0 }):
		return invalidAssignment("Invalid broker id in replica list: %s", scalaBuffer(target))
	}
	adding := current.ReassignTo(target).Adding
	for _, r := range adding {
		if !slices.Contains(live, r) {
			return invalidAssignment("Replica assignment has brokers that are not alive. Replica list: %s, live broker list: %s",
				scalaBuffer(adding), scalaSet(live))
		}
	}
	return nil
}

// buildReassignment is Kafka's maybeBuildReassignment. A target (cancel
// false) always gives current.ReassignTo(target), which for a partition
// already moving supersedes its reassignment. A cancel re-targets a moving
// partition at its original replicas; a cancel of a partition that is not
// moving gives false (NO_REASSIGNMENT_IN_PROGRESS).
func buildReassignment(current election.ReplicaAssignment, target []int32, cancel bool) (election.ReplicaAssignment, bool) {
	switch {
	case cancel && current.IsBeingReassigned():
		return current.ReassignTo(current.Origin()), true
	case cancel:
		return election.ReplicaAssignment{}, false
	}
	return current.ReassignTo(target), true
}

// reassignmentComplete is Kafka's isReassignmentComplete: a partition that
// is not moving is complete; a moving one is once every target replica is
// in the ISR of its current state (cur nil: no state, not complete).
func reassignmentComplete(a election.ReplicaAssignment, cur *election.LeaderAndIsr) bool {
	if !a.IsBeingReassigned() {
		return true
	}
	if cur == nil {
		return false
	}
	for _, r := range a.Target() {
		if !slices.Contains(cur.ISR, r) {
			return false
		}
	}
	return true
}

// leaderMove is what phase B3 does with the partition's leadership.
type leaderMove int8

const (
	// moveElect: elect a leader among the target replicas
	// (ReassignPartitionLeaderElectionStrategy).
	moveElect leaderMove = iota
	// moveBumpEpoch: keep the leader, bump the leader epoch so that the
	// replicas accept a LeaderAndIsr carrying the final replica list.
	moveBumpEpoch
)

// decideLeaderMove is Kafka's moveReassignedPartitionLeaderIfRequired: a
// leader outside the target, or an offline one, is replaced by election;
// an online leader inside the target stays, with its epoch bumped.
func decideLeaderMove(target []int32, leader int32, leaderOnline bool) leaderMove {
	if slices.Contains(target, leader) && leaderOnline {
		return moveBumpEpoch
	}
	return moveElect
}

// withoutReplica is Kafka's ReplicaAssignment.removeReplica (the
// NonExistentReplica transition): the replica leaves every list.
func withoutReplica(a election.ReplicaAssignment, r int32) election.ReplicaAssignment {
	drop := func(xs []int32) []int32 {
		if !slices.Contains(xs, r) {
			return xs
		}
		return slices.DeleteFunc(slices.Clone(xs), func(x int32) bool { return x == r })
	}
	return election.ReplicaAssignment{Replicas: drop(a.Replicas), Adding: drop(a.Adding), Removing: drop(a.Removing)}
}

// sameAssignment compares two assignments list by list, order included
// (Kafka's ReplicaAssignment equality).
func sameAssignment(a, b election.ReplicaAssignment) bool {
	return slices.Equal(a.Replicas, b.Replicas) && slices.Equal(a.Adding, b.Adding) && slices.Equal(a.Removing, b.Removing)
}

// zkReassignEntries reads the legacy znode's entries as Kafka's map does:
// one entry per partition, the last listed winning, in the order each
// partition first appears.
func zkReassignEntries(r znodes.ReassignPartitions) []znodes.ReassignmentEntry {
	pos := map[znodes.TopicPartition]int{}
	var out []znodes.ReassignmentEntry
	for _, e := range r.Partitions {
		tp := znodes.TopicPartition{Topic: e.Topic, Partition: e.Partition}
		if i, ok := pos[tp]; ok {
			out[i] = e
			continue
		}
		pos[tp] = len(out)
		out = append(out, e)
	}
	return out
}

// filterZkReassignment is Kafka's maybeRemoveFromZkReassignment decision:
// the entries to keep in /admin/reassign_partitions once those for which
// remove is true are dropped, and whether any was dropped. An empty result
// means the znode is deleted.
func filterZkReassignment(entries []znodes.ReassignmentEntry, remove func(TopicPartition, []int32) bool) (
	keep []znodes.ReassignmentEntry, dropped bool) {
	for _, e := range entries {
		if remove(TopicPartition{Topic: e.Topic, Partition: e.Partition}, e.Replicas) {
			dropped = true
			continue
		}
		keep = append(keep, e)
	}
	return keep, dropped
}

// topicAssignmentOf is a topic's znode as the context holds it (Kafka
// rewrites the whole topic from memory), with the assignments in next in
// place of the context's. Fields of the znode this package does not know
// are kept.
func topicAssignmentOf(t *topic, next map[int32]election.ReplicaAssignment) znodes.TopicAssignment {
	out := znodes.TopicAssignment{
		Version:    znodes.TopicAssignmentVersion,
		Partitions: make(map[int32][]int32, len(t.parts)),
		TopicID:    t.id,
		Unknown:    t.znode.Unknown,
	}
	for id, p := range t.parts {
		a := p.assign
		if n, ok := next[id]; ok {
			a = n
		}
		out.Partitions[id] = slices.Clone(a.Replicas)
		if len(a.Adding) > 0 {
			if out.AddingReplicas == nil {
				out.AddingReplicas = map[int32][]int32{}
			}
			out.AddingReplicas[id] = slices.Clone(a.Adding)
		}
		if len(a.Removing) > 0 {
			if out.RemovingReplicas == nil {
				out.RemovingReplicas = map[int32][]int32{}
			}
			out.RemovingReplicas[id] = slices.Clone(a.Removing)
		}
	}
	return out
}

func hasDuplicate(ids []int32) bool {
	for i, x := range ids {
		if slices.Contains(ids[:i], x) {
			return true
		}
	}
	return false
}

// scalaBuffer renders ids as Scala prints the replica lists of Kafka's API
// path: KafkaApis maps the request's Java list into a Scala buffer, and
// everything derived from it stays one: ArrayBuffer(1, 2, 3).
func scalaBuffer(ids []int32) string { return "ArrayBuffer(" + joinInt32(ids) + ")" }

// scalaSet renders ids as Scala prints a small Set, ascending.
func scalaSet(ids []int32) string { return "Set(" + joinInt32(slices.Sorted(slices.Values(ids))) + ")" }

func joinInt32(ids []int32) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.FormatInt(int64(id), 10)
	}
	return strings.Join(s, ", ")
}
