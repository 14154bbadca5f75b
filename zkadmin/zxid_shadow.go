package zkadmin

import (
	"bufio"
	"encoding/binary"
	"io"
	"net"
	"sync/atomic"
	"time"
)

// go-zookeeper v1.0.4 has a data race. After each handshake its connection
// loop starts the receive goroutine and then, in sendSetWatches, reads the
// last zxid seen (Conn.lastZxid) if it holds any watch; the receive
// goroutine writes that field, without synchronisation, for every answer
// that carries a zxid. Nothing orders the two: an answer to a request the
// caller sent as soon as the session came up can be processed first, and
// CI's race detector caught exactly that, on a reconnect and on a first
// connection whose watch was answered before sendSetWatches ran.
//
// zxidShadow takes the field out of go-zookeeper's hands, between it and
// the connection it dials. It keeps the last zxid seen itself and zeroes
// the zxid of every answer before go-zookeeper reads it, so go-zookeeper
// never writes the field (it records only zxids above zero, and uses an
// answer's zxid for nothing else). It then puts the right values into the
// two requests that carry the last zxid seen: the connect request, which
// lets the server refuse a client that has seen more than it has, and
// setWatches, whose relative zxid tells the server which changes the
// client missed while it was away. The result is what go-zookeeper means
// to do, without the race.
type zxidShadow struct {
	last atomic.Int64 // the zxid of the last answer; 0 after an expiry
}

// The protocol's offsets, in a frame that starts with its 4-byte length.
const (
	// Connect request: protocol version, then the last zxid seen.
	connectLastZxidAt = 8
	// Connect response: protocol version, timeout, then the session id.
	connectSessionAt = 12
	// Request header: xid, opcode; setWatches' body starts with the
	// relative zxid.
	requestOpcodeAt          = 8
	setWatchesRelativeZxidAt = 12
	// Reply header: xid, zxid, error.
	replyXidAt  = 4
	replyZxidAt = 8
	// replyHeadLen is the length prefix and the reply header.
	replyHeadLen = 20
)

// zkOpSetWatches is the setWatches request's opcode.
const zkOpSetWatches = 101

// readBufferSize is a shadowed connection's read buffer: several answers
// of a pipeline are usually read with one system call.
const readBufferSize = 32 << 10

// dialer wraps dial so that its connections are shadowed.
func (s *zxidShadow) dialer(dial func(network, address string, timeout time.Duration) (net.Conn, error)) func(network, address string, timeout time.Duration) (net.Conn, error) {
	return func(network, address string, timeout time.Duration) (net.Conn, error) {
		conn, err := dial(network, address, timeout)
		if err != nil {
			return nil, err
		}
		return &shadowConn{Conn: conn, shadow: s, rd: bufio.NewReaderSize(conn, readBufferSize)}, nil
	}
}

// shadowConn is one connection. go-zookeeper writes whole frames, the
// connect request first, and reads a connection from one goroutine at a
// time (the handshake, then the receive loop).
type shadowConn struct {
	net.Conn
	shadow *zxidShadow

	// Write side.
	wroteConnect bool
	startZxid    int64 // the last zxid seen when this connection began

	// Read side. Reading a frame's head apart from its body costs no
	// system call, thanks to rd.
	rd          *bufio.Reader
	readConnect bool
	head        [replyHeadLen]byte
	pending     []byte // the part of head not yet handed over
	bodyLeft    int    // bytes of the current frame after head
}

func (c *shadowConn) Write(b []byte) (int, error) {
	switch {
	case !c.wroteConnect:
		c.wroteConnect = true
		// Every answer of the previous connection has been read: its
		// receive goroutine ended before go-zookeeper dialled this one.
		c.startZxid = c.shadow.last.Load()
		return c.writePatched(b, connectLastZxidAt, c.startZxid)
	case len(b) >= setWatchesRelativeZxidAt+8 && int32(binary.BigEndian.Uint32(b[requestOpcodeAt:])) == zkOpSetWatches:
		// The changes missed are those after what was seen before this
		// connection, whatever its first answers have seen since.
		return c.writePatched(b, setWatchesRelativeZxidAt, c.startZxid)
	}
	return c.Conn.Write(b)
}

// writePatched writes a copy of b with the int64 at off set to v; a frame
// too short to hold it goes as it is.
func (c *shadowConn) writePatched(b []byte, off int, v int64) (int, error) {
	if len(b) < off+8 {
		return c.Conn.Write(b)
	}
	out := make([]byte, len(b))
	copy(out, b)
	binary.BigEndian.PutUint64(out[off:], uint64(v))
	return c.Conn.Write(out)
}

func (c *shadowConn) Read(b []byte) (int, error) {
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

// nextFrame reads a frame's length and the start of its body, and takes
// the zxid out of an answer. Any error ends the connection, as it does in
// go-zookeeper.
func (c *shadowConn) nextFrame() error {
	if _, err := io.ReadFull(c.rd, c.head[:4]); err != nil {
		return err
	}
	size := int(binary.BigEndian.Uint32(c.head[:4])) // unsigned, as go-zookeeper reads it
	n := min(size, len(c.head)-4)
	if _, err := io.ReadFull(c.rd, c.head[4:4+n]); err != nil {
		return err
	}
	c.pending = c.head[:4+n]
	c.bodyLeft = size - n
	if !c.readConnect {
		c.readConnect = true
		// go-zookeeper forgets the last zxid when the server answers that
		// the session expired (session id 0); so does the shadow.
		if n == len(c.head)-4 && binary.BigEndian.Uint64(c.head[connectSessionAt:]) == 0 {
			c.shadow.last.Store(0)
		}
		return nil
	}
	if n < len(c.head)-4 || int32(binary.BigEndian.Uint32(c.head[replyXidAt:])) < 0 {
		return nil // not an answer: a notification, a ping or an auth reply
	}
	if zxid := int64(binary.BigEndian.Uint64(c.head[replyZxidAt:])); zxid > 0 {
		c.shadow.last.Store(zxid)
		binary.BigEndian.PutUint64(c.head[replyZxidAt:], 0)
	}
	return nil
}
