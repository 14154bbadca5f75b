package deletion

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kzadmin/kzadmin/controller/election"
)

// TopicStatus is one queued topic's deletion progress, for the status
// page, the logs and `kzadmin topics describe`.
type TopicStatus struct {
	Topic string
	// Started: the first round was sent (brokers no longer list it).
	Started bool
	// Removing: every replica is deleted; the znodes are being removed.
	Removing bool
	// Replica counts: all assigned, confirmed deleted, awaiting an answer,
	// failed (offline or refused).
	Replicas, Deleted, InFlight, Failed int
	// Ineligible: no progress can be made now; Reason says why.
	Ineligible bool
	Reason     string
	// OfflineBrokers host replicas not yet deleted and are offline.
	OfflineBrokers []int32
	// Attempt counts failed rounds (the retry backoff's exponent).
	Attempt int
}

// String renders the status in one line, after the marker text, e.g.
// "marked for deletion: 4/6 replicas deleted, ineligible: brokers [3] offline".
func (s TopicStatus) String() string {
	var b strings.Builder
	b.WriteString(MarkedForDeletion)
	switch {
	case s.Removing:
		b.WriteString(": all replicas deleted, removing znodes")
	case !s.Started && !s.Ineligible:
		b.WriteString(": queued")
	default:
		fmt.Fprintf(&b, ": %d/%d replicas deleted", s.Deleted, s.Replicas)
		if s.InFlight > 0 {
			fmt.Fprintf(&b, ", %d in flight", s.InFlight)
		}
	}
	if s.Ineligible {
		b.WriteString(", ineligible: " + s.Reason)
	}
	return b.String()
}

// Status returns the topic's progress as of now, or false when it is not
// queued.
func (m *Manager) Status(c Cluster, topic string) (TopicStatus, bool) {
	t := m.topics[topic]
	if t == nil {
		return TopicStatus{}, false
	}
	s := TopicStatus{Topic: topic, Started: t.started, Removing: t.removing, Attempt: t.attempt,
		Replicas: len(t.replicas), Deleted: t.count(deleted), InFlight: t.count(inFlight), Failed: t.count(failed)}
	offline := map[int32]bool{}
	for r, ph := range t.replicas {
		if ph != deleted && !election.ReplicaOnline(c, r.Broker, r.TopicPartition) {
			offline[r.Broker] = true
		}
	}
	s.OfflineBrokers = slices.Sorted(maps.Keys(offline))
	switch {
	case t.removing:
	case t.held:
		s.Ineligible, s.Reason = true, fmt.Sprintf("retry %d pending after: %v", t.attempt, t.cause)
	case c.Reassigning(topic):
		s.Ineligible, s.Reason = true, "partition reassignment in progress"
	case c.Electing(topic):
		s.Ineligible, s.Reason = true, "leader election in progress"
	case len(s.OfflineBrokers) > 0:
		s.Ineligible, s.Reason = true, fmt.Sprintf("brokers %v offline", s.OfflineBrokers)
	}
	return s, true
}

// Statuses returns every queued topic's status, sorted by topic.
func (m *Manager) Statuses(c Cluster) []TopicStatus {
	out := make([]TopicStatus, 0, len(m.topics))
	for _, name := range m.Topics() {
		s, _ := m.Status(c, name)
		out = append(out, s)
	}
	return out
}

// Metrics are Kafka's deletion gauges (kafka.controller:type=KafkaController).
type Metrics struct {
	TopicsToDeleteCount             int
	ReplicasToDeleteCount           int // replicas of queued topics not yet deleted
	TopicsIneligibleToDeleteCount   int
	ReplicasIneligibleToDeleteCount int // replicas in ReplicaDeletionIneligible
}

// Metrics computes the gauges as of now.
func (m *Manager) Metrics(c Cluster) Metrics {
	var out Metrics
	for _, s := range m.Statuses(c) {
		out.TopicsToDeleteCount++
		out.ReplicasToDeleteCount += s.Replicas - s.Deleted
		out.ReplicasIneligibleToDeleteCount += s.Failed
		if s.Ineligible {
			out.TopicsIneligibleToDeleteCount++
		}
	}
	return out
}

// MarkedForDeletion is how tools show a topic queued for deletion (the
// status column of `kzadmin topics list`, the line of `describe`).
const MarkedForDeletion = "marked for deletion"

// CreateRefusedMessage is the message of the TOPIC_ALREADY_EXISTS (36)
// error that CreateTopics returns while the topic's marker exists: Kafka's
// exact text, "Topic 'x' is marked for deletion.", so clients and scripts
// that match on it keep working.
func CreateRefusedMessage(topic string) string {
	return "Topic '" + topic + "' is marked for deletion."
}

// IsCreateRefusedMessage reports whether an error message is
// CreateRefusedMessage's, which lets a wire-only tool tell "being deleted"
// from "exists" (e.g. after a validate-only CreateTopics).
func IsCreateRefusedMessage(msg string) bool {
	return strings.HasPrefix(msg, "Topic '") && strings.HasSuffix(msg, "' is marked for deletion.")
}
