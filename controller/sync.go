package controller

import (
	"context"
	"errors"
)

// StateListPartitionReassignment is Kafka's controller state 15, which
// its ListPartitionReassignments event sets; Sync's event sets it here,
// since that request is its caller.
const StateListPartitionReassignment State = 15

// ErrSyncPreempted is Sync's answer when the queue was cleared before its
// event was processed: the node lost its session or is stopping, so what
// the events before it did is unknown.
var ErrSyncPreempted = errors.New("controller: sync preempted (session lost or stopping)")

// Sync returns once the loop has processed every event queued before the
// call, so that the Snapshot read afterwards shows every write this
// controller had made to ZooKeeper when Sync was called. Snapshots are
// published after each event, so without it a reader that saw a write in
// ZooKeeper may still get the snapshot from before the event that made
// it; Kafka's controller answers ListPartitionReassignments through its
// event queue for the same reason. A loop that has stopped has nothing
// pending: Sync returns nil. It returns ErrSyncPreempted when the queue is
// cleared first, and ctx's error when ctx ends first.
func (c *Controller) Sync(ctx context.Context) error {
	ev := &syncEvent{done: make(chan bool, 1)}
	if !c.queue.push(ev) {
		return nil
	}
	processed, err := wait(ctx, ev.done)
	if err != nil {
		return err
	}
	if !processed {
		return ErrSyncPreempted
	}
	return nil
}

// syncEvent marks a place in the queue for Sync; done gets true when the
// loop reaches it, false when it is preempted.
type syncEvent struct {
	done chan bool
}

func (*syncEvent) state() State { return StateListPartitionReassignment }

func (e *syncEvent) preempt() { e.done <- false }
