package controller

import (
	"slices"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller/election"
)

// designate sends ElectLeaders with desired leaders: parts[topic] lists
// partition/leader pairs. plain topics are listed without desired leaders.
func designate(t *testing.T, c *Controller, typ int8, parts map[string][][2]int32, plain ...string) map[string]kmsg.ElectLeadersResponseTopicPartition {
	t.Helper()
	req := kmsg.NewPtrElectLeadersRequest()
	req.Version, req.ElectionType = 2, typ
	desired := map[string][]int32{}
	for topic, pl := range parts {
		rt := kmsg.NewElectLeadersRequestTopic()
		rt.Topic = topic
		for _, x := range pl {
			rt.Partitions = append(rt.Partitions, x[0])
			desired[topic] = append(desired[topic], x[1])
		}
		req.Topics = append(req.Topics, rt)
	}
	for _, topic := range plain {
		rt := kmsg.NewElectLeadersRequestTopic()
		rt.Topic, rt.Partitions = topic, []int32{0}
		req.Topics = append(req.Topics, rt)
	}
	resp, err := c.ElectDesiredLeaders(testCtx(t), req, desired)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]kmsg.ElectLeadersResponseTopicPartition{}
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			out[TopicPartition{Topic: rt.Topic, Partition: rp.Partition}.String()] = rp
		}
	}
	return out
}

func wantElectCode(t *testing.T, got map[string]kmsg.ElectLeadersResponseTopicPartition, tp string, code int16, msgPart string) {
	t.Helper()
	rp, ok := got[tp]
	if !ok {
		t.Fatalf("%s not answered: %+v", tp, got)
	}
	msg := ""
	if rp.ErrorMessage != nil {
		msg = *rp.ErrorMessage
	}
	if rp.ErrorCode != code || !strings.Contains(msg, msgPart) {
		t.Fatalf("%s: code %d %q, want %d containing %q", tp, rp.ErrorCode, msg, code, msgPart)
	}
}

// TestDesignatedElectionClean: a designated ISR member leads cleanly; the
// per-partition errors; topics without desired leaders get the request's
// election type.
func TestDesignatedElectionClean(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3)
	createTopic(t, sc.obs, "foo", map[int32][]int32{0: {1, 2, 3}, 1: {1, 2, 3}})
	createTopic(t, sc.obs, "bar", map[int32][]int32{0: {2, 3}})
	sc.waitLeader(t, "foo", 0, 1, 1, 2, 3)
	sc.waitLeader(t, "foo", 1, 1, 1, 2, 3)
	sc.waitLeader(t, "bar", 0, 2, 2, 3)
	before := readState(t, sc.obs, "foo", 0)

	got := designate(t, sc.ctl.c, 0, map[string][][2]int32{
		"foo": {{0, 2}, {1, 9}, {7, 1}}, "nope": {{0, 1}},
	}, "bar")
	wantElectCode(t, got, "foo-0", 0, "")
	wantElectCode(t, got, "foo-1", kerr.InvalidReplicaAssignment.Code, "the desired leader is not an assigned replica")
	wantElectCode(t, got, "foo-7", kerr.UnknownTopicOrPartition.Code, "does not exist")
	wantElectCode(t, got, "nope-0", kerr.UnknownTopicOrPartition.Code, "does not exist")
	wantElectCode(t, got, "bar-0", kerr.ElectionNotNeeded.Code, "") // PREFERRED, 2 leads already
	sc.waitLeader(t, "foo", 0, 2, 1, 2, 3)
	sc.waitBrokerRole(t, 3, "foo", 0, 2)
	after := readState(t, sc.obs, "foo", 0)
	if after.LeaderEpoch != before.LeaderEpoch+1 || after.LeaderRecoveryState != election.Recovered {
		t.Fatalf("after the designated election: %v (before %v)", after, before)
	}

	got = designate(t, sc.ctl.c, 1, map[string][][2]int32{"foo": {{0, 2}}})
	wantElectCode(t, got, "foo-0", kerr.ElectionNotNeeded.Code, "")

	sc.sim.Broker(3).Kill()
	sc.waitState(t, "foo", 0, "3 out of the ISR", func(s election.LeaderAndIsr) bool { return slices.Equal(s.ISR, []int32{1, 2}) })
	got = designate(t, sc.ctl.c, 0, map[string][][2]int32{"foo": {{0, 3}}})
	wantElectCode(t, got, "foo-0", kerr.EligibleLeadersNotAvailable.Code, "the desired leader is not live")
	if n := metricValue(t, sc.ctl, "kafka_controller_ControllerStats_UncleanLeaderElectionsPerSec"); n != 0 {
		t.Fatalf("UncleanLeaderElectionsPerSec = %v", n)
	}
}

// TestDesignatedManualRecovery: with unclean.recovery.strategy None, the
// last replica standing leaves foo-0 leaderless, and broker 3 (in no ISR or
// ELR) comes back. A designated election of a dead ELR member fails; of 3
// it succeeds uncleanly: RECOVERING, ELR cleared, counted.
func TestDesignatedManualRecovery(t *testing.T) {
	prober := &fakeProber{}
	sc := startSimCluster(t, elrOpts(func(c *config.Config) {
		c.UncleanRecoveryManagerEnabled = true
		c.UncleanRecoveryStrategy = config.RecoveryNone
	}, prober), 1, 2, 3)
	elrLastStanding(t, sc)
	sc.restartBrokers(t, 3)
	got := designate(t, sc.ctl.c, 0, map[string][][2]int32{"foo": {{0, 2}}})
	wantElectCode(t, got, "foo-0", kerr.EligibleLeadersNotAvailable.Code, "not live")
	if st := readState(t, sc.obs, "foo", 0); st.Leader != election.NoLeader {
		t.Fatalf("None elected %d", st.Leader)
	}

	got = designate(t, sc.ctl.c, 0, map[string][][2]int32{"foo": {{0, 3}}})
	wantElectCode(t, got, "foo-0", 0, "")
	st := sc.waitState(t, "foo", 0, "led by 3", func(s election.LeaderAndIsr) bool { return s.Leader == 3 })
	if !slices.Equal(st.ISR, []int32{3}) || st.ELR != nil || st.LastKnownELR != nil ||
		st.LeaderRecoveryState != election.Recovering {
		t.Fatalf("after the manual recovery: %v elr %v last %v", st, st.ELR, st.LastKnownELR)
	}
	sc.waitBrokerRole(t, 3, "foo", 0, 3)
	if n := metricValue(t, sc.ctl, "kafka_controller_ControllerStats_UncleanLeaderElectionsPerSec"); n != 1 {
		t.Fatalf("UncleanLeaderElectionsPerSec = %v", n)
	}
	if a := prober.askedBrokers(); len(a) != 0 {
		t.Fatalf("None asked %v", a)
	}
}
