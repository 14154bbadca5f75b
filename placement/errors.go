package placement

import "fmt"

// ErrorKind says which Kafka exception a placement failure corresponds to, so callers can
// pick the wire error code without parsing messages.
type ErrorKind int

const (
	// InvalidPartitions is Kafka's InvalidPartitionsException (INVALID_PARTITIONS, 37).
	InvalidPartitions ErrorKind = iota + 1
	// InvalidReplicationFactor is InvalidReplicationFactorException (INVALID_REPLICATION_FACTOR, 38).
	InvalidReplicationFactor
	// InvalidReplicaAssignment is InvalidReplicaAssignmentException (INVALID_REPLICA_ASSIGNMENT, 39).
	InvalidReplicaAssignment
	// AdminOperation is Kafka's AdminOperationException. It has no wire code of its own; ZK-mode
	// Kafka answers it with UNKNOWN_SERVER_ERROR, or INVALID_REQUEST where the input was at fault.
	AdminOperation
)

func (k ErrorKind) String() string {
	switch k {
	case InvalidPartitions:
		return "InvalidPartitions"
	case InvalidReplicationFactor:
		return "InvalidReplicationFactor"
	case InvalidReplicaAssignment:
		return "InvalidReplicaAssignment"
	case AdminOperation:
		return "AdminOperation"
	}
	return fmt.Sprintf("ErrorKind(%d)", int(k))
}

// Error is a placement failure with Kafka's exact message. Msg is what Kafka puts in the
// exception, so a wire handler can return it verbatim.
type Error struct {
	Kind ErrorKind
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

func errorf(kind ErrorKind, format string, args ...any) *Error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// LimitErrorPrefix starts every LimitError message. Callers map errors carrying it to
// WILL_EXCEED_PARTITION_LIMITS (POLICY_VIOLATION by default in kzadmin, see design brief §3).
const LimitErrorPrefix = "WILL_EXCEED_PARTITION_LIMITS:"

// LimitScope says which KIP-578 limit a LimitError is about.
type LimitScope int

const (
	// ScopeBroker is max.broker.partitions: replicas hosted by one broker.
	ScopeBroker LimitScope = iota + 1
	// ScopeCluster is max.partitions: partitions in the whole cluster.
	ScopeCluster
)

func (s LimitScope) String() string {
	switch s {
	case ScopeBroker:
		return "broker"
	case ScopeCluster:
		return "cluster"
	}
	return fmt.Sprintf("LimitScope(%d)", int(s))
}

// LimitError reports that a request cannot be satisfied without exceeding a partition limit.
type LimitError struct {
	Scope LimitScope
	// BrokerID is the broker concerned when Scope is ScopeBroker.
	BrokerID int32
	// Limit is the configured max.broker.partitions or max.partitions.
	Limit int
	// Current is the broker's replica count, or the cluster's partition count, before the request.
	Current int
	// Requested is the count the request would reach.
	Requested int
}

func (e *LimitError) Error() string {
	if e.Scope == ScopeCluster {
		return fmt.Sprintf("%s the cluster would have %d partitions, above max.partitions=%d (it has %d now)",
			LimitErrorPrefix, e.Requested, e.Limit, e.Current)
	}
	return fmt.Sprintf("%s broker %d would host %d partition replicas, above max.broker.partitions=%d (it hosts %d now)",
		LimitErrorPrefix, e.BrokerID, e.Requested, e.Limit, e.Current)
}
