package controller

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// allocate sends AllocateProducerIds through the node's Kafka listener, as
// a broker does: kgo negotiates the version with ApiVersions first, so the
// call also proves the route is advertised.
func allocate(t testing.TB, cl *kgo.Client, broker int32, epoch int64) *kmsg.AllocateProducerIDsResponse {
	t.Helper()
	req := kmsg.NewPtrAllocateProducerIDsRequest()
	req.BrokerID, req.BrokerEpoch = broker, epoch
	resp, err := req.RequestWith(testCtx(t), cl)
	if err != nil {
		t.Fatalf("AllocateProducerIds: %v", err)
	}
	return resp
}

func wireClient(t testing.TB, n *node) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(n.listener.Addr().String()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

func readBlock(t testing.TB, zk *zkadmin.Client) znodes.ProducerIDBlock {
	t.Helper()
	data, _, err := zk.Get(testCtx(t), znodes.LatestProducerIDBlockPath)
	if err != nil {
		t.Fatal(err)
	}
	b, err := znodes.DecodeProducerIDBlock(data)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestAllocateProducerIDs: blocks of 1000 follow each other from 0, each
// recorded in /latest_producer_id_block with the broker it went to; an
// unknown broker or a stale broker epoch gets nothing and changes nothing.
func TestAllocateProducerIDs(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2)
	cl := wireClient(t, sc.ctl)

	for i, id := range []int32{1, 2, 1} {
		resp := allocate(t, cl, id, sc.sim.Broker(id).Epoch())
		if resp.ErrorCode != 0 || resp.ProducerIDStart != int64(i)*1000 || resp.ProducerIDLen != 1000 {
			t.Fatalf("allocation %d for broker %d: %+v", i, id, resp)
		}
		want := znodes.ProducerIDBlock{Version: 1, BrokerID: id, Start: int64(i) * 1000, End: int64(i)*1000 + 999}
		if got := readBlock(t, sc.obs); got != want {
			t.Fatalf("znode after allocation %d: %+v, want %+v", i, got, want)
		}
	}
	before := readBlock(t, sc.obs)
	if resp := allocate(t, cl, 1, sc.sim.Broker(1).Epoch()-1); resp.ErrorCode != kerr.StaleBrokerEpoch.Code {
		t.Fatalf("stale epoch: %+v", resp)
	}
	if resp := allocate(t, cl, 7, -1); resp.ErrorCode != kerr.BrokerIDNotRegistered.Code {
		t.Fatalf("unknown broker: %+v", resp)
	}
	if got := readBlock(t, sc.obs); got != before {
		t.Fatalf("a refused request wrote %+v", got)
	}
}

// TestAllocateProducerIDsContinuesAndCreates: an existing block (written by
// Kafka's controller or an old broker) is continued, and a missing znode is
// created rather than spun on.
func TestAllocateProducerIDsContinuesAndCreates(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1)
	old, _ := znodes.ProducerIDBlock{BrokerID: 9, Start: 41000, End: 41999}.Encode()
	if _, err := sc.obs.Set(testCtx(t), znodes.LatestProducerIDBlockPath, old, zkadmin.AnyVersion); err != nil {
		t.Fatal(err)
	}
	req := kmsg.NewPtrAllocateProducerIDsRequest()
	req.BrokerID, req.BrokerEpoch = 1, sc.sim.Broker(1).Epoch()
	resp, err := sc.ctl.c.AllocateProducerIds(testCtx(t), req)
	if err != nil || resp.ErrorCode != 0 || resp.ProducerIDStart != 42000 {
		t.Fatalf("continue: %+v %v", resp, err)
	}

	if err := sc.obs.Delete(testCtx(t), znodes.LatestProducerIDBlockPath, zkadmin.AnyVersion); err != nil {
		t.Fatal(err)
	}
	resp, err = sc.ctl.c.AllocateProducerIds(testCtx(t), req)
	if err != nil || resp.ErrorCode != 0 || resp.ProducerIDStart != 0 || resp.ProducerIDLen != 1000 {
		t.Fatalf("after the znode was deleted: %+v %v", resp, err)
	}
}

// TestAllocateProducerIDsRacesAnotherWriter: brokers on an IBP below 3.0
// write /latest_producer_id_block themselves, conditionally on its
// version. Racing such a writer in a tight loop (far worse than real
// brokers, which claim a block per 1000 producers), the controller never
// hands out an id twice.
func TestAllocateProducerIDsRacesAnotherWriter(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1)
	const rounds = 40
	var mu sync.Mutex
	var starts []int64
	record := func(s int64) {
		mu.Lock()
		starts = append(starts, s)
		mu.Unlock()
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for range rounds {
			record(directAllocate(t, sc.obs, 5))
		}
	})
	wg.Go(func() {
		req := kmsg.NewPtrAllocateProducerIDsRequest()
		req.BrokerID, req.BrokerEpoch = 1, sc.sim.Broker(1).Epoch()
		for got := 0; got < rounds; {
			resp, err := sc.ctl.c.AllocateProducerIds(testCtx(t), req)
			switch {
			case err == nil && resp.ErrorCode == kerr.UnknownServerError.Code:
				// Lost every round to the tight loop: a broker asks again.
			case err != nil || resp.ErrorCode != 0:
				t.Errorf("allocate: %+v %v", resp, err)
				return
			default:
				record(resp.ProducerIDStart)
				got++
			}
		}
	})
	wg.Wait()
	slices.Sort(starts)
	for i, s := range starts {
		if s != int64(i)*1000 {
			t.Fatalf("blocks overlap or skip: %v", starts)
		}
	}
}

// directAllocate is the IBP < 3.0 broker's own compare-and-set loop.
func directAllocate(t testing.TB, zk *zkadmin.Client, broker int32) int64 {
	for {
		data, stat, err := zk.Get(testCtx(t), znodes.LatestProducerIDBlockPath)
		if err != nil {
			t.Error(err)
			return -1
		}
		b, err := znodes.NextProducerIDBlock(data, broker)
		if err != nil {
			t.Error(err)
			return -1
		}
		enc, _ := b.Encode()
		_, err = zk.Set(testCtx(t), znodes.LatestProducerIDBlockPath, enc, stat.Version)
		if err == nil {
			return b.Start
		}
		if !errors.Is(err, zkadmin.ErrBadVersion) {
			t.Error(err)
			return -1
		}
	}
}

// TestAllocateProducerIDsNotController: a standby answers NOT_CONTROLLER,
// which makes the broker look the controller up again.
func TestAllocateProducerIDsNotController(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1)
	standby := startNode(t, sc.chroot, nodeOpts{id: 101})
	waitFor(t, "standby follows", func() bool { return standby.c.Status().ActiveControllerID == 100 })
	resp := allocate(t, wireClient(t, standby), 1, sc.sim.Broker(1).Epoch())
	if resp.ErrorCode != kerr.NotController.Code {
		t.Fatalf("standby answered %+v", resp)
	}
	// After Run has ended the request is answered without the loop.
	standby.stop()
	req := kmsg.NewPtrAllocateProducerIDsRequest()
	ctx, cancel := context.WithCancel(testCtx(t))
	defer cancel()
	if resp, err := standby.c.AllocateProducerIds(ctx, req); err != nil || resp.ErrorCode != kerr.NotController.Code {
		t.Fatalf("stopped controller: %+v %v", resp, err)
	}
}
