package controller

import (
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// lastReplicaStanding makes foo-0 (replicas 1, 2) have ISR [1] and then
// kills broker 1: the partition has no leader and keeps its last ISR
// member.
func lastReplicaStanding(t *testing.T, sc *simCluster) {
	t.Helper()
	createTopic(t, sc.obs, "foo", map[int32][]int32{0: {1, 2}})
	sc.waitLeader(t, "foo", 0, 1, 1, 2)
	sc.sim.Broker(2).SetLagging(true)
	sc.waitLeader(t, "foo", 0, 1, 1)
	sc.sim.Broker(1).Kill()
}

// TestNoUncleanElectionByDefault: the last ISR member dies; without
// unclean election the partition stays leaderless with its ISR kept,
// until an admin asks for an unclean election, which elects the live
// replica outside the ISR, marks it RECOVERING and counts it.
func TestNoUncleanElectionByDefault(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2)
	lastReplicaStanding(t, sc)
	sc.waitLeader(t, "foo", 0, -1, 1)
	waitFor(t, "offline partition counted", func() bool {
		return metricValue(t, sc.ctl, "kafka_controller_KafkaController_OfflinePartitionsCount") == 1
	})

	req := kmsg.NewPtrElectLeadersRequest()
	req.Version, req.ElectionType = 2, 0
	req.Topics = []kmsg.ElectLeadersRequestTopic{{Topic: "foo", Partitions: []int32{0}}}
	resp, err := sc.ctl.c.ElectLeaders(testCtx(t), req)
	if err != nil {
		t.Fatal(err)
	}
	if p := resp.Topics[0].Partitions[0]; p.ErrorCode != kerr.PreferredLeaderNotAvailable.Code || p.ErrorMessage == nil {
		t.Fatalf("preferred election of a dead leader: %+v", p)
	}
	req.ElectionType = 1
	if resp, err = sc.ctl.c.ElectLeaders(testCtx(t), req); err != nil || resp.Topics[0].Partitions[0].ErrorCode != 0 {
		t.Fatalf("unclean election: %+v %v", resp, err)
	}
	sc.waitLeader(t, "foo", 0, 2, 2)
	st := readState(t, sc.obs, "foo", 0)
	if st.LeaderRecoveryState != election.Recovering || st.LeaderEpoch != 2 {
		t.Fatalf("unclean state %v", st)
	}
	if got := metricValue(t, sc.ctl, "kafka_controller_ControllerStats_UncleanLeaderElectionsPerSec"); got != 1 {
		t.Fatalf("UncleanLeaderElectionsPerSec %v", got)
	}
}

// TestUncleanElectionEnabled: with unclean.leader.election.enable on for
// the cluster, the controller elects the live replica itself; a topic
// override turning it off wins over the cluster setting.
func TestUncleanElectionEnabled(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{unclean: true}, 1, 2, 3)
	cfg, _ := znodes.EntityConfig{Config: map[string]string{UncleanLeaderElectionKey: "false"}}.Encode()
	if _, err := sc.obs.CreateRecursive(testCtx(t), znodes.ConfigEntityPath("topics", "strict"), cfg, zkadmin.Persistent); err != nil {
		t.Fatal(err)
	}
	createTopic(t, sc.obs, "strict", map[int32][]int32{0: {1, 3}})
	sc.waitLeader(t, "strict", 0, 1, 1, 3)
	sc.sim.Broker(3).SetLagging(true)
	sc.waitLeader(t, "strict", 0, 1, 1)
	lastReplicaStanding(t, sc)
	sc.waitLeader(t, "foo", 0, 2, 2)
	sc.waitLeader(t, "strict", 0, -1, 1)
}

// TestPreferredElectionZnode: the legacy tool's znode triggers preferred
// elections and is deleted afterwards; a second request works the same.
func TestPreferredElectionZnode(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3)
	createTopic(t, sc.obs, "foo", threeParts)
	sc.waitLeader(t, "foo", 0, 1, 1, 2, 3)
	sc.sim.Broker(1).Kill()
	sc.waitLeader(t, "foo", 0, 2, 2, 3)
	if err := sc.sim.Broker(1).Restart(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	sc.waitLeader(t, "foo", 0, 2, 2, 3, 1)
	sc.waitLeader(t, "foo", 2, 3, 3, 2, 1)
	for _, p := range []int32{0, 2} {
		data, _ := znodes.PreferredReplicaElection{Partitions: []znodes.TopicPartition{{Topic: "foo", Partition: p}}}.Encode()
		if _, err := sc.obs.Create(testCtx(t), znodes.PreferredReplicaElectionPath, data, zkadmin.Persistent); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "znode deleted", func() bool {
			ok, _, err := sc.obs.Exists(testCtx(t), znodes.PreferredReplicaElectionPath)
			return err == nil && !ok
		})
	}
	sc.waitLeader(t, "foo", 0, 1)
	sc.waitLeader(t, "foo", 1, 2) // the failover kept it on 2, its preferred replica
	if st := readState(t, sc.obs, "foo", 2); st.Leader != 3 {
		t.Fatalf("foo-2 %v", st)
	}
	if got := metricValue(t, sc.ctl, "kafka_controller_KafkaController_PreferredReplicaImbalanceCount"); got != 0 {
		t.Fatalf("imbalance %v", got)
	}
}

// TestAutoRebalance: once a restarted broker is back in the ISRs, the
// periodic check gives it back the partitions it prefers.
func TestAutoRebalance(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{rebalance: 200 * time.Millisecond}, 1, 2, 3)
	createTopic(t, sc.obs, "foo", threeParts)
	sc.waitLeader(t, "foo", 0, 1, 1, 2, 3)
	sc.sim.Broker(1).Kill()
	sc.waitLeader(t, "foo", 0, 2, 2, 3)
	if err := sc.sim.Broker(1).Restart(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	sc.waitLeader(t, "foo", 0, 1)
	sc.waitBrokerRole(t, 1, "foo", 0, 1)
}

// TestLogDirFailure: a broker answers LeaderAndIsr with
// KAFKA_STORAGE_ERROR; its replica counts as offline and leadership moves.
func TestLogDirFailure(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2)
	sc.sim.Broker(1).SetLogDirOffline(true)
	createTopic(t, sc.obs, "foo", map[int32][]int32{0: {1, 2}})
	// The simulated leader may add 1 back to the ISR (it does not model a
	// follower that cannot fetch); the leader is what matters.
	sc.waitLeader(t, "foo", 0, 2)
	if pv, _ := partitionView(sc.ctl.c, "foo", 0); !slices.Equal(pv.Offline, []int32{1}) {
		t.Fatalf("offline replicas %v", pv.Offline)
	}
}

// TestStandbyAnswersNotController: requests reaching a standby are refused
// the way brokers expect, so that they look for the controller again.
func TestStandbyAnswersNotController(t *testing.T) {
	chroot := testChroot(t)
	a := startNode(t, chroot, nodeOpts{id: 100})
	waitFor(t, "a active", func() bool { return a.c.Status().Ready })
	b := startNode(t, chroot, nodeOpts{id: 101})
	waitFor(t, "b standby", func() bool { return b.c.Status().ActiveControllerID == 100 })
	ctx := testCtx(t)
	ap, err := b.c.AlterPartition(ctx, kmsg.NewPtrAlterPartitionRequest())
	if err != nil || ap.ErrorCode != kerr.NotController.Code {
		t.Fatalf("AlterPartition: %v %v", ap, err)
	}
	cs, err := b.c.ControlledShutdown(ctx, kmsg.NewPtrControlledShutdownRequest())
	if err != nil || cs.ErrorCode != kerr.StaleControllerEpoch.Code {
		t.Fatalf("ControlledShutdown: %v %v", cs, err)
	}
	el := kmsg.NewPtrElectLeadersRequest()
	el.Version = 2
	el.Topics = []kmsg.ElectLeadersRequestTopic{{Topic: "foo", Partitions: []int32{0}}}
	er, err := b.c.ElectLeaders(ctx, el)
	if err != nil || er.Topics[0].Partitions[0].ErrorCode != kerr.NotController.Code {
		t.Fatalf("ElectLeaders: %v %v", er, err)
	}
	if snap := b.c.Snapshot(); snap.Active || snap.Topics.Len() != 0 || snap.ControllerID != 100 {
		t.Fatalf("standby snapshot %+v", snap)
	}
}
