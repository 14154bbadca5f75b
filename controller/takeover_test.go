package controller

import (
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/integration/brokersim"
	"github.com/kzadmin/kzadmin/integration/netcut"
)

// TestPausedControllerCannotWrite: the active controller loses ZooKeeper
// (a pause or a partition, as kill -STOP would): its session expires, a
// standby takes over and tells every broker under the next epoch. The old
// controller, still believing it is active, tries to write an ISR change:
// nothing lands. Once it reconnects it learns of the expiry, resigns and
// follows the new controller; every partition still has a live leader.
func TestPausedControllerCannotWrite(t *testing.T) {
	proxy := netcut.New(t, env.server.Addr())
	sc := startSimCluster(t, nodeOpts{zkAddr: proxy.Addr(), timeout: 2 * time.Second}, 1, 2, 3)
	createTopic(t, sc.obs, "foo", threeParts)
	for p, r := range threeParts {
		sc.waitLeader(t, "foo", p, r[0], r...)
	}
	standby := startNode(t, sc.chroot, nodeOpts{id: 101})
	waitFor(t, "standby follows", func() bool { return standby.c.Status().ActiveControllerID == 100 })
	before := readState(t, sc.obs, "foo", 0)

	proxy.Cut()
	waitFor(t, "standby takes over", func() bool { return standby.c.Status().Ready })
	for _, b := range sc.sim.Brokers() {
		err := b.WaitFor(testCtx(t), func(s brokersim.Snapshot) bool { return s.ControllerEpoch == 2 })
		if err != nil {
			t.Fatalf("broker %d never saw epoch 2: %v", b.ID(), err)
		}
	}
	if !sc.ctl.c.IsActive() {
		t.Skip("the old controller noticed the expiry before it could try to write")
	}
	req := kmsg.NewPtrAlterPartitionRequest()
	req.Version, req.BrokerID, req.BrokerEpoch = 2, 1, sc.sim.Broker(1).Epoch()
	p := kmsg.NewAlterPartitionRequestTopicPartition()
	p.Partition, p.LeaderEpoch, p.PartitionEpoch, p.NewISR = 0, before.LeaderEpoch, before.PartitionEpoch, []int32{1}
	req.Topics = []kmsg.AlterPartitionRequestTopic{{TopicID: standby.c.Snapshot().Topics.Get("foo").ID,
		Partitions: []kmsg.AlterPartitionRequestTopicPartition{p}}}
	resp, err := sc.ctl.c.AlterPartition(testCtx(t), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.ErrorCode == 0 && resp.Topics[0].Partitions[0].ErrorCode == 0 {
		t.Fatalf("a stale controller accepted an ISR change: %+v", resp)
	}
	proxy.Heal()
	waitFor(t, "old controller resigned", func() bool {
		st := sc.ctl.c.Status()
		return !st.Active && st.ActiveControllerID == 101
	})
	after := readState(t, sc.obs, "foo", 0)
	if after.PartitionEpoch != before.PartitionEpoch || len(after.ISR) != 3 {
		t.Fatalf("state changed under the stale controller: %v -> %v", before, after)
	}
	for part, r := range threeParts {
		st := readState(t, sc.obs, "foo", part)
		if st.Leader != r[0] {
			t.Fatalf("foo-%d lost its leader: %v", part, st)
		}
	}
}
