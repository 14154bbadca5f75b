package brokersim

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// leaderWithISR is foo-0 led by broker 1 with replicas 1-3 and ISR [1].
func leaderWithISR(leaderEpoch, zkVersion int32) part {
	return part{topic: "foo", partition: 0, topicID: fooID(), leader: 1, leaderEpoch: leaderEpoch,
		isr: []int32{1}, replicas: []int32{1, 2, 3}, zkVersion: zkVersion}
}

func isrIs(want ...int32) func(Snapshot) bool {
	return func(s Snapshot) bool {
		p, ok := s.Partitions[TopicPartition{"foo", 0}]
		return ok && slices.Equal(p.ISR, want) && s.PendingAlterPartitions == 0
	}
}

// TestAlterPartitionExpandsISR: a new leader proposes every caught-up
// replica; a lagging follower leaves the ISR and comes back.
func TestAlterPartitionExpandsISR(t *testing.T) {
	c := startCluster(t, Options{Brokers: specs(1, 2, 3)})
	fake := startFakeController(t, 100)
	b := c.Broker(1)
	cc := dialBroker(t, b)
	live := append(brokerEntries(c.Brokers()...), fake.liveEntry())
	cc.send(umReq(b.Epoch(), 1, 100, live))
	wantCodes(t, "leader", cc.send(lairReq(b.Epoch(), 1, leaderWithISR(2, 4))), 0, 0)

	req := fake.waitAlters(t, 1)[0]
	if req.Version != 3 || req.BrokerID != 1 || req.BrokerEpoch != b.Epoch() || len(req.Topics) != 1 ||
		req.Topics[0].TopicID != fooID() || len(req.Topics[0].Partitions) != 1 {
		t.Fatalf("AlterPartition: %+v", req)
	}
	p := req.Topics[0].Partitions[0]
	if p.Partition != 0 || p.LeaderEpoch != 2 || p.PartitionEpoch != 4 || p.LeaderRecoveryState != 0 ||
		!slices.Equal(alterISR(p), []int32{1, 2, 3}) || p.NewEpochISR[1].BrokerEpoch != -1 {
		t.Fatalf("AlterPartition partition: %+v", p)
	}
	snap := waitBroker(t, b, "ISR 1,2,3", isrIs(1, 2, 3))
	if pe := snap.Partitions[TopicPartition{"foo", 0}].PartitionEpoch; pe != 5 {
		t.Fatalf("partition epoch %d, want 5 from the answer", pe)
	}

	c.Broker(3).SetLagging(true)
	waitBroker(t, b, "ISR 1,2", isrIs(1, 2))
	c.Broker(3).SetLagging(false)
	snap = waitBroker(t, b, "ISR 1,2,3 again", isrIs(1, 2, 3))
	reqs := fake.waitAlters(t, 3)
	if len(reqs) != 3 || reqs[2].Topics[0].Partitions[0].PartitionEpoch != 6 {
		t.Fatalf("requests %d, last %+v", len(reqs), reqs[len(reqs)-1])
	}
	if snap.Sent[kmsg.AlterPartition.Int16()] != 3 || snap.Sent[kmsg.ApiVersions.Int16()] != 1 {
		t.Fatalf("sent %v", snap.Sent)
	}
}

// TestAlterPartitionRetries: the controller found through /controller;
// NOT_CONTROLLER is retried, a refused update waits for a new
// LeaderAndIsr.
func TestAlterPartitionRetries(t *testing.T) {
	c := startCluster(t, Options{Brokers: specs(1, 2, 3)})
	fake := startFakeController(t, 100)
	zk := observer(t, c)
	reg, _ := znodes.NewControllerRegistration(100, time.Now()).Encode()
	if _, err := zk.Create(testCtx(t), znodes.ControllerPath, reg, zkadmin.Ephemeral); err != nil {
		t.Fatal(err)
	}
	b := c.Broker(1)
	waitBroker(t, b, "controller 100 from /controller", func(s Snapshot) bool { return s.ControllerID == 100 })

	answers := []func(*kmsg.AlterPartitionRequest) *kmsg.AlterPartitionResponse{
		func(req *kmsg.AlterPartitionRequest) *kmsg.AlterPartitionResponse {
			resp := req.ResponseKind().(*kmsg.AlterPartitionResponse)
			resp.ErrorCode = kerr.NotController.Code
			return resp
		},
		func(req *kmsg.AlterPartitionRequest) *kmsg.AlterPartitionResponse {
			resp := acceptAlter(req)
			resp.Topics[0].Partitions[0].ErrorCode = kerr.InvalidUpdateVersion.Code
			return resp
		},
		acceptAlter,
	}
	n := 0
	fake.setAlter(func(req *kmsg.AlterPartitionRequest) *kmsg.AlterPartitionResponse {
		n++
		return answers[min(n, len(answers))-1](req)
	})
	cc := dialBroker(t, b)
	// The controller id comes from /controller, its address from the
	// cache, which does not name a controller.
	cc.send(umReq(b.Epoch(), 1, -1, append(brokerEntries(c.Brokers()...), fake.liveEntry())))
	cc.send(lairReq(b.Epoch(), 1, leaderWithISR(2, 4)))
	fake.waitAlters(t, 2)
	waitBroker(t, b, "the refused change dropped", func(s Snapshot) bool { return s.PendingAlterPartitions == 0 })
	if p := b.Partitions()[TopicPartition{"foo", 0}]; !slices.Equal(p.ISR, []int32{1}) || p.PartitionEpoch != 4 {
		t.Fatalf("refused change applied: %+v", p)
	}
	// Nothing more until new leadership arrives.
	cc.send(lairReq(b.Epoch(), 1, leaderWithISR(3, 7)))
	waitBroker(t, b, "ISR 1,2,3", isrIs(1, 2, 3))
	reqs := fake.waitAlters(t, 3)
	if len(reqs) != 3 || reqs[2].Topics[0].Partitions[0].LeaderEpoch != 3 {
		t.Fatalf("requests: %d, last %+v", len(reqs), reqs[len(reqs)-1])
	}
}

// TestControllerFallbackAddr: without a controller in the metadata cache,
// Options.ControllerAddr is used; a topic without an id goes by name (v1).
func TestControllerFallbackAddr(t *testing.T) {
	fake := startFakeController(t, 100)
	c := startCluster(t, Options{Brokers: specs(1, 2, 3), ControllerAddr: fake.addr})
	b := c.Broker(1)
	noID := leaderWithISR(1, 0)
	noID.topicID = znodes.UUID{}
	cc := dialBroker(t, b)
	// The brokers are live in the cache (so the followers can join the
	// ISR), the controller is not.
	cc.send(umReq(b.Epoch(), 1, -1, brokerEntries(c.Brokers()...)))
	cc.send(lairReq(b.Epoch(), 1, noID))
	req := fake.waitAlters(t, 1)[0]
	if req.Version != 1 || req.Topics[0].Topic != "foo" || !slices.Equal(alterISR(req.Topics[0].Partitions[0]), []int32{1, 2, 3}) {
		t.Fatalf("AlterPartition: %+v", req)
	}
	waitBroker(t, b, "ISR 1,2,3", isrIs(1, 2, 3))
}

// TestControlledShutdown: the broker repeats ControlledShutdown until no
// partitions remain, serving the controller meanwhile, then deregisters.
func TestControlledShutdown(t *testing.T) {
	fake := startFakeController(t, 100)
	c := startCluster(t, Options{Brokers: specs(1, 2, 3), ControllerAddr: fake.addr})
	b := c.Broker(1)
	zk := observer(t, c)
	cc := dialBroker(t, b)
	cc.send(lairReq(b.Epoch(), 1, lead1(0, 1)))
	epoch := b.Epoch()
	fake.setStop(func(n int, req *kmsg.ControlledShutdownRequest) *kmsg.ControlledShutdownResponse {
		resp := req.ResponseKind().(*kmsg.ControlledShutdownResponse)
		if n == 1 {
			// Move leadership away first, as the controller does.
			moved := lead1(0, 2)
			moved.leader = 2
			cc.send(lairReq(epoch, 1, moved))
			resp.PartitionsRemaining = []kmsg.ControlledShutdownResponsePartitionsRemaining{{Topic: "foo", Partition: 0}}
		}
		return resp
	})
	if err := b.Shutdown(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	fake.mu.Lock()
	got := fake.shutdowns
	fake.mu.Unlock()
	if len(got) != 2 || got[0].Version != 3 || got[0].BrokerID != 1 || got[0].BrokerEpoch != epoch {
		t.Fatalf("ControlledShutdown requests: %d, first %+v", len(got), got[0])
	}
	if ok, _, err := zk.Exists(testCtx(t), znodes.BrokerIDPath(1)); err != nil || ok {
		t.Fatalf("registration after Shutdown: %v, %v", ok, err)
	}
	if p := b.Partitions()[TopicPartition{"foo", 0}]; p.Role != Follower || p.Leader != 2 || b.Status() != Stopped {
		t.Fatalf("after shutdown: %+v, %s", p, b.Status())
	}
	if err := b.Shutdown(testCtx(t)); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("second Shutdown: %v", err)
	}
}

func TestControlledShutdownGivesUp(t *testing.T) {
	fake := startFakeController(t, 100)
	c := startCluster(t, Options{Brokers: specs(1), ControllerAddr: fake.addr})
	b := c.Broker(1)
	fake.setStop(func(_ int, req *kmsg.ControlledShutdownRequest) *kmsg.ControlledShutdownResponse {
		resp := req.ResponseKind().(*kmsg.ControlledShutdownResponse)
		resp.ErrorCode = kerr.StaleBrokerEpoch.Code
		return resp
	})
	err := b.Shutdown(testCtx(t))
	var cse *ControlledShutdownError
	if !errors.As(err, &cse) || cse.Attempts != 3 || !errors.Is(err, kerr.StaleBrokerEpoch) {
		t.Fatalf("Shutdown: %v", err)
	}
	zk := observer(t, c)
	if ok, _, _ := zk.Exists(testCtx(t), znodes.BrokerIDPath(1)); ok || b.Status() != Stopped {
		t.Fatal("broker not stopped after failed controlled shutdown")
	}
}

func TestClusterShutdown(t *testing.T) {
	fake := startFakeController(t, 100)
	c := startCluster(t, Options{Brokers: specs(1, 2, 3), ControllerAddr: fake.addr})
	c.Broker(3).Kill()
	if err := c.Shutdown(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitAll(testCtx(t), func(s Snapshot) bool { return s.Status == Stopped }); err != nil {
		t.Fatal(err)
	}
	fake.mu.Lock()
	n := len(fake.shutdowns)
	fake.mu.Unlock()
	if n != 2 {
		t.Fatalf("%d ControlledShutdown requests, want 2", n)
	}
	children, _, err := observer(t, c).Children(testCtx(t), znodes.BrokerIDsPath)
	if err != nil || len(children) != 0 {
		t.Fatalf("registrations left: %v, %v", children, err)
	}
}
