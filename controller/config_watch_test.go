package controller

import (
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/controller/replicalog"
	"github.com/kzadmin/kzadmin/integration/brokersim"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// changeConfig writes an entity's config and posts the change
// notification, as kafka-configs does.
func changeConfig(t testing.TB, zk *zkadmin.Client, entityType, name string, kv map[string]string) {
	t.Helper()
	ctx := testCtx(t)
	data, err := znodes.EntityConfig{Config: kv}.Encode()
	if err != nil {
		t.Fatal(err)
	}
	path := znodes.ConfigEntityPath(entityType, name)
	if _, err := zk.Set(ctx, path, data, zkadmin.AnyVersion); err != nil {
		if _, err := zk.CreateRecursive(ctx, path, data, zkadmin.Persistent); err != nil {
			t.Fatalf("write %s: %v", path, err)
		}
	}
	note, err := znodes.NewConfigChangeNotification(entityType, name).Encode()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zk.CreateRecursive(ctx, znodes.ConfigChangeSequencePath, note, zkadmin.PersistentSequential); err != nil {
		t.Fatalf("post the change notification: %v", err)
	}
}

// leaderlessWithLiveReplica takes foo-0 (replicas 1,2) to leader -1 with
// ISR [1], broker 1 dead and broker 2 back: only an unclean election can
// give it a leader. It returns once the controller has handled broker 2's
// return (and left the partition offline).
func leaderlessWithLiveReplica(t *testing.T, sc *simCluster) {
	t.Helper()
	createTopic(t, sc.obs, "foo", map[int32][]int32{0: {1, 2}})
	sc.waitLeader(t, "foo", 0, 1, 1, 2)
	sc.sim.Broker(2).Kill()
	sc.waitState(t, "foo", 0, "isr 1", func(s election.LeaderAndIsr) bool { return slices.Equal(s.ISR, []int32{1}) })
	sc.sim.Broker(1).Kill()
	sc.waitState(t, "foo", 0, "leaderless", func(s election.LeaderAndIsr) bool { return s.Leader == election.NoLeader })
	sc.restartBrokers(t, 2)
	if st := readState(t, sc.obs, "foo", 0); st.Leader != election.NoLeader {
		t.Fatalf("elected %d with unclean election off", st.Leader)
	}
}

func wantUncleanLeader(t *testing.T, sc *simCluster, leader int32) {
	t.Helper()
	st := sc.waitState(t, "foo", 0, "unclean leader", func(s election.LeaderAndIsr) bool { return s.Leader == leader })
	if !slices.Equal(st.ISR, []int32{leader}) || st.LeaderRecoveryState != election.Recovering {
		t.Fatalf("after the unclean election: %v", st)
	}
	// The state znode is written before the loop counts the election.
	const metric = "kafka_controller_ControllerStats_UncleanLeaderElectionsPerSec"
	waitFor(t, "the unclean election counted", func() bool { return metricValue(t, sc.ctl, metric) >= 1 })
	if n := metricValue(t, sc.ctl, metric); n != 1 {
		t.Fatalf("UncleanLeaderElectionsPerSec = %v", n)
	}
}

// TestConfigChangeTopicUncleanEnable is TopicUncleanLeaderElectionEnable:
// a topic override turning unclean election on elects at once. A change
// to another topic, or one leaving it off, elects nothing.
func TestConfigChangeTopicUncleanEnable(t *testing.T) {
	logs := &syncBuffer{}
	sc := startSimCluster(t, nodeOpts{logTo: logs, logLevel: zerolog.InfoLevel}, 1, 2)
	leaderlessWithLiveReplica(t, sc)
	changeConfig(t, sc.obs, znodes.EntityTopics, "foo", map[string]string{"retention.ms": "1000"})
	changeConfig(t, sc.obs, znodes.EntityTopics, "other", map[string]string{UncleanLeaderElectionKey: "true"})
	waitFor(t, "both notifications handled", func() bool {
		return strings.Contains(logs.String(), `"seq":1,`) && strings.Contains(logs.String(), "config change notifications handled")
	})
	if st := readState(t, sc.obs, "foo", 0); st.Leader != election.NoLeader {
		t.Fatalf("elected %d on an unrelated change", st.Leader)
	}
	changeConfig(t, sc.obs, znodes.EntityTopics, "foo", map[string]string{UncleanLeaderElectionKey: "true"})
	wantUncleanLeader(t, sc, 2)
	sc.waitBrokerRole(t, 2, "foo", 0, 2)
}

// TestConfigChangeBrokerDefaultUncleanEnable is UncleanLeaderElectionEnable:
// the cluster default turned on in /config/brokers/<default> elects at
// once, and later elections use it.
func TestConfigChangeBrokerDefaultUncleanEnable(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2)
	leaderlessWithLiveReplica(t, sc)
	changeConfig(t, sc.obs, znodes.EntityBrokers, znodes.DefaultEntityName, map[string]string{UncleanLeaderElectionKey: "true"})
	wantUncleanLeader(t, sc, 2)
}

// TestConfigChangeMinISRClearsELR: foo-0 (replicas 1,2,3, min ISR 2) led
// by 1 alone with ELR [2]; min.insync.replicas becomes 1: the ELR is
// cleared at once with a leader epoch bump that broker 1 learns.
func TestConfigChangeMinISRClearsELR(t *testing.T) {
	sc := startSimCluster(t, elrOpts(nil, nil), 1, 2, 3)
	setTopicConfig(t, sc.obs, "foo", map[string]string{"min.insync.replicas": "2"})
	createTopic(t, sc.obs, "foo", map[int32][]int32{0: {1, 2, 3}})
	sc.waitLeader(t, "foo", 0, 1, 1, 2, 3)
	sc.sim.Broker(3).Kill()
	sc.waitState(t, "foo", 0, "isr 1,2", func(s election.LeaderAndIsr) bool { return slices.Equal(s.ISR, []int32{1, 2}) })
	sc.sim.Broker(2).Kill()
	before := sc.waitState(t, "foo", 0, "isr 1, ELR 2", func(s election.LeaderAndIsr) bool {
		return slices.Equal(s.ISR, []int32{1}) && slices.Equal(s.ELR, []int32{2})
	})
	changeConfig(t, sc.obs, znodes.EntityTopics, "foo", map[string]string{"min.insync.replicas": "1"})
	after := sc.waitState(t, "foo", 0, "ELR cleared", func(s election.LeaderAndIsr) bool { return s.ELR == nil })
	if after.Leader != 1 || !slices.Equal(after.ISR, []int32{1}) || after.LastKnownELR != nil || after.ELRMinISR != 0 ||
		after.LeaderEpoch != before.LeaderEpoch+1 {
		t.Fatalf("after the min ISR change: %v elr %v (before %v)", after, after.ELR, before)
	}
	tp := brokersim.TopicPartition{Topic: "foo", Partition: 0}
	if err := sc.sim.Broker(1).WaitFor(testCtx(t), func(s brokersim.Snapshot) bool {
		ps, ok := s.Partitions[tp]
		return ok && ps.LeaderEpoch == after.LeaderEpoch && ps.PartitionEpoch == after.PartitionEpoch
	}); err != nil {
		t.Fatalf("broker 1 never learnt the bump: %v", err)
	}
	waitFor(t, "ELR gone from the view", func() bool {
		pv, ok := partitionView(sc.ctl.c, "foo", 0)
		return ok && pv.ELR == nil && pv.LeaderEpoch == after.LeaderEpoch
	})
}

// TestConfigChangeRestartsRecovery: with the topic's recovery strategy
// None, the last replica standing leaves foo-0 offline though broker 3 is
// back; switching the topic to Aggressive starts the recovery at once.
func TestConfigChangeRestartsRecovery(t *testing.T) {
	prober := &fakeProber{logs: map[int32]replicalog.Info{3: {LogEndOffset: 42, LastEpoch: 1}}}
	sc := startSimCluster(t, elrOpts(func(c *config.Config) {
		c.UncleanRecoveryManagerEnabled = true
		c.UncleanRecoveryStrategy = config.RecoveryNone
	}, prober), 1, 2, 3)
	elrLastStanding(t, sc)
	sc.restartBrokers(t, 3)
	if st := readState(t, sc.obs, "foo", 0); st.Leader != election.NoLeader {
		t.Fatalf("None elected %d", st.Leader)
	}
	changeConfig(t, sc.obs, znodes.EntityTopics, "foo",
		map[string]string{"min.insync.replicas": "2", UncleanRecoveryStrategyKey: "Aggressive"})
	st := sc.waitState(t, "foo", 0, "recovered to 3", func(s election.LeaderAndIsr) bool { return s.Leader == 3 })
	if st.LeaderRecoveryState != election.Recovering || st.ELR != nil {
		t.Fatalf("after the recovery: %v elr %v", st, st.ELR)
	}
	if !slices.Contains(prober.askedBrokers(), 3) {
		t.Fatalf("broker 3 not asked: %v", prober.askedBrokers())
	}
}
