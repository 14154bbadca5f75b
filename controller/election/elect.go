package election

import "slices"

// PartitionInput is one partition handed to an election.
type PartitionInput struct {
	Partition TopicPartition
	// Assignment is the controller's in-memory assignment. Offline, Preferred
	// and ControlledShutdown use Assignment.Replicas (the full list, adding
	// and removing replicas included); Reassign uses Assignment.Target().
	Assignment ReplicaAssignment
	// Current is the state just read from the state znode (not the cache),
	// nil when the znode is missing or empty.
	Current *LeaderAndIsr
	// UncleanEnabled is the topic's effective unclean.leader.election.enable
	// (topic override, else the cluster default, else false). Offline reads it
	// only when no live ISR member exists; see NeedsUncleanConfig.
	UncleanEnabled bool
}

// Result is the outcome of one partition's election.
type Result struct {
	Partition TopicPartition
	// LeaderAndIsr is the state to write when Err is nil: leader epoch + 1,
	// ControllerEpoch = ours, PartitionEpoch = the version it was computed
	// from (the write's expected version).
	LeaderAndIsr LeaderAndIsr
	// Recipients are the brokers that get LeaderAndIsr (isNew=false) once the
	// write succeeds, in assignment order. Brokers that are not registered
	// are dropped at send time, not here.
	Recipients []int32
	// Unclean is true when Offline chose a leader outside the ISR; the caller
	// marks UncleanLeaderElectionsPerSec.
	Unclean bool
	// Err is an *ElectionError when no leader was elected.
	Err error
}

// ElectLeaders runs one strategy over a batch, one Result per input in input
// order. Partitions are independent: one failure never affects another.
func ElectLeaders(env Env, s Strategy, in []PartitionInput) []Result {
	out := make([]Result, len(in))
	for i := range in {
		out[i] = ElectLeader(env, s, in[i])
	}
	return out
}

// ElectLeader runs one strategy for one partition (section 4 of the
// controller reference).
func ElectLeader(env Env, s Strategy, in PartitionInput) Result {
	newErr := func(reason Reason, candidates, isr []int32) *ElectionError {
		return &ElectionError{
			Partition: in.Partition, Strategy: s, Reason: reason,
			Candidates: slices.Clone(candidates), ISR: slices.Clone(isr),
			ControllerID: env.ControllerID, ControllerEpoch: env.ControllerEpoch,
		}
	}
	cur := in.Current
	if cur == nil {
		return Result{Partition: in.Partition, Err: newErr(ReasonNoState, nil, nil)}
	}
	if cur.ControllerEpoch > env.ControllerEpoch {
		e := newErr(ReasonFenced, nil, cur.ISR)
		e.ZnodeControllerEpoch = cur.ControllerEpoch
		return Result{Partition: in.Partition, Err: e}
	}
	var c choice
	switch s.Kind {
	case OfflineKind:
		c = chooseOffline(env.Live, in, s.AllowUnclean || in.UncleanEnabled)
	case ReassignKind:
		c = chooseReassign(env.Live, in)
	case PreferredKind:
		c = choosePreferred(env.Live, in)
	case ControlledShutdownKind:
		c = chooseControlledShutdown(env.Live, in)
	default:
		c = choice{reason: ReasonNoEligibleReplica}
	}
	if c.reason != 0 {
		return Result{Partition: in.Partition, Err: newErr(c.reason, c.candidates, cur.ISR)}
	}
	next := cur.next(c.leader, c.isr, env.ControllerEpoch)
	if c.unclean && env.LeaderRecoverySupported {
		next.LeaderRecoveryState = Recovering
	}
	return Result{Partition: in.Partition, LeaderAndIsr: next, Recipients: c.recipients, Unclean: c.unclean}
}

// NeedsUncleanConfig reports whether an Offline election of in would consult
// the topic's unclean.leader.election.enable: no live ISR member and the
// strategy does not already allow unclean election. Kafka reads
// /config/topics/<t> only for such partitions, and fails a partition whose
// config read fails.
func NeedsUncleanConfig(l Liveness, allowUnclean bool, in PartitionInput) bool {
	if allowUnclean || in.Current == nil {
		return false
	}
	_, ok := first(in.Current.ISR, func(r int32) bool { return ReplicaOnline(l, r, in.Partition) })
	return !ok
}

// choice is a strategy's decision before it becomes a LeaderAndIsr.
type choice struct {
	leader     int32
	isr        []int32
	recipients []int32
	unclean    bool
	reason     Reason  // non-zero: no leader
	candidates []int32 // what was examined, for the error
}

// chooseOffline: the first assigned replica that is online and in the ISR;
// else, when unclean is allowed, the first online assigned replica. A clean
// leader keeps the ISR filtered to online members; an unclean one gets an
// ISR of itself. Recipients are the online assigned replicas.
func chooseOffline(l Liveness, in PartitionInput, uncleanAllowed bool) choice {
	tp, a, isr := in.Partition, in.Assignment.Replicas, in.Current.ISR
	online := func(r int32) bool { return ReplicaOnline(l, r, tp) }
	if len(a) == 0 {
		return choice{reason: ReasonNoReplicas}
	}
	live := filter(a, online)
	if leader, ok := first(a, func(r int32) bool { return online(r) && slices.Contains(isr, r) }); ok {
		return choice{leader: leader, isr: filter(isr, online), recipients: live}
	}
	if !uncleanAllowed {
		return choice{reason: ReasonNoLiveInSyncReplica, candidates: a}
	}
	if len(live) == 0 {
		return choice{reason: ReasonNoLiveReplica, candidates: a}
	}
	// No online ISR member exists, so the first online replica is outside
	// the ISR: this is the unclean case by construction.
	return choice{leader: live[0], isr: []int32{live[0]}, recipients: live, unclean: true}
}

// chooseReassign: the first target replica that is online and in the ISR.
// The ISR is kept; every target replica is a recipient.
func chooseReassign(l Liveness, in PartitionInput) choice {
	tp, target, isr := in.Partition, in.Assignment.Target(), in.Current.ISR
	if len(target) == 0 {
		return choice{reason: ReasonNoReplicas}
	}
	leader, ok := first(target, func(r int32) bool {
		return ReplicaOnline(l, r, tp) && slices.Contains(isr, r)
	})
	if !ok {
		return choice{reason: ReasonNoEligibleReplica, candidates: target}
	}
	return choice{leader: leader, isr: isr, recipients: target}
}

// choosePreferred: the first assigned replica, and only it, if it is online
// and in the ISR. The ISR is kept; every assigned replica is a recipient.
func choosePreferred(l Liveness, in PartitionInput) choice {
	tp, a, isr := in.Partition, in.Assignment.Replicas, in.Current.ISR
	if len(a) == 0 {
		return choice{reason: ReasonNoReplicas}
	}
	head := a[0]
	switch {
	case !ReplicaOnline(l, head, tp):
		return choice{reason: ReasonPreferredNotLive, candidates: a[:1]}
	case !slices.Contains(isr, head):
		return choice{reason: ReasonPreferredNotInISR, candidates: a[:1]}
	}
	return choice{leader: head, isr: isr, recipients: slices.Clone(a)}
}

// chooseControlledShutdown: the first assigned replica that is reachable
// (registered, possibly shutting down, not on a failed directory), in the
// ISR, and not shutting down. Every shutting-down broker leaves the ISR.
// Recipients are the reachable assigned replicas, shutting-down ones
// included, so the departing broker learns it is now a follower.
func chooseControlledShutdown(l Liveness, in PartitionInput) choice {
	tp, a, isr := in.Partition, in.Assignment.Replicas, in.Current.ISR
	if len(a) == 0 {
		return choice{reason: ReasonNoReplicas}
	}
	reachable := func(r int32) bool { return ReplicaReachable(l, r, tp) }
	leader, ok := first(a, func(r int32) bool {
		return reachable(r) && slices.Contains(isr, r) && !l.ShuttingDown(r)
	})
	if !ok {
		return choice{reason: ReasonNoEligibleReplica, candidates: a}
	}
	newISR := filter(isr, func(r int32) bool { return !l.ShuttingDown(r) })
	return choice{leader: leader, isr: newISR, recipients: filter(a, reachable)}
}
