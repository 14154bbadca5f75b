package controller

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/kzadmin/kzadmin/integration/brokersim"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// zkPartition is one partition as ZooKeeper holds it.
type zkPartition struct {
	tp       TopicPartition
	assign   []int32
	adding   []int32
	removing []int32
	state    *znodes.PartitionState // nil: no state znode
	version  int32
}

// zkTopics is every topic in ZooKeeper, for the golden checks.
type zkTopics struct {
	parts    []zkPartition // sorted by topic, then partition
	deleting map[string]bool
}

// readZK reads every topic's assignment and partition states.
func (g *goldenScenario) readZK(t *testing.T) zkTopics {
	ctx := testCtx(t)
	names, _, err := g.obs.Children(ctx, znodes.TopicsPath)
	if err != nil {
		t.Fatalf("list topics: %v", err)
	}
	slices.Sort(names)
	out := zkTopics{deleting: map[string]bool{}}
	marks, _, err := g.obs.Children(ctx, znodes.DeleteTopicsPath)
	if err != nil && !errors.Is(err, zkadmin.ErrNoNode) {
		t.Fatalf("list deletion markers: %v", err)
	}
	for _, m := range marks {
		out.deleting[m] = true
	}
	for _, name := range names {
		data, _, err := g.obs.Get(ctx, znodes.TopicPath(name))
		if errors.Is(err, zkadmin.ErrNoNode) {
			continue // removed since the listing
		}
		if err != nil {
			t.Fatalf("read topic %s: %v", name, err)
		}
		a, err := znodes.DecodeTopicAssignment(name, data)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range slices.Sorted(maps.Keys(a.Partitions)) {
			zp := zkPartition{tp: TopicPartition{Topic: name, Partition: p}, assign: a.Partitions[p],
				adding: a.AddingReplicas[p], removing: a.RemovingReplicas[p]}
			zp.state, zp.version = g.readState(t, name, p)
			out.parts = append(out.parts, zp)
		}
	}
	return out
}

func (g *goldenScenario) readState(t *testing.T, topic string, p int32) (*znodes.PartitionState, int32) {
	data, stat, err := g.obs.Get(testCtx(t), znodes.PartitionStatePath(topic, p))
	if errors.Is(err, zkadmin.ErrNoNode) {
		return nil, -1
	}
	if err != nil {
		t.Fatalf("read state %s-%d: %v", topic, p, err)
	}
	s, err := znodes.DecodePartitionState(topic, p, data)
	if err != nil {
		t.Fatal(err)
	}
	return &s, stat.Version
}

// partitionLines is "show partitions": one line per partition.
func (g *goldenScenario) partitionLines(t *testing.T) []string {
	z := g.readZK(t)
	var out []string
	for _, p := range z.parts {
		s := fmt.Sprintf("%s replicas=%s", p.tp, idList(p.assign))
		if len(p.adding) > 0 {
			s += " adding=" + idList(p.adding)
		}
		if len(p.removing) > 0 {
			s += " removing=" + idList(p.removing)
		}
		if st := p.state; st == nil {
			s += " (no state znode)"
		} else {
			s += fmt.Sprintf(" leader=%d leader_epoch=%d isr=%s zk_version=%d", st.Leader, st.LeaderEpoch, idList(st.ISR), p.version)
			if len(st.EligibleLeaderReplicas) > 0 || len(st.LastKnownELR) > 0 {
				s += fmt.Sprintf(" elr=%s last_known_elr=%s", idList(st.EligibleLeaderReplicas), idList(st.LastKnownELR))
			}
			if st.LeaderRecoveryState != 0 {
				s += " recovering"
			}
		}
		if z.deleting[p.tp.Topic] {
			s += " (marked for deletion)"
		}
		out = append(out, s)
	}
	return orNoneLines(out)
}

// goldenStableRounds is how many consecutive polls must find the cluster
// converged and unchanged before stabilize returns: a request the broker
// channel is about to send (queued, not yet written) is invisible to the
// checks for the instant between two requests.
const goldenStableRounds = 5

// stabilize waits until the controller is idle (no event queued or
// running, no control request unanswered), the controller's view equals
// ZooKeeper, and every running broker holds what ZooKeeper says, for a
// few polls in a row.
func (g *goldenScenario) stabilize(t *testing.T, d *datadriven.TestData) {
	deadline := time.Now().Add(20 * time.Second)
	var last, problem string
	stable := 0
	for stable < goldenStableRounds {
		if time.Now().After(deadline) {
			d.Fatalf(t, "not stable after 20s: %s", problem)
		}
		var fp string
		fp, problem = g.converged(t)
		switch {
		case problem != "":
			stable = 0
		case fp == last:
			stable++
		default:
			stable = 1
		}
		last = fp
		time.Sleep(15 * time.Millisecond)
	}
}

// controlRequestsDrained waits until the controller is idle and every
// control request it wrote has been answered, for goldenStableRounds polls
// in a row (see stabilize for why one poll is not enough).
func (g *goldenScenario) controlRequestsDrained(ctx context.Context, t *testing.T) error {
	stable := 0
	for stable < goldenStableRounds {
		_, inFlight := g.log.counters()
		if g.ctl.c.queue.len() == 0 && inFlight == 0 &&
			metricValue(t, g.ctl, "kafka_controller_KafkaController_ControllerState") == 0 {
			stable++
		} else {
			stable = 0
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("control requests still in flight: %w", ctx.Err())
		case <-time.After(15 * time.Millisecond):
		}
	}
	return nil
}

// converged returns a fingerprint of the cluster and, when it has not
// converged, why not.
func (g *goldenScenario) converged(t *testing.T) (fingerprint, problem string) {
	// A round trip on the controller's own session: ZooKeeper delivers the
	// session's pending watch notifications before this reply, so a watch
	// that fired (a second event of a broker's death, say) is on its way
	// into the queue before the queue is checked, not after.
	if _, _, err := g.ctl.c.zk.Get(testCtx(t), znodes.ControllerPath); err != nil && !errors.Is(err, zkadmin.ErrNoNode) {
		return "", fmt.Sprintf("barrier read: %v", err)
	}
	if n := g.ctl.c.queue.len(); n > 0 {
		return "", fmt.Sprintf("%d controller events queued", n)
	}
	if st := metricValue(t, g.ctl, "kafka_controller_KafkaController_ControllerState"); st != 0 {
		return "", fmt.Sprintf("controller state %v", st)
	}
	written, inFlight := g.log.counters()
	if inFlight > 0 {
		return "", fmt.Sprintf("%d control requests unanswered", inFlight)
	}
	z := g.readZK(t)
	if p := g.controllerAgrees(z); p != "" {
		return "", p
	}
	for _, b := range g.sim.Brokers() {
		if p := brokerAgrees(b, z); p != "" {
			return "", p
		}
	}
	return fmt.Sprintf("%d %v", written, g.partitionLines(t)), ""
}

// controllerAgrees compares the controller's snapshot with ZooKeeper.
func (g *goldenScenario) controllerAgrees(z zkTopics) string {
	for _, p := range z.parts {
		if p.state == nil {
			continue
		}
		pv, ok := partitionView(g.ctl.c, p.tp.Topic, p.tp.Partition)
		if !ok {
			return fmt.Sprintf("controller has no %s", p.tp)
		}
		if pv.Leader != p.state.Leader || pv.LeaderEpoch != p.state.LeaderEpoch || pv.PartitionEpoch != p.version ||
			!slices.Equal(pv.ISR, p.state.ISR) {
			return fmt.Sprintf("controller has %s leader %d epoch %d/%d isr %v; ZooKeeper %d %d/%d %v", p.tp,
				pv.Leader, pv.LeaderEpoch, pv.PartitionEpoch, pv.ISR,
				p.state.Leader, p.state.LeaderEpoch, p.version, p.state.ISR)
		}
	}
	return ""
}

// brokerAgrees checks that a running broker hosts exactly its assigned
// replicas with the leader ZooKeeper names, that a leader's ISR is
// ZooKeeper's, and that its metadata cache matches ZooKeeper. Topics being
// deleted are left out: their metadata says "being deleted", not the
// state znode.
func brokerAgrees(b *brokersim.Broker, z zkTopics) string {
	s := b.Snapshot()
	if s.Status != brokersim.Running {
		return ""
	}
	if s.PendingAlterPartitions > 0 {
		return fmt.Sprintf("broker %d has %d ISR changes pending", s.ID, s.PendingAlterPartitions)
	}
	hosted := map[brokersim.TopicPartition]bool{}
	for _, p := range z.parts {
		tp := brokersim.TopicPartition{Topic: p.tp.Topic, Partition: p.tp.Partition}
		if p.state == nil || z.deleting[p.tp.Topic] {
			hosted[tp] = true // either way is fine
			continue
		}
		if slices.Contains(p.assign, s.ID) {
			hosted[tp] = true
			if msg := replicaAgrees(s, tp, p); msg != "" {
				return msg
			}
		}
		m, ok := b.CachedPartition(tp)
		if !ok || m.Leader != p.state.Leader || m.LeaderEpoch != p.state.LeaderEpoch || m.ZkVersion != p.version ||
			!slices.Equal(m.ISR, p.state.ISR) {
			return fmt.Sprintf("broker %d caches %s as %+v (found %t)", s.ID, tp, m, ok)
		}
	}
	for tp := range s.Partitions {
		if !hosted[tp] {
			return fmt.Sprintf("broker %d still hosts %s", s.ID, tp)
		}
	}
	return ""
}

func replicaAgrees(s brokersim.Snapshot, tp brokersim.TopicPartition, p zkPartition) string {
	if p.state.Leader < 0 {
		return "" // offline: the replicas keep what they had
	}
	r, ok := s.Partitions[tp]
	if !ok || r.Leader != p.state.Leader || r.LeaderEpoch != p.state.LeaderEpoch {
		return fmt.Sprintf("broker %d holds %s with leader %d epoch %d (hosted %t); ZooKeeper says %d epoch %d",
			s.ID, tp, r.Leader, r.LeaderEpoch, ok, p.state.Leader, p.state.LeaderEpoch)
	}
	if r.Role == brokersim.Leader && (r.PartitionEpoch != p.version || !slices.Equal(r.ISR, p.state.ISR)) {
		return fmt.Sprintf("leader %d has %s isr %v at %d; ZooKeeper %v at %d", s.ID, tp,
			r.ISR, r.PartitionEpoch, p.state.ISR, p.version)
	}
	return ""
}
