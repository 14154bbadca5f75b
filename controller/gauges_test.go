package controller

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

const (
	smActive     = "kafka_controller_KafkaController_ActiveControllerCount"
	smOffline    = "kafka_controller_KafkaController_OfflinePartitionsCount"
	smImbalance  = "kafka_controller_KafkaController_PreferredReplicaImbalanceCount"
	smTopics     = "kafka_controller_KafkaController_GlobalTopicCount"
	smPartitions = "kafka_controller_KafkaController_GlobalPartitionCount"
)

// smGauges are the partition gauges as Kafka's updateMetrics defines them.
type smGauges struct{ offline, imbalance, topics, partitions int }

// smKafkaPreferred is Kafka's ControllerContext.hasPreferredLeader,
// written out from its source: while a reassignment adds the preferred
// replica, the partition is balanced until that replica joins the ISR.
func smKafkaPreferred(a election.ReplicaAssignment, l election.LeaderAndIsr) bool {
	preferred := a.Replicas[0]
	if (len(a.Adding) > 0 || len(a.Removing) > 0) && slices.Contains(a.Adding, preferred) {
		return !slices.Contains(l.ISR, preferred)
	}
	return l.Leader == preferred
}

// smReference computes the gauges from the whole context as Kafka
// defines them: offline = partitions in OfflinePartition (a topic whose
// deletion has started has moved its partitions to NonExistentPartition,
// so a queued topic's offline partitions still count, as in Kafka's
// updatePartitionStateMetrics); imbalance = partitions with leadership
// info lacking their preferred leader, topics queued for deletion left
// out; topics = every topic; partitions = Kafka's
// partitionWithLeadersCount, those with leadership info.
func smReference(cc *clusterContext) smGauges {
	g := smGauges{topics: len(cc.topics)}
	for tp, p := range cc.orderedPartitions() {
		if p.state == election.OfflinePartition {
			g.offline++
		}
		if p.lead == nil {
			continue
		}
		g.partitions++
		if !cc.deleting[tp.Topic] && !smKafkaPreferred(p.assign, *p.lead) {
			g.imbalance++
		}
	}
	return g
}

// checkGauges compares the registry's gauges with want.
func (b *smBare) checkGauges(t *testing.T, what string, want smGauges) {
	t.Helper()
	got := smGauges{offline: int(b.gauge(t, smOffline)), imbalance: int(b.gauge(t, smImbalance)),
		topics: int(b.gauge(t, smTopics)), partitions: int(b.gauge(t, smPartitions))}
	if got != want {
		t.Fatalf("%s: gauges %+v, want %+v", what, got, want)
	}
}

// TestGaugesKafkaDefinitions: each row is a cluster state with the gauge
// values Kafka's controller reports for it; the counts must match after
// the first event of a leadership (which counts every topic).
func TestGaugesKafkaDefinitions(t *testing.T) {
	type part struct {
		replicas, adding []int32
		state            election.PartitionState
		leader           int32 // -2: no leadership info
		isr              []int32
	}
	online := func(replicas []int32, leader int32, isr ...int32) part {
		return part{replicas: replicas, state: election.OnlinePartition, leader: leader, isr: isr}
	}
	tests := []struct {
		name     string
		parts    []part
		deleting bool
		want     smGauges
	}{
		{"no topics", nil, false, smGauges{}},
		{"balanced", []part{online([]int32{1, 2}, 1, 1, 2), online([]int32{2, 1}, 2, 2, 1)}, false,
			smGauges{topics: 1, partitions: 2}},
		{"leader not preferred", []part{online([]int32{1, 2}, 2, 2)}, false,
			smGauges{imbalance: 1, topics: 1, partitions: 1}},
		{"offline without a leader", []part{{replicas: []int32{1}, state: election.OfflinePartition, leader: -1, isr: []int32{1}}},
			false, smGauges{offline: 1, imbalance: 1, topics: 1, partitions: 1}},
		{"offline, unreadable state", []part{{replicas: []int32{1}, state: election.OfflinePartition, leader: -2}},
			false, smGauges{offline: 1, topics: 1}},
		{"new, no leadership yet", []part{{replicas: []int32{1}, state: election.NewPartition, leader: -2}},
			false, smGauges{topics: 1}},
		// Queued, not started: the offline partition still counts (Kafka
		// stops counting when the deletion starts); the imbalance does not.
		{"queued for deletion", []part{{replicas: []int32{1}, state: election.OfflinePartition, leader: -1, isr: []int32{1}},
			online([]int32{1, 2}, 2, 2)}, true, smGauges{offline: 1, topics: 1, partitions: 2}},
		{"deletion started", []part{{replicas: []int32{1}, state: election.NonExistentPartition, leader: 1, isr: []int32{1}}},
			true, smGauges{topics: 1, partitions: 1}},
		{"adding the preferred replica, not in ISR yet",
			[]part{{replicas: []int32{3, 1}, adding: []int32{3}, state: election.OnlinePartition, leader: 1, isr: []int32{1}}},
			false, smGauges{topics: 1, partitions: 1}},
		{"adding the preferred replica, in ISR",
			[]part{{replicas: []int32{3, 1}, adding: []int32{3}, state: election.OnlinePartition, leader: 1, isr: []int32{1, 3}}},
			false, smGauges{imbalance: 1, topics: 1, partitions: 1}},
	}
	for _, tc := range tests {
		b := smNewBare(t)
		ls := b.lead(t, 1)
		if len(tc.parts) > 0 {
			a := znodes.TopicAssignment{Partitions: map[int32][]int32{}, AddingReplicas: map[int32][]int32{}}
			for i, p := range tc.parts {
				a.Partitions[int32(i)] = p.replicas
				if p.adding != nil {
					a.AddingReplicas[int32(i)] = p.adding
				}
			}
			ls.cc.putTopic("t", a)
			for i, p := range tc.parts {
				pp := ls.cc.partition(smTP("t", int32(i)))
				pp.state = p.state
				if p.leader != -2 {
					pp.lead = &election.LeaderAndIsr{Leader: p.leader, ISR: p.isr}
				}
			}
			ls.cc.deleting["t"] = tc.deleting
		}
		b.c.markAllDirty(ls)
		b.c.afterEvent()
		if got := b.gauge(t, smActive); got != 1 {
			t.Fatalf("%s: ActiveControllerCount %v, want 1", tc.name, got)
		}
		if ref := smReference(ls.cc); ref != tc.want {
			t.Fatalf("%s: the reference computes %+v, the table says %+v", tc.name, ref, tc.want)
		}
		b.checkGauges(t, tc.name, tc.want)
	}
}

// TestGaugesIncrementalMatchesRecount: after the first count, an event
// recounts only the topics it marked. Over random events (states,
// leaders, ISRs, deletion marks, topics added and removed), the gauges
// must always equal a count of the whole context from Kafka's
// definitions: a drift here would be a wrong alert in production.
func TestGaugesIncrementalMatchesRecount(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	b := smNewBare(t)
	ls := b.lead(t, 1)
	states := []election.PartitionState{election.NewPartition, election.OnlinePartition, election.OfflinePartition,
		election.NonExistentPartition}
	randomize := func(p *partition) {
		p.state = states[rng.IntN(len(states))]
		if rng.IntN(4) == 0 {
			p.lead = nil
			return
		}
		r := p.assign.Replicas
		p.lead = &election.LeaderAndIsr{Leader: r[rng.IntN(len(r))], ISR: r[:1+rng.IntN(len(r))]}
		if rng.IntN(5) == 0 {
			p.lead.Leader = -1
		}
	}
	for round := range 300 {
		for range 1 + rng.IntN(4) {
			name := fmt.Sprintf("t%d", rng.IntN(12))
			switch k := rng.IntN(10); {
			case k == 0:
				ls.cc.removeTopic(name)
			case k == 1:
				ls.cc.deleting[name] = ls.cc.topics[name] != nil && !ls.cc.deleting[name]
			case ls.cc.topics[name] == nil || k == 2:
				a := znodes.TopicAssignment{Partitions: map[int32][]int32{}}
				for p := range int32(1 + rng.IntN(4)) {
					for _, x := range rng.Perm(4)[:1+rng.IntN(3)] {
						a.Partitions[p] = append(a.Partitions[p], int32(x+1))
					}
				}
				ls.cc.putTopic(name, a)
				for _, p := range ls.cc.topics[name].parts {
					randomize(p)
				}
			default:
				for _, p := range ls.cc.topics[name].parts {
					if rng.IntN(2) == 0 {
						randomize(p)
					}
				}
			}
			b.c.markDirty(smTP(name, 0))
		}
		b.c.afterEvent()
		b.checkGauges(t, fmt.Sprintf("round %d", round), smReference(ls.cc))
	}
}

// TestGaugesResetOnResign: a controller that resigns reports 0 for every
// gauge only an active controller reports (Kafka zeroes them when
// inactive), and its next leadership counts from scratch.
func TestGaugesResetOnResign(t *testing.T) {
	b := smNewBare(t)
	ls := b.lead(t, 1)
	ls.cc.putTopic("t", znodes.TopicAssignment{Partitions: map[int32][]int32{0: {1, 2}, 1: {2}}})
	for _, p := range ls.cc.topics["t"].parts {
		p.state, p.lead = election.OfflinePartition, &election.LeaderAndIsr{Leader: -1, ISR: []int32{2}}
	}
	b.c.markAllDirty(ls)
	b.c.afterEvent()
	b.checkGauges(t, "active", smGauges{offline: 2, imbalance: 2, topics: 1, partitions: 2})

	b.c.resign("test")
	b.c.afterEvent()
	if got := b.gauge(t, smActive); got != 0 {
		t.Fatalf("ActiveControllerCount after resigning %v, want 0", got)
	}
	b.checkGauges(t, "resigned", smGauges{})

	ls2 := b.lead(t, 2)
	ls2.cc.putTopic("u", znodes.TopicAssignment{Partitions: map[int32][]int32{0: {1}}})
	ls2.cc.partition(smTP("u", 0)).lead = &election.LeaderAndIsr{Leader: 1, ISR: []int32{1}}
	b.c.viewDirty = true
	b.c.afterEvent()
	b.checkGauges(t, "next leadership", smGauges{topics: 1, partitions: 1})
}

// TestGaugesTimersAndQueue: only broker changes feed Kafka's
// LeaderElectionRateAndTimeMs and only topic changes feed
// TopicChangeRateAndTimeMs, in milliseconds; EventQueueSize is the number
// of events waiting.
func TestGaugesTimersAndQueue(t *testing.T) {
	b := smNewBare(t)
	for _, s := range []State{StateIdle, StateControllerChange, StateBrokerChange, StateTopicChange, StateTopicDeletion,
		StateAlterPartitionReassignment, StateIsrChange, StateBrokerChange} {
		b.c.metrics.observe(s, 1500*time.Microsecond)
	}
	mfs, err := b.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]float64{ // count, sum in ms
		"kafka_controller_ControllerStats_LeaderElectionRateAndTimeMs": {2, 3},
		"kafka_controller_ControllerStats_TopicChangeRateAndTimeMs":    {1, 1.5},
	}
	for _, mf := range mfs {
		w, ok := want[mf.GetName()]
		if !ok {
			continue
		}
		h := mf.GetMetric()[0].GetHistogram()
		if got := [2]float64{float64(h.GetSampleCount()), h.GetSampleSum()}; got != w {
			t.Errorf("%s: count and sum %v, want %v", mf.GetName(), got, w)
		}
		delete(want, mf.GetName())
	}
	if len(want) > 0 {
		t.Fatalf("timers not registered: %v", want)
	}
	for range 3 {
		b.c.queue.push(&startupEvent{})
	}
	if got := b.gauge(t, "kafka_controller_ControllerEventManager_EventQueueSize"); got != 3 {
		t.Fatalf("EventQueueSize %v, want 3", got)
	}
}

// TestGaugesLiveCluster runs the real controller against registered
// brokers: the gauges follow a broker's death (its only-replica partition
// offline and without leader, a partition it preferred led elsewhere), a
// deletion mark (a queued topic counts in neither gauge but still in
// GlobalTopicCount), and the controller's stop (everything 0).
func TestGaugesLiveCluster(t *testing.T) {
	chroot := testChroot(t)
	obs := connectZK(t, chroot, "", 0)
	for _, id := range []int32{1, 2, 3} {
		registerBroker(t, obs, id, "127.0.0.1", 1)
	}
	n := startNode(t, chroot, nodeOpts{id: 100})
	createTopic(t, obs, "g", map[int32][]int32{0: {1, 2}, 1: {2, 3}, 2: {3, 1}})
	createTopic(t, obs, "solo", map[int32][]int32{0: {3}})
	gauges := func() smGauges {
		return smGauges{offline: int(metricValue(t, n, smOffline)), imbalance: int(metricValue(t, n, smImbalance)),
			topics: int(metricValue(t, n, smTopics)), partitions: int(metricValue(t, n, smPartitions))}
	}
	waitGauges := func(what string, want smGauges) {
		t.Helper()
		var last smGauges
		waitFor(t, fmt.Sprintf("%s: gauges %+v", what, want), func() bool {
			last = gauges()
			return last == want
		})
	}
	waitGauges("all online", smGauges{topics: 2, partitions: 4})
	if got := metricValue(t, n, smActive); got != 1 {
		t.Fatalf("ActiveControllerCount %v, want 1", got)
	}

	if err := obs.Delete(testCtx(t), znodes.BrokerIDPath(3), zkadmin.AnyVersion); err != nil {
		t.Fatal(err)
	}
	// g-2 moves to 1 (imbalanced); solo-0 keeps ISR [3] with no leader
	// (offline and imbalanced); g-1 keeps leader 2.
	waitGauges("broker 3 dead", smGauges{offline: 1, imbalance: 2, topics: 2, partitions: 4})
	if st := readState(t, obs, "solo", 0); st.Leader != -1 || !slices.Equal(st.ISR, []int32{3}) {
		t.Fatalf("solo-0 after its only broker died: %v, want leader -1 and ISR [3]", st)
	}

	markForDeletion(t, obs, "solo")
	waitGauges("solo queued for deletion", smGauges{imbalance: 1, topics: 2, partitions: 4})

	n.stop()
	for _, name := range []string{smActive, smOffline, smImbalance, smTopics, smPartitions} {
		if got := metricValue(t, n, name); got != 0 {
			t.Errorf("%s after the controller stopped: %v, want 0", name, got)
		}
	}
}
