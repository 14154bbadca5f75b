package zkadmin

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/rs/zerolog"
)

// go-zookeeper v1.0.4 has a data race on reconnect. Its connection loop
// starts the receive goroutine of the new connection and then, in
// sendSetWatches, reads the last zxid seen to re-arm the session's watches;
// the receive goroutine writes that field, without synchronisation, for
// every answer that carries a zxid. The session event that frees callers
// waiting for the connection is published before both, so an answer can be
// processed first (CI's race detector caught exactly that). The stale value
// would be harmless, but everything here runs under -race, and a reported
// race fails the run.
//
// rearmGuard orders the two from the outside. On a connection that resumes
// a session in which go-zookeeper holds at least one watch, it holds back
// the first answer that would write the field until go-zookeeper writes its
// setWatches request, which it does only after the read. Whether
// go-zookeeper holds a watch is not visible, so the Client keeps one of its
// own that never fires by itself: an exists watch on anchorPath, a znode
// nobody creates. Should someone create it, the watch fires, the guard is
// disarmed at once (from go-zookeeper's event callback, which runs before
// the watch is dropped), and the Client arms it again.

// anchorPath is the znode watched to keep go-zookeeper holding a watch. It
// is absolute: go-zookeeper knows nothing of our chroot.
const anchorPath = "/zookeeper/kzadmin-anchor-never-created"

// zkOpSetWatches is the setWatches request's opcode in ZooKeeper's protocol.
const zkOpSetWatches = 101

// rearmFallback bounds how long an answer is held. It is reached only if
// the guard believed in a watch go-zookeeper no longer held; the answer
// then goes through as it would without the guard.
const rearmFallback = 2 * time.Second

// readBufferSize is the guarded connection's read buffer: several answers
// of a pipeline are usually read at once.
const readBufferSize = 32 << 10

type rearmGuard struct {
	log zerolog.Logger

	mu      sync.Mutex
	armed   int64  // the session whose anchor watch go-zookeeper holds; 0 for none
	disarms uint64 // counts disarm calls, so an arm raced by one is refused

	// Counts for tests: first answers of a resumed session that went
	// through after setWatches was written, and those let go by the
	// fallback.
	ordered   atomic.Uint64
	fallbacks atomic.Uint64
}

func newRearmGuard(log zerolog.Logger) *rearmGuard {
	return &rearmGuard{log: log}
}

// generation is read before the anchor's exists request is sent, and given
// back to arm once it is answered.
func (g *rearmGuard) generation() uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.disarms
}

// arm records that go-zookeeper holds the anchor watch in session, unless
// the watch was dropped since gen was read. It reports whether it did.
func (g *rearmGuard) arm(session int64, gen uint64) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.disarms != gen || session == 0 {
		return false
	}
	g.armed = session
	return true
}

// disarm records that go-zookeeper dropped the anchor watch: it fired, or
// the session ended.
func (g *rearmGuard) disarm() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.armed = 0
	g.disarms++
}

// armedFor reports whether go-zookeeper holds the anchor watch in session.
func (g *rearmGuard) armedFor(session int64) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return session != 0 && g.armed == session
}

// dialer wraps dial so that its connections are guarded.
func (g *rearmGuard) dialer(dial func(network, address string, timeout time.Duration) (net.Conn, error)) func(network, address string, timeout time.Duration) (net.Conn, error) {
	return func(network, address string, timeout time.Duration) (net.Conn, error) {
		conn, err := dial(network, address, timeout)
		if err != nil {
			return nil, err
		}
		return &rearmConn{
			Conn:    conn,
			guard:   g,
			rd:      bufio.NewReaderSize(conn, readBufferSize),
			rearmed: make(chan struct{}),
			closed:  make(chan struct{}),
		}, nil
	}
}

// rearmConn is one guarded connection. go-zookeeper reads a connection
// from one goroutine at a time (the handshake, then the receive loop) and
// writes whole frames, the connect request first.
type rearmConn struct {
	net.Conn
	guard *rearmGuard

	wroteHandshake atomic.Bool
	rearmed        chan struct{} // closed once setWatches is written
	rearmOnce      sync.Once
	closed         chan struct{}
	closeOnce      sync.Once

	// Read side, used by the reading goroutine only. Reading a frame's
	// head apart from its body costs no extra system call, thanks to rd.
	rd            *bufio.Reader
	readHandshake bool
	gated         bool     // answers that write the last zxid wait for rearmed
	head          [20]byte // a frame's length and up to 16 bytes of its header
	pending       []byte   // the part of head not yet handed to the reader
	bodyLeft      int      // bytes of the current frame after head
}

func (c *rearmConn) Write(b []byte) (int, error) {
	if c.wroteHandshake.Swap(true) && len(b) >= 12 && int32(binary.BigEndian.Uint32(b[8:12])) == zkOpSetWatches {
		c.rearmOnce.Do(func() { close(c.rearmed) })
	}
	return c.Conn.Write(b)
}

func (c *rearmConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return c.Conn.Close()
}

func (c *rearmConn) Read(b []byte) (int, error) {
	if len(c.pending) == 0 && c.bodyLeft == 0 {
		if err := c.nextFrame(); err != nil {
			return 0, err
		}
	}
	if len(c.pending) > 0 {
		n := copy(b, c.pending)
		c.pending = c.pending[n:]
		return n, nil
	}
	if len(b) > c.bodyLeft {
		b = b[:c.bodyLeft]
	}
	n, err := c.rd.Read(b)
	c.bodyLeft -= n
	return n, err
}

// nextFrame reads a frame's length and the start of its body, and holds
// the frame back if it must wait for setWatches. Any error ends the
// connection, as it does in go-zookeeper.
func (c *rearmConn) nextFrame() error {
	if _, err := io.ReadFull(c.rd, c.head[:4]); err != nil {
		return err
	}
	// Unsigned, as go-zookeeper reads it.
	size := int(binary.BigEndian.Uint32(c.head[:4]))
	n := min(size, len(c.head)-4)
	if _, err := io.ReadFull(c.rd, c.head[4:4+n]); err != nil {
		return err
	}
	c.pending = c.head[:4+n]
	c.bodyLeft = size - n
	if !c.readHandshake {
		// The connect response: protocol version, timeout, session id.
		c.readHandshake = true
		if n == 16 {
			session := int64(binary.BigEndian.Uint64(c.head[12:20]))
			c.gated = c.guard.armedFor(session)
		}
		return nil
	}
	if !c.gated || n < 16 {
		return nil
	}
	// A reply header: xid, zxid, error. go-zookeeper records the zxid of
	// answers to requests (xid ≥ 0) only.
	xid := int32(binary.BigEndian.Uint32(c.head[4:8]))
	zxid := int64(binary.BigEndian.Uint64(c.head[8:16]))
	if xid < 0 || zxid <= 0 {
		return nil
	}
	c.gated = false
	select {
	case <-c.rearmed:
		c.guard.ordered.Add(1)
		return nil
	default:
	}
	timer := time.NewTimer(rearmFallback)
	defer timer.Stop()
	select {
	case <-c.rearmed:
		c.guard.ordered.Add(1)
	case <-c.closed:
	case <-timer.C:
		c.guard.fallbacks.Add(1)
		c.guard.log.Warn().Msg("zookeeper: no watches re-armed after a reconnect; answer let through")
	}
	return nil
}

// onZkEvent is go-zookeeper's event callback. It runs on go-zookeeper's
// goroutines, before the watch an event fires is dropped, which is what
// lets the guard be disarmed before any later connection is made.
func (c *Client) onZkEvent(ev zk.Event) {
	if ev.Type != zk.EventSession && ev.Path == anchorPath {
		c.guard.disarm()
		c.wakeKeepAnchor()
	}
	c.queue.push(ev)
}

func (c *Client) wakeKeepAnchor() {
	select {
	case c.rearm <- struct{}{}:
	default:
	}
}

// keepAnchor keeps the anchor watch armed in every session, for the
// Client's life. It is woken when a session comes up (or back) and when
// the watch goes.
func (c *Client) keepAnchor() {
	defer c.inflight.Done()
	for {
		select {
		case <-c.closed:
			return
		case <-c.rearm:
		}
		if c.State() != StateConnected || c.guard.armedFor(c.conn.SessionID()) {
			continue
		}
		gen := c.guard.generation()
		// Exists sets a watch whether or not the znode is there.
		_, _, _, err := c.conn.ExistsW(anchorPath)
		switch {
		case err == nil:
			if !c.guard.arm(c.conn.SessionID(), gen) {
				c.wakeKeepAnchor() // dropped while being armed: again
			}
		case errors.Is(err, zk.ErrClosing), errors.Is(err, zk.ErrConnectionClosed), errors.Is(err, zk.ErrSessionExpired), errors.Is(err, zk.ErrNoServer):
			// The next session event wakes this again.
		default:
			c.log.Warn().Err(err).Str("path", anchorPath).Msg("zookeeper: cannot watch the anchor znode; a reconnect may race in go-zookeeper")
		}
	}
}
