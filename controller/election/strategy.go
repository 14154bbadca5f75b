package election

import "strconv"

// Kind names one of Kafka's four partition leader election strategies.
type Kind int8

const (
	// OfflineKind is OfflinePartitionLeaderElectionStrategy: new and offline
	// partitions, broker failure and startup, ElectLeaders UNCLEAN.
	OfflineKind Kind = iota
	// ReassignKind is ReassignPartitionLeaderElectionStrategy: the leader is
	// leaving the replica set, or is offline, when a reassignment completes.
	ReassignKind
	// PreferredKind is PreferredReplicaPartitionLeaderElectionStrategy:
	// ElectLeaders PREFERRED, /admin/preferred_replica_election, auto rebalance.
	PreferredKind
	// ControlledShutdownKind is ControlledShutdownPartitionLeaderElectionStrategy:
	// moving leadership off a broker that asked to shut down.
	ControlledShutdownKind
	// RecoveryKind is kzadmin's KIP-966 unclean recovery: elect the replica
	// the recovery manager chose from the replicas' logs, unless an ISR or
	// ELR member came back meanwhile (then that one, cleanly).
	RecoveryKind
	// DesignatedKind is kzadmin's ElectLeaders v3 DesiredLeaders election
	// (seed 003, KIP-966 manual recovery): elect the replica an operator
	// named (designated.go).
	DesignatedKind
)

// Strategy is an election strategy with its parameter. Build one with
// Offline, Reassign, Preferred or ControlledShutdown.
type Strategy struct {
	Kind Kind
	// AllowUnclean (Offline only) allows an unclean election whatever the
	// topic config says. Kafka sets it only for an admin-triggered
	// ElectLeaders UNCLEAN; every automatic path passes false and lets the
	// topic's unclean.leader.election.enable decide.
	AllowUnclean bool
	// Leader (Recovery and Designated only) is the replica the recovery
	// manager chose, or the one an operator designated.
	Leader int32
}

// Offline returns OfflinePartitionLeaderElectionStrategy(allowUnclean).
func Offline(allowUnclean bool) Strategy {
	return Strategy{Kind: OfflineKind, AllowUnclean: allowUnclean}
}

// Reassign returns ReassignPartitionLeaderElectionStrategy.
func Reassign() Strategy { return Strategy{Kind: ReassignKind} }

// Preferred returns PreferredReplicaPartitionLeaderElectionStrategy.
func Preferred() Strategy { return Strategy{Kind: PreferredKind} }

// ControlledShutdown returns ControlledShutdownPartitionLeaderElectionStrategy.
func ControlledShutdown() Strategy { return Strategy{Kind: ControlledShutdownKind} }

// Recover returns the unclean recovery election of leader.
func Recover(leader int32) Strategy { return Strategy{Kind: RecoveryKind, Leader: leader} }

// String renders the strategy as Kafka's toString does, because it appears
// in the error message clients receive from ElectLeaders.
func (s Strategy) String() string {
	switch s.Kind {
	case OfflineKind:
		return "OfflinePartitionLeaderElectionStrategy(" + strconv.FormatBool(s.AllowUnclean) + ")"
	case ReassignKind:
		return "ReassignPartitionLeaderElectionStrategy"
	case PreferredKind:
		return "PreferredReplicaPartitionLeaderElectionStrategy"
	case ControlledShutdownKind:
		return "ControlledShutdownPartitionLeaderElectionStrategy"
	case RecoveryKind:
		return "UncleanRecoveryStrategy(" + strconv.Itoa(int(s.Leader)) + ")"
	case DesignatedKind:
		return "DesignatedLeaderElectionStrategy(" + strconv.Itoa(int(s.Leader)) + ")"
	}
	return "Strategy(" + strconv.Itoa(int(s.Kind)) + ")"
}

// Env is what every decision needs from the controller besides the partition.
type Env struct {
	// ControllerID and ControllerEpoch identify the deciding controller. The
	// epoch is written into every new state; the id appears in messages.
	ControllerID    int32
	ControllerEpoch int32
	// Live answers liveness questions from the controller context.
	Live Liveness
	// LeaderRecoverySupported is inter.broker.protocol.version >= 3.2-IV0:
	// an unclean leader is then marked RECOVERING.
	LeaderRecoverySupported bool
	// ELR is eligible.leader.replicas.enable: elections consult the ELR
	// after the ISR and every result goes through NextELR.
	ELR bool
}

// ElectionType is the ElectLeaders request's ElectionType byte.
type ElectionType int8

const (
	// PreferredElection is ElectionType 0.
	PreferredElection ElectionType = 0
	// UncleanElection is ElectionType 1.
	UncleanElection ElectionType = 1
)

// ElectionNeeded is the ElectLeaders (and /admin/preferred_replica_election)
// gate applied before any election: PREFERRED is needed iff the current
// leader is not the first assigned replica; UNCLEAN iff there is no leader or
// the leader's broker is not live (dead or shutting down; log directories are
// not consulted). A false answer is ELECTION_NOT_NEEDED. The caller must
// already know the partition has leadership info.
func ElectionNeeded(t ElectionType, l Liveness, replicas []int32, leader int32) bool {
	if t == UncleanElection {
		return leader == NoLeader || !BrokerLive(l, leader)
	}
	return len(replicas) == 0 || leader != replicas[0]
}

// StrategyFor maps an ElectLeaders election type to the strategy Kafka runs:
// PREFERRED → Preferred; UNCLEAN → Offline, with unclean allowed only when an
// admin client triggered it (not for the znode path or auto rebalance).
func StrategyFor(t ElectionType, adminTriggered bool) Strategy {
	if t == UncleanElection {
		return Offline(adminTriggered)
	}
	return Preferred()
}
