package replicalog

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

// maxResponseSize bounds one response frame. A GetReplicaLogInfo answer
// for 2,000 partitions is about 40 KB; ListOffsets answers are of the
// same order.
const maxResponseSize = 16 << 20

// conn is one connection to a broker, one request at a time: the prober
// asks, waits, and asks again, so no pipelining is needed.
type conn struct {
	nc       net.Conn
	br       *bufio.Reader
	addr     string
	format   *kmsg.RequestFormatter
	timeout  time.Duration
	corr     int32
	versions map[int16]kmsg.ApiVersionsResponseApiKey
}

func newConn(nc net.Conn, addr string, o Options) *conn {
	return &conn{
		nc:      nc,
		br:      bufio.NewReader(nc),
		addr:    addr,
		format:  kmsg.NewRequestFormatter(kmsg.FormatterClientID(o.ClientID)),
		timeout: o.RequestTimeout,
	}
}

// roundTrip sends req at the version it carries and decodes the answer
// into req.ResponseKind(), within the per-request timeout and ctx. After
// an error the connection is unusable.
func (c *conn) roundTrip(ctx context.Context, req kmsg.Request) (kmsg.Response, error) {
	deadline := time.Now().Add(c.timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	if err := c.nc.SetDeadline(deadline); err != nil {
		return nil, c.fail(ctx, req, err)
	}
	// A cancelled ctx unblocks the socket at once.
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

// fail wraps err with the request and broker; when ctx ended, its cause
// is reported rather than the socket's deadline error it provoked.
func (c *conn) fail(ctx context.Context, req kmsg.Request, err error) error {
	if ctx.Err() != nil {
		err = context.Cause(ctx)
	}
	return fmt.Errorf("%s v%d to %s: %w", apiName(req.Key()), req.GetVersion(), c.addr, err)
}

func (c *conn) readResponse(req kmsg.Request) (kmsg.Response, error) {
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
	// ApiVersions answers with response header v0 at every version
	// (KIP-511); other flexible versions have header tags.
	if req.IsFlexible() && req.Key() != kmsg.ApiVersions.Int16() {
		kmsg.SkipTags(&b)
	}
	if err := b.Complete(); err != nil {
		return nil, fmt.Errorf("response header: %w", err)
	}
	resp := req.ResponseKind()
	resp.SetVersion(req.GetVersion())
	if err := resp.ReadFrom(b.Src); err != nil {
		if r, ok := unsupportedApiVersions(req, b.Src); ok {
			return r, nil
		}
		return nil, fmt.Errorf("decode response: %w", err)
	}
	return resp, nil
}

// unsupportedApiVersions recognises the answer of a broker that does not
// know the ApiVersions version sent: it is encoded as v0 whatever was
// asked, so only its leading error code can be read at the version sent.
func unsupportedApiVersions(req kmsg.Request, body []byte) (kmsg.Response, bool) {
	if req.Key() != kmsg.ApiVersions.Int16() || len(body) < 2 ||
		int16(binary.BigEndian.Uint16(body)) != kerr.UnsupportedVersion.Code {
		return nil, false
	}
	r := kmsg.NewPtrApiVersionsResponse()
	r.ErrorCode = kerr.UnsupportedVersion.Code
	return r, true
}

// negotiate sends ApiVersions first, as every Kafka client does, and keeps
// the broker's ranges. It tries v3 and falls back to v0 when the broker
// answers UNSUPPORTED_VERSION (brokers before 2.4).
func (c *conn) negotiate(ctx context.Context) error {
	r, err := c.apiVersions(ctx, 3)
	if err == nil && r.ErrorCode == kerr.UnsupportedVersion.Code {
		r, err = c.apiVersions(ctx, 0)
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

func (c *conn) apiVersions(ctx context.Context, version int16) (*kmsg.ApiVersionsResponse, error) {
	req := kmsg.NewPtrApiVersionsRequest()
	req.Version = version
	req.ClientSoftwareName = "kzadmin-replicalog"
	req.ClientSoftwareVersion = "1"
	resp, err := c.roundTrip(ctx, req)
	if err != nil {
		return nil, err
	}
	return resp.(*kmsg.ApiVersionsResponse), nil
}

// supports returns the highest version of key in [lo, hi] the broker
// advertises.
func (c *conn) supports(key, lo, hi int16) (int16, bool) {
	k, ok := c.versions[key]
	if !ok {
		return 0, false
	}
	v := min(hi, k.MaxVersion)
	if v < lo || v < k.MinVersion {
		return 0, false
	}
	return v, true
}

// apiName names a key for errors; kmsg does not know ours.
func apiName(key int16) string {
	if key == GetReplicaLogInfoKey {
		return "GetReplicaLogInfo"
	}
	return kmsg.NameForKey(key)
}
