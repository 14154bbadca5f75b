package brokerchan

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// pipeRoundTrip sends req over an in-memory connection whose far end reads
// the request and answers with reply(corr) (nil: no answer, keep the
// connection open until the client is done).
func pipeRoundTrip(t *testing.T, ctx context.Context, req kmsg.Request, timeout time.Duration,
	reply func(corr int32) []byte) (kmsg.Response, error) {
	t.Helper()
	client, server := net.Pipe()
	c := &conn{nc: client, r: bufio.NewReader(client), clientID: "1", maxResponse: 1 << 20}
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
		if reply == nil {
			_, _ = io.Copy(io.Discard, server) // until the client closes
			return
		}
		_, _ = server.Write(reply(rec.corr))
	}()
	resp, err := c.roundTrip(ctx, req, timeout)
	_ = c.close()
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

func TestConnDecodesResponse(t *testing.T) {
	req := kmsg.NewPtrStopReplicaRequest()
	req.Version = 3 // flexible: response header v1 with tagged fields
	resp, err := pipeRoundTrip(t, context.Background(), req, time.Second, func(corr int32) []byte {
		body := kmsg.NewPtrStopReplicaResponse()
		body.Version = 3
		body.ErrorCode = 11
		body.Partitions = []kmsg.StopReplicaResponsePartition{{Topic: "t", Partition: 2, ErrorCode: 56}}
		return frame(kbin.AppendInt32(nil, corr), []byte{0}, body.AppendTo(nil))
	})
	if err != nil {
		t.Fatal(err)
	}
	sr := resp.(*kmsg.StopReplicaResponse)
	if sr.Version != 3 || sr.ErrorCode != 11 || len(sr.Partitions) != 1 || sr.Partitions[0].ErrorCode != 56 {
		t.Errorf("response %s", dump(sr))
	}
}

// TestConnApiVersionsHeader: ApiVersions answers with response header v0
// even for flexible versions (KIP-511); the connection must not look for
// tagged fields there.
func TestConnApiVersionsHeader(t *testing.T) {
	req := kmsg.NewPtrApiVersionsRequest()
	req.Version = 3
	resp, err := pipeRoundTrip(t, context.Background(), req, time.Second, func(corr int32) []byte {
		body := kmsg.NewPtrApiVersionsResponse()
		body.Version = 3
		body.ApiKeys = []kmsg.ApiVersionsResponseApiKey{{ApiKey: 4, MinVersion: 0, MaxVersion: 7}}
		return frame(kbin.AppendInt32(nil, corr), body.AppendTo(nil))
	})
	if err != nil {
		t.Fatal(err)
	}
	if av := resp.(*kmsg.ApiVersionsResponse); len(av.ApiKeys) != 1 || av.ApiKeys[0].MaxVersion != 7 {
		t.Errorf("response %s", dump(av))
	}
}

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
		if !c.check(err) {
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
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
