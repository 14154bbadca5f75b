package wire

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestRequestHeaders drives header v0, v1 (with and without a client id)
// and v2 (with tagged fields) over TCP and checks what the handler sees and
// which response header comes back.
func TestRequestHeaders(t *testing.T) {
	seen := make(chan *Request, 1)
	m := NewMux()
	for _, key := range []int16{3, 7} {
		vr, _ := ZKBrokerRange(key)
		mustRegister(t, m, Route{VersionRange: vr, Handler: metadataHandler(seen)})
	}
	_, addr := startServer(t, Config{Mux: m})
	c := dialRaw(t, addr)

	check := func(key, version int16, corr int32, clientID string, flexible bool) *Request {
		t.Helper()
		req := recv(t, seen, "request")
		if req.Key != key || req.Version != version || req.CorrelationID != corr || req.ClientID != clientID {
			t.Fatalf("handler saw %d v%d corr %d client %q", req.Key, req.Version, req.CorrelationID, req.ClientID)
		}
		if req.Body.Key() != key || req.Body.GetVersion() != version {
			t.Fatalf("body is %T v%d", req.Body, req.Body.GetVersion())
		}
		if req.RemoteAddr.String() != c.nc.LocalAddr().String() || req.Principal != AnonymousPrincipal() {
			t.Fatalf("remote %v principal %v", req.RemoteAddr, req.Principal)
		}
		c.readResp(key, version, corr, flexible)
		return req
	}

	// Header v0: ControlledShutdown v0 has no client id. (kmsg's request
	// formatter leaves this one frame unsized, so build it by hand.)
	cs := kmsg.NewPtrControlledShutdownRequest()
	cs.BrokerID = 1
	c.write(frameOf(cs.AppendTo(headerBytes(7, 0, 1))))
	check(7, 0, 1, "", false)

	// Header v1 with a client id, and with a null one.
	md := kmsg.NewPtrMetadataRequest()
	md.Version = 1
	c.sendReq(md, 2, strPtr("my-client"))
	check(3, 1, 2, "my-client", false)
	c.sendReq(md, 3, nil)
	check(3, 1, 3, "", false)

	// Header v2: Metadata v9 is flexible. Build it by hand so the header
	// carries two tagged fields the server must skip.
	md.Version = 9
	md.Topics = []kmsg.MetadataRequestTopic{{Topic: kmsg.StringPtr("t")}}
	hdr := headerBytes(3, 9, 4)
	hdr = kbin.AppendNullableString(hdr, strPtr("flex"))
	hdr = append(hdr, 2, 0, 1, 0xaa, 3, 2, 0xbb, 0xcc) // 2 tags
	c.write(frameOf(md.AppendTo(hdr)))
	req := check(3, 9, 4, "flex", true)
	if got := req.Body.(*kmsg.MetadataRequest).Topics; len(got) != 1 || *got[0].Topic != "t" {
		t.Fatalf("body after the v2 header decoded as %+v", got)
	}
}

func TestUnsupportedRequestsCloseConnection(t *testing.T) {
	m := NewMux()
	mustRegister(t, m, Route{VersionRange: VersionRange{3, 1, 12}, Handler: metadataHandler(nil)})
	_, addr := startServer(t, Config{Mux: m})
	tests := []struct {
		name  string
		frame []byte
	}{
		{name: "unregistered key kmsg knows", frame: headerBytes(19, 5, 1, 0xff, 0xff, 0)},
		{name: "key nobody knows", frame: headerBytes(999, 0, 1, 0xff, 0xff)},
		{name: "negative key", frame: headerBytes(-1, 0, 1, 0xff, 0xff)},
		{name: "version above the range", frame: headerBytes(3, 13, 1, 0xff, 0xff, 0)},
		{name: "version below the range", frame: headerBytes(3, 0, 1, 0xff, 0xff, 0, 0, 0, 0)},
		{name: "short header", frame: []byte{0, 3, 0, 1}},
		{name: "undecodable body", frame: headerBytes(3, 1, 1, 0xff, 0xff, 0, 0, 0, 9)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := dialRaw(t, addr)
			c.write(frameOf(tt.frame))
			c.expectClosed()
		})
	}
}

func TestRequestSizeLimit(t *testing.T) {
	_, addr := startServer(t, Config{MaxRequestSize: 64})
	// A request of exactly the limit is served: ApiVersions v0 whose
	// client id pads the frame to 64 bytes.
	at := headerBytes(18, 0, 1)
	at = kbin.AppendNullableString(at, strPtr(strings.Repeat("x", 64-len(at)-2)))
	if len(at) != 64 {
		t.Fatalf("test frame is %d bytes", len(at))
	}
	c := dialRaw(t, addr)
	c.write(frameOf(at))
	c.readResp(18, 0, 1, false)

	// One byte more closes the connection once the size prefix is read.
	c.write(binary.BigEndian.AppendUint32(nil, 65))
	c.expectClosed()

	c = dialRaw(t, addr)
	c.write(binary.BigEndian.AppendUint32(nil, 0x80000000)) // negative
	c.expectClosed()
}

// TestDefaultRequestSizeLimit checks the 100 MiB default without sending
// 100 MiB: the size prefix alone decides.
func TestDefaultRequestSizeLimit(t *testing.T) {
	_, addr := startServer(t, Config{})
	c := dialRaw(t, addr)
	c.write(binary.BigEndian.AppendUint32(nil, uint32(DefaultMaxRequestSize)+1))
	c.expectClosed()
}

func TestIdleTimeoutClosesConnection(t *testing.T) {
	_, addr := startServer(t, Config{IdleTimeout: 50 * time.Millisecond})
	// The clock starts before the dial: the server may accept, and start
	// its idle timer, before the client's dial returns.
	start := time.Now()
	c := dialRaw(t, addr)
	c.expectClosed()
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Fatalf("closed after %v, before the idle timeout", d)
	}
}

// TestInOrderPipelined pipelines requests on one connection with handlers
// that take different times; responses must come back in request order and
// the connection must never have two requests in flight.
func TestInOrderPipelined(t *testing.T) {
	var inFlight, maxInFlight atomic.Int32
	h := HandlerFunc(func(ctx context.Context, req *Request) (kmsg.Response, error) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			old := maxInFlight.Load()
			if n <= old || maxInFlight.CompareAndSwap(old, n) {
				break
			}
		}
		// Earlier requests do more work, so that if the server ran
		// them concurrently they would finish out of order.
		work := time.Duration(20-req.CorrelationID) * 200 * time.Microsecond
		select {
		case <-time.After(work):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return req.Body.ResponseKind(), nil
	})
	m := NewMux()
	mustRegister(t, m, Route{VersionRange: VersionRange{3, 0, 12}, Handler: h})
	_, addr := startServer(t, Config{Mux: m})
	c := dialRaw(t, addr)
	var batch []byte
	f := kmsg.NewRequestFormatter()
	for i := int32(0); i < 20; i++ {
		md := kmsg.NewPtrMetadataRequest()
		md.Version = int16(i % 13)
		// AppendRequest sizes from the start of dst, so one at a time.
		batch = append(batch, f.AppendRequest(nil, md, i)...)
	}
	c.write(batch) // one write: all 20 arrive before the first answer
	for i := int32(0); i < 20; i++ {
		v := int16(i % 13)
		c.readResp(3, v, i, v >= 9)
	}
	if got := maxInFlight.Load(); got != 1 {
		t.Fatalf("%d requests in flight on one connection", got)
	}
}

// TestConnectionsServedConcurrently shows one connection's slow request
// does not hold up another connection.
func TestConnectionsServedConcurrently(t *testing.T) {
	release := make(chan struct{})
	blocked := make(chan struct{}, 1)
	h := HandlerFunc(func(ctx context.Context, req *Request) (kmsg.Response, error) {
		if req.ClientID == "slow" {
			blocked <- struct{}{}
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return req.Body.ResponseKind(), nil
	})
	m := NewMux()
	mustRegister(t, m, Route{VersionRange: VersionRange{3, 0, 12}, Handler: h})
	_, addr := startServer(t, Config{Mux: m})
	slow, fast := dialRaw(t, addr), dialRaw(t, addr)
	md := kmsg.NewPtrMetadataRequest()
	md.Version = 1
	slow.sendReq(md, 1, strPtr("slow"))
	recv(t, blocked, "slow handler")
	fast.sendReq(md, 2, strPtr("fast"))
	fast.readResp(3, 1, 2, false)
	close(release)
	slow.readResp(3, 1, 1, false)
}

func TestHandlerOutcomes(t *testing.T) {
	h := HandlerFunc(func(ctx context.Context, req *Request) (kmsg.Response, error) {
		switch req.ClientID {
		case "error":
			return nil, errors.New("cannot answer")
		case "nil":
			return nil, nil
		case "wrong-key":
			return kmsg.NewPtrCreateTopicsResponse(), nil
		case "panic":
			panic("handler bug")
		}
		resp := req.Body.ResponseKind()
		resp.SetVersion(0) // the server must put the request's version back
		return resp, nil
	})
	m := NewMux()
	mustRegister(t, m, Route{VersionRange: VersionRange{3, 0, 12}, Handler: h})
	s, addr := startServer(t, Config{Mux: m})
	md := kmsg.NewPtrMetadataRequest()
	md.Version = 10

	c := dialRaw(t, addr)
	c.sendReq(md, 1, strPtr("nil")) // no response; the next one is answered
	c.sendReq(md, 2, strPtr("ok"))
	c.readResp(3, 10, 2, true)

	for _, id := range []string{"error", "wrong-key", "panic"} {
		c := dialRaw(t, addr)
		c.sendReq(md, 1, strPtr(id))
		c.expectClosed()
	}
	if n := s.panics.Swap(0); n != 1 {
		t.Fatalf("%d panics recovered, want 1", n)
	}
}

// electV3 stands in for the ElectLeaders v3 codec someone else will write:
// its request and response are our own types implementing kmsg's.
type electV3 struct{ raw []byte }

func (*electV3) Key() int16        { return 43 }
func (*electV3) MaxVersion() int16 { return 3 }
func (*electV3) SetVersion(int16)  {}
func (*electV3) GetVersion() int16 { return 3 }
func (*electV3) IsFlexible() bool  { return true }
func (e *electV3) AppendTo(b []byte) []byte {
	return append(b, e.raw...)
}
func (e *electV3) ReadFrom(b []byte) error     { e.raw = bytes.Clone(b); return nil }
func (e *electV3) ResponseKind() kmsg.Response { return &electV3{} }
func (e *electV3) RequestKind() kmsg.Request   { return &electV3{} }

func TestDecoderBeyondKmsg(t *testing.T) {
	h := HandlerFunc(func(ctx context.Context, req *Request) (kmsg.Response, error) {
		if req.Version < 3 {
			if _, ok := req.Body.(*kmsg.ElectLeadersRequest); !ok {
				return nil, errors.New("v0-2 should be kmsg's")
			}
			return req.Body.ResponseKind(), nil
		}
		in := req.Body.(*electV3)
		return &electV3{raw: append([]byte("echo:"), in.raw...)}, nil
	})
	m := NewMux()
	mustRegister(t, m, Route{
		VersionRange: VersionRange{43, 0, 3},
		Handler:      h,
		Decoders: map[int16]Decoder{3: {Flexible: true, Decode: func(b []byte) (kmsg.Request, error) {
			e := &electV3{}
			return e, e.ReadFrom(b)
		}}},
	})
	_, addr := startServer(t, Config{Mux: m})
	c := dialRaw(t, addr)

	frame := headerBytes(43, 3, 9)
	frame = kbin.AppendNullableString(frame, strPtr("cli"))
	frame = append(frame, 0) // no header tags
	frame = append(frame, "v3-body"...)
	c.write(frameOf(frame))
	want := binary.BigEndian.AppendUint32(nil, 9)
	want = append(want, 0) // response header v1: v3 is flexible
	want = append(want, "echo:v3-body"...)
	if got := c.readFrame(); !bytes.Equal(got, want) {
		t.Fatalf("v3 response %q, want %q", got, want)
	}

	el := kmsg.NewPtrElectLeadersRequest()
	el.Version = 2
	c.sendReq(el, 10, nil)
	c.readResp(43, 2, 10, true)
}

// TestKgoFlexibleRoundTrip sends a flexible request through a real client.
func TestKgoFlexibleRoundTrip(t *testing.T) {
	seen := make(chan *Request, 1)
	m := NewMux()
	mustRegister(t, m, Route{VersionRange: VersionRange{60, 0, 1}, Handler: metadataHandler(seen)})
	_, addr := startServer(t, Config{Mux: m})
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ClientID("kgo-test"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	resp, err := kmsg.NewPtrDescribeClusterRequest().RequestWith(ctx, cl)
	if err != nil {
		t.Fatalf("DescribeCluster via kgo: %v", err)
	}
	req := recv(t, seen, "request")
	if req.Version != 1 || req.ClientID != "kgo-test" || resp.Version != 1 {
		t.Fatalf("request v%d client %q, response v%d", req.Version, req.ClientID, resp.Version)
	}
}

func TestLogFields(t *testing.T) {
	var mu sync.Mutex
	var buf bytes.Buffer
	w := zerolog.SyncWriter(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return buf.Write(p)
	}))
	_, addr := serveLoopback(t, Config{Logger: zerolog.New(w).Level(zerolog.InfoLevel)})
	c := dialRaw(t, addr)
	c.write(frameOf(headerBytes(19, 7, 4242, 0xff, 0xff, 0)))
	c.expectClosed()
	waitFor(t, "the log line", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return strings.Contains(buf.String(), "unsupported api key or version")
	})
	mu.Lock()
	line := buf.String()
	mu.Unlock()
	for _, want := range []string{`"remote":"` + c.nc.LocalAddr().String() + `"`, `"key":19`, `"api":"CreateTopics"`, `"version":7`, `"correlation_id":4242`} {
		if !strings.Contains(line, want) {
			t.Errorf("log %s lacks %s", line, want)
		}
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func TestNewRejectsNegativeSize(t *testing.T) {
	if _, err := New(Config{MaxRequestSize: -1}); err == nil {
		t.Fatal("New accepted a negative MaxRequestSize")
	}
}

func TestServeAfterClose(t *testing.T) {
	s, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Serve(ln); !errors.Is(err, ErrServerClosed) {
		t.Fatalf("Serve after Close = %v", err)
	}
	if _, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		t.Fatal("listener still open after Serve returned")
	}
}

func TestPrincipalHook(t *testing.T) {
	seen := make(chan *Request, 1)
	m := NewMux()
	mustRegister(t, m, Route{VersionRange: VersionRange{3, 0, 12}, Handler: metadataHandler(seen)})
	alice := Principal{Type: "User", Name: "alice"}
	_, addr := startServer(t, Config{Mux: m, Principal: func(net.Conn) Principal { return alice }})
	c := dialRaw(t, addr)
	md := kmsg.NewPtrMetadataRequest()
	md.Version = 1
	c.sendReq(md, 1, nil)
	if got := recv(t, seen, "request").Principal; got != alice || got.String() != "User:alice" {
		t.Fatalf("principal %v", got)
	}
	c.readResp(3, 1, 1, false)
}

// scriptedListener hands out a fixed sequence of Accept results.
type scriptedListener struct {
	results chan acceptResult
	closed  chan struct{}
	once    sync.Once
}

type acceptResult struct {
	nc  net.Conn
	err error
}

type temporaryError struct{}

func (temporaryError) Error() string   { return "too many open files" }
func (temporaryError) Temporary() bool { return true }
func (temporaryError) Timeout() bool   { return false }

func (l *scriptedListener) Accept() (net.Conn, error) {
	select {
	case r := <-l.results:
		return r.nc, r.err
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *scriptedListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *scriptedListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)} }

// TestServeAcceptErrors: a temporary accept error is retried after a
// backoff, a permanent one ends Serve with that error.
func TestServeAcceptErrors(t *testing.T) {
	s, err := New(Config{Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close(); s.connWG.Wait() })
	server, client := net.Pipe()
	defer client.Close()
	ln := &scriptedListener{results: make(chan acceptResult, 3), closed: make(chan struct{})}
	ln.results <- acceptResult{err: temporaryError{}}
	ln.results <- acceptResult{nc: server}
	ln.results <- acceptResult{err: errors.New("boom")}
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	if err := recv(t, served, "Serve"); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("Serve = %v, want the permanent error", err)
	}
	// The connection accepted after the retry is being served.
	f := kmsg.NewRequestFormatter()
	go func() { _, _ = client.Write(f.AppendRequest(nil, kmsg.NewPtrApiVersionsRequest(), 5)) }()
	_ = client.SetReadDeadline(time.Now().Add(waitTimeout))
	frame, err := readFrame(client, 1<<20)
	if err != nil || int32(binary.BigEndian.Uint32(frame)) != 5 {
		t.Fatalf("response %x, %v", frame, err)
	}
}
