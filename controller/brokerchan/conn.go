package brokerchan

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ResponseSizeError reports a response size prefix outside [0, max].
type ResponseSizeError struct {
	Size int32
	Max  int32
}

func (e *ResponseSizeError) Error() string {
	return fmt.Sprintf("response size %d outside [0, %d]", e.Size, e.Max)
}

// CorrelationError reports a response whose correlation id is not the one
// of the request in flight. The connection is unusable afterwards.
type CorrelationError struct {
	Want, Got int32
}

func (e *CorrelationError) Error() string {
	return fmt.Sprintf("response correlation id %d, expected %d", e.Got, e.Want)
}

// conn is one connection to a broker carrying one request at a time. It
// sends the exact version the request holds: no ApiVersions exchange, as
// Kafka's controller-to-broker channel does none. It is used by one
// goroutine only.
type conn struct {
	nc          net.Conn
	r           *bufio.Reader
	clientID    string
	maxResponse int32
	corr        int32
	buf         []byte
}

// dialConn connects to addr within timeout, or until ctx ends.
func dialConn(ctx context.Context, dial DialFunc, addr string, timeout time.Duration,
	clientID string, maxResponse int32) (*conn, error) {
	dctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	nc, err := dial(dctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", addr, err)
	}
	return &conn{nc: nc, r: bufio.NewReader(nc), clientID: clientID, maxResponse: maxResponse}, nil
}

// close closes the network connection.
func (c *conn) close() error { return c.nc.Close() }

// roundTrip writes req and reads its response within timeout, or until ctx
// ends. Any error leaves the connection in an unknown state: close it.
func (c *conn) roundTrip(ctx context.Context, req kmsg.Request, timeout time.Duration) (kmsg.Response, error) {
	if err := c.nc.SetDeadline(time.Now().Add(timeout)); err != nil {
		return nil, fmt.Errorf("set deadline: %w", err)
	}
	// A cancelled ctx unblocks the read or write by moving the deadline
	// into the past. If that already started, wait for it, so no
	// goroutine outlives the call.
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(fired)
		_ = c.nc.SetDeadline(time.Unix(1, 0))
	})
	defer func() {
		if !stop() {
			<-fired
		}
	}()

	c.corr++
	c.buf = appendRequest(c.buf[:0], req, c.corr, c.clientID)
	if _, err := c.nc.Write(c.buf); err != nil {
		return nil, c.ctxErr(ctx, fmt.Errorf("write %s v%d: %w", kmsg.NameForKey(req.Key()), req.GetVersion(), err))
	}
	resp, err := c.readResponse(req)
	if err != nil {
		return nil, c.ctxErr(ctx, fmt.Errorf("read %s v%d response: %w", kmsg.NameForKey(req.Key()), req.GetVersion(), err))
	}
	return resp, nil
}

// ctxErr prefers the context's error when the context ended, since the
// I/O error is then only its consequence.
func (c *conn) ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%w (%w)", ctx.Err(), err)
	}
	return err
}

// appendRequest appends the size-prefixed frame of req: the request header
// (v2 for flexible versions, else v1; v0 only for ControlledShutdown v0)
// and the body.
func appendRequest(dst []byte, req kmsg.Request, corr int32, clientID string) []byte {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0) // size, filled in below
	dst = kbin.AppendInt16(dst, req.Key())
	dst = kbin.AppendInt16(dst, req.GetVersion())
	dst = kbin.AppendInt32(dst, corr)
	if req.Key() != 7 || req.GetVersion() != 0 {
		// The client id is a nullable int16-length string even in header
		// v2, so that any broker can read it.
		dst = kbin.AppendString(dst, clientID)
		if req.IsFlexible() {
			dst = append(dst, 0) // no tagged fields
		}
	}
	dst = req.AppendTo(dst)
	binary.BigEndian.PutUint32(dst[start:], uint32(len(dst)-start-4))
	return dst
}

// readResponse reads one response frame and decodes it as req's response.
// Response header v1 (tagged fields) goes with flexible versions, except
// for ApiVersions, which always answers with header v0.
func (c *conn) readResponse(req kmsg.Request) (kmsg.Response, error) {
	var prefix [4]byte
	if _, err := io.ReadFull(c.r, prefix[:]); err != nil {
		return nil, err
	}
	size := int32(binary.BigEndian.Uint32(prefix[:]))
	if size < 4 || size > c.maxResponse {
		return nil, &ResponseSizeError{Size: size, Max: c.maxResponse}
	}
	body := make([]byte, size)
	if _, err := io.ReadFull(c.r, body); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	b := kbin.Reader{Src: body}
	if got := b.Int32(); got != c.corr {
		return nil, &CorrelationError{Want: c.corr, Got: got}
	}
	if req.IsFlexible() && req.Key() != 18 {
		kmsg.SkipTags(&b)
	}
	if err := b.Complete(); err != nil {
		return nil, fmt.Errorf("response header: %w", err)
	}
	resp := req.ResponseKind()
	resp.SetVersion(req.GetVersion())
	if err := resp.ReadFrom(b.Src); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	return resp, nil
}
