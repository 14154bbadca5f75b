package brokersim

import (
	"fmt"
	"maps"
	"slices"

	"github.com/kzadmin/kzadmin/znodes"
)

// TopicPartition names one partition.
type TopicPartition struct {
	Topic     string
	Partition int32
}

func (tp TopicPartition) String() string { return fmt.Sprintf("%s-%d", tp.Topic, tp.Partition) }

// Role is what a broker is for a partition it hosts.
type Role int8

const (
	// Follower replicates from the leader.
	Follower Role = iota + 1
	// Leader serves the partition and owns its ISR.
	Leader
)

func (r Role) String() string {
	switch r {
	case Follower:
		return "follower"
	case Leader:
		return "leader"
	}
	return fmt.Sprintf("Role(%d)", int8(r))
}

// PartitionState is one entry of a broker's replica state, as the last
// accepted LeaderAndIsr set it and AlterPartition responses updated it.
// Its slices are never modified once stored, so snapshots share them.
type PartitionState struct {
	TopicID             znodes.UUID
	Role                Role
	ControllerEpoch     int32
	Leader              int32
	LeaderEpoch         int32
	ISR                 []int32
	PartitionEpoch      int32
	Replicas            []int32
	AddingReplicas      []int32
	RemovingReplicas    []int32
	LeaderRecoveryState int8
	IsNew               bool
}

// Status is a broker's life-cycle state.
type Status int8

const (
	// Stopped: not started yet, killed, or shut down.
	Stopped Status = iota
	// Running: registered and serving.
	Running
	// ShuttingDown: in controlled shutdown, still serving.
	ShuttingDown
	// Crashed: sockets cut; the registration stays until the ZooKeeper
	// session expires.
	Crashed
)

func (s Status) String() string {
	switch s {
	case Stopped:
		return "stopped"
	case Running:
		return "running"
	case ShuttingDown:
		return "shutting-down"
	case Crashed:
		return "crashed"
	}
	return fmt.Sprintf("Status(%d)", int8(s))
}

// LiveBroker is one entry of the metadata cache's live brokers.
type LiveBroker struct {
	ID        int32
	Rack      *string
	Endpoints []znodes.Endpoint
}

// Endpoint returns the broker's endpoint on the named listener.
func (l LiveBroker) Endpoint(listener string) (znodes.Endpoint, bool) {
	for _, e := range l.Endpoints {
		if e.Listener == listener {
			return e, true
		}
	}
	return znodes.Endpoint{}, false
}

// PartitionMeta is a partition as the metadata cache holds it
// (UpdateMetadata's partition state). Values are shared between brokers and
// must not be modified.
type PartitionMeta struct {
	ControllerEpoch int32
	Leader          int32
	LeaderEpoch     int32
	ISR             []int32
	ZkVersion       int32
	Replicas        []int32
	OfflineReplicas []int32
}

// Snapshot is a copy of a broker's state at one moment.
type Snapshot struct {
	ID     int32
	Status Status
	Paused bool
	// Epoch is the broker epoch (czxid of the registration); 0 before the
	// first registration.
	Epoch int64
	// ControllerEpoch is the largest controller epoch accepted (0 after
	// start, as in Kafka).
	ControllerEpoch int32
	// ControllerID is the controller the broker would send to, -1 if none
	// is known (see the package doc).
	ControllerID int32
	// Partitions is the replica state.
	Partitions map[TopicPartition]PartitionState
	// Log is the set of partitions on "disk", with their topic ids.
	Log map[TopicPartition]znodes.UUID
	// LiveBrokers and CachedPartitions describe the metadata cache.
	LiveBrokers      []LiveBroker
	CachedPartitions int
	// Received counts requests answered per API key; Sent counts requests
	// sent to the controller per API key (responses or not).
	Received map[int16]int64
	Sent     map[int16]int64
	// PendingAlterPartitions counts partitions with an ISR change not yet
	// answered by the controller.
	PendingAlterPartitions int
}

// Leaders returns the partitions the broker leads, sorted.
func (s Snapshot) Leaders() []TopicPartition {
	var out []TopicPartition
	for tp, p := range s.Partitions {
		if p.Role == Leader {
			out = append(out, tp)
		}
	}
	slices.SortFunc(out, compareTP)
	return out
}

func compareTP(a, b TopicPartition) int {
	if a.Topic != b.Topic {
		if a.Topic < b.Topic {
			return -1
		}
		return 1
	}
	return int(a.Partition) - int(b.Partition)
}

// replica is the internal replica-state entry: the public state plus the
// AlterPartition bookkeeping of a leader.
type replica struct {
	PartitionState
	// pending is the ISR change queued or in flight, nil if none (Kafka
	// allows one per partition).
	pending *alterItem
	// hold stops new ISR proposals until the named event (after the
	// controller refused one).
	hold holdReason
}

// holdReason says what must happen before a leader proposes an ISR again.
type holdReason int8

const (
	holdNone holdReason = iota
	// holdUntilEvent: a refused expansion (INELIGIBLE_REPLICA); retry on
	// the next metadata or liveness change, as a follower's next fetch
	// would in Kafka.
	holdUntilEvent
	// holdUntilLeaderAndIsr: FENCED_LEADER_EPOCH, INVALID_UPDATE_VERSION
	// and the like; wait for new leadership.
	holdUntilLeaderAndIsr
)

func copyCounters(m map[int16]int64) map[int16]int64 { return maps.Clone(m) }
