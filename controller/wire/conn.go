package wire

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

// readBufferSize is the per-connection read buffer. Admin requests are
// small; big ones are read past the buffer straight into their frame.
const readBufferSize = 16 << 10

// conn is one client connection, served by exactly one goroutine.
type conn struct {
	srv       *Server
	nc        net.Conn
	br        *bufio.Reader
	log       zerolog.Logger
	principal Principal
	tokenAuth bool // authenticated with a delegation token
	// ctx is the parent of this connection's handler contexts: the
	// server's, carrying the client address (ClientAddr).
	ctx context.Context

	// idle is true while the goroutine waits for the first byte of the
	// next request. Guarded by srv.mu: Shutdown closes idle connections
	// and leaves active ones to finish their request.
	idle bool

	closeOnce sync.Once
	closed    chan struct{} // closed by close
}

func (s *Server) newConn(nc net.Conn) *conn {
	if s.tls != nil {
		nc = tls.Server(nc, s.tls) // no I/O until the handshake
	}
	return &conn{
		srv:    s,
		nc:     nc,
		br:     bufio.NewReaderSize(nc, readBufferSize),
		log:    s.log.With().Str("remote", nc.RemoteAddr().String()).Logger(),
		ctx:    withClientAddr(s.baseCtx, nc.RemoteAddr()),
		idle:   true,
		closed: make(chan struct{}),
	}
}

// close closes the socket once; it is safe from any goroutine and unblocks
// a read or write in progress.
func (c *conn) close() {
	c.closeOnce.Do(func() {
		_ = c.nc.Close()
		close(c.closed)
	})
}

// serveConn is the connection's goroutine: read a request, answer it, and
// only then read the next one, until the client leaves, a request is
// refused, or the server stops.
func (s *Server) serveConn(c *conn) {
	defer s.untrackConn(c)
	defer c.close()
	defer func() {
		// A bug in a handler or a decoder must cost one connection,
		// not the daemon.
		if r := recover(); r != nil {
			s.panics.Add(1)
			c.log.Error().Interface("panic", r).Bytes("stack", debug.Stack()).Msg("closing connection: panic while serving")
		}
	}()
	var ok bool
	if c.principal, ok = s.connPrincipal(c); !ok {
		return
	}
	c.log.Debug().Str("principal", c.principal.String()).Msg("connection opened")
	if s.sasl != nil && !s.authenticate(c) {
		return
	}
	for {
		if !c.awaitRequest() {
			return
		}
		c.setReadDeadline()
		frame, err := readFrame(c.br, s.maxRequest)
		if err != nil {
			c.logReadError(err, "read request")
			return
		}
		out, mute, ok := s.process(c, frame)
		if !ok {
			return
		}
		if out != nil {
			if err := c.write(out); err != nil {
				c.log.Debug().Err(err).Msg("closing connection: write response")
				return
			}
		}
		if !c.setIdle() {
			c.log.Debug().Msg("closing connection: server shutting down")
			return
		}
		if mute > 0 && !c.muteFor(mute) {
			return
		}
	}
}

// muteFor reads nothing from the connection for d, as Kafka mutes a
// throttled client's channel; false means the connection was closed
// meanwhile (Shutdown closes it, since it is idle).
func (c *conn) muteFor(d time.Duration) bool {
	c.log.Debug().Dur("throttle", d).Msg("connection muted for the response's throttle time")
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-c.closed:
		return false
	}
}

// awaitRequest waits, for at most the idle timeout, until the first byte of
// a request arrives, then marks the connection active. It reports false if
// the connection should close instead: the client left or idled out, or
// the server began shutting down.
func (c *conn) awaitRequest() bool {
	c.setReadDeadline()
	if _, err := c.br.Peek(1); err != nil {
		c.logReadError(err, "await request")
		return false
	}
	c.srv.mu.Lock()
	defer c.srv.mu.Unlock()
	if c.srv.closing {
		return false
	}
	c.idle = false
	return true
}

// setIdle marks the connection idle after a response; false means the
// server is shutting down and the connection should close.
func (c *conn) setIdle() bool {
	c.srv.mu.Lock()
	defer c.srv.mu.Unlock()
	if c.srv.closing {
		return false
	}
	c.idle = true
	return true
}

func (c *conn) setReadDeadline() {
	var t time.Time // zero: no deadline
	if c.srv.idleTimeout > 0 {
		t = time.Now().Add(c.srv.idleTimeout)
	}
	_ = c.nc.SetReadDeadline(t)
}

func (c *conn) write(b []byte) error {
	var t time.Time
	if c.srv.idleTimeout > 0 {
		t = time.Now().Add(c.srv.idleTimeout)
	}
	_ = c.nc.SetWriteDeadline(t)
	_, err := c.nc.Write(b)
	return err
}

// logReadError logs why reading stopped, at a level that matches how
// interesting it is: clients leaving and idle timeouts are routine.
func (c *conn) logReadError(err error, what string) {
	var sizeErr *FrameSizeError
	switch {
	case errors.As(err, &sizeErr):
		c.log.Warn().Err(err).Msg("closing connection: " + what)
	case errors.Is(err, io.EOF):
		c.log.Debug().Msg("connection closed by client")
	case errors.Is(err, os.ErrDeadlineExceeded):
		c.log.Info().Dur("idle_timeout", c.srv.idleTimeout).Msg("closing connection: idle timeout")
	case errors.Is(err, net.ErrClosed):
		c.log.Debug().Msg("connection closed by server")
	default:
		c.log.Info().Err(err).Msg("closing connection: " + what)
	}
}
