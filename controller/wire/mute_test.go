package wire

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// throttlingMux answers CreateTopics with the given throttle time and
// reports when each request reaches the handler.
func throttlingMux(t *testing.T, throttle int32, handled chan<- time.Time) *Mux {
	m := NewMux()
	mustRegister(t, m, Route{VersionRange: VersionRange{19, 0, 7}, Handler: HandlerFunc(
		func(ctx context.Context, req *Request) (kmsg.Response, error) {
			handled <- time.Now()
			resp := req.Body.ResponseKind().(*kmsg.CreateTopicsResponse)
			resp.ThrottleMillis = throttle
			return resp, nil
		})})
	return m
}

// TestThrottledResponseMutesConnection: after a response with a throttle
// time the connection reads no request until it has passed, as Kafka
// mutes a throttled channel; the response itself is not delayed.
func TestThrottledResponseMutesConnection(t *testing.T) {
	handled := make(chan time.Time, 2)
	_, addr := startServer(t, Config{Mux: throttlingMux(t, 300, handled)})
	c := dialRaw(t, addr)
	req := kmsg.NewPtrCreateTopicsRequest()
	req.Version = 6
	// Both requests are sent at once; the second waits in the socket.
	c.sendReq(req, 1, nil)
	c.sendReq(req, 2, nil)
	first := recv(t, handled, "the first request")
	if got := c.readResp(19, 6, 1, true).(*kmsg.CreateTopicsResponse); got.ThrottleMillis != 300 {
		t.Fatalf("throttle %d", got.ThrottleMillis)
	}
	second := recv(t, handled, "the second request")
	if gap := second.Sub(first); gap < 300*time.Millisecond {
		t.Fatalf("the second request was read %s after the first, within the 300 ms throttle", gap)
	}
	c.readResp(19, 6, 2, true)
}

// TestShutdownEndsMute: a connection muted for a long throttle time is
// idle, so Shutdown closes it at once instead of waiting the time out.
func TestShutdownEndsMute(t *testing.T) {
	handled := make(chan time.Time, 1)
	s, addr := startServer(t, Config{Mux: throttlingMux(t, 3_600_000, handled)})
	c := dialRaw(t, addr)
	req := kmsg.NewPtrCreateTopicsRequest()
	req.Version = 6
	c.sendReq(req, 1, nil)
	recv(t, handled, "the request")
	c.readResp(19, 6, 1, true)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown with a muted connection: %v", err)
	}
	c.expectClosed()
}
