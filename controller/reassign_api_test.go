package controller

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/integration/brokersim"
	"github.com/kzadmin/kzadmin/placement"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// raMove is one partition of an AlterPartitionReassignments request;
// nil replicas cancel the partition's reassignment.
type raMove struct {
	topic    string
	p        int32
	replicas []int32
}

// raAlter sends the moves (sendReassignments) and fails the test on a
// top-level error.
func raAlter(t testing.TB, c *Controller, moves ...raMove) *kmsg.AlterPartitionAssignmentsResponse {
	t.Helper()
	resp := sendReassignments(t, c, moves...)
	if resp.ErrorCode != 0 {
		t.Fatalf("AlterPartitionReassignments: top-level error %d, want 0", resp.ErrorCode)
	}
	return resp
}

// sendReassignments sends one AlterPartitionReassignments request with the
// moves, each in its own topic entry (a topic may repeat, as on the wire).
func sendReassignments(t testing.TB, c *Controller, moves ...raMove) *kmsg.AlterPartitionAssignmentsResponse {
	t.Helper()
	req := kmsg.NewPtrAlterPartitionAssignmentsRequest()
	for _, m := range moves {
		rt := kmsg.NewAlterPartitionAssignmentsRequestTopic()
		rt.Topic = m.topic
		rp := kmsg.NewAlterPartitionAssignmentsRequestTopicPartition()
		rp.Partition, rp.Replicas = m.p, m.replicas
		rt.Partitions = append(rt.Partitions, rp)
		req.Topics = append(req.Topics, rt)
	}
	resp, err := c.AlterPartitionReassignments(testCtx(t), req)
	if err != nil {
		t.Fatalf("AlterPartitionReassignments: %v", err)
	}
	return resp
}

// raCodes flattens a response to "topic-partition" -> error code.
func raCodes(resp *kmsg.AlterPartitionAssignmentsResponse) map[string]int16 {
	out := map[string]int16{}
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			out[fmt.Sprintf("%s-%d", rt.Topic, rp.Partition)] = rp.ErrorCode
		}
	}
	return out
}

// raWantCodes fails unless the response answers exactly want.
func raWantCodes(t testing.TB, resp *kmsg.AlterPartitionAssignmentsResponse, want map[string]int16) {
	t.Helper()
	if got := raCodes(resp); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("per-partition codes %v, want %v", got, want)
	}
}

// raTopicVersion is the data version of /brokers/topics/<name>.
func raTopicVersion(t testing.TB, zk *zkadmin.Client, name string) int32 {
	t.Helper()
	_, st, err := zk.Get(testCtx(t), znodes.TopicPath(name))
	if err != nil {
		t.Fatal(err)
	}
	return st.Version
}

// raZnodeEntries reads /admin/reassign_partitions (nil when absent).
func raZnodeEntries(t testing.TB, zk *zkadmin.Client) []znodes.ReassignmentEntry {
	t.Helper()
	data, _, err := zk.Get(testCtx(t), znodes.ReassignPartitionsPath)
	if errors.Is(err, zkadmin.ErrNoNode) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	r, err := znodes.DecodeReassignPartitions(data)
	if err != nil {
		t.Fatalf("decode %s: %v", znodes.ReassignPartitionsPath, err)
	}
	return r.Partitions
}

// raWaitBrokerEpoch waits until broker id holds foo-p at leaderEpoch.
func raWaitBrokerEpoch(t testing.TB, sc *simCluster, id, p, leaderEpoch int32) {
	t.Helper()
	tp := brokersim.TopicPartition{Topic: "foo", Partition: p}
	err := sc.sim.Broker(id).WaitFor(testCtx(t), func(s brokersim.Snapshot) bool {
		return s.Partitions[tp].LeaderEpoch == leaderEpoch
	})
	if err != nil {
		t.Fatalf("broker %d never got %s at leader epoch %d (has %+v): %v", id, tp, leaderEpoch,
			sc.sim.Broker(id).Snapshot().Partitions[tp], err)
	}
}

// TestReassignMixedRequestAnsweredPerPartition: Kafka answers an
// AlterPartitionReassignments request partition by partition (apis.md
// §8.1): a bad target or an unknown partition fails alone while the valid
// moves of the same request run; a partition listed twice keeps its last
// target (Kafka reads the request into a map) and is answered once; a
// cancel of a partition that is not moving (even an unknown one) is
// NO_REASSIGNMENT_IN_PROGRESS. Successes carry no message.
func TestReassignMixedRequestAnsweredPerPartition(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3, 4)
	sc.reassignTopic(t)
	resp := raAlter(t, sc.ctl.c,
		raMove{"foo", 0, []int32{2, 3, 4}},
		raMove{"foo", 1, []int32{2, 3, 4}},
		raMove{"bar", 0, []int32{1}},
		raMove{"foo", 9, nil},
		raMove{"foo", 2, []int32{1, 2, 3}},
		raMove{"foo", 1, []int32{2, 2}}, // replaces the valid target above
	)
	raWantCodes(t, resp, map[string]int16{
		"foo-0": 0,
		"foo-1": kerr.InvalidReplicaAssignment.Code,
		"foo-2": kerr.UnknownTopicOrPartition.Code,
		"foo-9": kerr.NoReassignmentInProgress.Code,
		"bar-0": kerr.UnknownTopicOrPartition.Code,
	})
	// Grouped by topic, each partition once, in the order it first appears.
	var layout []string
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			layout = append(layout, fmt.Sprintf("%s-%d", rt.Topic, rp.Partition))
		}
	}
	if want := []string{"foo-0", "foo-1", "foo-9", "foo-2", "bar-0"}; !slices.Equal(layout, want) || len(resp.Topics) != 2 {
		t.Fatalf("response layout %v in %d topics, want %v in 2", layout, len(resp.Topics), want)
	}
	msgs := map[string]string{
		"foo-1": "Duplicate replica ids in partition reassignment replica list: ArrayBuffer(2, 2)",
		"foo-2": "The partition does not exist.",
		"foo-9": kerr.NoReassignmentInProgress.Description,
		"bar-0": "The partition does not exist.",
	}
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			key := fmt.Sprintf("%s-%d", rt.Topic, rp.Partition)
			want, failed := msgs[key]
			switch {
			case !failed && rp.ErrorMessage != nil:
				t.Errorf("%s succeeded with message %q, want none", key, *rp.ErrorMessage)
			case failed && (rp.ErrorMessage == nil || *rp.ErrorMessage != want):
				t.Errorf("%s message %v, want %q", key, rp.ErrorMessage, want)
			}
		}
	}

	sc.waitAssignment(t, sc.ctl.c, 0, []int32{2, 3, 4}, nil, nil)
	sc.waitGone(t, 1, 0)
	// The refused partition was not touched: same replicas, same epochs.
	if a := readTopicZnode(t, sc.obs, "foo"); !slices.Equal(a.Partitions[1], []int32{2, 3, 1}) || len(a.Partitions) != 2 {
		t.Fatalf("topic znode after the request %+v, want foo-1 on [2 3 1] and no new partition", a)
	}
	if st := readState(t, sc.obs, "foo", 1); st.LeaderEpoch != 0 || st.PartitionEpoch != 0 || st.Leader != 2 {
		t.Fatalf("refused foo-1 state %v, want leader 2 at epochs 0/0", st)
	}
}

// TestReassignNoOpReassignment: a target equal to the current replicas is
// accepted (NONE) and, as in Kafka's onPartitionReassignment, goes
// straight to completion: nothing is added or removed, no StopReplica is
// sent, and the leader stays with its epoch bumped once (B3) so that the
// replicas accept the LeaderAndIsr carrying the final replica list.
func TestReassignNoOpReassignment(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3)
	sc.reassignTopic(t)
	before := readState(t, sc.obs, "foo", 0)
	raWantCodes(t, raAlter(t, sc.ctl.c, raMove{"foo", 0, []int32{1, 2, 3}}), map[string]int16{"foo-0": 0})

	for _, id := range []int32{1, 2, 3} {
		raWaitBrokerEpoch(t, sc, id, 0, before.LeaderEpoch+1)
	}
	st := readState(t, sc.obs, "foo", 0)
	if st.Leader != 1 || !slices.Equal(st.ISR, before.ISR) || st.LeaderEpoch != before.LeaderEpoch+1 {
		t.Fatalf("state after a no-op reassignment %v, want %v with the leader epoch bumped once", st, before)
	}
	sc.waitAssignment(t, sc.ctl.c, 0, []int32{1, 2, 3}, nil, nil)
	for _, b := range sc.sim.Brokers() {
		if n := b.Requests()[kmsg.StopReplica.Int16()]; n != 0 {
			t.Fatalf("broker %d got %d StopReplica for a no-op reassignment, want 0", b.ID(), n)
		}
	}
	if reassignZnodeExists(t, sc.obs) {
		t.Fatal("a no-op API reassignment wrote /admin/reassign_partitions")
	}
}

// TestReassignShrinkReplicationFactor: a target that only drops a replica has
// nothing to wait for (its target is already in the ISR), so it completes
// in the same event: the leader (in the target) keeps leading with its
// epoch bumped (B3), the dropped replica leaves the ISR with another bump
// (B4) and is stopped with delete (B5), while its broker keeps the other
// partitions it hosts.
func TestReassignShrinkReplicationFactor(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3)
	sc.reassignTopic(t)
	before := readState(t, sc.obs, "foo", 0)
	raWantCodes(t, raAlter(t, sc.ctl.c, raMove{"foo", 0, []int32{1, 2}}), map[string]int16{"foo-0": 0})

	sc.waitAssignment(t, sc.ctl.c, 0, []int32{1, 2}, nil, nil)
	sc.waitGone(t, 3, 0)
	st := readState(t, sc.obs, "foo", 0)
	if st.Leader != 1 || !sameSet(st.ISR, []int32{1, 2}) || st.LeaderEpoch != before.LeaderEpoch+2 {
		t.Fatalf("state after the shrink %v, want leader 1, ISR {1,2}, leader epoch %d", st, before.LeaderEpoch+2)
	}
	if _, ok := sc.sim.Broker(3).Snapshot().Partitions[brokersim.TopicPartition{Topic: "foo", Partition: 1}]; !ok {
		t.Fatal("broker 3 dropped foo-1, which the reassignment did not touch")
	}
}

// TestReassignWaitsForTheWholeTarget: a move to a disjoint replica set stays in
// progress until every target replica is in the ISR (Kafka's
// isReassignmentComplete), not merely some: broker 4 joins the ISR while 5
// lags, and the topic znode keeps the full set with adding/removing. Once
// 5 catches up the leader moves off the removed replicas to the first
// target replica in the ISR (Reassign election), and every removed replica
// is stopped and deleted.
func TestReassignWaitsForTheWholeTarget(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3, 4, 5)
	sc.reassignTopic(t)
	sc.sim.Broker(5).SetLagging(true)
	raWantCodes(t, raAlter(t, sc.ctl.c, raMove{"foo", 0, []int32{4, 5}}), map[string]int16{"foo-0": 0})
	mid := []int32{4, 5, 1, 2, 3}
	sc.waitAssignment(t, sc.ctl.c, 0, mid, []int32{4, 5}, []int32{1, 2, 3})
	// Both adding replicas heard of the move as new replicas (A1/A2).
	for _, id := range []int32{4, 5} {
		err := sc.sim.Broker(id).WaitFor(testCtx(t), func(s brokersim.Snapshot) bool {
			ps, ok := s.Partitions[brokersim.TopicPartition{Topic: "foo", Partition: 0}]
			return ok && ps.IsNew && slices.Equal(ps.AddingReplicas, []int32{4, 5}) && ps.Leader == 1
		})
		if err != nil {
			t.Fatalf("broker %d never got the move's LeaderAndIsr: %v", id, err)
		}
	}
	// The snapshot published after the AlterPartition that added 4 shows
	// what that event decided.
	var pv PartitionView
	waitFor(t, "4 in foo-0's ISR", func() bool {
		pv, _ = partitionView(sc.ctl.c, "foo", 0)
		return slices.Contains(pv.ISR, 4)
	})
	if !slices.Equal(pv.Replicas, mid) || !slices.Equal(pv.Adding, []int32{4, 5}) || pv.Leader != 1 {
		t.Fatalf("foo-0 with 5 out of the ISR %+v, want still moving %v led by 1", pv, mid)
	}
	if a := readTopicZnode(t, sc.obs, "foo"); !slices.Equal(a.Partitions[0], mid) || !slices.Equal(a.AddingReplicas[0], []int32{4, 5}) {
		t.Fatalf("completed with 5 out of the ISR: topic znode %+v", a)
	}

	sc.sim.Broker(5).SetLagging(false)
	sc.waitAssignment(t, sc.ctl.c, 0, []int32{4, 5}, nil, nil)
	sc.waitLeader(t, "foo", 0, 4)
	if st := readState(t, sc.obs, "foo", 0); !sameSet(st.ISR, []int32{4, 5}) {
		t.Fatalf("final ISR %v, want {4,5}", st.ISR)
	}
	for _, id := range []int32{1, 2, 3} {
		sc.waitGone(t, id, 0)
	}
	sc.waitBrokerRole(t, 5, "foo", 0, 4)
}

// TestReassignCancelAfterNewReplicaJoinedISR: cancelling (null replicas) a
// move whose new replica already joined the ISR goes back to the original
// replicas: the adding replicas are stopped and deleted and, being
// OfflineReplica first, taken out of the ISR (Kafka's
// stopRemovedReplicasOfReassignedPartition); the original leader stays.
// A second cancel finds nothing in progress.
func TestReassignCancelAfterNewReplicaJoinedISR(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3, 4, 5)
	sc.reassignTopic(t)
	sc.sim.Broker(5).SetLagging(true)
	raWantCodes(t, raAlter(t, sc.ctl.c, raMove{"foo", 0, []int32{4, 5}}), map[string]int16{"foo-0": 0})
	waitFor(t, "4 in foo-0's ISR", func() bool { return slices.Contains(readState(t, sc.obs, "foo", 0).ISR, 4) })

	raWantCodes(t, raAlter(t, sc.ctl.c, raMove{"foo", 0, nil}), map[string]int16{"foo-0": 0})
	sc.waitAssignment(t, sc.ctl.c, 0, []int32{1, 2, 3}, nil, nil)
	sc.waitGone(t, 4, 0)
	sc.waitGone(t, 5, 0)
	sc.waitLeader(t, "foo", 0, 1)
	if st := readState(t, sc.obs, "foo", 0); !sameSet(st.ISR, []int32{1, 2, 3}) {
		t.Fatalf("ISR after the cancel %v, want {1,2,3} (4 taken out)", st.ISR)
	}
	raWantCodes(t, raAlter(t, sc.ctl.c, raMove{"foo", 0, nil}),
		map[string]int16{"foo-0": kerr.NoReassignmentInProgress.Code})
}

// TestReassignPartitionLimitsCheckedBeforeAnyWrite: with max.broker.partitions
// (design brief §4) a request whose moves would put a broker over the
// limit is refused as a whole with partition.limits.error.code (88 here)
// before anything is written; a broker is charged only for the replicas it
// gains, so a reorder passes on brokers already over the limit, and a
// cancel is never refused even when a move of the same request is.
func TestReassignPartitionLimitsCheckedBeforeAnyWrite(t *testing.T) {
	const willExceed = 88 // WILL_EXCEED_PARTITION_LIMITS
	sc := startSimCluster(t, nodeOpts{configure: func(c *config.Config) {
		c.MaxBrokerPartitions, c.PartitionLimitsErrorCode = 1, willExceed
	}}, 1, 2, 3, 4, 5)
	sc.reassignTopic(t) // brokers 1-3 hold 2 replicas each, over the limit
	version := raTopicVersion(t, sc.obs, "foo")

	// Broker 4 would gain two replicas: both moves are refused.
	resp := raAlter(t, sc.ctl.c, raMove{"foo", 0, []int32{1, 2, 4}}, raMove{"foo", 1, []int32{2, 3, 4}})
	raWantCodes(t, resp, map[string]int16{"foo-0": willExceed, "foo-1": willExceed})
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			if rp.ErrorMessage == nil || !strings.HasPrefix(*rp.ErrorMessage, placement.LimitErrorPrefix) {
				t.Fatalf("%s-%d message %v, want prefix %q", rt.Topic, rp.Partition, rp.ErrorMessage, placement.LimitErrorPrefix)
			}
		}
	}
	if v := raTopicVersion(t, sc.obs, "foo"); v != version {
		t.Fatalf("refused request wrote the topic znode: version %d, want %d", v, version)
	}
	if pv, _ := partitionView(sc.ctl.c, "foo", 0); len(pv.Adding) != 0 || !slices.Equal(pv.Replicas, []int32{1, 2, 3}) {
		t.Fatalf("refused move shows in the controller's view: %+v", pv)
	}

	// A reorder gains nothing; one replica on 5 fits.
	sc.sim.Broker(5).SetLagging(true)
	resp = raAlter(t, sc.ctl.c, raMove{"foo", 0, []int32{3, 2, 1}}, raMove{"foo", 1, []int32{2, 3, 5}})
	raWantCodes(t, resp, map[string]int16{"foo-0": 0, "foo-1": 0})
	sc.waitAssignment(t, sc.ctl.c, 0, []int32{3, 2, 1}, nil, nil)
	sc.waitAssignment(t, sc.ctl.c, 1, []int32{2, 3, 5, 1}, []int32{5}, []int32{1})

	// 5 now holds foo-1 (adding): a second replica there is refused, the
	// cancel in the same request goes through.
	version = raTopicVersion(t, sc.obs, "foo")
	resp = raAlter(t, sc.ctl.c, raMove{"foo", 1, nil}, raMove{"foo", 0, []int32{3, 2, 5}})
	raWantCodes(t, resp, map[string]int16{"foo-1": 0, "foo-0": willExceed})
	sc.waitAssignment(t, sc.ctl.c, 1, []int32{2, 3, 1}, nil, nil)
	sc.waitAssignment(t, sc.ctl.c, 0, []int32{3, 2, 1}, nil, nil)
	sc.waitGone(t, 5, 1)
	if v := raTopicVersion(t, sc.obs, "foo"); v == version {
		t.Fatal("the cancel did not write the topic znode")
	}
}

// TestReassignAPITakesPartitionsOutOfZnode: the legacy znode lists two moves
// stuck on lagging broker 4; an API move of one of them supersedes it
// (measured from the original replicas; 4, being added, is stopped at
// once) and takes that partition out of /admin/reassign_partitions, which
// is rewritten with the other entry (the latest request wins, Kafka's
// maybeRemoveFromZkReassignment), and deleted once that one completes.
func TestReassignAPITakesPartitionsOutOfZnode(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3, 4, 5)
	sc.reassignTopic(t)
	sc.sim.Broker(4).SetLagging(true)
	writeReassignZnode(t, sc.obs,
		znodes.ReassignmentEntry{Topic: "foo", Partition: 0, Replicas: []int32{2, 3, 4}},
		znodes.ReassignmentEntry{Topic: "foo", Partition: 1, Replicas: []int32{3, 4, 1}})
	sc.waitAssignment(t, sc.ctl.c, 0, []int32{2, 3, 4, 1}, []int32{4}, []int32{1})
	sc.waitAssignment(t, sc.ctl.c, 1, []int32{3, 4, 1, 2}, []int32{4}, []int32{2})

	raWantCodes(t, raAlter(t, sc.ctl.c, raMove{"foo", 0, []int32{1, 2, 5}}), map[string]int16{"foo-0": 0})
	entries := raZnodeEntries(t, sc.obs)
	if len(entries) != 1 || entries[0].Topic != "foo" || entries[0].Partition != 1 ||
		!slices.Equal(entries[0].Replicas, []int32{3, 4, 1}) {
		t.Fatalf("%s after the API move: %+v, want only foo-1 -> [3 4 1]", znodes.ReassignPartitionsPath, entries)
	}
	sc.waitAssignment(t, sc.ctl.c, 0, []int32{1, 2, 5}, nil, nil)
	sc.waitGone(t, 4, 0)
	sc.waitGone(t, 3, 0)
	sc.waitLeader(t, "foo", 0, 1)

	sc.sim.Broker(4).SetLagging(false)
	sc.waitAssignment(t, sc.ctl.c, 1, []int32{3, 4, 1}, nil, nil)
	waitFor(t, "request znode deleted", func() bool { return !reassignZnodeExists(t, sc.obs) })
	sc.waitLeader(t, "foo", 1, 3)
	sc.waitGone(t, 2, 1)
}

// TestReassignZnodeRewrittenAsPartitionsComplete: a partition of the legacy
// request that completes leaves the znode (B7 removes entries equal to
// their completed target) while another still waits; the znode is deleted
// with the last one. A data change does not start anything again.
func TestReassignZnodeRewrittenAsPartitionsComplete(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3, 4)
	sc.reassignTopic(t)
	sc.sim.Broker(4).SetLagging(true)
	writeReassignZnode(t, sc.obs,
		znodes.ReassignmentEntry{Topic: "foo", Partition: 0, Replicas: []int32{1, 2}},
		znodes.ReassignmentEntry{Topic: "foo", Partition: 1, Replicas: []int32{2, 3, 4}})
	sc.waitAssignment(t, sc.ctl.c, 0, []int32{1, 2}, nil, nil)
	sc.waitAssignment(t, sc.ctl.c, 1, []int32{2, 3, 4, 1}, []int32{4}, []int32{1})
	waitFor(t, "foo-0 out of the request znode", func() bool {
		e := raZnodeEntries(t, sc.obs)
		return len(e) == 1 && e[0].Partition == 1 && slices.Equal(e[0].Replicas, []int32{2, 3, 4})
	})
	sc.sim.Broker(4).SetLagging(false)
	sc.waitAssignment(t, sc.ctl.c, 1, []int32{2, 3, 4}, nil, nil)
	waitFor(t, "request znode deleted", func() bool { return !reassignZnodeExists(t, sc.obs) })
	sc.waitGone(t, 1, 1)
	sc.waitGone(t, 3, 0)
}

// TestReassignZnodeUndecodable: an /admin/reassign_partitions that does not
// decode (bad JSON, or replicas of the wrong type) is ignored with a
// warning, as Kafka treats it as an empty request, and left in place; the
// next API reassignment, which reads it as empty, deletes it (Kafka's
// maybeRemoveFromZkReassignment), and a valid request written afterwards
// is carried out, so the watch stayed armed.
func TestReassignZnodeUndecodable(t *testing.T) {
	for _, tc := range []struct{ name, data string }{
		{"bad json", `{"version":1,"partitions":[{"topic":"foo"`},
		{"wrong types", `{"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":["two","three"]}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logs := &syncBuffer{}
			sc := startSimCluster(t, nodeOpts{logTo: logs}, 1, 2, 3, 4)
			sc.reassignTopic(t)
			version := raTopicVersion(t, sc.obs, "foo")
			if _, err := sc.obs.Create(testCtx(t), znodes.ReassignPartitionsPath, []byte(tc.data), zkadmin.Persistent); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "the invalid request logged", func() bool {
				return strings.Contains(logs.String(), "ignoring partition reassignment due to invalid json")
			})
			if !reassignZnodeExists(t, sc.obs) || raTopicVersion(t, sc.obs, "foo") != version {
				t.Fatal("an undecodable request was removed or acted upon")
			}

			raWantCodes(t, raAlter(t, sc.ctl.c, raMove{"foo", 1, []int32{2, 3, 4}}), map[string]int16{"foo-1": 0})
			waitFor(t, "undecodable request deleted", func() bool { return !reassignZnodeExists(t, sc.obs) })
			sc.waitAssignment(t, sc.ctl.c, 1, []int32{2, 3, 4}, nil, nil)

			writeReassignZnode(t, sc.obs, znodes.ReassignmentEntry{Topic: "foo", Partition: 0, Replicas: []int32{2, 3, 4}})
			sc.waitAssignment(t, sc.ctl.c, 0, []int32{2, 3, 4}, nil, nil)
			waitFor(t, "valid request znode deleted", func() bool { return !reassignZnodeExists(t, sc.obs) })
		})
	}
}

// TestReassignTopicQueuedForDeletion: Kafka's maybeTriggerPartitionReassignment
// answers UNKNOWN_TOPIC_OR_PARTITION for a topic queued for deletion, on
// both paths: the API refuses, and the legacy znode's entry is dropped
// (the znode deleted); the topic znode is not written.
func TestReassignTopicQueuedForDeletion(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3)
	createTopic(t, sc.obs, "doomed", map[int32][]int32{0: {1, 2}})
	sc.waitLeader(t, "doomed", 0, 1, 1, 2)
	sc.sim.Broker(2).Kill() // keeps the deletion from finishing
	waitFor(t, "broker 2 gone", func() bool { return len(sc.ctl.c.Snapshot().Brokers) == 2 })
	markForDeletion(t, sc.obs, "doomed")
	waitFor(t, "doomed queued for deletion", func() bool {
		tv := sc.ctl.c.Snapshot().Topics.Get("doomed")
		return tv != nil && tv.Deleting
	})
	version := raTopicVersion(t, sc.obs, "doomed")

	resp := raAlter(t, sc.ctl.c, raMove{"doomed", 0, []int32{1, 3}})
	raWantCodes(t, resp, map[string]int16{"doomed-0": kerr.UnknownTopicOrPartition.Code})

	writeReassignZnode(t, sc.obs, znodes.ReassignmentEntry{Topic: "doomed", Partition: 0, Replicas: []int32{1, 3}})
	waitFor(t, "request znode deleted", func() bool { return !reassignZnodeExists(t, sc.obs) })
	if v := raTopicVersion(t, sc.obs, "doomed"); v != version {
		t.Fatalf("topic queued for deletion rewritten: version %d, want %d", v, version)
	}
	if pv, _ := partitionView(sc.ctl.c, "doomed", 0); !slices.Equal(pv.Replicas, []int32{1, 2}) || len(pv.Adding) != 0 {
		t.Fatalf("doomed-0 in the controller's view %+v, want replicas [1 2] and nothing moving", pv)
	}
}

// TestReassignAPIMoveResumedByNextController: a move started through the API
// leaves no /admin/reassign_partitions, only adding/removing in the topic
// znode; a controller taking over finds it there (failover step 10),
// bumps the leader epoch and re-sends LeaderAndIsr, and completes it once
// the new replica catches up.
func TestReassignAPIMoveResumedByNextController(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3, 4)
	sc.reassignTopic(t)
	standby := startNode(t, sc.chroot, nodeOpts{id: 101})
	waitFor(t, "standby follows", func() bool { return standby.c.Status().ActiveControllerID == 100 })
	sc.sim.Broker(4).SetLagging(true)
	raWantCodes(t, raAlter(t, sc.ctl.c, raMove{"foo", 0, []int32{2, 3, 4}}), map[string]int16{"foo-0": 0})
	sc.waitAssignment(t, sc.ctl.c, 0, []int32{2, 3, 4, 1}, []int32{4}, []int32{1})
	mid := readState(t, sc.obs, "foo", 0)

	sc.ctl.stop()
	waitFor(t, "standby takes over", func() bool { return standby.c.Status().Ready })
	waitFor(t, "the new controller resumed the move", func() bool {
		st := readState(t, sc.obs, "foo", 0)
		return st.LeaderEpoch > mid.LeaderEpoch && st.ControllerEpoch == 2
	})
	raWaitBrokerEpoch(t, sc, 4, 0, readState(t, sc.obs, "foo", 0).LeaderEpoch)
	if reassignZnodeExists(t, sc.obs) {
		t.Fatal("resuming an API move wrote /admin/reassign_partitions")
	}
	sc.sim.Broker(4).SetLagging(false)
	sc.waitAssignment(t, standby.c, 0, []int32{2, 3, 4}, nil, nil)
	waitFor(t, "foo-0 led by 2", func() bool { return readState(t, sc.obs, "foo", 0).Leader == 2 })
	sc.waitGone(t, 1, 0)
}

// TestReassignTargetBrokerDiesMidMove: the broker a move is adding dies before
// catching up; the reassignment is not abandoned but waits (leader and
// origin ISR unchanged), and when the broker registers again the
// controller resumes it (Kafka's onBrokerStartup step 6) and completes it.
func TestReassignTargetBrokerDiesMidMove(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3, 4)
	sc.reassignTopic(t)
	sc.sim.Broker(4).SetLagging(true)
	raWantCodes(t, raAlter(t, sc.ctl.c, raMove{"foo", 0, []int32{1, 2, 4}}), map[string]int16{"foo-0": 0})
	sc.waitAssignment(t, sc.ctl.c, 0, []int32{1, 2, 4, 3}, []int32{4}, []int32{3})

	sc.sim.Broker(4).Kill()
	waitFor(t, "controller sees broker 4 gone", func() bool { return len(sc.ctl.c.Snapshot().Brokers) == 3 })
	sc.waitAssignment(t, sc.ctl.c, 0, []int32{1, 2, 4, 3}, []int32{4}, []int32{3})
	if pv, _ := partitionView(sc.ctl.c, "foo", 0); pv.Leader != 1 || !sameSet(pv.ISR, []int32{1, 2, 3}) ||
		!slices.Equal(pv.Offline, []int32{4}) {
		t.Fatalf("foo-0 while 4 is down %+v, want leader 1, ISR {1,2,3}, offline [4]", pv)
	}

	if err := sc.sim.Broker(4).Restart(testCtx(t)); err != nil { // comes back caught up
		t.Fatal(err)
	}
	sc.waitAssignment(t, sc.ctl.c, 0, []int32{1, 2, 4}, nil, nil)
	sc.waitLeader(t, "foo", 0, 1)
	sc.waitBrokerRole(t, 4, "foo", 0, 1)
	sc.waitGone(t, 3, 0)
}

// TestReassignZnodeSupersedesAPIMove: overlapping reassignments of one
// partition, the newer from the legacy znode: it is measured from the
// original replicas, the replica the API move was adding (lagging 4) is
// stopped and deleted at once, the new target completes, and the request
// znode goes.
func TestReassignZnodeSupersedesAPIMove(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3, 4, 5)
	sc.reassignTopic(t)
	sc.sim.Broker(4).SetLagging(true)
	raWantCodes(t, raAlter(t, sc.ctl.c, raMove{"foo", 0, []int32{2, 3, 4}}), map[string]int16{"foo-0": 0})
	sc.waitAssignment(t, sc.ctl.c, 0, []int32{2, 3, 4, 1}, []int32{4}, []int32{1})

	writeReassignZnode(t, sc.obs, znodes.ReassignmentEntry{Topic: "foo", Partition: 0, Replicas: []int32{1, 2, 5}})
	sc.waitAssignment(t, sc.ctl.c, 0, []int32{1, 2, 5}, nil, nil)
	waitFor(t, "request znode deleted", func() bool { return !reassignZnodeExists(t, sc.obs) })
	sc.waitGone(t, 4, 0)
	sc.waitGone(t, 3, 0)
	sc.waitLeader(t, "foo", 0, 1)
	sc.waitBrokerRole(t, 5, "foo", 0, 1)
}
