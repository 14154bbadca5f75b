package wire

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// waitTimeout bounds every wait in these tests; nothing should take close
// to it, so hitting it is a failure, never a synchronisation.
const waitTimeout = 10 * time.Second

func testLogger(t testing.TB) zerolog.Logger {
	return zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.DebugLevel)
}

// startServer serves cfg, logging to the test, on a loopback port.
func startServer(t *testing.T, cfg Config) (*Server, string) {
	t.Helper()
	cfg.Logger = testLogger(t)
	return serveLoopback(t, cfg)
}

// serveLoopback serves cfg as is on a loopback port and stops it when the
// test ends, waiting for every connection goroutine so none logs after the
// test.
func serveLoopback(t *testing.T, cfg Config) (*Server, string) {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	t.Cleanup(func() {
		_ = s.Close()
		if err := <-served; !errors.Is(err, ErrServerClosed) {
			t.Errorf("Serve returned %v, want ErrServerClosed", err)
		}
		s.connWG.Wait()
		if n := s.panics.Load(); n != 0 && !t.Failed() {
			t.Errorf("%d panics recovered while serving", n)
		}
	})
	// Serve takes the listener on its own goroutine; a test that shuts
	// the server down before that would find the listener still open
	// (the kernel queues connections nobody accepts) until Serve runs.
	waitFor(t, "Serve to take the listener", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		_, ok := s.listeners[ln]
		return ok
	})
	return s, ln.Addr().String()
}

// rawConn is a test client that writes frames by hand and reads responses.
type rawConn struct {
	t  *testing.T
	nc net.Conn
	br *bufio.Reader
}

func dialRaw(t *testing.T, addr string) *rawConn {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, waitTimeout)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() { _ = nc.Close() })
	return &rawConn{t: t, nc: nc, br: bufio.NewReader(nc)}
}

func (c *rawConn) write(b []byte) {
	c.t.Helper()
	_ = c.nc.SetWriteDeadline(time.Now().Add(waitTimeout))
	if _, err := c.nc.Write(b); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// sendReq writes req with kmsg's own request formatter, which picks the
// header version (v0, v1 or v2) the way a client does.
func (c *rawConn) sendReq(req kmsg.Request, corr int32, clientID *string) {
	c.t.Helper()
	var opts []kmsg.RequestFormatterOpt
	if clientID != nil {
		opts = append(opts, kmsg.FormatterClientID(*clientID))
	}
	c.write(kmsg.NewRequestFormatter(opts...).AppendRequest(nil, req, corr))
}

// readFrame reads one response frame; it fails the test on error.
func (c *rawConn) readFrame() []byte {
	c.t.Helper()
	b, err := c.tryReadFrame()
	if err != nil {
		c.t.Fatalf("read response: %v", err)
	}
	return b
}

func (c *rawConn) tryReadFrame() ([]byte, error) {
	_ = c.nc.SetReadDeadline(time.Now().Add(waitTimeout))
	return readFrame(c.br, 1<<30)
}

// readResp reads a response to a request of key/version and decodes it,
// checking the correlation id and the response header version.
func (c *rawConn) readResp(key, version int16, corr int32, flexibleHeader bool) kmsg.Response {
	c.t.Helper()
	frame := c.readFrame()
	if len(frame) < 4 {
		c.t.Fatalf("response of %d bytes", len(frame))
	}
	if got := int32(binary.BigEndian.Uint32(frame)); got != corr {
		c.t.Fatalf("correlation id %d, want %d", got, corr)
	}
	body := frame[4:]
	if flexibleHeader {
		r := kbin.Reader{Src: body}
		kmsg.SkipTags(&r)
		if err := r.Complete(); err != nil {
			c.t.Fatalf("response header tags: %v", err)
		}
		body = r.Src
	}
	resp := kmsg.ResponseForKey(key)
	resp.SetVersion(version)
	if err := resp.ReadFrom(body); err != nil {
		c.t.Fatalf("decode %s v%d response: %v", kmsg.NameForKey(key), version, err)
	}
	return resp
}

// expectClosed asserts the server closes the connection without sending
// anything more.
func (c *rawConn) expectClosed() {
	c.t.Helper()
	_ = c.nc.SetReadDeadline(time.Now().Add(waitTimeout))
	b, err := c.br.ReadByte()
	switch {
	case err == nil:
		c.t.Fatalf("read byte %#x, want the connection closed", b)
	case errors.Is(err, os.ErrDeadlineExceeded):
		c.t.Fatalf("connection still open after %v", waitTimeout)
	case !errors.Is(err, io.EOF) && !isConnReset(err):
		c.t.Fatalf("read: %v, want EOF", err)
	}
}

// isConnReset accepts a reset as a close: a server that closes with unread
// data in its receive buffer makes the kernel send RST instead of FIN.
func isConnReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET)
}

// waitFor polls cond until it holds or waitTimeout passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// recv waits for a value on ch.
func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitTimeout):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

// metadataHandler answers Metadata with an empty response at the request's
// version and reports each request it sees on seen (if non-nil).
func metadataHandler(seen chan<- *Request) HandlerFunc {
	return func(ctx context.Context, req *Request) (kmsg.Response, error) {
		if seen != nil {
			select {
			case seen <- req:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return req.Body.ResponseKind(), nil
	}
}

func mustRegister(t *testing.T, m *Mux, r Route) {
	t.Helper()
	if err := m.Register(r); err != nil {
		t.Fatalf("Register: %v", err)
	}
}

func strPtr(s string) *string { return &s }
