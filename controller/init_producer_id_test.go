package controller

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func initPID(t testing.TB, n *node, txnID *string) *kmsg.InitProducerIDResponse {
	t.Helper()
	req := kmsg.NewPtrInitProducerIDRequest()
	req.TransactionalID = txnID
	resp, err := req.RequestWith(testCtx(t), wireClient(t, n))
	if err != nil {
		t.Fatalf("InitProducerId: %v", err)
	}
	return resp
}

// TestInitProducerID: an idempotent producer that picks the controller
// (listed among the brokers) gets ids, epoch 0, from a block the controller
// claimed for its own node id, disjoint from the brokers' blocks; a new
// block is claimed when one runs out.
func TestInitProducerID(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1)
	for i := range int64(2) {
		resp := initPID(t, sc.ctl, nil)
		if resp.ErrorCode != 0 || resp.ProducerID != i || resp.ProducerEpoch != 0 {
			t.Fatalf("InitProducerId %d: %+v", i, resp)
		}
	}
	if b := readBlock(t, sc.obs); b.BrokerID != 100 || b.Start != 0 || b.End != 999 {
		t.Fatalf("the controller's block: %+v", b)
	}
	// A broker's block comes after the controller's.
	alloc := kmsg.NewPtrAllocateProducerIDsRequest()
	alloc.BrokerID, alloc.BrokerEpoch = 1, sc.sim.Broker(1).Epoch()
	if resp, err := sc.ctl.c.AllocateProducerIds(testCtx(t), alloc); err != nil || resp.ProducerIDStart != 1000 {
		t.Fatalf("broker block: %+v %v", resp, err)
	}
	// The rest of the controller's block, then a fresh one after the
	// broker's.
	req := kmsg.NewPtrInitProducerIDRequest()
	var last int64
	for range 999 {
		resp, err := sc.ctl.c.InitProducerID(testCtx(t), req)
		if err != nil || resp.ErrorCode != 0 {
			t.Fatalf("InitProducerId: %+v %v", resp, err)
		}
		last = resp.ProducerID
	}
	if last != 2000 {
		t.Fatalf("after 1000 ids the next should start block 2000, got %d", last)
	}
	if b := readBlock(t, sc.obs); b.BrokerID != 100 || b.Start != 2000 {
		t.Fatalf("second controller block: %+v", b)
	}
}

// TestInitProducerIDRefusals: transactions need a coordinator, which the
// controller is not; an empty transactional id is invalid, as in Kafka; a
// standby is not available.
func TestInitProducerIDRefusals(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1)
	// Called directly: a client would first ask FindCoordinator, which
	// the controller does not serve.
	txn, empty := "txn", ""
	req := kmsg.NewPtrInitProducerIDRequest()
	for _, tc := range []struct {
		id   *string
		want int16
	}{{&txn, kerr.NotCoordinator.Code}, {&empty, kerr.InvalidRequest.Code}} {
		req.TransactionalID = tc.id
		resp, err := sc.ctl.c.InitProducerID(testCtx(t), req)
		if err != nil || resp.ErrorCode != tc.want || resp.ProducerID != -1 {
			t.Fatalf("transactional id %q: %+v %v", *tc.id, resp, err)
		}
	}
	standby := startNode(t, sc.chroot, nodeOpts{id: 101})
	waitFor(t, "standby follows", func() bool { return standby.c.Status().ActiveControllerID == 100 })
	// Directly again: kgo's request retries a retriable code until its
	// retry timeout.
	req.TransactionalID = nil
	if resp, err := standby.c.InitProducerID(testCtx(t), req); err != nil || resp.ErrorCode != kerr.CoordinatorNotAvailable.Code {
		t.Fatalf("standby: %+v %v", resp, err)
	}
}
