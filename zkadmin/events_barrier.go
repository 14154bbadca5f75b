package zkadmin

import (
	"context"
	"fmt"
)

// syncEvents returns once the event goroutine has handled every event that
// go-zookeeper delivered before the call, so that every watch channel such
// an event fires has received it. It returns the count of session state
// callbacks handled by then (see sessionEvents).
//
// Why this gives a current view of watched znodes: ZooKeeper sends a
// session's watch notifications and replies in one ordered stream, and a
// change that a read reply reflects has its notification sent before that
// reply. go-zookeeper's receive loop hands each notification to our
// callback (which queues it) before it completes any later reply. So after
// a read R returns, syncEvents puts a barrier behind every notification for
// a change R could see; once it returns, a watch armed before R whose
// channel is still empty proves its znode unchanged as of R, provided the
// connection did not drop in between (go-zookeeper re-arms watches after a
// reconnect asynchronously, so a read may overtake that); a changed
// session-event count is how callers tell.
func (c *Client) syncEvents(ctx context.Context) (uint64, error) {
	done := make(chan struct{})
	c.queue.pushBarrier(done)
	select {
	case <-done:
		return c.sessionEvents.Load(), nil
	case <-c.loopDone:
		return 0, fmt.Errorf("sync events: %w", ErrClosed)
	case <-ctx.Done():
		return 0, fmt.Errorf("sync events: %w", ctx.Err())
	}
}
