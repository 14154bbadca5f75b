package controller

import (
	"context"
	"sync"
	"time"
)

// State is Kafka's ControllerState: what the event loop is doing, exported
// as the ControllerState gauge. Values are Kafka's.
type State int8

// Kafka's controller states (reference §0). Only those this controller
// enters are listed.
const (
	StateIdle                  State = 0
	StateControllerChange      State = 1
	StateBrokerChange          State = 2
	StateTopicChange           State = 3
	StateAutoLeaderBalance     State = 6
	StateManualLeaderBalance   State = 7
	StateControlledShutdown    State = 8
	StateIsrChange             State = 9
	StateLeaderAndIsrResponse  State = 10
	StateLogDirChange          State = 11
	StateControllerShutdown    State = 12
	StateUpdateMetadataReceive State = 16
)

// event is one unit of work for the loop. Watch firings, session changes,
// broker responses, timers and requests all become events; the loop
// processes them one at a time, in FIFO order.
type event interface {
	state() State
}

// preemptible events carry a caller waiting for a reply. When the queue is
// cleared (session expiry, shutdown) they are answered at once instead of
// being processed.
type preemptible interface {
	event
	preempt()
}

// eventQueue is the loop's unbounded FIFO. Producers (watch forwarders,
// broker-channel callbacks, request methods, timers) never block on it,
// which is what lets the loop wait for those producers to stop (resign)
// without deadlock.
type eventQueue struct {
	mu     sync.Mutex
	items  []event
	queued []time.Time // when each of items was queued
	closed bool
	signal chan struct{} // capacity 1: "items may be non-empty"
}

func newEventQueue() *eventQueue { return &eventQueue{signal: make(chan struct{}, 1)} }

// push appends ev; false when the queue is closed (the loop has stopped),
// in which case the caller must answer its own request.
func (q *eventQueue) push(ev event) bool {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return false
	}
	q.items = append(q.items, ev)
	q.queued = append(q.queued, time.Now())
	q.mu.Unlock()
	q.wake()
	return true
}

// clearAndPut drops everything queued, answering preemptible events, and
// queues ev (Kafka's clearAndPut, used on session expiry).
func (q *eventQueue) clearAndPut(ev event) bool {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return false
	}
	dropped := q.items
	q.items, q.queued = []event{ev}, []time.Time{time.Now()}
	q.mu.Unlock()
	preemptAll(dropped)
	q.wake()
	return true
}

// close refuses further events and preempts those queued.
func (q *eventQueue) close() {
	q.mu.Lock()
	q.closed = true
	dropped := q.items
	q.items, q.queued = nil, nil
	q.mu.Unlock()
	preemptAll(dropped)
}

func preemptAll(evs []event) {
	for _, ev := range evs {
		if p, ok := ev.(preemptible); ok {
			p.preempt()
		}
	}
}

func (q *eventQueue) wake() {
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

// pop waits for the next event; false when ctx ends.
func (q *eventQueue) pop(ctx context.Context) (event, bool) {
	ev, _, ok := q.popTimed(ctx)
	return ev, ok
}

// popTimed is pop, also saying how long the event waited in the queue
// (Kafka's EventQueueTimeMs).
func (q *eventQueue) popTimed(ctx context.Context) (event, time.Duration, bool) {
	for {
		q.mu.Lock()
		if len(q.items) > 0 {
			ev, at := q.items[0], q.queued[0]
			q.items[0] = nil
			q.items, q.queued = q.items[1:], q.queued[1:]
			q.mu.Unlock()
			return ev, time.Since(at), true
		}
		q.mu.Unlock()
		select {
		case <-q.signal:
		case <-ctx.Done():
			return nil, 0, false
		}
	}
}

// len returns the number of queued events (Kafka's EventQueueSize).
func (q *eventQueue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items)
}
