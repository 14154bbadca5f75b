package controller

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/controller/replicalog"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// fakeProber answers every probe from a table of log ends per broker and
// records who was asked.
type fakeProber struct {
	mu    sync.Mutex
	logs  map[int32]replicalog.Info // per broker: LogEndOffset and LastEpoch
	asked []int32
}

func (f *fakeProber) Probe(_ context.Context, t replicalog.Target, parts []replicalog.Partition) ([]replicalog.Info, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, t.BrokerID)
	out := make([]replicalog.Info, len(parts))
	for i, p := range parts {
		l, ok := f.logs[t.BrokerID]
		out[i] = replicalog.Info{Partition: p, LogEndOffset: l.LogEndOffset, LastEpoch: l.LastEpoch}
		if !ok {
			out[i].ErrorCode, out[i].LogEndOffset, out[i].LastEpoch = 6, -1, -1 // NOT_LEADER_OR_FOLLOWER
		}
	}
	return out, nil
}

func (f *fakeProber) askedBrokers() []int32 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.asked)
}

// setTopicConfig writes /config/topics/<name> (no change notification: the
// controller reads it at decision time).
func setTopicConfig(t testing.TB, zk *zkadmin.Client, name string, kv map[string]string) {
	t.Helper()
	data, err := znodes.EntityConfig{Config: kv}.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zk.CreateRecursive(testCtx(t), znodes.ConfigEntityPath("topics", name), data, zkadmin.Persistent); err != nil {
		t.Fatalf("write config of %s: %v", name, err)
	}
}

// waitState waits until the state znode satisfies cond and returns it.
func (sc *simCluster) waitState(t testing.TB, topic string, p int32, what string,
	cond func(election.LeaderAndIsr) bool) election.LeaderAndIsr {
	t.Helper()
	var st election.LeaderAndIsr
	waitFor(t, fmt.Sprintf("%s-%d: %s", topic, p, what), func() bool {
		s, ok := tryReadState(t, sc.obs, topic, p)
		st = s
		return ok && cond(s)
	})
	return st
}

func elrOpts(mutate func(*config.Config), prober replicalog.Prober) nodeOpts {
	return nodeOpts{prober: prober, configure: func(c *config.Config) {
		c.EligibleLeaderReplicasEnable = true
		if mutate != nil {
			mutate(c)
		}
	}}
}

// elrLastStanding takes foo-0 (replicas 1,2,3, min ISR 2) to: 3 killed
// (ISR 1,2), 2 killed (ISR 1, ELR 2), 1 killed (leader -1, ISR 1, ELR 2).
func elrLastStanding(t *testing.T, sc *simCluster) {
	t.Helper()
	setTopicConfig(t, sc.obs, "foo", map[string]string{"min.insync.replicas": "2"})
	createTopic(t, sc.obs, "foo", map[int32][]int32{0: {1, 2, 3}})
	sc.waitLeader(t, "foo", 0, 1, 1, 2, 3)
	sc.sim.Broker(3).Kill()
	sc.waitState(t, "foo", 0, "isr 1,2 and no ELR", func(s election.LeaderAndIsr) bool {
		return slices.Equal(s.ISR, []int32{1, 2}) && s.ELR == nil
	})
	sc.sim.Broker(2).Kill()
	sc.waitState(t, "foo", 0, "isr 1, ELR 2", func(s election.LeaderAndIsr) bool {
		return slices.Equal(s.ISR, []int32{1}) && slices.Equal(s.ELR, []int32{2}) && s.ELRMinISR == 2
	})
	sc.sim.Broker(1).Kill()
	sc.waitState(t, "foo", 0, "leaderless, isr 1, ELR 2", func(s election.LeaderAndIsr) bool {
		return s.Leader == election.NoLeader && slices.Equal(s.ISR, []int32{1}) && slices.Equal(s.ELR, []int32{2})
	})
}

// TestELRLastReplicaStanding: the ELR member comes back first and leads
// cleanly, with the last ISR member moving into the ELR; the view shows it.
func TestELRLastReplicaStanding(t *testing.T) {
	sc := startSimCluster(t, elrOpts(nil, nil), 1, 2, 3)
	elrLastStanding(t, sc)
	if err := sc.sim.Broker(2).Restart(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	st := sc.waitState(t, "foo", 0, "led by ELR member 2", func(s election.LeaderAndIsr) bool { return s.Leader == 2 })
	if !slices.Equal(st.ISR, []int32{2}) || !slices.Equal(st.ELR, []int32{1}) || st.LeaderRecoveryState != election.Recovered {
		t.Fatalf("after the ELR election: %v elr %v", st, st.ELR)
	}
	waitFor(t, "ELR in the view", func() bool {
		pv, ok := partitionView(sc.ctl.c, "foo", 0)
		return ok && pv.Leader == 2 && slices.Equal(pv.ELR, []int32{1})
	})
	if got := metricValue(t, sc.ctl, "kafka_controller_ControllerStats_ElectionFromEligibleLeaderReplicasPerSec"); got != 1 {
		t.Fatalf("ElectionFromEligibleLeaderReplicasPerSec = %v", got)
	}
	if got := metricValue(t, sc.ctl, "kafka_controller_ControllerStats_UncleanLeaderElectionsPerSec"); got != 0 {
		t.Fatalf("UncleanLeaderElectionsPerSec = %v", got)
	}
}

// TestELRDisabledWritesNothing: the same failures without ELR leave Kafka's
// states: no ELR fields, and broker 2 cannot lead.
func TestELRDisabledWritesNothing(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3)
	setTopicConfig(t, sc.obs, "foo", map[string]string{"min.insync.replicas": "2"})
	createTopic(t, sc.obs, "foo", map[int32][]int32{0: {1, 2, 3}})
	sc.waitLeader(t, "foo", 0, 1, 1, 2, 3)
	sc.sim.Broker(3).Kill()
	sc.sim.Broker(2).Kill()
	st := sc.waitState(t, "foo", 0, "isr 1", func(s election.LeaderAndIsr) bool { return slices.Equal(s.ISR, []int32{1}) })
	if st.ELR != nil || st.LastKnownELR != nil || st.ELRMinISR != 0 {
		t.Fatalf("ELR disabled, yet written: %+v", st)
	}
}

// recoveryScenario: after the last replica standing, only broker 3 (in no
// ISR or ELR) comes back; what happens depends on the strategy.
func recoveryScenario(t *testing.T, strategy config.UncleanRecoveryStrategy, timeout time.Duration) (*simCluster, *fakeProber) {
	t.Helper()
	prober := &fakeProber{logs: map[int32]replicalog.Info{3: {LogEndOffset: 42, LastEpoch: 1}}}
	sc := startSimCluster(t, elrOpts(func(c *config.Config) {
		c.UncleanRecoveryManagerEnabled = true
		c.UncleanRecoveryStrategy = strategy
		c.UncleanRecoveryTimeout = timeout
	}, prober), 1, 2, 3)
	elrLastStanding(t, sc)
	if err := sc.sim.Broker(3).Restart(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	return sc, prober
}

func TestUncleanRecoveryAggressive(t *testing.T) {
	sc, prober := recoveryScenario(t, config.RecoveryAggressive, time.Hour)
	st := sc.waitState(t, "foo", 0, "led by 3", func(s election.LeaderAndIsr) bool { return s.Leader == 3 })
	if !slices.Equal(st.ISR, []int32{3}) || st.ELR != nil || st.LastKnownELR != nil || st.LeaderRecoveryState != election.Recovering {
		t.Fatalf("after recovery: %v elr %v last %v", st, st.ELR, st.LastKnownELR)
	}
	if !slices.Contains(prober.askedBrokers(), 3) {
		t.Fatalf("broker 3 not asked: %v", prober.askedBrokers())
	}
	if got := metricValue(t, sc.ctl, "kafka_controller_ControllerStats_UncleanLeaderElectionsPerSec"); got != 1 {
		t.Fatalf("UncleanLeaderElectionsPerSec = %v", got)
	}
}

// TestUncleanRecoveryBalanced waits for the ISR and ELR members (1, 2),
// which never answer, until the timeout, then elects the one that did.
func TestUncleanRecoveryBalanced(t *testing.T) {
	start := time.Now()
	sc, _ := recoveryScenario(t, config.RecoveryBalanced, 1500*time.Millisecond)
	sc.waitState(t, "foo", 0, "led by 3", func(s election.LeaderAndIsr) bool { return s.Leader == 3 })
	if time.Since(start) < 1500*time.Millisecond {
		t.Fatalf("Balanced elected before the timeout")
	}
}

// TestUncleanRecoveryBalancedYieldsToELR: an ELR member that comes back
// while Balanced waits leads cleanly; the recovery's answer is dropped.
func TestUncleanRecoveryBalancedYieldsToELR(t *testing.T) {
	sc, _ := recoveryScenario(t, config.RecoveryBalanced, time.Hour)
	waitFor(t, "recovery waiting", func() bool {
		return metricValue(t, sc.ctl, "kafka_controller_ControllerStats_UncleanRecoveriesStartedPerSec") == 1
	})
	if err := sc.sim.Broker(2).Restart(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	st := sc.waitState(t, "foo", 0, "led by 2", func(s election.LeaderAndIsr) bool { return s.Leader == 2 })
	if st.LeaderRecoveryState != election.Recovered {
		t.Fatalf("clean ELR election marked recovering: %v", st)
	}
}

// TestUncleanRecoveryNone never elects broker 3 and asks nobody.
func TestUncleanRecoveryNone(t *testing.T) {
	sc, prober := recoveryScenario(t, config.RecoveryNone, time.Hour)
	waitFor(t, "broker 3 registered", func() bool {
		v := sc.ctl.c.Snapshot()
		return slices.ContainsFunc(v.Brokers, func(b BrokerView) bool { return b.ID == 3 })
	})
	// The broker change that brought 3 back has run its election; a second
	// event proves the loop is past it.
	createTopic(t, sc.obs, "bar", map[int32][]int32{0: {3}})
	sc.waitLeader(t, "bar", 0, 3, 3)
	if st := readState(t, sc.obs, "foo", 0); st.Leader != election.NoLeader {
		t.Fatalf("None elected %d", st.Leader)
	}
	if a := prober.askedBrokers(); len(a) != 0 {
		t.Fatalf("None asked %v", a)
	}
}

// TestUncleanRecoveryTimeoutLoweredWhileWaiting: Balanced waits an hour
// for replicas that will not answer; lowering the dynamic
// unclean.recovery.timeout.ms ends that wait, and the replica that
// answered leads.
func TestUncleanRecoveryTimeoutLoweredWhileWaiting(t *testing.T) {
	sc, _ := recoveryScenario(t, config.RecoveryBalanced, time.Hour)
	waitFor(t, "recovery waiting", func() bool {
		return metricValue(t, sc.ctl, "kafka_controller_ControllerStats_UncleanRecoveriesStartedPerSec") == 1
	})
	changeConfig(t, sc.obs, znodes.EntityBrokers, znodes.DefaultEntityName, map[string]string{"unclean.recovery.timeout.ms": "100"})
	st := sc.waitState(t, "foo", 0, "led by 3", func(s election.LeaderAndIsr) bool { return s.Leader == 3 })
	if st.LeaderRecoveryState != election.Recovering {
		t.Fatalf("after recovery: %v", st)
	}
}
