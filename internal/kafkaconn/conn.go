package kafkaconn

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// DefaultMaxResponse bounds a response frame when Config.MaxResponse is
// zero. It is generous for the control-plane answers kzadmin reads (a
// ListOffsets answer for thousands of partitions is tens of KB) while
// keeping a garbled size prefix from allocating gigabytes.
const DefaultMaxResponse int32 = 64 << 20

// Config tunes a Conn. The zero value works: no client id, no timeout but
// the context's, DefaultMaxResponse.
type Config struct {
	// ClientID goes in every request header.
	ClientID string
	// Timeout bounds each round trip, write and read together, on top
	// of the context's deadline; zero leaves the context alone in charge.
	Timeout time.Duration
	// MaxResponse bounds one response frame; zero means
	// DefaultMaxResponse.
	MaxResponse int32
	// APIName names keys kmsg does not know (kzadmin's own) in errors;
	// nil, or an empty answer, falls back to kmsg.NameForKey.
	APIName func(key int16) string
	// SoftwareName and SoftwareVersion are what Negotiate sends in
	// ApiVersions v3 (defaults "kzadmin" and "1"). Brokers validate them
	// against [a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?.
	SoftwareName, SoftwareVersion string
}

// Conn is a synchronous client connection to one Kafka peer.
type Conn struct {
	nc       net.Conn
	r        *bufio.Reader
	addr     string
	cfg      Config
	corr     int32
	buf      []byte                                   // the last request's frame, reused
	versions map[int16]kmsg.ApiVersionsResponseApiKey // after Negotiate
}

// New wraps an established connection. addr names the peer in errors;
// empty takes nc's remote address.
func New(nc net.Conn, addr string, cfg Config) *Conn {
	if addr == "" && nc.RemoteAddr() != nil {
		addr = nc.RemoteAddr().String()
	}
	if cfg.MaxResponse <= 0 {
		cfg.MaxResponse = DefaultMaxResponse
	}
	return &Conn{
		nc:   nc,
		r:    bufio.NewReader(nc),
		addr: addr,
		cfg:  cfg,
	}
}

// Addr is the peer's address as errors name it.
func (c *Conn) Addr() string { return c.addr }

// Close closes the network connection.
func (c *Conn) Close() error { return c.nc.Close() }

// RoundTrip sends req at the version it carries and decodes the peer's
// answer into req.ResponseKind(), within Config.Timeout and ctx. After an
// error the connection is in an unknown state: close it.
func (c *Conn) RoundTrip(ctx context.Context, req kmsg.Request) (kmsg.Response, error) {
	if ended(ctx) != nil {
		return nil, c.wrap(ctx, req, errors.New("not sent"))
	}
	if err := c.nc.SetDeadline(c.deadline(ctx)); err != nil {
		return nil, c.wrap(ctx, req, fmt.Errorf("set deadline: %w", err))
	}
	// A cancelled ctx unblocks the write or read by moving the deadline
	// into the past. If that has started, wait for it: left running, it
	// could land after the next request set its own deadline.
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
	c.buf = AppendRequest(c.buf[:0], req, c.corr, c.cfg.ClientID)
	if _, err := c.nc.Write(c.buf); err != nil {
		return nil, c.wrap(ctx, req, fmt.Errorf("write: %w", err))
	}
	resp, err := ReadResponse(c.r, req, c.corr, c.cfg.MaxResponse)
	if err != nil {
		return nil, c.wrap(ctx, req, err)
	}
	return resp, nil
}

// deadline is the earlier of now+Timeout and ctx's deadline; the zero
// time (none) when neither is set.
func (c *Conn) deadline(ctx context.Context) time.Time {
	var d time.Time
	if c.cfg.Timeout > 0 {
		d = time.Now().Add(c.cfg.Timeout)
	}
	if cd, ok := ctx.Deadline(); ok && (d.IsZero() || cd.Before(d)) {
		d = cd
	}
	return d
}

// wrap names the request and the peer. When ctx ended, its cause leads,
// since the I/O error is then only its consequence; both stay reachable
// with errors.Is.
func (c *Conn) wrap(ctx context.Context, req kmsg.Request, err error) error {
	if cause := ended(ctx); cause != nil {
		err = fmt.Errorf("%w (%w)", cause, err)
	}
	return fmt.Errorf("%s v%d to %s: %w", c.name(req.Key()), req.GetVersion(), c.addr, err)
}

// ended reports why ctx is over, or nil. The socket deadline taken from
// ctx's may fire a moment before ctx reports itself done, so a deadline
// in the past counts as ended.
func ended(ctx context.Context) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
		return context.DeadlineExceeded
	}
	return nil
}

func (c *Conn) name(key int16) string {
	if c.cfg.APIName != nil {
		if n := c.cfg.APIName(key); n != "" {
			return n
		}
	}
	return kmsg.NameForKey(key)
}
