package controller

import (
	"fmt"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// rqElectCluster: brokers 1–3 registered (4 and 5 never are), and
//
//	foo-0   replicas 1,2,3  led by 2, ISR 2,1,3     preferred election possible
//	foo-1   replicas 1,2,3  led by 1 (created)      preferred already
//	foo-2   replicas 1,2,3  led by 2, ISR 2,3       preferred replica out of the ISR
//	foo-3   replicas 4,2,3  led by 2, ISR 2,3       preferred replica not registered
//	lost-0  replicas 5,3    no leader, ISR 5        only an unclean election helps
//	gone-0  replicas 4,5    no leader               no live replica at all
//	doomed-0 replicas 1,2   led by 1                queued for deletion (never finishes:
//	                                                no broker answers StopReplica)
func rqElectCluster(t *testing.T) *rqCluster {
	t.Helper()
	st := func(leader, epoch int32, isr ...int32) []byte {
		return rqState(t, znodes.PartitionState{Leader: leader, LeaderEpoch: epoch, ISR: isr})
	}
	zc := rqStart(t, []int32{1, 2, 3}, func(obs *zkadmin.Client) {
		rqTopic(t, obs, "foo", map[int32][]int32{0: {1, 2, 3}, 1: {1, 2, 3}, 2: {1, 2, 3}, 3: {4, 2, 3}},
			map[int32][]byte{0: st(2, 4, 2, 1, 3), 2: st(2, 4, 2, 3), 3: st(2, 4, 2, 3)})
		rqTopic(t, obs, "lost", map[int32][]int32{0: {5, 3}}, map[int32][]byte{0: st(5, 1, 5)})
		rqTopic(t, obs, "gone", map[int32][]int32{0: {4, 5}}, map[int32][]byte{0: st(4, 1, 4, 5)})
		rqTopic(t, obs, "doomed", map[int32][]int32{0: {1, 2}}, map[int32][]byte{0: st(1, 0, 1, 2)})
		markForDeletion(t, obs, "doomed")
	})
	for name, n := range map[string]int{"foo": 4, "lost": 1, "gone": 1} {
		zc.topicID(t, name, n)
		for p := range int32(n) {
			zc.waitView(t, name, p)
		}
	}
	waitFor(t, "doomed queued for deletion", func() bool {
		tv := zc.ctl.c.Snapshot().Topics.Get("doomed")
		return tv != nil && tv.Deleting
	})
	if st := readState(t, zc.obs, "lost", 0); st.Leader != election.NoLeader || !slices.Equal(st.ISR, []int32{5}) {
		t.Fatalf("setup: lost-0 should be leaderless with ISR [5], got %v", st)
	}
	return zc
}

// rqStates reads every state znode of the elect cluster.
func rqStates(t *testing.T, zc *rqCluster) map[string]election.LeaderAndIsr {
	t.Helper()
	out := map[string]election.LeaderAndIsr{}
	for _, tp := range []struct {
		topic string
		p     int32
		key   string
	}{{"foo", 0, "foo-0"}, {"foo", 1, "foo-1"}, {"foo", 2, "foo-2"}, {"foo", 3, "foo-3"},
		{"lost", 0, "lost-0"}, {"gone", 0, "gone-0"}, {"doomed", 0, "doomed-0"}} {
		out[tp.key] = readState(t, zc.obs, tp.topic, tp.p)
	}
	return out
}

// rqWantResult checks one partition's ElectLeaders result: its code and,
// when msg is not "-", its exact message ("" meaning none).
func rqWantResult(t *testing.T, got map[string]kmsg.ElectLeadersResponseTopicPartition, key string, code int16, msg string) {
	t.Helper()
	r, ok := got[key]
	if !ok {
		t.Fatalf("%s: want code %d, but it is not in the answer %v", key, code, rqCodes(got))
	}
	if r.ErrorCode != code {
		t.Fatalf("%s: want code %d (%v), got %d", key, code, kerr.ErrorForCode(code), r.ErrorCode)
	}
	switch {
	case msg == "-":
	case msg == "" && r.ErrorMessage != nil:
		t.Fatalf("%s: want no message, got %q", key, *r.ErrorMessage)
	case msg != "" && (r.ErrorMessage == nil || *r.ErrorMessage != msg):
		t.Fatalf("%s: want message %q, got %v", key, msg, r.ErrorMessage)
	}
}

// rqCodes is the error code of every answered partition, for messages.
func rqCodes(got map[string]kmsg.ElectLeadersResponseTopicPartition) map[string]int16 {
	out := make(map[string]int16, len(got))
	for k, r := range got {
		out[k] = r.ErrorCode
	}
	return out
}

// rqUnchanged fails unless every partition but the listed ones kept its
// state znode.
func rqUnchanged(t *testing.T, before, after map[string]election.LeaderAndIsr, except ...string) {
	t.Helper()
	for k, st := range before {
		if !slices.Contains(except, k) {
			rqSameState(t, k, after[k], st)
		}
	}
}

// TestElectLeadersPreferredListed: an admin's PREFERRED election of listed
// partitions answers every one of them as Kafka's controller does
// (reference controller.md §2.7, apis.md §7) and elects only the one
// whose first replica is live and in the ISR: new leader, leader epoch +1,
// ISR unchanged, our controller epoch.
func TestElectLeadersPreferredListed(t *testing.T) {
	zc := rqElectCluster(t)
	before := rqStates(t, zc)
	resp, got := rqElect(t, zc.ctl.c, 2, 0, map[string][]int32{
		"foo": {0, 1, 2, 3, 9}, "nope": {0}, "doomed": {0}})
	if resp.ErrorCode != 0 || resp.Version != 2 || len(got) != 7 {
		t.Fatalf("want a v2 answer for all 7 partitions and no top-level error, got v%d code %d with %v",
			resp.Version, resp.ErrorCode, rqCodes(got))
	}
	const preferredFailed = "Failed to elect leader for partition %s under strategy PreferredReplicaPartitionLeaderElectionStrategy"
	rqWantResult(t, got, "foo-0", 0, "")
	rqWantResult(t, got, "foo-1", kerr.ElectionNotNeeded.Code, rqNotNeeded)
	rqWantResult(t, got, "foo-2", kerr.PreferredLeaderNotAvailable.Code, fmt.Sprintf(preferredFailed, "foo-2"))
	rqWantResult(t, got, "foo-3", kerr.PreferredLeaderNotAvailable.Code, fmt.Sprintf(preferredFailed, "foo-3"))
	// Kafka's text, which its PlaintextAdminIntegrationTest matches.
	rqWantResult(t, got, "foo-9", kerr.UnknownTopicOrPartition.Code, "The partition does not exist.")
	rqWantResult(t, got, "nope-0", kerr.UnknownTopicOrPartition.Code, "The partition does not exist.")
	rqWantResult(t, got, "doomed-0", kerr.InvalidTopicException.Code, "The topic is being deleted")

	after := rqStates(t, zc)
	rqUnchanged(t, before, after, "foo-0")
	st, was := zc.waitView(t, "foo", 0), before["foo-0"]
	if st.Leader != 1 || st.LeaderEpoch != was.LeaderEpoch+1 || !slices.Equal(st.ISR, was.ISR) ||
		st.PartitionEpoch != was.PartitionEpoch+1 || st.ControllerEpoch != zc.ctl.c.Snapshot().Epoch {
		t.Fatalf("foo-0: want leader 1, leader epoch %d, ISR %v, our controller epoch, got %v",
			was.LeaderEpoch+1, was.ISR, st)
	}
	// Asking again finds nothing to do.
	_, got = rqElect(t, zc.ctl.c, 2, 0, map[string][]int32{"foo": {0}})
	rqWantResult(t, got, "foo-0", kerr.ElectionNotNeeded.Code, rqNotNeeded)
	if v := zc.version(t, "foo", 0); v != st.PartitionEpoch {
		t.Fatalf("a second preferred election rewrote foo-0: version %d, want %d", v, st.PartitionEpoch)
	}
}

// TestElectLeadersPreferredAllPartitions: a null topic list means every
// partition the controller knows but those of topics whose deletion has
// started (doomed), which Kafka's broker has dropped from the metadata it
// lists; it leaves ELECTION_NOT_NEEDED out of such an answer, so it lists
// only elections and failures (a client checking "nothing to do" expects
// an empty map).
func TestElectLeadersPreferredAllPartitions(t *testing.T) {
	zc := rqElectCluster(t)
	before := rqStates(t, zc)
	resp, got := rqElect(t, zc.ctl.c, 1, 0, nil)
	if resp.ErrorCode != 0 {
		t.Fatalf("want no top-level error, got %d", resp.ErrorCode)
	}
	want := map[string]int16{
		"foo-0": 0, "foo-2": kerr.PreferredLeaderNotAvailable.Code, "foo-3": kerr.PreferredLeaderNotAvailable.Code,
		"lost-0": kerr.PreferredLeaderNotAvailable.Code, "gone-0": kerr.PreferredLeaderNotAvailable.Code,
	}
	if len(got) != len(want) {
		t.Fatalf("all-partitions answer: want exactly %v, got %v", want, rqCodes(got))
	}
	for k, code := range want {
		rqWantResult(t, got, k, code, "-")
	}
	rqUnchanged(t, before, rqStates(t, zc), "foo-0")
	if st := zc.waitView(t, "foo", 0); st.Leader != 1 {
		t.Fatalf("foo-0: want leader 1 after the election, got %v", st)
	}
	// Nothing left to elect: the answer lists only the failures.
	_, got = rqElect(t, zc.ctl.c, 1, 0, nil)
	if _, listed := got["foo-0"]; listed || len(got) != len(want)-1 {
		t.Fatalf("second all-partitions election: want the %d failures only, got %v", len(want)-1, rqCodes(got))
	}
}

// TestElectLeadersUnclean: UNCLEAN elects only partitions without a live
// leader (a live leader that is not the preferred one is
// ELECTION_NOT_NEEDED), and an admin's request may pick a live replica
// outside the ISR (RECOVERING, ISR reset to the leader). With no live
// replica at all the answer is ELIGIBLE_LEADERS_NOT_AVAILABLE. v0 has no
// election type: it is always PREFERRED, whatever the field holds.
func TestElectLeadersUnclean(t *testing.T) {
	zc := rqElectCluster(t)
	before := rqStates(t, zc)

	resp, got := rqElect(t, zc.ctl.c, 0, 1, map[string][]int32{"lost": {0}})
	if resp.Version != 0 {
		t.Fatalf("v0 request answered with v%d", resp.Version)
	}
	rqWantResult(t, got, "lost-0", kerr.PreferredLeaderNotAvailable.Code, "-")
	rqUnchanged(t, before, rqStates(t, zc))

	_, got = rqElect(t, zc.ctl.c, 1, 1, map[string][]int32{"foo": {0, 1}})
	rqWantResult(t, got, "foo-0", kerr.ElectionNotNeeded.Code, "-")
	rqWantResult(t, got, "foo-1", kerr.ElectionNotNeeded.Code, "-")

	resp, got = rqElect(t, zc.ctl.c, 2, 1, nil)
	if resp.ErrorCode != 0 || len(got) != 2 {
		t.Fatalf("unclean, all partitions: want lost-0 and gone-0 only (doomed's deletion has started), got code %d with %v",
			resp.ErrorCode, rqCodes(got))
	}
	rqWantResult(t, got, "lost-0", 0, "")
	rqWantResult(t, got, "gone-0", kerr.EligibleLeadersNotAvailable.Code,
		"Failed to elect leader for partition gone-0 under strategy OfflinePartitionLeaderElectionStrategy(true)")

	rqUnchanged(t, before, rqStates(t, zc), "lost-0")
	st, was := zc.waitView(t, "lost", 0), before["lost-0"]
	if st.Leader != 3 || !slices.Equal(st.ISR, []int32{3}) || st.LeaderRecoveryState != election.Recovering ||
		st.LeaderEpoch != was.LeaderEpoch+1 || st.ControllerEpoch != zc.ctl.c.Snapshot().Epoch {
		t.Fatalf("lost-0: want leader 3, ISR [3], RECOVERING, leader epoch %d, got %v", was.LeaderEpoch+1, st)
	}
}

// rqNotNeeded is the message of ELECTION_NOT_NEEDED: Kafka answers
// new ApiError(ELECTION_NOT_NEEDED), which carries the code's default text.
const rqNotNeeded = "Leader election not needed for topic partition."

// TestElectLeadersDuplicatePartition: a partition listed twice is elected
// once and answered once, as Kafka's broker makes a set of the request's
// partitions; electing it twice would bump its leader epoch twice and send
// the brokers two LeaderAndIsr rounds.
func TestElectLeadersDuplicatePartition(t *testing.T) {
	zc := rqElectCluster(t)
	was := rqStates(t, zc)["foo-0"]
	_, got := rqElect(t, zc.ctl.c, 2, 0, map[string][]int32{"foo": {0, 0}})
	rqWantResult(t, got, "foo-0", 0, "")
	st := zc.waitView(t, "foo", 0)
	if st.Leader != 1 || st.LeaderEpoch != was.LeaderEpoch+1 || st.PartitionEpoch != was.PartitionEpoch+1 {
		t.Fatalf("foo-0 listed twice: want one election (leader 1, leader epoch %d, partition epoch %d), got %v",
			was.LeaderEpoch+1, was.PartitionEpoch+1, st)
	}
}

// TestElectLeadersEmptyLists: an empty (not null) topic list, or a topic
// listing no partitions, asks for nothing: the answer is empty and no
// partition is elected, though foo-0 would be.
func TestElectLeadersEmptyLists(t *testing.T) {
	zc := rqElectCluster(t)
	before := rqStates(t, zc)
	for _, topics := range []map[string][]int32{{}, {"foo": {}}} {
		resp, got := rqElect(t, zc.ctl.c, 2, 0, topics)
		if resp.ErrorCode != 0 || len(got) != 0 {
			t.Fatalf("ElectLeaders for %v: want an empty answer, got code %d with %v", topics, resp.ErrorCode, rqCodes(got))
		}
	}
	rqUnchanged(t, before, rqStates(t, zc))
}
