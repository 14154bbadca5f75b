package brokerchan

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// pipeRoundTrip sends req over an in-memory connection opened through
// dialConn, so the settings it passes to kafkaconn (client id "1", a 1 MiB
// response bound, timeout) are the ones under test. The far end reads the
// request and answers with reply(corr) (nil: no answer, keep the
// connection open until the client is done).
func pipeRoundTrip(t *testing.T, ctx context.Context, req kmsg.Request, timeout time.Duration,
	reply func(corr int32) []byte) (kmsg.Response, error) {
	t.Helper()
	client, server := net.Pipe()
	set := settings{
		clientID: "1", connectTimeout: time.Second, requestTimeout: timeout, maxResponse: 1 << 20,
		dial: func(context.Context, string, string) (net.Conn, error) { return client, nil },
	}
	c, err := dialConn(context.Background(), set, "pipe")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer server.Close()
		rec, err := readTestRequest(server)
		if err != nil {
			if reply != nil { // a cancelled client may write nothing
				t.Errorf("far end: %v", err)
			}
			return
		}
		if rec.clientID == nil || *rec.clientID != "1" {
			t.Errorf("far end: client id %v, want 1", rec.clientID)
		}
		if reply == nil {
			_, _ = io.Copy(io.Discard, server) // until the client closes
			return
		}
		_, _ = server.Write(reply(rec.corr))
	}()
	resp, err := c.RoundTrip(ctx, req)
	_ = c.Close()
	<-done
	return resp, err
}

func frame(parts ...[]byte) []byte {
	var body []byte
	for _, p := range parts {
		body = append(body, p...)
	}
	return append(kbin.AppendInt32(nil, int32(len(body))), body...)
}

// TestConnErrors: the typed errors stay reachable through this package's
// aliases, and every error names the request and the broker.
func TestConnErrors(t *testing.T) {
	um := func() kmsg.Request { r := kmsg.NewPtrUpdateMetadataRequest(); r.Version = 5; return r }
	cases := []struct {
		name  string
		reply func(corr int32) []byte
		check func(error) bool
	}{
		{"wrong correlation id", func(corr int32) []byte {
			return frame(kbin.AppendInt32(nil, corr+1), []byte{0, 0})
		}, func(err error) bool { var ce *CorrelationError; return errors.As(err, &ce) && ce.Got == ce.Want+1 }},
		{"oversized frame", func(int32) []byte {
			return kbin.AppendInt32(nil, 2<<20)
		}, func(err error) bool { var se *ResponseSizeError; return errors.As(err, &se) && se.Max == 1<<20 }},
		{"negative size", func(int32) []byte {
			return kbin.AppendInt32(nil, -5)
		}, func(err error) bool { var se *ResponseSizeError; return errors.As(err, &se) }},
		{"truncated frame", func(corr int32) []byte {
			return frame(kbin.AppendInt32(nil, corr), []byte{0, 0})[:7]
		}, func(err error) bool { return errors.Is(err, io.ErrUnexpectedEOF) }},
		{"short body", func(corr int32) []byte {
			return frame(kbin.AppendInt32(nil, corr), []byte{0})
		}, func(err error) bool { return err != nil }},
	}
	for _, c := range cases {
		_, err := pipeRoundTrip(t, context.Background(), um(), time.Second, c.reply)
		if !c.check(err) || !strings.Contains(fmt.Sprint(err), "UpdateMetadata v5 to pipe: ") {
			t.Errorf("%s: err %v", c.name, err)
		}
	}
}

func TestConnTimeoutAndCancel(t *testing.T) {
	req := kmsg.NewPtrUpdateMetadataRequest()
	_, err := pipeRoundTrip(t, context.Background(), req, 20*time.Millisecond, nil)
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("timeout: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = pipeRoundTrip(t, ctx, req, time.Minute, nil)
	// A context ended before the call sends nothing at all.
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "not sent") {
		t.Errorf("cancelled: %v", err)
	}
}
