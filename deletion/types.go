package deletion

import (
	"cmp"
	"strconv"
	"time"

	"github.com/kzadmin/kzadmin/controller/election"
)

// TopicPartition is election's partition name, shared with the controller.
type TopicPartition = election.TopicPartition

// Replica names one replica: a partition and the broker hosting it (Kafka's
// PartitionAndReplica).
type Replica struct {
	TopicPartition
	Broker int32
}

// String renders "topic-partition@broker", as the scenario tests print it.
func (r Replica) String() string {
	return r.TopicPartition.String() + "@" + strconv.FormatInt(int64(r.Broker), 10)
}

// compareReplicas orders by topic, partition, then broker, so that every
// effect lists replicas in the same order whatever map order produced them.
func compareReplicas(a, b Replica) int {
	if c := comparePartitions(a.TopicPartition, b.TopicPartition); c != 0 {
		return c
	}
	return cmp.Compare(a.Broker, b.Broker)
}

func comparePartitions(a, b TopicPartition) int {
	if c := cmp.Compare(a.Topic, b.Topic); c != 0 {
		return c
	}
	return cmp.Compare(a.Partition, b.Partition)
}

// Cluster is what the manager reads from the controller's context. The
// controller's context answers every question from maps it already keeps;
// it is only called from inside Step, on the controller's event loop.
type Cluster interface {
	// Liveness says which replicas are online: registered, not shutting
	// down, not on a failed log directory (Kafka's isReplicaOnline).
	election.Liveness
	// TopicExists reports whether the topic is in the context (Kafka's
	// allTopics, i.e. /brokers/topics/<t> as last read).
	TopicExists(topic string) bool
	// Assignment returns the topic's partitions and their full replica
	// lists (the assignment's replicas, adding and removing included), or
	// nil for an unknown topic. The manager does not keep the result.
	Assignment(topic string) map[int32][]int32
	// Reassigning reports whether a partition of the topic is being
	// reassigned. Deletion does not start a round while it is.
	Reassigning(topic string) bool
	// Electing reports whether a leader election touching the topic is in
	// progress. Kafka 3.x elects synchronously inside one event and skips
	// queued topics, so a controller that does the same returns false; the
	// hook exists for elections that span events.
	Electing(topic string) bool
}

// Options configure a Manager. The zero value is Kafka's default: deletion
// enabled, retries after 1 s doubling up to 1 min.
type Options struct {
	// DisableDeletion is delete.topic.enable=false: markers are removed as
	// soon as they are seen and topics stay (Kafka's behaviour).
	DisableDeletion bool
	// RetryBackoff is the delay before the first retry of a topic whose
	// StopReplica failed on a live broker, or whose znodes could not be
	// removed; it doubles per attempt. 0 means DefaultRetryBackoff.
	RetryBackoff time.Duration
	// MaxRetryBackoff caps the delay. 0 means DefaultMaxRetryBackoff.
	MaxRetryBackoff time.Duration
}

// Retry delays used when Options leave them zero.
const (
	DefaultRetryBackoff    = time.Second
	DefaultMaxRetryBackoff = time.Minute
)

// backoff is the delay before retry attempt n (1-based).
func (o Options) backoff(attempt int) time.Duration {
	base, ceiling := o.RetryBackoff, o.MaxRetryBackoff
	if base <= 0 {
		base = DefaultRetryBackoff
	}
	if ceiling <= 0 {
		ceiling = DefaultMaxRetryBackoff
	}
	d := base
	for i := 1; i < attempt && d < ceiling; i++ {
		d *= 2
	}
	return min(d, ceiling)
}
