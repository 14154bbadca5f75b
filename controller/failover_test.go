package controller

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// syncBuffer is a bytes.Buffer safe for concurrent writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestFailoverLoad: a controller taking over reads what is in ZooKeeper —
// leaders with their epochs stay as they are, topics without state znodes
// get them — and a malformed state znode is reported with its path and
// field while everything else loads. Once the znode is fixed, an election
// brings the partition back.
func TestFailoverLoad(t *testing.T) {
	logs := &syncBuffer{}
	sc := startSimClusterWith(t, nodeOpts{logTo: logs}, func(obs *zkadmin.Client) {
		id, _ := znodes.ParseUUID("qSVG0ukwQZqMS74sw61E-w")
		data, _ := znodes.TopicAssignment{TopicID: id,
			Partitions: map[int32][]int32{0: {1, 2, 3}, 1: {1, 2}, 2: {3, 1}}}.Encode()
		if _, err := obs.Create(testCtx(t), znodes.TopicPath("loaded"), data, zkadmin.Persistent); err != nil {
			t.Fatal(err)
		}
		writeState(t, obs, "loaded", 0, encodeTestState(t, 2, 5, 0, 2, 3, 1))
		writeState(t, obs, "loaded", 1, []byte(`{"controller_epoch":0,"leader":"one","version":1,"leader_epoch":0,"isr":[1]}`))
		writeState(t, obs, "loaded", 2, encodeTestState(t, 3, 2, 0, 3))
		createTopic(t, obs, "fresh", map[int32][]int32{0: {2, 3}})
	}, 1, 2, 3)

	pv, _ := partitionView(sc.ctl.c, "loaded", 0)
	if pv.Leader != 2 || pv.LeaderEpoch != 5 || pv.PartitionEpoch != 0 {
		t.Fatalf("loaded-0 %+v", pv)
	}
	sc.waitBrokerRole(t, 3, "loaded", 0, 2)
	if pv, _ := partitionView(sc.ctl.c, "loaded", 2); pv.Leader != 3 || pv.LeaderEpoch != 2 { // the ISR may already have grown
		t.Fatalf("loaded-2 %+v", pv)
	}
	if pv, _ := partitionView(sc.ctl.c, "loaded", 1); pv.Leader != -1 {
		t.Fatalf("malformed loaded-1 %+v", pv)
	}
	sc.waitLeader(t, "fresh", 0, 2, 2, 3)
	if got := metricValue(t, sc.ctl, "kafka_controller_KafkaController_OfflinePartitionsCount"); got != 1 {
		t.Fatalf("OfflinePartitionsCount %v", got)
	}
	if got := metricValue(t, sc.ctl, "kafka_controller_KafkaController_GlobalTopicCount"); got != 2 {
		t.Fatalf("GlobalTopicCount %v", got)
	}
	if l := logs.String(); !strings.Contains(l, "/brokers/topics/loaded/partitions/1/state") ||
		!strings.Contains(l, `leader`) {
		t.Fatalf("no clear error in the logs:\n%s", l)
	}

	// Fix the znode (last ISR member 1, no leader); an unclean election
	// request finds the clean leader.
	ctx := testCtx(t)
	if _, err := sc.obs.Set(ctx, znodes.PartitionStatePath("loaded", 1), encodeTestState(t, -1, 3, 0, 1), zkadmin.AnyVersion); err != nil {
		t.Fatal(err)
	}
	req := kmsg.NewPtrElectLeadersRequest()
	req.Version, req.ElectionType = 2, 1
	req.Topics = []kmsg.ElectLeadersRequestTopic{{Topic: "loaded", Partitions: []int32{1}}}
	resp, err := sc.ctl.c.ElectLeaders(ctx, req)
	if err != nil || resp.Topics[0].Partitions[0].ErrorCode != 0 {
		t.Fatalf("elect loaded-1: %+v %v", resp, err)
	}
	sc.waitLeader(t, "loaded", 1, 1)
	if st := readState(t, sc.obs, "loaded", 1); st.LeaderEpoch != 4 || st.ControllerEpoch != 1 {
		t.Fatalf("loaded-1 after election %v", st)
	}
	if got := metricValue(t, sc.ctl, "kafka_controller_KafkaController_OfflinePartitionsCount"); got != 0 {
		t.Fatalf("OfflinePartitionsCount %v", got)
	}
}
