package controller

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestSyncWaitsForEarlierEvents: Sync returns only once the loop has
// reached its event, so after every event queued before it; it answers
// ErrSyncPreempted when the queue is cleared first, ctx's error when ctx
// ends first, and nil at once when the loop has stopped.
func TestSyncWaitsForEarlierEvents(t *testing.T) {
	c := &Controller{queue: newEventQueue()}
	ctx := context.Background()
	c.queue.push(&sessionBackEvent{}) // an earlier event, not yet processed
	done := make(chan error, 1)
	go func() { done <- c.Sync(ctx) }()
	first, ok := c.queue.pop(ctx)
	if _, isEarlier := first.(*sessionBackEvent); !ok || !isEarlier {
		t.Fatalf("first event %T, want the earlier one", first)
	}
	select {
	case err := <-done:
		t.Fatalf("Sync returned (%v) before the loop reached its event", err)
	default:
	}
	ev, ok := c.queue.pop(ctx)
	sync, isSync := ev.(*syncEvent)
	if !ok || !isSync {
		t.Fatalf("second event %T, want Sync's", ev)
	}
	if sync.state() != StateListPartitionReassignment {
		t.Fatalf("state %d, want Kafka's 15", sync.state())
	}
	if err := c.handle(ctx, sync); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Sync: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Sync did not return once its event was processed")
	}

	go func() { done <- c.Sync(ctx) }()
	waitFor(t, "Sync's event queued", func() bool { return c.queue.len() == 1 })
	c.queue.clearAndPut(&expireEvent{})
	if err := <-done; !errors.Is(err, ErrSyncPreempted) {
		t.Fatalf("Sync with the queue cleared: %v, want ErrSyncPreempted", err)
	}

	short, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	if err := c.Sync(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Sync with no loop running: %v, want the deadline", err)
	}

	c.queue.close()
	if err := c.Sync(ctx); err != nil {
		t.Fatalf("Sync after the loop stopped: %v", err)
	}
}
