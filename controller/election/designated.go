package election

import "slices"

// Designated elections: ElectLeaders v3's DesiredLeaders (seed 003), the
// manual election KIP-966 gives operators ("the tool ... can directly
// select a leader"), notably to end an unclean recovery that strategy None
// leaves waiting for them.
//
// The rules, in order (chooseDesignated):
//
//  1. The desired leader must be an assigned replica
//     (ReasonDesiredNotReplica; INVALID_REPLICA_ASSIGNMENT on the wire)
//     and online: live, not shutting down, the partition not on a failed
//     directory (ReasonDesiredNotLive).
//  2. In the ISR: a clean election, like a preferred election of a replica
//     other than the first. The ISR keeps its online members.
//  3. Outside the ISR while any ISR member is online: refused
//     (ReasonDesiredNotEligible). A clean leader exists; electing the
//     desired one would truncate records the ISR acknowledged. Move
//     leadership with a clean election instead.
//  4. No online ISR member, the desired leader in the valid ELR (ELR
//     enabled): a clean ELR election, ISR of itself. Another online ELR
//     member when the desired one is not in the ELR: refused, as in 3.
//  5. Otherwise the desired leader is outside every list that vouches for
//     its log: an unclean election, the manual unclean recovery. It leads
//     with an ISR of itself, RECOVERING from IBP 3.2-IV0, the ELR and
//     last-known ELR cleared, and the caller counts
//     UncleanLeaderElectionsPerSec. The topic's unclean settings
//     (unclean.leader.election.enable, unclean.recovery.strategy, None
//     included) do not apply: an operator asked, as for ElectLeaders
//     UNCLEAN, which Kafka runs with unclean election allowed whatever the
//     topic says.
//
// The request's ElectionType does not matter for partitions with a desired
// leader: the rules above already keep every clean choice first.

// DesignatedGate is the ElectLeaders check made on the controller's
// context before a designated election.
type DesignatedGate int8

const (
	// DesignatedElect: run the election.
	DesignatedElect DesignatedGate = iota
	// DesignatedNotReplica: the desired leader is not an assigned replica
	// (INVALID_REPLICA_ASSIGNMENT).
	DesignatedNotReplica
	// DesignatedNotNeeded: the desired leader already leads and is online
	// (ELECTION_NOT_NEEDED).
	DesignatedNotNeeded
)

// CheckDesignated gates a designated election of desired for a partition
// with these replicas and current leader (NoLeader when none).
func CheckDesignated(l Liveness, tp TopicPartition, replicas []int32, leader, desired int32) DesignatedGate {
	switch {
	case !slices.Contains(replicas, desired):
		return DesignatedNotReplica
	case leader == desired && ReplicaOnline(l, desired, tp):
		return DesignatedNotNeeded
	}
	return DesignatedElect
}

// Designated returns the designated election of leader.
func Designated(leader int32) Strategy { return Strategy{Kind: DesignatedKind, Leader: leader} }

// chooseDesignated applies the rules above to the state just read.
func chooseDesignated(env Env, in PartitionInput, desired int32) choice {
	tp, a, cur := in.Partition, in.Assignment.Replicas, in.Current
	online := func(r int32) bool { return ReplicaOnline(env.Live, r, tp) }
	refuse := func(reason Reason, candidates []int32) choice {
		return choice{reason: reason, candidates: candidates}
	}
	switch {
	case !slices.Contains(a, desired):
		return refuse(ReasonDesiredNotReplica, a)
	case !online(desired):
		return refuse(ReasonDesiredNotLive, []int32{desired})
	}
	live := filter(a, online)
	if slices.Contains(cur.ISR, desired) {
		return choice{leader: desired, isr: filter(cur.ISR, online), recipients: live}
	}
	if liveISR := filter(cur.ISR, online); len(liveISR) > 0 {
		return refuse(ReasonDesiredNotEligible, liveISR)
	}
	if env.ELR {
		elr, _ := ValidELR(*cur, in.MinISR)
		if slices.Contains(elr, desired) {
			return choice{leader: desired, isr: []int32{desired}, recipients: live, fromELR: true}
		}
		if liveELR := filter(elr, func(r int32) bool { return slices.Contains(a, r) && online(r) }); len(liveELR) > 0 {
			return refuse(ReasonDesiredNotEligible, liveELR)
		}
	}
	return choice{leader: desired, isr: []int32{desired}, recipients: live, unclean: true}
}
