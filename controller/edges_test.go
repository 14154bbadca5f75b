package controller

import (
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// TestBrokerEndpointChange: a broker rewriting its registration in place
// (dynamic listener change) keeps its epoch; the controller takes the new
// endpoints.
func TestBrokerEndpointChange(t *testing.T) {
	chroot := testChroot(t)
	obs := connectZK(t, chroot, "", 0)
	registerBroker(t, obs, 1, "127.0.0.1", 1)
	n := startNode(t, chroot, nodeOpts{id: 100})
	waitFor(t, "ready", func() bool { return n.c.Status().Ready && len(n.c.Snapshot().Brokers) == 1 })
	epoch := n.c.Snapshot().Brokers[0].Epoch
	ep := znodes.Endpoint{Listener: "PLAINTEXT", Host: "127.0.0.2", Port: 2, SecurityProtocol: "PLAINTEXT"}
	data, _ := znodes.NewBrokerRegistration([]znodes.Endpoint{ep}, nil, -1, time.Now()).Encode()
	if _, err := obs.Set(testCtx(t), znodes.BrokerIDPath(1), data, zkadmin.AnyVersion); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "new endpoint", func() bool {
		bs := n.c.Snapshot().Brokers
		return len(bs) == 1 && len(bs[0].Endpoints) == 1 && bs[0].Endpoints[0].Host == "127.0.0.2"
	})
	if got := n.c.Snapshot().Brokers[0].Epoch; got != epoch {
		t.Fatalf("epoch changed %d -> %d", epoch, got)
	}
	// A registration that no longer decodes does not make the broker dead.
	if _, err := obs.Set(testCtx(t), znodes.BrokerIDPath(1), []byte("{"), zkadmin.AnyVersion); err != nil {
		t.Fatal(err)
	}
	registerBroker(t, obs, 2, "127.0.0.1", 1) // a BrokerChange, re-reading every broker
	waitFor(t, "broker 2 known", func() bool { return len(n.c.Snapshot().Brokers) == 2 })
}

// TestNewerControllerEpochInState: a state znode written by a controller
// with a newer epoch (this one went through a soft failure) is never
// overwritten: the election of that partition fails, the rest proceed.
func TestNewerControllerEpochInState(t *testing.T) {
	chroot := testChroot(t)
	obs := connectZK(t, chroot, "", 0)
	registerBroker(t, obs, 1, "127.0.0.1", 1)
	createTopic(t, obs, "foo", map[int32][]int32{0: {2, 1}, 1: {2, 1}})
	writeState(t, obs, "foo", 0, encodeTestState(t, 2, 3, 99, 2, 1)) // leader 2 is not registered
	writeState(t, obs, "foo", 1, encodeTestState(t, 2, 3, 0, 2, 1))
	n := startNode(t, chroot, nodeOpts{id: 100})
	waitFor(t, "ready", func() bool { return n.c.Status().Ready })
	waitFor(t, "foo-1 moved to 1", func() bool {
		st, ok := tryReadState(t, obs, "foo", 1)
		return ok && st.Leader == 1 && st.LeaderEpoch == 5 // ISR removal of 2, then the election
	})
	if st := readState(t, obs, "foo", 0); st.Leader != 2 || st.ControllerEpoch != 99 || st.PartitionEpoch != 0 {
		t.Fatalf("foo-0 overwritten: %v", st)
	}
	if pv, _ := partitionView(n.c, "foo", 0); pv.Leader != 2 || !slices.Equal(pv.Offline, []int32{2}) {
		t.Fatalf("foo-0 view %+v", pv)
	}
}

// TestAlterPartitionVersions: v0–1 name topics, v3 carries broker epochs
// with the ISR; the answers follow the request's form.
func TestAlterPartitionVersions(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3)
	sc.sim.Broker(3).SetLagging(true) // keep the simulated leader from changing the ISR itself
	createTopic(t, sc.obs, "foo", threeParts)
	sc.waitLeader(t, "foo", 0, 1, 1, 2)
	st := readState(t, sc.obs, "foo", 0)
	req := kmsg.NewPtrAlterPartitionRequest()
	req.Version, req.BrokerID, req.BrokerEpoch = 1, 1, sc.sim.Broker(1).Epoch()
	p := kmsg.NewAlterPartitionRequestTopicPartition()
	p.Partition, p.LeaderEpoch, p.PartitionEpoch, p.NewISR = 0, st.LeaderEpoch, st.PartitionEpoch, []int32{1}
	req.Topics = []kmsg.AlterPartitionRequestTopic{{Topic: "foo", Partitions: []kmsg.AlterPartitionRequestTopicPartition{p}}}
	resp, err := sc.ctl.c.AlterPartition(testCtx(t), req)
	if err != nil || resp.Topics[0].Topic != "foo" || resp.Topics[0].Partitions[0].ErrorCode != 0 {
		t.Fatalf("v1: %+v %v", resp, err)
	}
	// The same request again is an idempotent success with the current state.
	resp, err = sc.ctl.c.AlterPartition(testCtx(t), req)
	if rp := resp.Topics[0].Partitions[0]; err != nil || rp.ErrorCode != 0 || rp.PartitionEpoch != st.PartitionEpoch+1 {
		t.Fatalf("retry: %+v %v", rp, err)
	}
	req.Version = 3
	id := sc.ctl.c.Snapshot().Topics.Get("foo").ID
	req.Topics[0].TopicID = id
	p.PartitionEpoch, p.NewISR = st.PartitionEpoch+1, nil
	for _, b := range []int32{1, 2} {
		e := kmsg.NewAlterPartitionRequestTopicPartitionNewEpochISR()
		e.BrokerID, e.BrokerEpoch = b, sc.sim.Broker(b).Epoch()
		p.NewEpochISR = append(p.NewEpochISR, e)
	}
	req.Topics[0].Partitions = []kmsg.AlterPartitionRequestTopicPartition{p}
	resp, err = sc.ctl.c.AlterPartition(testCtx(t), req)
	if rp := resp.Topics[0].Partitions[0]; err != nil || rp.ErrorCode != 0 || !slices.Equal(rp.ISR, []int32{1, 2}) ||
		resp.Topics[0].TopidID != id {
		t.Fatalf("v3: %+v %v", resp, err)
	}
}
