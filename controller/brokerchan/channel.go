package brokerchan

import (
	"context"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/internal/kafkaconn"
)

// item is one queued request.
type item struct {
	req kmsg.Request
	cb  Callback
}

// channel is the queue and sender goroutine of one broker (Kafka's
// RequestSendThread). The goroutine takes one request at a time and sends
// it until a response arrives, reconnecting as needed, so at most one
// request is in flight and responses come back in queue order.
//
// Ownership: the Manager creates a channel with start and ends it with
// stop, which cancels the goroutine's context and waits for it to return.
type channel struct {
	id    int32
	addr  string
	epoch int64
	set   settings
	log   zerolog.Logger

	ctx    context.Context
	cancel context.CancelFunc
	wake   chan struct{} // capacity 1: "the queue may be non-empty"
	done   chan struct{} // closed when the goroutine has returned

	mu      sync.Mutex
	queue   []item
	stopped error // why the channel stops; non-nil once stop began
}

// startChannel creates the channel and starts its goroutine.
func startChannel(id int32, addr string, epoch int64, set settings) *channel {
	ctx, cancel := context.WithCancel(context.Background())
	c := &channel{
		id: id, addr: addr, epoch: epoch, set: set,
		log:    set.log.With().Int32("broker", id).Str("addr", addr).Logger(),
		ctx:    ctx,
		cancel: cancel,
		wake:   make(chan struct{}, 1),
		done:   make(chan struct{}),
	}
	go c.run()
	return c
}

// enqueue appends a request; false if the channel is stopping.
func (c *channel) enqueue(it item) bool {
	c.mu.Lock()
	if c.stopped != nil {
		c.mu.Unlock()
		return false
	}
	c.queue = append(c.queue, it)
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
	return true
}

// queued returns the number of requests waiting (the one in flight is not
// counted, as in Kafka's QueueSize gauge).
func (c *channel) queued() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.queue)
}

// beginStop refuses further requests and tells the goroutine to fail the
// one in flight and those queued with reason. It does not wait.
func (c *channel) beginStop(reason error) {
	c.mu.Lock()
	if c.stopped == nil {
		c.stopped = reason
	}
	c.mu.Unlock()
	c.cancel()
}

// stop is beginStop followed by waiting for the goroutine, so every
// callback has run when it returns.
func (c *channel) stop(reason error) {
	c.beginStop(reason)
	<-c.done
}

// run is the sender goroutine.
func (c *channel) run() {
	defer close(c.done)
	var cn *kafkaconn.Conn
	defer func() {
		if cn != nil {
			_ = cn.Close()
		}
	}()
	for {
		it, ok := c.next()
		if !ok {
			break
		}
		resp, err := c.deliver(&cn, it.req)
		if err != nil {
			c.fail(it)
			break
		}
		if it.cb != nil {
			it.cb(resp, nil)
		}
	}
	c.failQueued()
}

// next waits for the next request; false once the channel is stopping.
func (c *channel) next() (item, bool) {
	for {
		c.mu.Lock()
		if c.ctx.Err() != nil {
			c.mu.Unlock()
			return item{}, false
		}
		if len(c.queue) > 0 {
			it := c.queue[0]
			c.queue[0] = item{}
			c.queue = c.queue[1:]
			c.mu.Unlock()
			return it, true
		}
		c.mu.Unlock()
		select {
		case <-c.wake:
		case <-c.ctx.Done():
		}
	}
}

// deliver sends req until a response arrives, reconnecting after every
// failure with a fixed backoff, as Kafka's RequestSendThread does. It
// returns an error only when the channel is stopping.
func (c *channel) deliver(cn **kafkaconn.Conn, req kmsg.Request) (kmsg.Response, error) {
	failures := 0
	for {
		if err := c.ctx.Err(); err != nil {
			return nil, err
		}
		if *cn == nil {
			nc, err := dialConn(c.ctx, c.set, c.addr)
			if err != nil {
				c.logFailure(failures, req, err)
				failures++
				c.backoff()
				continue
			}
			*cn = nc
			c.log.Info().Msg("connected to broker for sending state change requests")
		}
		resp, err := (*cn).RoundTrip(c.ctx, req)
		if err == nil {
			return resp, nil
		}
		_ = (*cn).Close()
		*cn = nil
		c.logFailure(failures, req, err)
		failures++
		c.backoff()
	}
}

// logFailure logs the first failure of a request as a warning and the
// repeats at debug level, so a long outage does not flood the log.
func (c *channel) logFailure(failures int, req kmsg.Request, err error) {
	if c.ctx.Err() != nil {
		return // stopping: the failure is our own doing
	}
	ev := c.log.Debug()
	if failures == 0 {
		ev = c.log.Warn()
	}
	ev.Err(err).Str("api", kmsg.NameForKey(req.Key())).Int16("version", req.GetVersion()).
		Int("attempt", failures+1).Msg("failed to send request to broker; reconnecting and resending")
}

// backoff waits RetryBackoff or until the channel stops.
func (c *channel) backoff() {
	t := time.NewTimer(c.set.retryBackoff)
	defer t.Stop()
	select {
	case <-t.C:
	case <-c.ctx.Done():
	}
}

// fail runs its callback with the stop reason.
func (c *channel) fail(it item) {
	if it.cb == nil {
		return
	}
	c.mu.Lock()
	reason := c.stopped
	c.mu.Unlock()
	it.cb(nil, orClosed(reason))
}

// failQueued fails every queued request. enqueue refuses new ones once
// stopped is set, and stopped is set before the context is cancelled, so
// the queue cannot grow after this.
func (c *channel) failQueued() {
	c.mu.Lock()
	queue := c.queue
	c.queue = nil
	reason := c.stopped
	c.mu.Unlock()
	for _, it := range queue {
		if it.cb != nil {
			it.cb(nil, orClosed(reason))
		}
	}
}

// orClosed guards against a nil reason, which only a bug could produce:
// a callback must never see neither a response nor an error.
func orClosed(reason error) error {
	if reason == nil {
		return ErrClosed
	}
	return reason
}
