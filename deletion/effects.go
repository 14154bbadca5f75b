package deletion

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kzadmin/kzadmin/controller/election"
)

// Effect is an output of Manager.Step: something the controller must do,
// as a plain value so that tests compare what one step produces. Carry the
// effects out in the order returned (Apply does, through Effects): the
// order is Kafka's (state changes, then UpdateMetadata, then StopReplica
// without and with delete, so each broker's FIFO channel sees them so).
type Effect interface {
	effect()
	String() string
}

// MarkerReason says why markers are removed without deleting a topic.
type MarkerReason int8

const (
	// ReasonDisabled: delete.topic.enable=false. Kafka removes every marker
	// and keeps the topics.
	ReasonDisabled MarkerReason = iota + 1
	// ReasonUnknownTopic: the marker names no topic in the context (Kafka
	// removes it). Also a marker left by another tool after the topic's
	// znodes were removed by hand.
	ReasonUnknownTopic
	// ReasonInvalidName: as ReasonUnknownTopic, and the name is not even a
	// legal topic name.
	ReasonInvalidName
	// ReasonTopicVanished: the topic was queued, then its assignment
	// znode disappeared behind the controller's back.
	ReasonTopicVanished
)

func (r MarkerReason) String() string {
	switch r {
	case ReasonDisabled:
		return "delete.topic.enable=false"
	case ReasonUnknownTopic:
		return "unknown topic"
	case ReasonInvalidName:
		return "not a legal topic name"
	case ReasonTopicVanished:
		return "topic znode removed by another tool"
	}
	return fmt.Sprintf("MarkerReason(%d)", int8(r))
}

// GuardAbsent reports whether the marker may only be removed while
// /brokers/topics/<t> is absent (MarkerRemovalPlan's guard): every reason
// but ReasonDisabled, whose topics exist.
func (r MarkerReason) GuardAbsent() bool { return r != ReasonDisabled }

// InvalidMarker: a child of /admin/delete_topics whose name cannot be a
// znode name of a topic (empty, "." or "..", or containing '/'). ZooKeeper
// never returns such a child; the manager refuses it rather than build
// paths from it. Log Err; nothing is written.
type InvalidMarker struct {
	Name string
	Err  error
}

// RemoveMarkers: delete /admin/delete_topics/<t> for each topic, fenced,
// leaving the topic alone (see MarkerRemovalPlan; with Reason.GuardAbsent
// the delete only happens while the topic znode is absent). Log Reason.
type RemoveMarkers struct {
	Topics []string
	Reason MarkerReason
}

// Enqueue: the topics are now queued for deletion (Kafka's
// topicsToBeDeleted). From now on UpdateMetadata carries leader -2 for
// them, StopReplica leader epoch -2, elections and reassignments skip them,
// new partitions are reverted. Manager.Queued answers the same.
type Enqueue struct{ Topics []string }

// StartTopicDeletion: the topics' deletion starts (Kafka's
// topicsWithDeletionStarted): move Partitions to OfflinePartition, then
// NonExistentPartition, state only, so they stop counting as offline.
type StartTopicDeletion struct {
	Topics     []string
	Partitions []TopicPartition
}

// UpdateMetadata: send UpdateMetadata for Partitions to every live or
// shutting-down broker. Their topics are queued, so each partition goes out
// with leader -2 (election.LeaderDuringDelete), leader epoch 0 and zkVersion
// 0, and brokers drop it from their metadata caches: this is when clients
// stop seeing the topic.
type UpdateMetadata struct{ Partitions []TopicPartition }

// SetReplicaStates: replica state machine transitions to State, state
// only (ReplicaDeletionIneligible for dead or failed replicas,
// ReplicaDeletionSuccessful for deleted ones). Kafka skips, with a log line,
// a replica whose current state does not allow the transition.
type SetReplicaStates struct {
	State    election.ReplicaState
	Replicas []Replica
}

// StopReplicas: the OfflineReplica transition: StopReplica with
// deletePartition=false and leader epoch -2 to each replica, so followers
// stop fetching. Kafka also shrinks the ISR in ZooKeeper here; for a topic
// being deleted that has no observable effect (no LeaderAndIsr is sent and
// the state znodes are about to go), so a controller may skip those writes.
type StopReplicas struct{ Replicas []Replica }

// DeleteReplicas: the ReplicaDeletionStarted transition: StopReplica with
// deletePartition=true and leader epoch -2 to each replica. The answers
// come back as StopReplicaResponse events. A replica whose request cannot
// be sent must be reported failed (StopReplicaResponse.Failed or
// ReplicasOffline), or its topic waits for it.
type DeleteReplicas struct{ Replicas []Replica }

// RemoveTopics: every replica of these topics is deleted (Kafka's
// completeDeleteTopic). Unregister each topic's data watch (so a quick
// re-creation is seen as new), read and remove its znodes
// (RemoveTopicZnodes: the assignment tree children first, the config, the
// marker, all fenced), drop it from the context, then report with a
// TopicsRemoved event.
type RemoveTopics struct{ Topics []string }

// RetryAfter: schedule a Retry{Topic, Attempt} event after Delay.
type RetryAfter struct {
	Topic   string
	Attempt int
	Delay   time.Duration
	// Cause is what failed, for the log.
	Cause error
}

func (InvalidMarker) effect()      {}
func (RemoveMarkers) effect()      {}
func (Enqueue) effect()            {}
func (StartTopicDeletion) effect() {}
func (UpdateMetadata) effect()     {}
func (SetReplicaStates) effect()   {}
func (StopReplicas) effect()       {}
func (DeleteReplicas) effect()     {}
func (RemoveTopics) effect()       {}
func (RetryAfter) effect()         {}

func (e InvalidMarker) String() string { return fmt.Sprintf("InvalidMarker %q: %v", e.Name, e.Err) }
func (e RemoveMarkers) String() string {
	return "RemoveMarkers " + list(e.Topics) + " (" + e.Reason.String() + ")"
}
func (e Enqueue) String() string { return "Enqueue " + list(e.Topics) }
func (e StartTopicDeletion) String() string {
	return "StartTopicDeletion " + list(e.Topics) + " partitions " + list(e.Partitions)
}
func (e UpdateMetadata) String() string { return "UpdateMetadata " + list(e.Partitions) }
func (e SetReplicaStates) String() string {
	return "SetReplicaStates " + e.State.String() + " " + list(e.Replicas)
}
func (e StopReplicas) String() string   { return "StopReplicas " + list(e.Replicas) }
func (e DeleteReplicas) String() string { return "DeleteReplicas " + list(e.Replicas) }
func (e RemoveTopics) String() string   { return "RemoveTopics " + list(e.Topics) }
func (e RetryAfter) String() string {
	return fmt.Sprintf("RetryAfter %s attempt %d in %s: %v", e.Topic, e.Attempt, e.Delay, e.Cause)
}

// list renders a slice as [a b c].
func list[T any](xs []T) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// Effects is what the controller implements to carry effects out; Apply
// dispatches to it. Each method runs on the controller's event loop.
// Methods that send requests only queue them; their answers come back as
// events. An error stops Apply: the controller treats it like a failed
// event (resign on a fenced write, requeue the triggering event otherwise).
type Effects interface {
	InvalidMarker(ctx context.Context, e InvalidMarker) error
	RemoveMarkers(ctx context.Context, e RemoveMarkers) error
	Enqueue(ctx context.Context, e Enqueue) error
	StartTopicDeletion(ctx context.Context, e StartTopicDeletion) error
	UpdateMetadata(ctx context.Context, e UpdateMetadata) error
	SetReplicaStates(ctx context.Context, e SetReplicaStates) error
	StopReplicas(ctx context.Context, e StopReplicas) error
	DeleteReplicas(ctx context.Context, e DeleteReplicas) error
	RemoveTopics(ctx context.Context, e RemoveTopics) error
	RetryAfter(ctx context.Context, e RetryAfter) error
}

// Apply carries out effs in order through to, stopping at the first error.
func Apply(ctx context.Context, effs []Effect, to Effects) error {
	for _, e := range effs {
		if err := applyOne(ctx, e, to); err != nil {
			return fmt.Errorf("deletion effect %s: %w", e, err)
		}
	}
	return nil
}

func applyOne(ctx context.Context, e Effect, to Effects) error {
	switch e := e.(type) {
	case InvalidMarker:
		return to.InvalidMarker(ctx, e)
	case RemoveMarkers:
		return to.RemoveMarkers(ctx, e)
	case Enqueue:
		return to.Enqueue(ctx, e)
	case StartTopicDeletion:
		return to.StartTopicDeletion(ctx, e)
	case UpdateMetadata:
		return to.UpdateMetadata(ctx, e)
	case SetReplicaStates:
		return to.SetReplicaStates(ctx, e)
	case StopReplicas:
		return to.StopReplicas(ctx, e)
	case DeleteReplicas:
		return to.DeleteReplicas(ctx, e)
	case RemoveTopics:
		return to.RemoveTopics(ctx, e)
	case RetryAfter:
		return to.RetryAfter(ctx, e)
	}
	return fmt.Errorf("unknown effect %T", e)
}
