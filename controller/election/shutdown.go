package election

import (
	"fmt"
	"slices"
)

// Kafka error codes a ControlledShutdown request can be answered with.
const (
	CodeUnknownServerError   int16 = -1
	CodeBrokerNotAvailable   int16 = 8
	CodeStaleControllerEpoch int16 = 11
	CodeStaleBrokerEpoch     int16 = 77
)

// UnknownBrokerEpoch is the BrokerEpoch of requests that do not carry one
// (ControlledShutdown v0–1); it skips the epoch check.
const UnknownBrokerEpoch int64 = -1

// ShutdownRejectedError is a ControlledShutdown request refused before any
// work. Code is the response's error code.
type ShutdownRejectedError struct {
	Broker int32
	Code   int16
	Msg    string
}

func (e *ShutdownRejectedError) Error() string {
	return fmt.Sprintf("controlled shutdown of broker %d rejected (error code %d): %s", e.Broker, e.Code, e.Msg)
}

// ValidateControlledShutdown applies section 2.10's checks in Kafka's order.
// registered is whether the broker's znode exists (live or shutting down),
// cachedEpoch its recorded czxid. A non-active controller answers
// STALE_CONTROLLER_EPOCH (Kafka's ControllerMovedException). An unknown
// broker with a real epoch fails Kafka's map lookup first, which surfaces as
// UNKNOWN_SERVER_ERROR; with epoch -1 it gets BROKER_NOT_AVAILABLE.
func ValidateControlledShutdown(active bool, broker int32, brokerEpoch int64, registered bool, cachedEpoch int64) error {
	reject := func(code int16, msg string) error {
		return &ShutdownRejectedError{Broker: broker, Code: code, Msg: msg}
	}
	if !active {
		return reject(CodeStaleControllerEpoch, "controller moved")
	}
	if brokerEpoch != UnknownBrokerEpoch {
		if !registered {
			return reject(CodeUnknownServerError, fmt.Sprintf("key not found: %d", broker))
		}
		if brokerEpoch < cachedEpoch {
			return reject(CodeStaleBrokerEpoch, fmt.Sprintf("Received controlled shutdown request from an old broker "+
				"epoch %d for broker %d. Current broker epoch is %d.", brokerEpoch, broker, cachedEpoch))
		}
	}
	if !registered {
		return reject(CodeBrokerNotAvailable, fmt.Sprintf("Broker id %d does not exist.", broker))
	}
	return nil
}

// ShutdownPartition is one partition in the controller context, as the
// controlled-shutdown plan sees it.
type ShutdownPartition struct {
	Partition TopicPartition
	// Replicas is the full assignment; its length is the replication factor.
	Replicas []int32
	// Current is the cached leadership, nil when there is none.
	Current *LeaderAndIsr
	// TopicDeleting: the topic is queued for deletion.
	TopicDeleting bool
}

// ShutdownPlan is what the controller does for a broker that asked to shut
// down, after adding it to the shutting-down set.
type ShutdownPlan struct {
	// Lead are the partitions the broker leads: elect them in one batch with
	// ControlledShutdown(), which moves leadership and strips every
	// shutting-down broker from the ISR.
	Lead []TopicPartition
	// Follow are the partitions it follows: in a new batch send it
	// StopReplica(deletePartition=false) for all of them, then move each
	// replica (tp, broker) to OfflineReplica (ISR removal with an epoch bump,
	// LeaderAndIsr to the other replicas).
	Follow []TopicPartition
	// Untouched are hosted partitions needing nothing: replication factor 1,
	// no leadership info, or topic queued for deletion.
	Untouched []TopicPartition
}

// PlanControlledShutdown splits the partitions hosting broker (others in
// parts are ignored) into leader moves, follower removals and nothing.
func PlanControlledShutdown(broker int32, parts []ShutdownPartition) ShutdownPlan {
	var plan ShutdownPlan
	for _, p := range parts {
		if !slices.Contains(p.Replicas, broker) {
			continue
		}
		switch {
		case len(p.Replicas) <= 1 || p.Current == nil || p.TopicDeleting:
			plan.Untouched = append(plan.Untouched, p.Partition)
		case p.Current.Leader == broker:
			plan.Lead = append(plan.Lead, p.Partition)
		default:
			plan.Follow = append(plan.Follow, p.Partition)
		}
	}
	return plan
}

// RemainingLeaders is the response's RemainingPartitions, Kafka's
// partitionLeadersOnBroker computed after the elections have been applied to
// the context: partitions still led by broker with replication factor > 1,
// of topics not queued for deletion. The broker retries while it is not
// empty.
func RemainingLeaders(broker int32, parts []ShutdownPartition) []TopicPartition {
	var out []TopicPartition
	for _, p := range parts {
		if p.Current != nil && p.Current.Leader == broker && len(p.Replicas) > 1 && !p.TopicDeleting {
			out = append(out, p.Partition)
		}
	}
	return out
}
