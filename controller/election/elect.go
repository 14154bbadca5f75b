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
	// MinISR is the topic's effective min ISR (EffectiveMinISR); only read
	// when Env.ELR is set.
	MinISR int32
	// Recovery is the topic's unclean recovery mode (KIP-966). RecoveryOff,
	// the zero value, keeps Kafka's classic unclean election.
	Recovery RecoveryMode
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
	// FromELR is true when the leader came from the ELR; the caller marks
	// ElectionFromEligibleLeaderReplicasPerSec.
	FromELR bool
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
		c = chooseOffline(env, in, s.AllowUnclean)
	case RecoveryKind:
		c = chooseRecovered(env, in, s.Leader)
	case DesignatedKind:
		c = chooseDesignated(env, in, s.Leader)
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
	next = NextELR(cur, next, ELRParams{Enabled: env.ELR, MinISR: in.MinISR, Replicas: in.Assignment.Replicas,
		Unclean: c.unclean})
	return Result{Partition: in.Partition, LeaderAndIsr: next, Recipients: c.recipients, Unclean: c.unclean,
		FromELR: c.fromELR}
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
	fromELR    bool
	reason     Reason  // non-zero: no leader
	candidates []int32 // what was examined, for the error
}

// chooseOffline: the first assigned replica that is online and in the ISR;
// else, with ELR enabled, the first online assigned replica in the (valid)
// ELR, which leads with an ISR of itself; else the unclean path. A clean
// leader keeps the ISR filtered to online members. Recipients are the
// online assigned replicas.
//
// The unclean path is Kafka's classic one (the first online assigned
// replica, ISR of itself) when unclean election is allowed and the recovery
// manager is off, or when an admin forces it (allowUnclean). With the
// recovery manager on, None fails and Balanced or Aggressive fail with
// ReasonRecoveryNeeded for the caller to ask the replicas for their logs.
func chooseOffline(env Env, in PartitionInput, allowUnclean bool) choice {
	a := in.Assignment.Replicas
	if len(a) == 0 {
		return choice{reason: ReasonNoReplicas}
	}
	if c, ok := chooseClean(env, in); ok {
		return c
	}
	live := filter(a, func(r int32) bool { return ReplicaOnline(env.Live, r, in.Partition) })
	switch {
	case allowUnclean:
	case in.Recovery == RecoveryOff && in.UncleanEnabled:
	case in.Recovery == RecoveryBalanced || in.Recovery == RecoveryAggressive:
		if len(live) == 0 {
			return choice{reason: ReasonNoLiveReplica, candidates: a}
		}
		return choice{reason: ReasonRecoveryNeeded, candidates: a}
	default:
		return choice{reason: ReasonNoLiveInSyncReplica, candidates: a}
	}
	if len(live) == 0 {
		return choice{reason: ReasonNoLiveReplica, candidates: a}
	}
	// No online ISR or ELR member exists, so the first online replica is
	// outside both: this is the unclean case by construction.
	return choice{leader: live[0], isr: []int32{live[0]}, recipients: live, unclean: true}
}

// chooseClean is the clean part of an offline election: a live ISR member,
// else (ELR enabled) a live ELR member.
func chooseClean(env Env, in PartitionInput) (choice, bool) {
	tp, a, cur := in.Partition, in.Assignment.Replicas, in.Current
	online := func(r int32) bool { return ReplicaOnline(env.Live, r, tp) }
	live := filter(a, online)
	if leader, ok := first(a, func(r int32) bool { return online(r) && slices.Contains(cur.ISR, r) }); ok {
		return choice{leader: leader, isr: filter(cur.ISR, online), recipients: live}, true
	}
	if !env.ELR {
		return choice{}, false
	}
	elr, _ := ValidELR(*cur, in.MinISR)
	if leader, ok := first(a, func(r int32) bool { return online(r) && slices.Contains(elr, r) }); ok {
		return choice{leader: leader, isr: []int32{leader}, recipients: live, fromELR: true}, true
	}
	return choice{}, false
}

// chooseRecovered elects the replica unclean recovery chose, after checking
// again that no ISR or ELR member is live: one that came back while the
// replicas were asked leads cleanly instead. The chosen replica must still
// be an online assigned replica.
func chooseRecovered(env Env, in PartitionInput, leader int32) choice {
	a := in.Assignment.Replicas
	if len(a) == 0 {
		return choice{reason: ReasonNoReplicas}
	}
	if c, ok := chooseClean(env, in); ok {
		return c
	}
	live := filter(a, func(r int32) bool { return ReplicaOnline(env.Live, r, in.Partition) })
	if !slices.Contains(live, leader) {
		return choice{reason: ReasonNoEligibleReplica, candidates: []int32{leader}}
	}
	return choice{leader: leader, isr: []int32{leader}, recipients: live, unclean: true}
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
