package controller

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/controller/replicalog"
	"github.com/kzadmin/kzadmin/znodes"
)

// shortFirstProber answers from fakeProber's table, but holds every
// broker's answer other than first's until first's answer has been
// returned, so the shorter log replies first.
type shortFirstProber struct {
	fakeProber
	first     int32
	firstDone chan struct{}
}

func (p *shortFirstProber) Probe(ctx context.Context, t replicalog.Target, parts []replicalog.Partition) ([]replicalog.Info, error) {
	if t.BrokerID == p.first {
		defer close(p.firstDone)
		return p.fakeProber.Probe(ctx, t, parts)
	}
	select {
	case <-p.firstDone:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return p.fakeProber.Probe(ctx, t, parts)
}

// TestUncleanRecoveryAggressiveHearsEveryLiveReplica: foo-0 (min ISR 1, so
// no ELR) loses 2, then 3, then leader 1. 2 and 3 come back while the
// topic's strategy is None; then it turns Aggressive and a broker change
// (broker 4 returns) triggers the recovery with both live. 2, the shorter
// log, replies first; Aggressive still elects 3, the longest log, instead
// of the first reply.
func TestUncleanRecoveryAggressiveHearsEveryLiveReplica(t *testing.T) {
	prober := &shortFirstProber{
		fakeProber: fakeProber{logs: map[int32]replicalog.Info{2: {LogEndOffset: 100, LastEpoch: 2}, 3: {LogEndOffset: 150, LastEpoch: 2}}},
		first:      2, firstDone: make(chan struct{}),
	}
	sc := startSimCluster(t, elrOpts(func(c *config.Config) {
		c.UncleanRecoveryManagerEnabled = true
		c.UncleanRecoveryStrategy = config.RecoveryAggressive
	}, prober), 1, 2, 3, 4)
	setTopicConfig(t, sc.obs, "foo", map[string]string{"min.insync.replicas": "1", UncleanRecoveryStrategyKey: "None"})
	createTopic(t, sc.obs, "foo", map[int32][]int32{0: {1, 2, 3}})
	sc.waitLeader(t, "foo", 0, 1, 1, 2, 3)
	sc.sim.Broker(2).Kill()
	sc.waitState(t, "foo", 0, "isr 1,3", func(s election.LeaderAndIsr) bool { return slices.Equal(s.ISR, []int32{1, 3}) })
	sc.sim.Broker(3).Kill()
	sc.waitState(t, "foo", 0, "isr 1", func(s election.LeaderAndIsr) bool { return slices.Equal(s.ISR, []int32{1}) })
	sc.sim.Broker(1).Kill()
	sc.waitState(t, "foo", 0, "leaderless", func(s election.LeaderAndIsr) bool { return s.Leader == election.NoLeader })
	sc.sim.Broker(4).Kill()
	sc.restartBrokers(t, 2, 3)
	if st := readState(t, sc.obs, "foo", 0); st.Leader != election.NoLeader {
		t.Fatalf("None elected %d", st.Leader)
	}
	data, err := znodes.EntityConfig{Config: map[string]string{"min.insync.replicas": "1"}}.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sc.obs.Set(testCtx(t), znodes.ConfigEntityPath("topics", "foo"), data, -1); err != nil {
		t.Fatal(err)
	}
	if err := sc.sim.Broker(4).Restart(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	st := sc.waitState(t, "foo", 0, "recovered", func(s election.LeaderAndIsr) bool { return s.Leader != election.NoLeader })
	if st.Leader != 3 {
		t.Fatalf("Aggressive elected %v, want 3 (the longest log)", st)
	}
	// The counter moves after the write that waitState saw.
	waitFor(t, "one unclean recovery election counted", func() bool {
		return metricValue(t, sc.ctl, "kafka_controller_ControllerStats_UncleanRecoveryElectionsPerSec") == 1
	})
}

// lateProber refuses each broker's first probe (as a broker whose
// listener is not up yet) and answers its second NOT_LEADER_OR_FOLLOWER
// (as before its LeaderAndIsr arrived); later probes get fakeProber's
// answers.
type lateProber struct {
	fakeProber
	mu    sync.Mutex
	tries map[int32]int
}

func (p *lateProber) Probe(ctx context.Context, t replicalog.Target, parts []replicalog.Partition) ([]replicalog.Info, error) {
	p.mu.Lock()
	p.tries[t.BrokerID]++
	n := p.tries[t.BrokerID]
	p.mu.Unlock()
	switch n {
	case 1:
		return nil, errors.New("connection refused")
	case 2:
		out := make([]replicalog.Info, len(parts))
		for i, part := range parts {
			out[i] = replicalog.Info{Partition: part, LogEndOffset: -1, LastEpoch: -1, ErrorCode: 6}
		}
		return out, nil
	}
	return p.fakeProber.Probe(ctx, t, parts)
}

// TestUncleanRecoveryHearsALateBroker: broker 3, back first after the last
// replica standing, is not ready for the first two probes; the recovery
// asks again and elects it.
func TestUncleanRecoveryHearsALateBroker(t *testing.T) {
	prober := &lateProber{fakeProber: fakeProber{logs: map[int32]replicalog.Info{3: {LogEndOffset: 42, LastEpoch: 1}}},
		tries: map[int32]int{}}
	sc := startSimCluster(t, elrOpts(func(c *config.Config) {
		c.UncleanRecoveryManagerEnabled = true
		c.UncleanRecoveryStrategy = config.RecoveryAggressive
	}, prober), 1, 2, 3)
	elrLastStanding(t, sc)
	if err := sc.sim.Broker(3).Restart(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	sc.waitState(t, "foo", 0, "led by 3", func(s election.LeaderAndIsr) bool { return s.Leader == 3 })
	prober.mu.Lock()
	defer prober.mu.Unlock()
	if prober.tries[3] < 3 {
		t.Fatalf("broker 3 asked %d times", prober.tries[3])
	}
}
