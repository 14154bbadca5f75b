package controller

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The broker-to-controller and admin requests enter the event loop as
// events carrying a reply channel (buffered, so the loop never blocks on a
// caller that gave up). Each answers NOT_CONTROLLER (ControlledShutdown:
// STALE_CONTROLLER_EPOCH) when this node is not the active controller, or
// when the queue is cleared before the request is processed. The error
// return is only the caller's ctx ending first.

// AlterPartition applies a leader's ISR change (reference §6.5). The
// response has the request's version.
func (c *Controller) AlterPartition(ctx context.Context, req *kmsg.AlterPartitionRequest) (*kmsg.AlterPartitionResponse, error) {
	ev := &alterPartitionEvent{req: req, reply: make(chan *kmsg.AlterPartitionResponse, 1)}
	if !c.queue.push(ev) {
		return alterPartitionError(req, kerr.NotController.Code), nil
	}
	return wait(ctx, ev.reply)
}

// ControlledShutdown moves leadership off a broker that is shutting down and
// answers with the partitions it still leads (reference §2.10).
func (c *Controller) ControlledShutdown(ctx context.Context, req *kmsg.ControlledShutdownRequest) (*kmsg.ControlledShutdownResponse, error) {
	ev := &controlledShutdownEvent{req: req, reply: make(chan *kmsg.ControlledShutdownResponse, 1)}
	if !c.queue.push(ev) {
		return controlledShutdownError(req, kerr.StaleControllerEpoch.Code), nil
	}
	return wait(ctx, ev.reply)
}

// ElectLeaders runs preferred or unclean leader elections (reference §2.7).
func (c *Controller) ElectLeaders(ctx context.Context, req *kmsg.ElectLeadersRequest) (*kmsg.ElectLeadersResponse, error) {
	ev := &electLeadersEvent{req: req, reply: make(chan *kmsg.ElectLeadersResponse, 1)}
	if !c.queue.push(ev) {
		return electLeadersNotController(req), nil
	}
	return wait(ctx, ev.reply)
}

func wait[T any](ctx context.Context, reply <-chan T) (T, error) {
	select {
	case r := <-reply:
		return r, nil
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}
