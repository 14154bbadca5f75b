package deletion

import (
	"maps"
	"slices"

	"github.com/kzadmin/kzadmin/controller/election"
)

// sync is the reconciler for one topic (Kafka's resumeDeletions, per key):
// re-read the topic from the Cluster, take at most one step, record it in
// p. The checks run in this order:
//
//  1. znodes being removed: wait for TopicsRemoved;
//  2. the topic left the context behind our back: forget it, remove its
//     marker (guarded by the topic's absence);
//  3. held after a failure: wait for the retry;
//  4. every replica deleted: remove the topic (completeDeleteTopic);
//  5. a replica in flight: wait for the answers (Kafka retries nothing
//     while any replica is in ReplicaDeletionStarted);
//  6. a reassignment or election touches the topic: wait (ineligible);
//  7. otherwise run a round (onTopicDeletion): on the first, the
//     partitions go NonExistent; UpdateMetadata with leader -2 for every
//     partition; offline replicas fail; online ones not yet deleted get
//     StopReplica without, then with, delete. A started topic whose
//     remaining replicas are all offline sends nothing and waits for their
//     brokers.
func (m *Manager) sync(c Cluster, name string, p *plan) {
	t := m.topics[name]
	switch {
	case t == nil || t.removing:
		return
	case !c.TopicExists(name):
		delete(m.topics, name)
		p.removeMarker(ReasonTopicVanished, name)
		return
	case t.held:
		return
	}
	asg := c.Assignment(name)
	replicas := t.refresh(name, asg)
	if t.count(deleted) == len(replicas) {
		t.removing = true
		p.remove = append(p.remove, name)
		return
	}
	if t.count(inFlight) > 0 || c.Reassigning(name) || c.Electing(name) {
		return
	}
	var alive, dead []Replica
	for _, r := range replicas {
		switch {
		case t.replicas[r] == deleted:
		case election.ReplicaOnline(c, r.Broker, r.TopicPartition):
			alive = append(alive, r)
		default:
			dead = append(dead, r)
		}
	}
	for _, r := range dead {
		if t.replicas[r] != failed {
			t.replicas[r] = failed
			p.dead = append(p.dead, r)
		}
	}
	if t.started && len(alive) == 0 {
		return
	}
	partitions := partitionsOf(name, asg)
	if !t.started {
		t.started = true
		p.startTopics = append(p.startTopics, name)
		p.startPartitions = append(p.startPartitions, partitions...)
	}
	p.metadata = append(p.metadata, partitions...)
	for _, r := range alive {
		t.replicas[r] = inFlight
		p.send = append(p.send, r)
	}
}

// refresh makes t.replicas the assignment's replicas, keeping the phase of
// those already known, and returns them sorted.
func (t *topicState) refresh(name string, asg map[int32][]int32) []Replica {
	next := make(map[Replica]phase, len(t.replicas))
	out := make([]Replica, 0, len(t.replicas))
	for p, brokers := range asg {
		for _, b := range brokers {
			r := Replica{TopicPartition: TopicPartition{Topic: name, Partition: p}, Broker: b}
			if _, dup := next[r]; dup {
				continue
			}
			next[r] = t.replicas[r]
			out = append(out, r)
		}
	}
	t.replicas = next
	slices.SortFunc(out, compareReplicas)
	return out
}

// count returns how many replicas are in phase ph.
func (t *topicState) count(ph phase) int {
	n := 0
	for _, x := range t.replicas {
		if x == ph {
			n++
		}
	}
	return n
}

// partitionsOf lists the topic's partitions, ascending.
func partitionsOf(name string, asg map[int32][]int32) []TopicPartition {
	out := make([]TopicPartition, 0, len(asg))
	for _, p := range slices.Sorted(maps.Keys(asg)) {
		out = append(out, TopicPartition{Topic: name, Partition: p})
	}
	return out
}

// plan collects one Step's decisions across topics, so that a batch of
// topics produces one effect of each kind (one StopReplica per broker, not
// one per topic).
type plan struct {
	invalid         []InvalidMarker
	markers         map[MarkerReason][]string
	enqueue         []string
	successful      []Replica // from the event
	eventFailed     []Replica // from the event
	remove          []string
	startTopics     []string
	startPartitions []TopicPartition
	metadata        []TopicPartition
	dead            []Replica // found offline by a round
	send            []Replica
	retries         []RetryAfter
}

func (p *plan) removeMarker(r MarkerReason, topic string) {
	if p.markers == nil {
		p.markers = map[MarkerReason][]string{}
	}
	p.markers[r] = append(p.markers[r], topic)
}

// effects orders the plan as Kafka would act: what the event itself
// changed, then resumeDeletions (completions, then the round: partition
// states, UpdateMetadata, dead replicas, StopReplica without and with
// delete), then the retry timers.
func (p *plan) effects() []Effect {
	var out []Effect
	for _, e := range p.invalid {
		out = append(out, e)
	}
	for _, r := range slices.Sorted(maps.Keys(p.markers)) {
		topics := slices.Clone(p.markers[r])
		slices.Sort(topics)
		out = append(out, RemoveMarkers{Topics: topics, Reason: r})
	}
	if len(p.enqueue) > 0 {
		out = append(out, Enqueue{Topics: p.enqueue})
	}
	out = appendStates(out, election.ReplicaDeletionSuccessful, p.successful)
	out = appendStates(out, election.ReplicaDeletionIneligible, p.eventFailed)
	if len(p.remove) > 0 {
		out = append(out, RemoveTopics{Topics: p.remove})
	}
	if len(p.startTopics) > 0 {
		out = append(out, StartTopicDeletion{Topics: p.startTopics, Partitions: p.startPartitions})
	}
	if len(p.metadata) > 0 {
		out = append(out, UpdateMetadata{Partitions: p.metadata})
	}
	out = appendStates(out, election.ReplicaDeletionIneligible, p.dead)
	if len(p.send) > 0 {
		out = append(out, StopReplicas{Replicas: p.send}, DeleteReplicas{Replicas: slices.Clone(p.send)})
	}
	for _, r := range p.retries {
		out = append(out, r)
	}
	return out
}

func appendStates(out []Effect, s election.ReplicaState, rs []Replica) []Effect {
	if len(rs) == 0 {
		return out
	}
	rs = slices.Clone(rs)
	slices.SortFunc(rs, compareReplicas)
	return append(out, SetReplicaStates{State: s, Replicas: rs})
}
