package controller

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Why the controller answers InitProducerId: it lists itself among the
// live brokers (design brief §3), so clients take it for a broker, and an
// idempotent producer sends InitProducerId to any broker it likes. Closing
// the connection on it is not harmless: franz-go gives up on the produce,
// and the Java producer treats a missing key as a fatal version mismatch.
// For a producer without a transactional id a Kafka broker just hands out
// the next id of its own block with epoch 0, whatever the request says;
// the controller does the same with a block it claims for its own node id
// through the allocation brokers use (AllocateProducerIds), so its ids
// never collide with theirs. Transactions need a coordinator, which this
// node is not.

// pidPool is what is left of this node's own block of producer ids: next
// is the id to hand out and left how many remain (the zero value: none).
// Owned by the loop.
type pidPool struct {
	next, left int64
}

// InitProducerID answers an idempotent producer's InitProducerId (key 22,
// v0–5) with a fresh producer id and epoch 0. With a transactional id it
// answers NOT_COORDINATOR (an empty one: INVALID_REQUEST, as Kafka); when
// this node is not the active controller, COORDINATOR_NOT_AVAILABLE, which
// clients retry, elsewhere.
func (c *Controller) InitProducerID(ctx context.Context, req *kmsg.InitProducerIDRequest) (*kmsg.InitProducerIDResponse, error) {
	if id := req.TransactionalID; id != nil {
		if *id == "" {
			return initProducerIDError(req, kerr.InvalidRequest.Code), nil
		}
		return initProducerIDError(req, kerr.NotCoordinator.Code), nil
	}
	ev := &initProducerIDEvent{req: req, reply: make(chan *kmsg.InitProducerIDResponse, 1)}
	if !c.queue.push(ev) {
		return initProducerIDError(req, kerr.CoordinatorNotAvailable.Code), nil
	}
	return wait(ctx, ev.reply)
}

type initProducerIDEvent struct {
	req   *kmsg.InitProducerIDRequest
	reply chan *kmsg.InitProducerIDResponse
}

func (*initProducerIDEvent) state() State { return StateIdle }

func (e *initProducerIDEvent) preempt() {
	e.reply <- initProducerIDError(e.req, kerr.CoordinatorNotAvailable.Code)
}

func initProducerIDError(req *kmsg.InitProducerIDRequest, code int16) *kmsg.InitProducerIDResponse {
	resp := req.ResponseKind().(*kmsg.InitProducerIDResponse)
	resp.ErrorCode, resp.ProducerID, resp.ProducerEpoch = code, -1, -1
	return resp
}

// onInitProducerID hands out the next id of the pool, claiming a new block
// when it is used up (one ZooKeeper compare-and-set per 1000 producers).
// A block outlives the leadership that claimed it: its ids are reserved in
// ZooKeeper whoever is controller.
func (c *Controller) onInitProducerID(e *initProducerIDEvent) error {
	ls := c.leader
	if ls == nil {
		e.reply <- initProducerIDError(e.req, kerr.CoordinatorNotAvailable.Code)
		return nil
	}
	if c.pids.left == 0 {
		block, err := c.nextProducerIDBlock(ls, c.nodeID)
		if err != nil {
			e.reply <- initProducerIDError(e.req, kerr.CoordinatorNotAvailable.Code)
			return err
		}
		c.pids = pidPool{next: block.Start, left: block.Size()}
	}
	resp := e.req.ResponseKind().(*kmsg.InitProducerIDResponse)
	resp.ProducerID, resp.ProducerEpoch = c.pids.next, 0
	c.pids.next++
	c.pids.left--
	e.reply <- resp
	return nil
}
