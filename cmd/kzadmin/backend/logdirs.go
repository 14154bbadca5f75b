package backend

import (
	"context"
	"errors"
	"fmt"
)

// ReplicaLogDir is one replica of a partition, on one broker, and a log
// directory of that broker (where it is to go, for a move).
type ReplicaLogDir struct {
	Topic     string
	Partition int32
	Broker    int32
	Dir       string
}

// Replica names the replica as Kafka's TopicPartitionReplica prints it:
// topic-partition-broker.
func (r ReplicaLogDir) Replica() string {
	return fmt.Sprintf("%s-%d-%d", r.Topic, r.Partition, r.Broker)
}

// ReplicaDirs is where a broker keeps a replica's log: its current
// directory and, while it is being moved, the future one. Both are empty
// when the broker has the replica in no live directory.
type ReplicaDirs struct {
	Current string
	Future  string
}

// LogDirAdmin is offered by the backends that reach the brokers (over
// --bootstrap-server): moving a replica between a broker's log
// directories is asked of that broker (AlterReplicaLogDirs), and where a
// replica's log lives is told by it (DescribeLogDirs). ZooKeeper knows
// neither, so the ZooKeeper backend does not offer it.
type LogDirAdmin interface {
	// DescribeLogDirs returns each broker's log directories and the
	// replicas in them, brokers in the order given.
	DescribeLogDirs(ctx context.Context, brokers []int32) ([]BrokerLogDirs, error)
	// AlterReplicaLogDirs asks each replica's broker to move it into its
	// Dir. It returns one outcome per move, in order: nil when the move
	// has started (or the replica is there already); ErrReplicaNotAvailable
	// when the broker does not host the replica yet, which a reassignment
	// adding it will change (the broker then creates it in Dir).
	AlterReplicaLogDirs(ctx context.Context, moves []ReplicaLogDir) []error
	// DescribeReplicaLogDirs returns where each replica's log is, in
	// order (the Dir of each is ignored).
	DescribeReplicaLogDirs(ctx context.Context, replicas []ReplicaLogDir) ([]ReplicaDirs, error)
}

// ErrReplicaNotAvailable is a move asked of a broker that does not host
// the replica (yet).
var ErrReplicaNotAvailable = errors.New("the broker does not host the replica")

// BrokerLogDirs are one broker's log directories, in the broker's order.
type BrokerLogDirs struct {
	Broker int32
	Dirs   []LogDir
}

// LogDir is one log directory and the replicas it holds. ErrorCode is
// Kafka's (KAFKA_STORAGE_ERROR for an offline directory, which lists no
// replicas).
type LogDir struct {
	Dir       string
	ErrorCode int16
	Replicas  []LogDirReplica
}

// LogDirReplica is one replica's log in a directory: its size in bytes,
// how far it is behind (the high watermark for a current log, the current
// log's end for a future one), and whether it is the future log of a move.
type LogDirReplica struct {
	Topic     string
	Partition int32
	Size      int64
	OffsetLag int64
	IsFuture  bool
}
