package deletion

import (
	"maps"
	"slices"

	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/znodes"
)

// phase is one replica's progress, the deletion half of Kafka's replica
// state machine.
type phase int8

const (
	// pending: not asked yet, or to be asked again (Online/Offline).
	pending phase = iota
	// inFlight: StopReplica(delete=true) sent (ReplicaDeletionStarted).
	inFlight
	// deleted: the broker confirmed (ReplicaDeletionSuccessful).
	deleted
	// failed: offline, or the broker answered an error
	// (ReplicaDeletionIneligible).
	failed
)

// topicState is what the manager keeps for one queued topic.
type topicState struct {
	// started: partitions moved to NonExistent and the first round sent
	// (Kafka's topicsWithDeletionStarted).
	started bool
	// removing: RemoveTopics emitted, TopicsRemoved not yet received.
	removing bool
	// replicas holds every replica assigned at the last sync.
	replicas map[Replica]phase
	// held: a failure on a live broker, or a failed znode removal, is
	// waiting for Retry{attempt}.
	held    bool
	attempt int
	cause   error
}

// Manager is the topic deletion manager: Kafka's TopicDeletionManager as a
// deterministic state machine. It is not safe for concurrent use; the
// controller's event loop owns it, and a new leadership starts a new one.
type Manager struct {
	opts   Options
	topics map[string]*topicState
}

// New returns a manager with nothing queued.
func New(opts Options) *Manager {
	return &Manager{opts: opts, topics: map[string]*topicState{}}
}

// Enabled reports delete.topic.enable.
func (m *Manager) Enabled() bool { return !m.opts.DisableDeletion }

// Queued reports whether the topic is queued for deletion (Kafka's
// isTopicQueuedUpForDeletion): from the Enqueue effect until its
// TopicsRemoved. Always false with deletion disabled.
func (m *Manager) Queued(topic string) bool { return m.topics[topic] != nil }

// Started reports whether the topic's deletion has started
// (topicsWithDeletionStarted), the filter of StopReplica responses.
func (m *Manager) Started(topic string) bool {
	t := m.topics[topic]
	return t != nil && t.started
}

// Topics returns the queued topics, sorted.
func (m *Manager) Topics() []string { return slices.Sorted(maps.Keys(m.topics)) }

// Step feeds one event and returns what the controller must do, in order.
// c is read during the call only.
func (m *Manager) Step(c Cluster, ev Event) []Effect {
	p := &plan{}
	var dirty []string
	switch ev := ev.(type) {
	case Markers:
		dirty = m.onMarkers(c, ev, p)
	case BrokersStarted:
		dirty = m.onBrokersStarted(c, ev)
	case ReplicasOffline:
		dirty = m.onReplicasOffline(ev, p)
	case StopReplicaResponse:
		dirty = m.onStopReplicaResponse(c, ev, p)
	case Retry:
		if t := m.topics[ev.Topic]; t != nil && t.held && t.attempt == ev.Attempt {
			t.held = false
			dirty = []string{ev.Topic}
		}
	case Resume:
		dirty = slices.Clone(ev.Topics)
		if len(dirty) == 0 {
			dirty = m.Topics()
		}
	case TopicsRemoved:
		m.onTopicsRemoved(ev, p)
	}
	slices.Sort(dirty)
	for _, name := range slices.Compact(dirty) {
		m.sync(c, name, p)
	}
	return p.effects()
}

// Sync re-evaluates one topic, the key-based reconciler's entry point; it
// is Step(c, Resume{Topics: []string{topic}}).
func (m *Manager) Sync(c Cluster, topic string) []Effect {
	return m.Step(c, Resume{Topics: []string{topic}})
}

// onMarkers queues the topics of new markers and removes the markers Kafka
// removes: all of them with deletion disabled, else those of unknown
// topics. Every queued topic is then re-evaluated, as resumeDeletions does.
func (m *Manager) onMarkers(c Cluster, ev Markers, p *plan) []string {
	names := slices.Clone(ev.Topics)
	slices.Sort(names)
	for _, name := range slices.Compact(names) {
		if err := checkMarkerName(name); err != nil {
			p.invalid = append(p.invalid, InvalidMarker{Name: name, Err: err})
			continue
		}
		switch {
		case m.opts.DisableDeletion:
			p.removeMarker(ReasonDisabled, name)
		case m.topics[name] != nil:
		case !c.TopicExists(name) && znodes.ValidateTopicName(name) != nil:
			p.removeMarker(ReasonInvalidName, name)
		case !c.TopicExists(name):
			p.removeMarker(ReasonUnknownTopic, name)
		default:
			m.topics[name] = &topicState{replicas: map[Replica]phase{}}
			p.enqueue = append(p.enqueue, name)
		}
	}
	return m.Topics()
}

// onBrokersStarted lifts the failure hold of topics with a replica on a
// starting broker (Kafka clears their ineligibility) and re-evaluates them.
func (m *Manager) onBrokersStarted(c Cluster, ev BrokersStarted) []string {
	var dirty []string
	for name, t := range m.topics {
		if hostsAny(c.Assignment(name), ev.Brokers) {
			t.held = false
			dirty = append(dirty, name)
		}
	}
	return dirty
}

func hostsAny(asg map[int32][]int32, brokers []int32) bool {
	for _, replicas := range asg {
		for _, r := range replicas {
			if slices.Contains(brokers, r) {
				return true
			}
		}
	}
	return false
}

// onReplicasOffline fails the pending and in-flight replicas of queued
// topics. No retry timer: the broker's return resumes them.
func (m *Manager) onReplicasOffline(ev ReplicasOffline, p *plan) []string {
	var dirty []string
	for _, r := range ev.Replicas {
		t := m.topics[r.Topic]
		if t == nil {
			continue
		}
		if ph, ok := t.replicas[r]; ok && (ph == pending || ph == inFlight) {
			t.replicas[r] = failed
			p.eventFailed = append(p.eventFailed, r)
		}
		dirty = append(dirty, r.Topic)
	}
	return dirty
}

// onStopReplicaResponse records the broker's answer for replicas in
// flight. A failure on a replica that is still online holds its topic and
// schedules a retry; a failure on an offline one waits for the broker.
func (m *Manager) onStopReplicaResponse(c Cluster, ev StopReplicaResponse, p *plan) []string {
	var dirty []string
	for _, tp := range ev.Deleted {
		r := Replica{TopicPartition: tp, Broker: ev.Broker}
		if t := m.topics[tp.Topic]; t != nil && t.replicas[r] == inFlight {
			t.replicas[r] = deleted
			p.successful = append(p.successful, r)
			dirty = append(dirty, tp.Topic)
		}
	}
	for _, tp := range slices.SortedFunc(maps.Keys(ev.Failed), comparePartitions) {
		r := Replica{TopicPartition: tp, Broker: ev.Broker}
		t := m.topics[tp.Topic]
		if t == nil || t.replicas[r] != inFlight {
			continue
		}
		t.replicas[r] = failed
		p.eventFailed = append(p.eventFailed, r)
		if election.ReplicaOnline(c, r.Broker, tp) {
			m.hold(tp.Topic, t, ev.Failed[tp], p)
		}
		dirty = append(dirty, tp.Topic)
	}
	return dirty
}

// onTopicsRemoved forgets removed topics and holds the failed ones for a
// retry of the removal.
func (m *Manager) onTopicsRemoved(ev TopicsRemoved, p *plan) {
	for _, name := range ev.Removed {
		if t := m.topics[name]; t != nil && t.removing {
			delete(m.topics, name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(ev.Failed)) {
		if t := m.topics[name]; t != nil && t.removing {
			t.removing = false
			m.hold(name, t, ev.Failed[name], p)
		}
	}
}

// hold stops the topic's rounds until Retry{attempt} (or a broker start)
// and schedules that retry. A topic already held keeps its timer.
func (m *Manager) hold(name string, t *topicState, cause error, p *plan) {
	t.cause = cause
	if t.held {
		return
	}
	t.held = true
	t.attempt++
	p.retries = append(p.retries, RetryAfter{Topic: name, Attempt: t.attempt, Delay: m.opts.backoff(t.attempt), Cause: cause})
}
