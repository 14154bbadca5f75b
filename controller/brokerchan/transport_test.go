package brokerchan

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/internal/kafkaconn"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// testRequest builds a control request of kind (0 LeaderAndIsr, 1
// UpdateMetadata, 2 StopReplica) at version, tagged with marker m.
func testRequest(kind int, version int16, m int32) kmsg.Request {
	switch kind {
	case 0:
		r := kmsg.NewPtrLeaderAndISRRequest()
		r.Version, r.ControllerID, r.ControllerEpoch, r.BrokerEpoch = version, 7, m, 55
		return r
	case 1:
		r := kmsg.NewPtrUpdateMetadataRequest()
		r.Version, r.ControllerID, r.ControllerEpoch = version, 7, m
		r.LiveBrokers = []kmsg.UpdateMetadataRequestLiveBroker{{ID: 1, Host: "h", Port: 1}}
		return r
	}
	r := kmsg.NewPtrStopReplicaRequest()
	r.Version, r.ControllerID, r.ControllerEpoch = version, 7, m
	return r
}

func umRequest(m int32) kmsg.Request { return testRequest(1, 8, m) }

func newTestManager(t *testing.T, cfg ManagerConfig) *Manager {
	t.Helper()
	if cfg.ControllerID == 0 {
		cfg.ControllerID = 7
	}
	if cfg.RetryBackoff == 0 {
		cfg.RetryBackoff = time.Millisecond
	}
	m, err := NewManager(cfg)
	if err != nil {
		t.Fatalf("NewManager: %v", err)
	}
	t.Cleanup(m.Close)
	return m
}

func mustSend(t *testing.T, m *Manager, broker int32, req kmsg.Request, cb Callback) {
	t.Helper()
	if err := m.Send(broker, req, cb); err != nil {
		t.Fatalf("Send to %d: %v", broker, err)
	}
}

// assertAnswered checks that outcomes are responses, in marker order want.
func assertAnswered(t *testing.T, got []outcome, want ...int32) {
	t.Helper()
	var markers []int32
	for _, o := range got {
		if o.err != nil || o.resp == nil {
			t.Errorf("request %d: resp %v err %v", o.marker, o.resp, o.err)
			continue
		}
		if rm := responseMarker(o.resp); rm != o.marker {
			t.Errorf("request %d got the response to %d", o.marker, rm)
		}
		markers = append(markers, o.marker)
	}
	if !slices.Equal(markers, want) {
		t.Errorf("answered %v, want %v", markers, want)
	}
}

// TestInOrderDelivery sends a mix of kinds and versions (flexible and not)
// and checks order, headers and the decoded bytes at the server.
func TestInOrderDelivery(t *testing.T) {
	srv := startTestServer(t, nil)
	m := newTestManager(t, ManagerConfig{})
	if err := m.AddBroker(1, srv.addr(), 10); err != nil {
		t.Fatal(err)
	}
	kinds := []struct {
		kind    int
		version int16
	}{{0, 7}, {1, 5}, {2, 0}, {0, 0}, {1, 8}, {2, 4}}
	var sent []kmsg.Request
	var rec recorder
	var want []int32
	for i := range 30 {
		k := kinds[i%len(kinds)]
		req := testRequest(k.kind, k.version, int32(i+1))
		sent = append(sent, req)
		want = append(want, int32(i+1))
		mustSend(t, m, 1, req, rec.cb(int32(i+1)))
	}
	assertAnswered(t, rec.waitN(t, 30), want...)
	if got := srv.markers(); !slices.Equal(got, want) {
		t.Errorf("server order %v", got)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	for i, r := range srv.log {
		wantHV := 1
		if sent[i].IsFlexible() {
			wantHV = 2
		}
		if r.headerVersion != wantHV || r.clientID == nil || *r.clientID != "7" {
			t.Errorf("request %d: header v%d client id %v, want v%d \"7\"", i+1, r.headerVersion, r.clientID, wantHV)
		}
		if want := decodeAsBroker(t, sent[i]); !sameRequest(r.req, want) {
			t.Errorf("request %d: server decoded %s, want %s", i+1, dump(r.req), dump(want))
		}
	}
	if srv.nconns != 1 {
		t.Errorf("%d connections, want 1", srv.nconns)
	}
}

// TestResendAfterFailures: the server drops the connection after reading a
// request, sends half a response, and answers with a wrong correlation id;
// each time the channel reconnects and resends the same request, and the
// order holds.
func TestResendAfterFailures(t *testing.T) {
	srv := startTestServer(t, func(r received, attempt int) action {
		if attempt > 0 {
			return respond
		}
		return map[int32]action{2: drop, 4: partial, 5: badCorr}[marker(r.req)]
	})
	m := newTestManager(t, ManagerConfig{})
	if err := m.AddBroker(1, srv.addr(), 10); err != nil {
		t.Fatal(err)
	}
	var rec recorder
	for i := int32(1); i <= 6; i++ {
		mustSend(t, m, 1, testRequest(int(i%3), 4, i), rec.cb(i))
	}
	assertAnswered(t, rec.waitN(t, 6), 1, 2, 3, 4, 5, 6)
	if got, want := srv.markers(), []int32{1, 2, 2, 3, 4, 4, 5, 5, 6}; !slices.Equal(got, want) {
		t.Errorf("server saw %v, want %v", got, want)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.nconns != 4 {
		t.Errorf("%d connections, want 4 (one per failure plus the first)", srv.nconns)
	}
}

// TestResendAfterRequestTimeout: an unanswered request is sent again on a
// new connection once RequestTimeout passes.
func TestResendAfterRequestTimeout(t *testing.T) {
	srv := startTestServer(t, func(r received, attempt int) action {
		if attempt == 0 {
			return hang
		}
		return respond
	})
	m := newTestManager(t, ManagerConfig{RequestTimeout: 100 * time.Millisecond})
	if err := m.AddBroker(1, srv.addr(), 10); err != nil {
		t.Fatal(err)
	}
	var rec recorder
	mustSend(t, m, 1, umRequest(1), rec.cb(1))
	assertAnswered(t, rec.waitN(t, 1), 1)
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if len(srv.log) != 2 || srv.log[0].conn == srv.log[1].conn {
		t.Errorf("server log %+v, want the request twice on two connections", srv.log)
	}
}

// TestReconnectAfterDialFailures: connection attempts fail until the
// fourth; the request then goes through.
func TestReconnectAfterDialFailures(t *testing.T) {
	srv := startTestServer(t, nil)
	var mu sync.Mutex
	attempts := 0
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		mu.Lock()
		attempts++
		n := attempts
		mu.Unlock()
		if n <= 3 {
			return nil, fmt.Errorf("attempt %d: %w", n, errors.New("connection refused"))
		}
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}
	m := newTestManager(t, ManagerConfig{Dial: dial})
	if err := m.AddBroker(1, srv.addr(), 10); err != nil {
		t.Fatal(err)
	}
	var rec recorder
	mustSend(t, m, 1, umRequest(1), rec.cb(1))
	assertAnswered(t, rec.waitN(t, 1), 1)
	mu.Lock()
	defer mu.Unlock()
	if attempts != 4 {
		t.Errorf("%d dial attempts, want 4", attempts)
	}
}

// TestRemoveBrokerFailsPending: the request in flight and the queued ones
// fail with ErrBrokerRemoved, in order, before RemoveBroker returns.
func TestRemoveBrokerFailsPending(t *testing.T) {
	srv := startTestServer(t, func(received, int) action { return hang })
	m := newTestManager(t, ManagerConfig{})
	if err := m.AddBroker(1, srv.addr(), 10); err != nil {
		t.Fatal(err)
	}
	var rec recorder
	for i := int32(1); i <= 3; i++ {
		mustSend(t, m, 1, umRequest(i), rec.cb(i))
	}
	srv.waitReceived(t, 1)
	if q, total := m.QueueSize(1), m.TotalQueueSize(); q != 2 || total != 2 {
		t.Errorf("QueueSize %d, TotalQueueSize %d; want 2 and 2 (one in flight)", q, total)
	}
	if !m.RemoveBroker(1) {
		t.Fatal("RemoveBroker(1) = false")
	}
	got := rec.outcomes() // no wait: RemoveBroker returns after the callbacks
	if len(got) != 3 {
		t.Fatalf("%d callbacks after RemoveBroker, want 3", len(got))
	}
	for i, o := range got {
		if o.marker != int32(i+1) || o.resp != nil || !errors.Is(o.err, ErrBrokerRemoved) {
			t.Errorf("callback %d: %+v, want marker %d with ErrBrokerRemoved", i, o, i+1)
		}
	}
	if err := m.Send(1, umRequest(4), rec.cb(4)); !errors.Is(err, ErrUnknownBroker) {
		t.Errorf("Send after RemoveBroker: %v", err)
	}
	if m.RemoveBroker(1) {
		t.Error("second RemoveBroker(1) = true")
	}
	if len(m.Brokers()) != 0 || m.QueueSize(1) != 0 {
		t.Errorf("Brokers %v after removal", m.Brokers())
	}
}

// TestAddBrokerReplaces: the same address and epoch keep the channel; a new
// epoch (a bounced broker) replaces it and fails what the old one held.
func TestAddBrokerReplaces(t *testing.T) {
	srv := startTestServer(t, func(r received, _ int) action {
		if marker(r.req) == 1 {
			return hang
		}
		return respond
	})
	m := newTestManager(t, ManagerConfig{})
	if err := m.AddBroker(1, srv.addr(), 10); err != nil {
		t.Fatal(err)
	}
	var rec recorder
	mustSend(t, m, 1, umRequest(1), rec.cb(1))
	srv.waitReceived(t, 1)
	if err := m.AddBroker(1, srv.addr(), 10); err != nil {
		t.Fatal(err)
	}
	if n := len(rec.outcomes()); n != 0 {
		t.Fatalf("re-adding the same broker ended %d requests", n)
	}
	if err := m.AddBroker(1, srv.addr(), 11); err != nil {
		t.Fatal(err)
	}
	got := rec.outcomes()
	if len(got) != 1 || !errors.Is(got[0].err, ErrBrokerRemoved) {
		t.Fatalf("outcomes after replacement %+v, want request 1 failed with ErrBrokerRemoved", got)
	}
	mustSend(t, m, 1, umRequest(2), rec.cb(2))
	assertAnswered(t, rec.waitN(t, 2)[1:], 2)
	if !slices.Equal(m.Brokers(), []int32{1}) {
		t.Errorf("Brokers %v", m.Brokers())
	}
}

// goroutineLeaks lists the stacks of goroutines that belong to this
// package's channels or connections, or to the test server.
func goroutineLeaks() []string {
	buf := make([]byte, 1<<20)
	n := runtime.Stack(buf, true)
	var out []string
	for _, g := range bytes.Split(buf[:n], []byte("\n\n")) {
		if bytes.Contains(g, []byte("brokerchan.(*channel)")) || bytes.Contains(g, []byte("kafkaconn.(*Conn)")) ||
			bytes.Contains(g, []byte("brokerchan.(*testServer)")) {
			out = append(out, string(g))
		}
	}
	return out
}

// waitNoLeaks waits until no goroutine of ours is left and the goroutine
// count is back to baseline. Close has waited for every channel goroutine
// already; a goroutine may still be returning from its last deferred call.
func waitNoLeaks(t *testing.T, baseline int) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for {
		leaks := goroutineLeaks()
		if len(leaks) == 0 && runtime.NumGoroutine() <= baseline {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines (baseline %d); ours:\n%s", runtime.NumGoroutine(), baseline, leaks)
		}
		runtime.Gosched()
	}
}

// TestCloseFailsEverythingAndLeaksNothing: Close fails requests queued,
// in flight and stuck in reconnect with ErrClosed, waits for every
// goroutine, and the Manager refuses work afterwards.
func TestCloseFailsEverythingAndLeaksNothing(t *testing.T) {
	baseline := runtime.NumGoroutine()
	srv := startTestServer(t, func(r received, _ int) action {
		if marker(r.req)%2 == 0 {
			return hang
		}
		return respond
	})
	unreachable := func(ctx context.Context, _, _ string) (net.Conn, error) {
		return nil, errors.New("no route to host")
	}
	m, err := NewManager(ManagerConfig{ControllerID: 7, RetryBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	dead, err := NewManager(ManagerConfig{ControllerID: 7, RetryBackoff: time.Hour, Dial: unreachable})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []int32{1, 2} {
		if err := m.AddBroker(id, srv.addr(), int64(id)); err != nil {
			t.Fatal(err)
		}
	}
	if err := dead.AddBroker(3, "10.255.255.1:9092", 3); err != nil {
		t.Fatal(err)
	}
	var rec recorder
	mustSend(t, m, 1, umRequest(1), rec.cb(1)) // answered
	mustSend(t, m, 1, umRequest(2), rec.cb(2)) // in flight at Close
	mustSend(t, m, 1, umRequest(4), rec.cb(4)) // queued
	mustSend(t, m, 2, umRequest(6), rec.cb(6)) // in flight at Close
	mustSend(t, dead, 3, umRequest(8), rec.cb(8))
	srv.waitReceived(t, 3)
	m.Close()
	dead.Close() // the backoff of an hour must not delay it
	got := rec.outcomes()
	if len(got) != 5 {
		t.Fatalf("%d callbacks after Close, want 5: %+v", len(got), got)
	}
	for _, o := range got {
		if o.marker == 1 {
			assertAnswered(t, []outcome{o}, 1)
		} else if !errors.Is(o.err, ErrClosed) || o.resp != nil {
			t.Errorf("request %d: %+v, want ErrClosed", o.marker, o)
		}
	}
	if err := m.Send(1, umRequest(9), rec.cb(9)); !errors.Is(err, ErrClosed) {
		t.Errorf("Send after Close: %v", err)
	}
	if err := m.AddBroker(5, srv.addr(), 5); !errors.Is(err, ErrClosed) {
		t.Errorf("AddBroker after Close: %v", err)
	}
	m.Close() // idempotent
	srv.close()
	waitNoLeaks(t, baseline)
}

func TestSendToUnknownBroker(t *testing.T) {
	m := newTestManager(t, ManagerConfig{})
	called := false
	err := m.Send(3, umRequest(1), func(kmsg.Response, error) { called = true })
	if !errors.Is(err, ErrUnknownBroker) || called {
		t.Errorf("Send to unknown broker: %v (callback called: %v)", err, called)
	}
}

func TestNewManagerRejectsNegative(t *testing.T) {
	for _, cfg := range []ManagerConfig{
		{ConnectTimeout: -1}, {RequestTimeout: -1}, {RetryBackoff: -1}, {MaxResponseSize: -1},
	} {
		if _, err := NewManager(cfg); err == nil {
			t.Errorf("NewManager(%+v) accepted", cfg)
		}
	}
	m, err := NewManager(ManagerConfig{ControllerID: 12})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if m.set.clientID != "12" || m.set.requestTimeout != DefaultRequestTimeout ||
		m.set.connectTimeout != DefaultConnectTimeout || m.set.retryBackoff != DefaultRetryBackoff {
		t.Errorf("defaults not applied: %+v", m.set)
	}
}

// TestRequestFrame pins the bytes of the request header the channel's
// connection (kafkaconn) sends: v1 for a non-flexible version (key,
// version, correlation id, client id), v2 adds an empty tagged-field
// section.
func TestRequestFrame(t *testing.T) {
	req := kmsg.NewPtrUpdateMetadataRequest()
	req.Version = 5
	got := kafkaconn.AppendRequest(nil, req, 3, "7")
	body := req.AppendTo(nil)
	want := append([]byte{0, 0, 0, byte(11 + len(body)), 0, 6, 0, 5, 0, 0, 0, 3, 0, 1, '7'}, body...)
	if !bytes.Equal(got, want) {
		t.Errorf("v5 frame % x, want % x", got, want)
	}
	req.Version = 6
	got = kafkaconn.AppendRequest(nil, req, 4, "7")
	body = req.AppendTo(nil)
	want = append([]byte{0, 0, 0, byte(12 + len(body)), 0, 6, 0, 6, 0, 0, 0, 4, 0, 1, '7', 0}, body...)
	if !bytes.Equal(got, want) {
		t.Errorf("v6 frame % x, want % x", got, want)
	}
}

// TestEmitThenSend sends a whole batch through SendBatch to three brokers
// served by the test server: each broker gets its requests in Kafka's
// order, decoded exactly as built, while the UpdateMetadata requests share
// their slices across goroutines (the race detector watches).
func TestEmitThenSend(t *testing.T) {
	srv := startTestServer(t, nil)
	m := newTestManager(t, ManagerConfig{ControllerID: testControllerID})
	for id := int32(1); id <= 3; id++ {
		if err := m.AddBroker(id, srv.addr(), 100+int64(id)); err != nil {
			t.Fatal(err)
		}
	}
	reqs := runScenario(t, config.IBPLatest)
	var mu sync.Mutex
	got := map[int32][]string{}
	done := make(chan struct{}, len(reqs))
	err := m.SendBatch(append(reqs, Request{Broker: 9, Msg: umRequest(1)}), func(r Request, resp kmsg.Response, err error) {
		name := "error"
		if err == nil && resp != nil && resp.Key() == r.Msg.Key() {
			name = kmsg.NameForKey(resp.Key())
		}
		mu.Lock()
		got[r.Broker] = append(got[r.Broker], name)
		mu.Unlock()
		done <- struct{}{}
	})
	if !errors.Is(err, ErrUnknownBroker) {
		t.Errorf("SendBatch with broker 9: %v, want ErrUnknownBroker", err)
	}
	for range reqs {
		select {
		case <-done:
		case <-time.After(waitTimeout):
			t.Fatal("timed out waiting for the batch")
		}
	}
	want := map[int32][]string{
		1: {"LeaderAndISR", "UpdateMetadata"},
		2: {"LeaderAndISR", "UpdateMetadata"},
		3: {"UpdateMetadata", "StopReplica"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("responses per broker %v, want %v", got, want)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	for _, rec := range srv.log {
		var built kmsg.Request
		for _, r := range reqs {
			if r.Msg.Key() == rec.req.Key() && sameRequest(r.Msg, rec.req) {
				built = r.Msg
			}
		}
		if built == nil {
			t.Errorf("server decoded a request not built by the batch: %s", dump(rec.req))
		}
	}
}
