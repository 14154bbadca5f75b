package brokerchan

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// waitTimeout bounds every wait on a condition in these tests.
const waitTimeout = 10 * time.Second

// notifier lets a test wait for a condition on state guarded by mu
// without sleeping: every change closes the current channel.
type notifier struct {
	mu sync.Mutex
	ch chan struct{}
}

// changedLocked wakes waiters; call with mu held.
func (n *notifier) changedLocked() {
	if n.ch != nil {
		close(n.ch)
	}
	n.ch = make(chan struct{})
}

// waitUntil waits until cond (called with mu held) is true.
func (n *notifier) waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(waitTimeout)
	defer deadline.Stop()
	for {
		n.mu.Lock()
		if cond() {
			n.mu.Unlock()
			return
		}
		if n.ch == nil {
			n.ch = make(chan struct{})
		}
		ch := n.ch
		n.mu.Unlock()
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// action is what the test server does with one request.
type action int

const (
	respond action = iota
	drop           // close the connection without answering
	partial        // write part of the response, then close
	hang           // never answer; wait for the client to give up
	badCorr        // answer with the wrong correlation id
)

// received is one request as the test server decoded it.
type received struct {
	conn          int
	headerVersion int
	clientID      *string
	corr          int32
	req           kmsg.Request
}

// marker identifies a test request: its ControllerEpoch.
func marker(req kmsg.Request) int32 {
	switch r := req.(type) {
	case *kmsg.LeaderAndISRRequest:
		return r.ControllerEpoch
	case *kmsg.UpdateMetadataRequest:
		return r.ControllerEpoch
	case *kmsg.StopReplicaRequest:
		return r.ControllerEpoch
	}
	return -1
}

// testServer speaks just enough Kafka to answer control requests. decide
// picks the action for a request, given how often its marker was seen
// before.
type testServer struct {
	t      *testing.T
	ln     net.Listener
	decide func(r received, attempt int) action

	notifier
	log    []received
	conns  map[net.Conn]struct{}
	nconns int
	closed bool
	wg     sync.WaitGroup
}

func startTestServer(t *testing.T, decide func(r received, attempt int) action) *testServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	if decide == nil {
		decide = func(received, int) action { return respond }
	}
	s := &testServer{t: t, ln: ln, decide: decide, conns: map[net.Conn]struct{}{}}
	s.wg.Add(1)
	go s.accept()
	t.Cleanup(s.close)
	return s
}

func (s *testServer) addr() string { return s.ln.Addr().String() }

func (s *testServer) accept() {
	defer s.wg.Done()
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			_ = nc.Close()
			return
		}
		s.nconns++
		s.conns[nc] = struct{}{}
		s.wg.Add(1)
		go s.serve(nc, s.nconns)
		s.mu.Unlock()
	}
}

// close stops accepting, closes every connection and waits for all the
// server's goroutines.
func (s *testServer) close() {
	s.mu.Lock()
	s.closed = true
	for nc := range s.conns {
		_ = nc.Close()
	}
	s.mu.Unlock()
	_ = s.ln.Close()
	s.wg.Wait()
}

func (s *testServer) serve(nc net.Conn, connNo int) {
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		delete(s.conns, nc)
		s.mu.Unlock()
		_ = nc.Close()
	}()
	r := bufio.NewReader(nc)
	for {
		rec, err := readTestRequest(r)
		if err != nil {
			return // the client closed, or the test is over
		}
		rec.conn = connNo
		s.mu.Lock()
		attempt := 0
		for _, prev := range s.log {
			if marker(prev.req) == marker(rec.req) {
				attempt++
			}
		}
		s.log = append(s.log, rec)
		s.changedLocked()
		s.mu.Unlock()
		if !s.act(nc, rec, s.decide(rec, attempt)) {
			return
		}
	}
}

// act carries out an action; false means the connection is done.
func (s *testServer) act(nc net.Conn, rec received, a action) bool {
	switch a {
	case drop:
		return false
	case hang:
		return true
	case partial:
		_, _ = nc.Write(testResponse(rec, rec.corr)[:6])
		return false
	case badCorr:
		_, _ = nc.Write(testResponse(rec, rec.corr+1000))
		return true
	}
	_, err := nc.Write(testResponse(rec, rec.corr))
	return err == nil
}

// readTestRequest reads and decodes one request frame.
func readTestRequest(r io.Reader) (received, error) {
	var prefix [4]byte
	if _, err := io.ReadFull(r, prefix[:]); err != nil {
		return received{}, err
	}
	frame := make([]byte, binary.BigEndian.Uint32(prefix[:]))
	if _, err := io.ReadFull(r, frame); err != nil {
		return received{}, err
	}
	b := kbin.Reader{Src: frame}
	key, version, corr := b.Int16(), b.Int16(), b.Int32()
	req := kmsg.RequestForKey(key)
	if req == nil {
		return received{}, fmt.Errorf("unknown key %d", key)
	}
	req.SetVersion(version)
	rec := received{headerVersion: 1, corr: corr, req: req}
	rec.clientID = b.NullableString()
	if req.IsFlexible() {
		rec.headerVersion = 2
		kmsg.SkipTags(&b)
	}
	if err := b.Complete(); err != nil {
		return received{}, err
	}
	if err := req.ReadFrom(b.Src); err != nil {
		return received{}, fmt.Errorf("decode %s v%d: %w", kmsg.NameForKey(key), version, err)
	}
	return rec, nil
}

// testResponse encodes the response to rec, with the request's marker as
// its error code so the client can tell responses apart.
func testResponse(rec received, corr int32) []byte {
	resp := rec.req.ResponseKind()
	resp.SetVersion(rec.req.GetVersion())
	m := int16(marker(rec.req))
	switch r := resp.(type) {
	case *kmsg.LeaderAndISRResponse:
		r.ErrorCode = m
	case *kmsg.UpdateMetadataResponse:
		r.ErrorCode = m
	case *kmsg.StopReplicaResponse:
		r.ErrorCode = m
	}
	body := kbin.AppendInt32(nil, corr)
	if rec.req.IsFlexible() {
		body = append(body, 0)
	}
	body = resp.AppendTo(body)
	return append(kbin.AppendInt32(nil, int32(len(body))), body...)
}

// markers returns the markers the server received, in order.
func (s *testServer) markers() []int32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]int32, len(s.log))
	for i, r := range s.log {
		out[i] = marker(r.req)
	}
	return out
}

// waitReceived waits until the server saw n requests.
func (s *testServer) waitReceived(t *testing.T, n int) {
	t.Helper()
	s.waitUntil(t, fmt.Sprintf("%d requests at the server", n), func() bool { return len(s.log) >= n })
}

// outcome is one callback call.
type outcome struct {
	marker int32
	resp   kmsg.Response
	err    error
}

// recorder collects callback calls.
type recorder struct {
	notifier
	got []outcome
}

func (r *recorder) cb(m int32) Callback {
	return func(resp kmsg.Response, err error) {
		r.mu.Lock()
		r.got = append(r.got, outcome{marker: m, resp: resp, err: err})
		r.changedLocked()
		r.mu.Unlock()
	}
}

func (r *recorder) outcomes() []outcome {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]outcome(nil), r.got...)
}

func (r *recorder) waitN(t *testing.T, n int) []outcome {
	t.Helper()
	r.waitUntil(t, fmt.Sprintf("%d callbacks", n), func() bool { return len(r.got) >= n })
	return r.outcomes()
}

// responseMarker returns the marker a test response carries.
func responseMarker(resp kmsg.Response) int32 {
	switch r := resp.(type) {
	case *kmsg.LeaderAndISRResponse:
		return int32(r.ErrorCode)
	case *kmsg.UpdateMetadataResponse:
		return int32(r.ErrorCode)
	case *kmsg.StopReplicaResponse:
		return int32(r.ErrorCode)
	}
	return -1
}
