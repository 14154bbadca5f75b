package deletion

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kzadmin/kzadmin/controller/election"
)

// sim drives a Manager with random events against simulated brokers and
// checks Kafka's safety rules after every step: StopReplica(delete=true)
// only to online replicas and never twice in flight, znodes removed only
// once every replica confirmed, markers of existing topics never removed
// (unless deletion is disabled). After the chaos, the cluster heals and
// every queued topic must be gone.
type sim struct {
	t       *testing.T
	rng     *rand.Rand
	c       *fakeCluster
	m       *Manager
	markers map[string]bool
	// pending: replicas with a StopReplica(delete=true) the broker has
	// not answered yet; confirmed: replicas the broker deleted.
	pending   map[Replica]bool
	confirmed map[Replica]bool
	timers    []Retry
	removals  [][]string
	failRate  float64
}

func newSim(t *testing.T, seed uint64) *sim {
	s := &sim{t: t, rng: rand.New(rand.NewPCG(seed, 7)), c: newFakeCluster(1, 2, 3, 4, 5), m: New(Options{}),
		markers: map[string]bool{}, pending: map[Replica]bool{}, confirmed: map[Replica]bool{}, failRate: 0.2}
	for i := range 8 {
		name := fmt.Sprintf("t%d", i)
		var asg [][]int32
		for range 1 + s.rng.IntN(3) {
			perm := s.rng.Perm(5)
			var rs []int32
			for _, b := range perm[:1+s.rng.IntN(3)] {
				rs = append(rs, int32(b+1))
			}
			asg = append(asg, rs)
		}
		s.c.addTopic(name, asg...)
		if i < 6 {
			s.markers[name] = true
		}
	}
	s.markers["ghost"] = true
	return s
}

func (s *sim) step(ev Event) {
	s.t.Helper()
	for _, e := range s.m.Step(s.c, ev) {
		s.check(e)
	}
}

// check verifies one effect against the simulated world and carries it out.
func (s *sim) check(e Effect) {
	s.t.Helper()
	switch e := e.(type) {
	case DeleteReplicas:
		for _, r := range e.Replicas {
			if !election.ReplicaOnline(s.c, r.Broker, r.TopicPartition) {
				s.t.Fatalf("StopReplica(delete) to offline replica %s", r)
			}
			if s.pending[r] {
				s.t.Fatalf("StopReplica(delete) to %s twice in flight", r)
			}
			s.pending[r] = true
		}
	case RemoveTopics:
		for _, name := range e.Topics {
			for _, r := range s.c.replicasOf(name) {
				if !s.confirmed[r] {
					s.t.Fatalf("RemoveTopics %s before %s confirmed", name, r)
				}
			}
		}
		s.removals = append(s.removals, e.Topics)
	case RemoveMarkers:
		for _, name := range e.Topics {
			if e.Reason != ReasonDisabled && s.c.TopicExists(name) {
				s.t.Fatalf("marker of existing topic %s removed (%s)", name, e.Reason)
			}
			delete(s.markers, name)
		}
	case RetryAfter:
		s.timers = append(s.timers, Retry{Topic: e.Topic, Attempt: e.Attempt})
	}
}

// chaos takes one random action.
func (s *sim) chaos() {
	switch s.rng.IntN(9) {
	case 0, 1, 2:
		s.answer()
	case 3:
		s.killBroker(int32(1 + s.rng.IntN(5)))
	case 4:
		s.startBroker(int32(1 + s.rng.IntN(5)))
	case 5:
		s.fireTimer()
	case 6:
		s.finishRemoval(s.rng.Float64() < s.failRate)
	case 7:
		name := fmt.Sprintf("t%d", s.rng.IntN(8))
		s.c.reassigning[name] = !s.c.reassigning[name]
		if !s.c.reassigning[name] {
			s.step(Resume{Topics: []string{name}})
		}
	case 8:
		s.failover()
	}
}

func (s *sim) answer() {
	if len(s.pending) == 0 {
		return
	}
	rs := slices.SortedFunc(maps.Keys(s.pending), compareReplicas)
	r := rs[s.rng.IntN(len(rs))]
	delete(s.pending, r)
	ev := StopReplicaResponse{Broker: r.Broker}
	if s.rng.Float64() < s.failRate {
		ev.Failed = map[TopicPartition]error{r.TopicPartition: errors.New("KAFKA_STORAGE_ERROR")}
	} else {
		s.confirmed[r] = true
		ev.Deleted = []TopicPartition{r.TopicPartition}
	}
	s.step(ev)
}

func (s *sim) killBroker(b int32) {
	if !s.c.Brokers[b] {
		return
	}
	s.c.Brokers[b] = false
	var lost []Replica
	for r := range s.pending {
		if r.Broker == b { // the channel to a removed broker drops its queue
			delete(s.pending, r)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.c.topics)) {
		for _, r := range s.c.replicasOf(name) {
			if r.Broker == b {
				lost = append(lost, r)
			}
		}
	}
	s.step(ReplicasOffline{Replicas: lost})
}

func (s *sim) startBroker(b int32) {
	if s.c.Brokers[b] {
		return
	}
	s.c.Brokers[b] = true
	s.step(BrokersStarted{Brokers: []int32{b}})
}

func (s *sim) fireTimer() {
	if len(s.timers) == 0 {
		return
	}
	i := s.rng.IntN(len(s.timers))
	r := s.timers[i]
	s.timers = slices.Delete(s.timers, i, i+1)
	s.step(r)
}

func (s *sim) finishRemoval(fail bool) {
	if len(s.removals) == 0 {
		return
	}
	topics := s.removals[0]
	s.removals = s.removals[1:]
	ev := TopicsRemoved{}
	for _, name := range topics {
		if fail {
			ev.Failed = map[string]error{name: errors.New("connection loss")}
			continue
		}
		delete(s.c.topics, name)
		delete(s.markers, name)
		ev.Removed = append(ev.Removed, name)
	}
	s.step(ev)
}

// failover replaces the manager; requests in flight and timers are lost
// with the old leadership, removals in flight may or may not have landed.
func (s *sim) failover() {
	clear(s.pending)
	s.timers = nil
	for _, topics := range s.removals {
		if s.rng.IntN(2) == 0 {
			for _, name := range topics {
				delete(s.c.topics, name)
				delete(s.markers, name)
			}
		}
	}
	s.removals = nil
	s.m = New(Options{})
	s.step(Markers{Topics: slices.Sorted(maps.Keys(s.markers))})
}

// heal brings everything back and drains until nothing is left to do.
func (s *sim) heal() {
	s.failRate = 0
	for b := int32(1); b <= 5; b++ {
		s.startBroker(b)
	}
	clear(s.c.reassigning)
	s.step(Resume{})
	for range 10000 {
		switch {
		case len(s.pending) > 0:
			s.answer()
		case len(s.removals) > 0:
			s.finishRemoval(false)
		case len(s.timers) > 0:
			s.fireTimer()
		default:
			return
		}
	}
	s.t.Fatal("no quiescence after heal")
}

func TestRandomEventsConverge(t *testing.T) {
	for seed := range uint64(200) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			s := newSim(t, seed)
			s.step(Markers{Topics: slices.Sorted(maps.Keys(s.markers))})
			for range 300 {
				s.chaos()
			}
			s.heal()
			if q := s.m.Topics(); len(q) > 0 {
				t.Fatalf("still queued after heal: %v (statuses %v)", q, s.m.Statuses(s.c))
			}
			for name := range s.markers {
				t.Fatalf("marker %s left behind", name)
			}
			for i := 6; i < 8; i++ {
				if !s.c.TopicExists(fmt.Sprintf("t%d", i)) {
					t.Fatalf("unmarked topic t%d was deleted", i)
				}
			}
		})
	}
}
