package controller

import (
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// maxProducerIDAttempts bounds the compare-and-set rounds of one
// allocation, so that a contended znode cannot hold the event loop. Kafka
// loops without bound; a round is lost only when another writer (a broker
// on an IBP below 3.0) won one, and a broker whose request fails with
// UNKNOWN_SERVER_ERROR simply asks again.
const maxProducerIDAttempts = 64

// AllocateProducerIds hands a broker the next block of 1000 producer ids
// (reference §2.14): brokers on IBP 3.0-IV0 and later ask the controller
// instead of writing /latest_producer_id_block themselves, and idempotent
// and transactional producers cannot start until one such block arrives.
// Errors: NOT_CONTROLLER when this node is not active,
// BROKER_ID_NOT_REGISTERED, STALE_BROKER_EPOCH when the epoch is not the
// broker's registration czxid (exact equality, as Kafka), and
// UNKNOWN_SERVER_ERROR when ZooKeeper fails; the broker retries each.
func (c *Controller) AllocateProducerIds(ctx context.Context, req *kmsg.AllocateProducerIDsRequest) (*kmsg.AllocateProducerIDsResponse, error) {
	ev := &allocateProducerIDsEvent{req: req, reply: make(chan *kmsg.AllocateProducerIDsResponse, 1)}
	if !c.queue.push(ev) {
		return allocateProducerIDsError(req, kerr.NotController.Code), nil
	}
	return wait(ctx, ev.reply)
}

// allocateProducerIDsEvent is an AllocateProducerIds request waiting for
// the loop. It runs on the loop, as Kafka's does, because the broker check
// reads the controller context; the ZooKeeper work is two round trips.
type allocateProducerIDsEvent struct {
	req   *kmsg.AllocateProducerIDsRequest
	reply chan *kmsg.AllocateProducerIDsResponse
}

// state is Idle: Kafka's AllocateProducerIds event has no state of its own.
func (*allocateProducerIDsEvent) state() State { return StateIdle }

func (e *allocateProducerIDsEvent) preempt() {
	e.reply <- allocateProducerIDsError(e.req, kerr.NotController.Code)
}

func allocateProducerIDsError(req *kmsg.AllocateProducerIDsRequest, code int16) *kmsg.AllocateProducerIDsResponse {
	resp := req.ResponseKind().(*kmsg.AllocateProducerIDsResponse)
	resp.ErrorCode = code
	return resp
}

// onAllocateProducerIDs is Kafka's processAllocateProducerIds.
func (c *Controller) onAllocateProducerIDs(e *allocateProducerIDsEvent) error {
	req, ls := e.req, c.leader
	if ls == nil {
		e.reply <- allocateProducerIDsError(req, kerr.NotController.Code)
		return nil
	}
	b, ok := ls.cc.brokers[req.BrokerID]
	switch {
	case !ok:
		c.log.Warn().Int32("broker", req.BrokerID).Msg("AllocateProducerIds from an unknown broker")
		e.reply <- allocateProducerIDsError(req, kerr.BrokerIDNotRegistered.Code)
		return nil
	case b.Epoch != req.BrokerEpoch:
		c.log.Warn().Int32("broker", req.BrokerID).Int64("epoch", req.BrokerEpoch).Int64("registered", b.Epoch).
			Msg("AllocateProducerIds with a stale broker epoch")
		e.reply <- allocateProducerIDsError(req, kerr.StaleBrokerEpoch.Code)
		return nil
	}
	block, err := c.nextProducerIDBlock(ls, req.BrokerID)
	if errors.Is(err, zkadmin.ErrControllerMoved) {
		e.reply <- allocateProducerIDsError(req, kerr.NotController.Code)
		return err // the loop resigns
	}
	if err != nil {
		c.log.Error().Err(err).Int32("broker", req.BrokerID).Msg("AllocateProducerIds failed")
		e.reply <- allocateProducerIDsError(req, kerr.UnknownServerError.Code)
		return nil
	}
	resp := req.ResponseKind().(*kmsg.AllocateProducerIDsResponse)
	resp.ProducerIDStart, resp.ProducerIDLen = block.Start, int32(block.Size())
	c.log.Info().Int32("broker", req.BrokerID).Int64("start", block.Start).Int64("end", block.End).
		Msg("allocated producer id block")
	e.reply <- resp
	return nil
}

// nextProducerIDBlock claims the block after the one in
// /latest_producer_id_block with a write conditional on the version read
// (so two allocators never hand out the same ids), and, unlike Kafka,
// fenced by the controller epoch like every write of ours (design brief
// §3). Null data means no block yet: the first is 0..999. A missing znode
// is created empty first, where Kafka would spin on NONODE.
func (c *Controller) nextProducerIDBlock(ls *leaderState, brokerID int32) (znodes.ProducerIDBlock, error) {
	ctx := ls.ctx
	path := znodes.LatestProducerIDBlockPath
	for range maxProducerIDAttempts {
		data, stat, err := c.zk.Get(ctx, path)
		if errors.Is(err, zkadmin.ErrNoNode) {
			if err := c.createProducerIDZnode(ctx, ls); err != nil {
				return znodes.ProducerIDBlock{}, err
			}
			continue
		}
		if err != nil {
			return znodes.ProducerIDBlock{}, fmt.Errorf("read %s: %w", path, err)
		}
		block, err := znodes.NextProducerIDBlock(data, brokerID)
		if err != nil {
			return znodes.ProducerIDBlock{}, fmt.Errorf("next producer id block: %w", err)
		}
		enc, err := block.Encode()
		if err != nil {
			return znodes.ProducerIDBlock{}, fmt.Errorf("encode %s: %w", path, err)
		}
		_, err = c.zk.FencedMulti(ctx, ls.zkVersion, zkadmin.SetOp(path, enc, stat.Version))
		switch {
		case err == nil:
			return block, nil
		case errors.Is(err, zkadmin.ErrBadVersion), errors.Is(err, zkadmin.ErrNoNode):
			continue // another writer won this round: read again
		default:
			return znodes.ProducerIDBlock{}, fmt.Errorf("write %s: %w", path, err)
		}
	}
	return znodes.ProducerIDBlock{}, fmt.Errorf("write %s: lost %d races in a row", path, maxProducerIDAttempts)
}

// createProducerIDZnode creates /latest_producer_id_block with null data,
// as brokers do at start-up; losing that race to another creator is fine.
func (c *Controller) createProducerIDZnode(ctx context.Context, ls *leaderState) error {
	path := znodes.LatestProducerIDBlockPath
	_, err := c.zk.FencedMulti(ctx, ls.zkVersion, zkadmin.CreateOp(path, nil, zkadmin.Persistent))
	if err != nil && !errors.Is(err, zkadmin.ErrNodeExists) {
		return fmt.Errorf("create %s: %w", path, err)
	}
	return nil
}
