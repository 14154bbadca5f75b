package brokersim

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// maxResponseSize bounds a response frame from the controller.
const maxResponseSize = 64 << 20

// kconn is a minimal Kafka client connection: one request at a time,
// request header v1/v2, responses decoded with kmsg. Brokers talk to the
// controller this way (ControlledShutdown without version discovery;
// AlterPartition after ApiVersions).
type kconn struct {
	nc       net.Conn
	br       *bufio.Reader
	addr     string
	format   *kmsg.RequestFormatter
	corr     int32
	versions map[int16]kmsg.ApiVersionsResponseApiKey // after negotiate
}

// dialKafka connects to addr within ctx.
func dialKafka(ctx context.Context, addr, clientID string) (*kconn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	return &kconn{
		nc:     nc,
		br:     bufio.NewReader(nc),
		addr:   addr,
		format: kmsg.NewRequestFormatter(kmsg.FormatterClientID(clientID)),
	}, nil
}

func (c *kconn) close() { _ = c.nc.Close() }

// roundTrip sends req at the version it carries and reads its response,
// bounded by ctx and timeout. On any error the connection is unusable.
func (c *kconn) roundTrip(ctx context.Context, req kmsg.Request, timeout time.Duration) (kmsg.Response, error) {
	deadline := time.Now().Add(timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	if err := c.nc.SetDeadline(deadline); err != nil {
		return nil, err
	}
	// Unblock the socket if ctx ends first.
	stop := context.AfterFunc(ctx, func() { _ = c.nc.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	c.corr++
	if _, err := c.nc.Write(c.format.AppendRequest(nil, req, c.corr)); err != nil {
		return nil, c.fail(ctx, req, err)
	}
	resp, err := c.readResponse(req)
	if err != nil {
		return nil, c.fail(ctx, req, err)
	}
	return resp, nil
}

func (c *kconn) fail(ctx context.Context, req kmsg.Request, err error) error {
	// The socket deadline may fire a moment before ctx reports its own.
	if d, ok := ctx.Deadline(); ctx.Err() != nil || ok && !time.Now().Before(d) {
		err = context.Cause(ctx)
		if err == nil {
			err = context.DeadlineExceeded
		}
	}
	return fmt.Errorf("%s v%d to %s: %w", kmsg.NameForKey(req.Key()), req.GetVersion(), c.addr, err)
}

func (c *kconn) readResponse(req kmsg.Request) (kmsg.Response, error) {
	var prefix [4]byte
	if _, err := io.ReadFull(c.br, prefix[:]); err != nil {
		return nil, err
	}
	size := int32(binary.BigEndian.Uint32(prefix[:]))
	if size < 4 || size > maxResponseSize {
		return nil, fmt.Errorf("bad response size %d", size)
	}
	frame := make([]byte, size)
	if _, err := io.ReadFull(c.br, frame); err != nil {
		return nil, err
	}
	b := kbin.Reader{Src: frame}
	if corr := b.Int32(); corr != c.corr {
		return nil, fmt.Errorf("response correlation id %d, want %d", corr, c.corr)
	}
	// ApiVersions answers with header v0 whatever its version (KIP-511).
	if req.IsFlexible() && req.Key() != kmsg.ApiVersions.Int16() {
		kmsg.SkipTags(&b)
	}
	if err := b.Complete(); err != nil {
		return nil, fmt.Errorf("response header: %w", err)
	}
	resp := req.ResponseKind()
	if err := resp.ReadFrom(b.Src); err != nil {
		return nil, fmt.Errorf("decode response: %w", err)
	}
	return resp, nil
}

// negotiate runs ApiVersions v3, or v0 when the peer answers
// UNSUPPORTED_VERSION, and keeps the peer's ranges.
func (c *kconn) negotiate(ctx context.Context, timeout time.Duration) error {
	r, err := c.apiVersions(ctx, 3, timeout)
	if err == nil && r.ErrorCode == kerr.UnsupportedVersion.Code {
		r, err = c.apiVersions(ctx, 0, timeout)
	}
	if err != nil {
		return err
	}
	if err := kerr.ErrorForCode(r.ErrorCode); err != nil {
		return fmt.Errorf("ApiVersions to %s: %w", c.addr, err)
	}
	c.versions = make(map[int16]kmsg.ApiVersionsResponseApiKey, len(r.ApiKeys))
	for _, k := range r.ApiKeys {
		c.versions[k.ApiKey] = k
	}
	return nil
}

func (c *kconn) apiVersions(ctx context.Context, version int16, timeout time.Duration) (*kmsg.ApiVersionsResponse, error) {
	req := kmsg.NewPtrApiVersionsRequest()
	req.Version = version
	req.ClientSoftwareName = "kzadmin-brokersim"
	req.ClientSoftwareVersion = "1"
	resp, err := c.roundTrip(ctx, req, timeout)
	if err != nil {
		return nil, err
	}
	return resp.(*kmsg.ApiVersionsResponse), nil
}

// pickVersion returns the highest version in [lo, hi] the peer supports.
func (c *kconn) pickVersion(key, lo, hi int16) (int16, error) {
	k, ok := c.versions[key]
	if !ok {
		return 0, fmt.Errorf("%s does not support %s", c.addr, kmsg.NameForKey(key))
	}
	v := min(hi, k.MaxVersion)
	if v < lo || v < k.MinVersion {
		return 0, fmt.Errorf("%s supports %s v%d-%d, need v%d-%d", c.addr, kmsg.NameForKey(key),
			k.MinVersion, k.MaxVersion, lo, hi)
	}
	return v, nil
}
