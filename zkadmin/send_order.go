package zkadmin

import (
	"context"
	"encoding/binary"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// zkOpMulti is the multi request's opcode in ZooKeeper's protocol.
const zkOpMulti = 14

// sendOrder lets a caller know that its multi is on the wire before it
// submits the next one. ZooKeeper applies a session's requests in the
// order it receives them, so multis submitted that way land in order even
// with several unanswered, which is what lets one multi depend on the one
// before it (a version the previous one leaves) without a round trip
// between them.
//
// go-zookeeper has no asynchronous call: a request is queued by a
// goroutine that then waits for its answer, and two goroutines queue in
// no set order. So every multi of the Client is submitted under one
// token, held until go-zookeeper writes a multi frame to the connection
// (seen by wrapping the net.Conn it dials) or the call has returned; the
// next multi written after a submission is that submission's.
type sendOrder struct {
	token chan struct{} // one slot: held from a multi's submission until it is written

	mu      sync.Mutex
	written uint64        // multi frames written, on every connection
	target  uint64        // the count whose reaching closes wake
	wake    chan struct{} // nil when no submission waits
}

func newSendOrder() *sendOrder {
	return &sendOrder{token: make(chan struct{}, 1)}
}

// dialer wraps dial so that the multi frames written on its connections
// are counted.
func (s *sendOrder) dialer(dial func(network, address string, timeout time.Duration) (net.Conn, error)) func(network, address string, timeout time.Duration) (net.Conn, error) {
	return func(network, address string, timeout time.Duration) (net.Conn, error) {
		conn, err := dial(network, address, timeout)
		if err != nil {
			return nil, err
		}
		return &orderedConn{Conn: conn, order: s}, nil
	}
}

// multiWritten counts a multi frame about to be written and wakes the
// submission waiting for it.
func (s *sendOrder) multiWritten() {
	s.mu.Lock()
	s.written++
	if s.wake != nil && s.written >= s.target {
		close(s.wake)
		s.wake = nil
	}
	s.mu.Unlock()
}

// submit calls send, which must queue exactly one multi with go-zookeeper
// and return a channel closed once go-zookeeper has answered it (or given
// up on it), and returns once that multi has been written or answered, or
// false if ctx ended before the submission's turn came (send was not
// called). Multis submitted one after another are thus written in that
// order.
func (s *sendOrder) submit(ctx context.Context, send func() <-chan struct{}) bool {
	select {
	case s.token <- struct{}{}:
	case <-ctx.Done():
		return false
	}
	defer func() { <-s.token }()
	s.mu.Lock()
	s.target = s.written + 1
	wake := make(chan struct{})
	s.wake = wake
	s.mu.Unlock()
	answered := send()
	select {
	case <-wake:
	case <-answered:
		// Never written (the connection went first), or written and
		// answered before this goroutine ran: either way it is not
		// ahead of the next submission.
		s.mu.Lock()
		if s.wake == wake {
			s.wake = nil
		}
		s.mu.Unlock()
	}
	return true
}

// orderedConn counts the multi frames go-zookeeper writes. go-zookeeper
// writes each request as one frame in one Write, from one goroutine, after
// the connect handshake, which is the connection's first Write.
// TestMultiAsyncLandsInOrder fails should a go-zookeeper release stop
// doing so; the create rounds would then only lose races they need not
// (createChain keeps them safe), not land out of order.
type orderedConn struct {
	net.Conn
	order      *sendOrder
	handshaken atomic.Bool
}

func (c *orderedConn) Write(b []byte) (int, error) {
	if !c.handshaken.Swap(true) {
		return c.Conn.Write(b)
	}
	// A request frame: length, xid, opcode, body.
	if len(b) >= 12 && int32(binary.BigEndian.Uint32(b[8:12])) == zkOpMulti {
		c.order.multiWritten()
	}
	return c.Conn.Write(b)
}
