package wire

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// fuzzMaxRequest keeps the size limit reachable for the fuzzer.
const fuzzMaxRequest = 1 << 16

// memConn is a net.Conn whose reads come from a fixed input and end in
// io.EOF, and whose writes are collected, so a whole connection can be
// served synchronously without a socket.
type memConn struct {
	in     *bytes.Reader
	out    bytes.Buffer
	closed atomic.Bool
}

func (c *memConn) Read(p []byte) (int, error) {
	if c.closed.Load() {
		return 0, net.ErrClosed
	}
	return c.in.Read(p)
}

func (c *memConn) Write(p []byte) (int, error) {
	if c.closed.Load() {
		return 0, net.ErrClosed
	}
	return c.out.Write(p)
}

func (c *memConn) Close() error                     { c.closed.Store(true); return nil }
func (c *memConn) LocalAddr() net.Addr              { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 9092} }
func (c *memConn) RemoteAddr() net.Addr             { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 50000} }
func (c *memConn) SetDeadline(time.Time) error      { return nil }
func (c *memConn) SetReadDeadline(time.Time) error  { return nil }
func (c *memConn) SetWriteDeadline(time.Time) error { return nil }

// fuzzMux registers handlers that exercise every dispatch outcome: a normal
// answer (Metadata, header v1 and v2), header v0 (ControlledShutdown v0), a
// handler error (CreateTopics with more than two topics), no answer
// (DeleteTopics) and a custom decoder past kmsg's max (ElectLeaders v3).
func fuzzMux(t testing.TB) *Mux {
	answer := HandlerFunc(func(_ context.Context, req *Request) (kmsg.Response, error) {
		return req.Body.ResponseKind(), nil
	})
	failMany := HandlerFunc(func(_ context.Context, req *Request) (kmsg.Response, error) {
		if len(req.Body.(*kmsg.CreateTopicsRequest).Topics) > 2 {
			return nil, errors.New("too many topics")
		}
		return req.Body.ResponseKind(), nil
	})
	silent := HandlerFunc(func(context.Context, *Request) (kmsg.Response, error) { return nil, nil })
	electV3 := Decoder{Flexible: true, Decode: func(b []byte) (kmsg.Request, error) {
		r := kmsg.NewPtrElectLeadersRequest()
		r.Version = 2 // v3's stand-in layout for the fuzzer
		return r, r.ReadFrom(b)
	}}
	m := NewMux()
	for _, r := range []Route{
		{VersionRange: VersionRange{3, 0, 12}, Handler: answer},
		{VersionRange: VersionRange{7, 0, 3}, Handler: answer},
		{VersionRange: VersionRange{19, 0, 7}, Handler: failMany},
		{VersionRange: VersionRange{20, 0, 6}, Handler: silent},
		{VersionRange: VersionRange{43, 0, 3}, Handler: answer, Decoders: map[int16]Decoder{3: electV3}},
	} {
		if err := m.Register(r); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// FuzzServeConn feeds arbitrary bytes to one connection. It must never
// panic, must always end with the connection closed, and every response
// must answer the input's request frames in order, skipping only the
// requests whose handler answers nothing; once a frame is refused nothing
// after it is answered.
func FuzzServeConn(f *testing.F) {
	for _, seed := range fuzzSeeds() {
		f.Add(seed)
	}
	s, err := New(Config{Mux: fuzzMux(f), MaxRequestSize: fuzzMaxRequest, Logger: zerolog.Nop()})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out := serveMem(t, s, in)
		checkResponses(t, in, out)
	})
}

// serveMem serves one in-memory connection reading in to its end and
// returns what the server wrote. It fails t on a recovered panic or if the
// connection is left open.
func serveMem(t *testing.T, s *Server, in []byte) []byte {
	t.Helper()
	mc := &memConn{in: bytes.NewReader(in)}
	c := s.newConn(mc)
	if !s.trackConn(c) {
		t.Fatal("server refused the connection")
	}
	s.serveConn(c) // returns once the input is used up or refused
	if n := s.panics.Swap(0); n != 0 {
		t.Fatalf("%d panics recovered", n)
	}
	if !mc.closed.Load() {
		t.Fatal("connection left open")
	}
	return mc.out.Bytes()
}

// TestFuzzSeedsAnswered pins how many responses each seed gets, so the
// seeds keep reaching the paths they were written for.
func TestFuzzSeedsAnswered(t *testing.T) {
	s, err := New(Config{Mux: fuzzMux(t), MaxRequestSize: fuzzMaxRequest, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	want := []int{1, 2, 3, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0}
	seeds := fuzzSeeds()
	if len(seeds) != len(want) {
		t.Fatalf("%d seeds, %d expectations", len(seeds), len(want))
	}
	for i, in := range seeds {
		out := serveMem(t, s, in)
		checkResponses(t, in, out)
		if got := len(splitFrames(out, 1<<30)); got != want[i] {
			t.Errorf("seed %d: %d responses, want %d", i, got, want[i])
		}
	}
}

// checkResponses matches response frames against the input's request
// frames in order. DeleteTopics (key 20) is never answered: its handler
// answers nothing, and an unsupported version closes the connection.
func checkResponses(t *testing.T, in, out []byte) {
	reqs := splitFrames(in, fuzzMaxRequest)
	resps := splitFrames(out, 1<<30)
	total, i := 0, 0
	for n, resp := range resps {
		total += 4 + len(resp)
		if len(resp) < 4 {
			t.Fatalf("response %d is %d bytes", n, len(resp))
		}
		corr := int32(binary.BigEndian.Uint32(resp))
		for i < len(reqs) && isDeleteTopics(reqs[i]) {
			i++
		}
		if i == len(reqs) {
			t.Fatalf("response %d (correlation id %d) answers no request", n, corr)
		}
		h, _, err := parseHeaderStart(reqs[i])
		if err != nil || h.correlationID != corr {
			t.Fatalf("response %d has correlation id %d; request frame %d is %+v (%v)", n, corr, i, h, err)
		}
		i++
	}
	if total != len(out) {
		t.Fatalf("response stream has %d trailing bytes", len(out)-total)
	}
}

func isDeleteTopics(frame []byte) bool {
	h, _, err := parseHeaderStart(frame)
	return err == nil && h.key == 20
}

// splitFrames cuts b into size-prefixed frames, stopping at the first
// invalid or truncated one.
func splitFrames(b []byte, maxSize int32) [][]byte {
	var frames [][]byte
	for {
		frame, err := readFrame(bytes.NewReader(b), maxSize)
		if err != nil {
			return frames
		}
		frames = append(frames, frame)
		b = b[4+len(frame):]
	}
}

// fuzzSeeds are well-formed and nearly well-formed connections; the same
// inputs are committed under testdata/fuzz/FuzzServeConn.
func fuzzSeeds() [][]byte {
	f := kmsg.NewRequestFormatter(kmsg.FormatterClientID("seed"))
	req := func(r kmsg.Request, v int16, corr int32) []byte {
		r.SetVersion(v)
		return f.AppendRequest(nil, r, corr)
	}
	apiVersions := kmsg.NewPtrApiVersionsRequest()
	apiVersions.ClientSoftwareName, apiVersions.ClientSoftwareVersion = "seed", "1"
	md := kmsg.NewPtrMetadataRequest()
	md.Topics = []kmsg.MetadataRequestTopic{{Topic: kmsg.StringPtr("t")}}
	ct := kmsg.NewPtrCreateTopicsRequest()
	ct.Topics = []kmsg.CreateTopicsRequestTopic{{Topic: "a", NumPartitions: 1, ReplicationFactor: 1}}
	cs := kmsg.NewPtrControlledShutdownRequest()
	el := kmsg.NewPtrElectLeadersRequest()
	md9 := kmsg.NewPtrMetadataRequest()
	md9.Version = 9
	headerTags := kbin.AppendNullableString(headerBytes(3, 9, 8), nil)
	headerTags = md9.AppendTo(append(headerTags, 1, 4, 2, 'h', 'i')) // one header tag
	elV3 := kmsg.NewPtrElectLeadersRequest()
	elV3.Version = 2
	elV3Frame := elV3.AppendTo(append(kbin.AppendNullableString(headerBytes(43, 3, 12), nil), 0))
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	return [][]byte{
		req(apiVersions, 0, 1),
		cat(req(apiVersions, 5, 1), req(apiVersions, 4, 2)),
		cat(req(apiVersions, 3, 1), req(md, 1, 2), req(md, 12, 3)),
		req(ct, 5, 4),
		cat(req(kmsg.NewPtrDeleteTopicsRequest(), 6, 5), req(md, 0, 6)),
		frameOf(cs.AppendTo(headerBytes(7, 0, 7))),
		frameOf(headerTags),
		frameOf(elV3Frame),
		req(el, 2, 13),
		cat(req(md, 4, 1), frameOf(headerBytes(19, 99, 2, 0xff, 0xff))),
		binary.BigEndian.AppendUint32(nil, fuzzMaxRequest+1),
		req(md, 3, 1)[:10],
		[]byte{0, 0, 0, 8, 0, 18, 0, 0, 0, 0, 0, 1},
	}
}
