package controller

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// smLoadCase is one topic written by other tools before the controller
// starts, and what the controller must make of it. Every topic has one
// partition, 0.
type smLoadCase struct {
	name      string
	topic     string // raw /brokers/topics/<t> JSON
	state     []byte // raw state znode; nil: none
	untouched bool   // the state znode must stay byte for byte
	// want is the state znode afterwards (when !untouched and non-nil):
	// leader, leader epoch, controller epoch, ISR.
	want *smState
	// view is the partition's leader in the snapshot.
	view int32
}

type smState struct {
	leader, leaderEpoch, controllerEpoch int32
	isr                                  []int32
}

func (s smState) String() string {
	return fmt.Sprintf("leader %d epoch %d controller epoch %d isr %v", s.leader, s.leaderEpoch, s.controllerEpoch, s.isr)
}

// TestLoadAwkwardCluster: a controller elected over a cluster written by
// other tools, with a stale /controller_epoch (41), brokers 1 and 2 alive
// and 3 gone. It must load everything it can without crashing, leave what
// it cannot read as it found it, and write with epoch 42:
//   - a topic without id gets one written back, keeping fields it does
//     not know; a topic with an id is not rewritten;
//   - a partition without state znode is initialised, unless none of its
//     replicas is alive (then it waits, with no znode written);
//   - a leader that is not a live broker is replaced from the ISR (the
//     dead replica first leaves the ISR: two leader epoch bumps), keeping
//     unknown fields of the state znode; with no live ISR member the
//     partition stays leaderless with its last ISR member kept;
//   - a state znode that is not JSON, lacks fields or is empty is never
//     overwritten, and its partition gets no leader;
//   - a topic znode that does not decode is left out;
//   - a deletion marker for a topic that does not exist is removed.
//
// When broker 3 then registers, the partitions waiting for it come online.
func TestLoadAwkwardCluster(t *testing.T) {
	chroot := testChroot(t)
	obs := connectZK(t, chroot, "", 0)
	ctx := testCtx(t)
	if _, err := obs.Create(ctx, znodes.ControllerEpochPath, znodes.EncodeControllerEpoch(41), zkadmin.Persistent); err != nil {
		t.Fatal(err)
	}
	registerBroker(t, obs, 1, "127.0.0.1", 1)
	registerBroker(t, obs, 2, "127.0.0.1", 1)
	const id = "qSVG0ukwQZqMS74sw61E-w"
	cases := []smLoadCase{
		{name: "plain", topic: `{"version":1,"partitions":{"0":[1,2]},"x_tool":"keep"}`,
			want: &smState{1, 0, 42, []int32{1, 2}}, view: 1},
		{name: "withid", topic: `{"version":3,"topic_id":"` + id + `","partitions":{"0":[1,2]}}`,
			state: encodeTestState(t, 2, 3, 40, 2, 1), untouched: true, view: 2},
		{name: "deadonly", topic: `{"version":1,"partitions":{"0":[3]}}`, view: -1},
		{name: "deadleader", topic: `{"version":1,"partitions":{"0":[3,1,2]}}`,
			state: []byte(`{"controller_epoch":40,"leader":3,"version":1,"leader_epoch":5,"isr":[3,1],"x_custom":7}`),
			want:  &smState{1, 7, 42, []int32{1}}, view: 1},
		{name: "isrdead", topic: `{"version":1,"partitions":{"0":[3,1]}}`,
			state: encodeTestState(t, 3, 5, 40, 3), want: &smState{-1, 6, 42, []int32{3}}, view: -1},
		{name: "notjson", topic: `{"version":1,"partitions":{"0":[1]}}`, state: []byte("leader=1"), untouched: true, view: -1},
		{name: "missingfields", topic: `{"version":1,"partitions":{"0":[1]}}`, state: []byte(`{"version":1,"leader":1}`),
			untouched: true, view: -1},
		{name: "empty", topic: `{"version":1,"partitions":{"0":[1]}}`, state: []byte{}, untouched: true, view: -1},
	}
	for _, tc := range cases {
		if _, err := obs.Create(ctx, znodes.TopicPath(tc.name), []byte(tc.topic), zkadmin.Persistent); err != nil {
			t.Fatal(err)
		}
		if tc.state != nil {
			writeState(t, obs, tc.name, 0, tc.state)
		}
	}
	if _, err := obs.Create(ctx, znodes.TopicPath("badtopic"), []byte(`{"partitions":`), zkadmin.Persistent); err != nil {
		t.Fatal(err)
	}
	if _, err := obs.CreateRecursive(ctx, znodes.DeleteTopicPath("ghost"), nil, zkadmin.Persistent); err != nil {
		t.Fatal(err)
	}

	n := startNode(t, chroot, nodeOpts{id: 100})
	waitFor(t, "controller ready", func() bool { return n.c.Status().Ready })
	if st := n.c.Status(); st.Epoch != 42 || n.c.Snapshot().Epoch != 42 {
		t.Fatalf("status epoch %d, snapshot epoch %d; want 42, one above the stale /controller_epoch", st.Epoch, n.c.Snapshot().Epoch)
	}
	for _, tc := range cases {
		if tc.want != nil {
			waitFor(t, fmt.Sprintf("%s-0 state %v", tc.name, *tc.want), func() bool {
				st, ok := tryReadState(t, obs, tc.name, 0)
				got := smState{st.Leader, st.LeaderEpoch, st.ControllerEpoch, st.ISR}
				return ok && got.String() == tc.want.String()
			})
		}
	}
	waitFor(t, "ghost marker removed", func() bool { return !znodeExists(t, obs, znodes.DeleteTopicPath("ghost")) })
	// Ready is published after the failover's view, so the view holds
	// the loaded partitions.
	for _, tc := range cases {
		if pv, ok := partitionView(n.c, tc.name, 0); !ok || pv.Leader != tc.view {
			t.Errorf("%s-0 in the snapshot: %+v (found %v), want leader %d", tc.name, pv, ok, tc.view)
		}
		data, _, err := obs.Get(ctx, znodes.PartitionStatePath(tc.name, 0))
		switch {
		case tc.state == nil && tc.want == nil:
			if err == nil {
				t.Errorf("%s-0: a state znode %q was written though no replica is alive", tc.name, data)
			}
		case tc.untouched && !bytes.Equal(data, tc.state):
			t.Errorf("%s-0: state znode rewritten to %q, want %q kept (err %v)", tc.name, data, tc.state, err)
		}
	}
	if data, _, _ := obs.Get(ctx, znodes.PartitionStatePath("deadleader", 0)); !bytes.Contains(data, []byte(`"x_custom":7`)) {
		t.Errorf("deadleader-0 state %s lost the unknown field x_custom", data)
	}
	if n.c.Snapshot().Topics.Get("badtopic") != nil {
		t.Error("a topic whose znode does not decode is in the snapshot")
	}
	if got := metricValue(t, n, "kafka_controller_KafkaController_OfflinePartitionsCount"); got != 3 {
		t.Errorf("OfflinePartitionsCount %v, want 3 (isrdead, notjson, missingfields; New partitions are not offline)", got)
	}
	smCheckTopicIDs(t, n, obs, id)

	registerBroker(t, obs, 3, "127.0.0.1", 1)
	for _, w := range []struct {
		topic string
		want  smState
	}{{"deadonly", smState{3, 0, 42, []int32{3}}}, {"isrdead", smState{3, 7, 42, []int32{3}}}} {
		waitFor(t, fmt.Sprintf("%s-0 led by 3 once it registers", w.topic), func() bool {
			st, ok := tryReadState(t, obs, w.topic, 0)
			return ok && (smState{st.Leader, st.LeaderEpoch, st.ControllerEpoch, st.ISR}).String() == w.want.String()
		})
	}
}

// smCheckTopicIDs: "plain" got an id, written back with its unknown
// field kept and shown in the snapshot; "withid" kept its id and its
// znode was not rewritten.
func smCheckTopicIDs(t *testing.T, n *node, obs *zkadmin.Client, id string) {
	t.Helper()
	data, stat, err := obs.Get(testCtx(t), znodes.TopicPath("plain"))
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatalf("plain's znode %s: %v", data, err)
	}
	a, err := znodes.DecodeTopicAssignment("plain", data)
	if err != nil || a.TopicID.IsZero() || stat.Version != 1 {
		t.Fatalf("plain's znode %s (version %d): want a topic id written once", data, stat.Version)
	}
	if string(raw["x_tool"]) != `"keep"` {
		t.Errorf("plain's znode %s lost the unknown field x_tool", data)
	}
	if tv := n.c.Snapshot().Topics.Get("plain"); tv == nil || tv.ID != a.TopicID {
		t.Errorf("plain in the snapshot %+v, want id %v", tv, a.TopicID)
	}
	data, stat, err = obs.Get(testCtx(t), znodes.TopicPath("withid"))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := znodes.ParseUUID(id)
	if a, err := znodes.DecodeTopicAssignment("withid", data); err != nil || a.TopicID != want || stat.Version != 0 {
		t.Errorf("withid's znode %s (version %d): want its id %s, never rewritten", data, stat.Version, id)
	}
	var noID []string
	for name, tv := range n.c.Snapshot().Topics.All() {
		if tv.ID.IsZero() {
			noID = append(noID, name)
		}
	}
	if len(noID) != 0 {
		t.Errorf("topics without id in the snapshot: %v", noID)
	}
}
