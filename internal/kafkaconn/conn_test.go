package kafkaconn

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func stopReplicaReply(version int16, code int16) reply {
	return func(h header) []byte {
		body := kmsg.NewPtrStopReplicaResponse()
		body.Version = version
		body.ErrorCode = code
		body.Partitions = []kmsg.StopReplicaResponsePartition{{Topic: "t", Partition: 2, ErrorCode: 56}}
		hdr := kbin.AppendInt32(nil, h.corr)
		if body.IsFlexible() {
			hdr = append(hdr, 0) // response header v1: no tags
		}
		return frame(hdr, body.AppendTo(nil))
	}
}

// TestRoundTripFramesAndDecodes: flexible and non-flexible versions, the
// client id in every header, correlation ids counting up.
func TestRoundTripFramesAndDecodes(t *testing.T) {
	c, wait := pipePeer(t, Config{ClientID: "ctl-1", Timeout: 5 * time.Second},
		stopReplicaReply(3, 11), stopReplicaReply(1, 12))
	for i, v := range []int16{3, 1} {
		req := kmsg.NewPtrStopReplicaRequest()
		req.Version = v
		resp, err := c.RoundTrip(context.Background(), req)
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		sr := resp.(*kmsg.StopReplicaResponse)
		if sr.Version != v || sr.ErrorCode != int16(11+i) || len(sr.Partitions) != 1 || sr.Partitions[0].ErrorCode != 56 {
			t.Errorf("v%d: response %+v", v, sr)
		}
	}
	hs := wait()
	if len(hs) != 2 {
		t.Fatalf("peer read %d requests", len(hs))
	}
	for i, h := range hs {
		if h.key != 5 || h.corr != int32(i+1) || h.clientID == nil || *h.clientID != "ctl-1" {
			t.Errorf("request %d: header %+v", i, h)
		}
	}
	if hs[0].version != 3 || hs[0].body[0] != 0 { // v2 header: tags after the client id
		t.Errorf("flexible request header %+v", hs[0])
	}
}

// TestControlledShutdownV0Header: v0 has request header v0, no client id.
func TestControlledShutdownV0Header(t *testing.T) {
	c, wait := pipePeer(t, Config{ClientID: "b"}, func(h header) []byte {
		return frame(kbin.AppendInt32(nil, h.corr), []byte{0, 0, 0, 0, 0, 0})
	})
	req := kmsg.NewPtrControlledShutdownRequest()
	req.Version, req.BrokerID = 0, 4
	if _, err := c.RoundTrip(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	hs := wait()
	if len(hs) != 1 || hs[0].clientID != nil || len(hs[0].body) != 4 {
		t.Errorf("headers %+v", hs)
	}
}

// TestApiVersionsHeaderV0: ApiVersions answers with response header v0
// even at flexible versions (KIP-511).
func TestApiVersionsHeaderV0(t *testing.T) {
	c, _ := pipePeer(t, Config{}, func(h header) []byte {
		body := kmsg.NewPtrApiVersionsResponse()
		body.Version = 3
		body.ApiKeys = []kmsg.ApiVersionsResponseApiKey{{ApiKey: 6, MaxVersion: 7}}
		return frame(kbin.AppendInt32(nil, h.corr), body.AppendTo(nil))
	})
	req := kmsg.NewPtrApiVersionsRequest()
	req.Version = 3
	resp, err := c.RoundTrip(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if av := resp.(*kmsg.ApiVersionsResponse); len(av.ApiKeys) != 1 || av.ApiKeys[0].MaxVersion != 7 {
		t.Errorf("response %+v", av)
	}
}

func TestRoundTripErrors(t *testing.T) {
	um := func() kmsg.Request { r := kmsg.NewPtrUpdateMetadataRequest(); r.Version = 5; return r }
	cases := []struct {
		name  string
		reply reply
		check func(error) bool
	}{
		{"wrong correlation id", func(h header) []byte {
			return frame(kbin.AppendInt32(nil, h.corr+1), []byte{0, 0})
		}, func(err error) bool { var ce *CorrelationError; return errors.As(err, &ce) && ce.Got == ce.Want+1 }},
		{"oversized frame", func(header) []byte {
			return kbin.AppendInt32(nil, 2<<20)
		}, func(err error) bool { var se *ResponseSizeError; return errors.As(err, &se) && se.Max == 1<<20 }},
		{"negative size", func(header) []byte {
			return kbin.AppendInt32(nil, -5)
		}, func(err error) bool { var se *ResponseSizeError; return errors.As(err, &se) && se.Size == -5 }},
		{"frame without correlation id", func(header) []byte {
			return kbin.AppendInt32(nil, 3)
		}, func(err error) bool { var se *ResponseSizeError; return errors.As(err, &se) && se.Size == 3 }},
		{"truncated frame", func(h header) []byte {
			return frame(kbin.AppendInt32(nil, h.corr), []byte{0, 0})[:7]
		}, func(err error) bool { return errors.Is(err, io.ErrUnexpectedEOF) }},
		{"closed before the size", func(header) []byte {
			return []byte{}
		}, func(err error) bool { return errors.Is(err, io.EOF) }},
		{"short body", func(h header) []byte {
			return frame(kbin.AppendInt32(nil, h.corr), []byte{0})
		}, func(err error) bool { return err != nil && strings.Contains(err.Error(), "decode response") }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := pipePeer(t, Config{MaxResponse: 1 << 20, Timeout: 5 * time.Second}, tc.reply)
			_, err := c.RoundTrip(context.Background(), um())
			if !tc.check(err) {
				t.Fatalf("err %v", err)
			}
			if !strings.HasPrefix(err.Error(), "UpdateMetadata v5 to peer:9092: ") {
				t.Errorf("err %q does not name the request and peer", err)
			}
		})
	}
}

// silent never answers: the peer reads the request and waits.
func silent(header) []byte { return nil }

func TestRoundTripTimeoutAndContext(t *testing.T) {
	req := func() kmsg.Request { return kmsg.NewPtrMetadataRequest() }
	t.Run("request timeout", func(t *testing.T) {
		c, _ := pipePeer(t, Config{Timeout: 20 * time.Millisecond}, silent)
		_, err := c.RoundTrip(context.Background(), req())
		if !errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err %v", err)
		}
	})
	t.Run("ctx deadline before the timeout", func(t *testing.T) {
		c, _ := pipePeer(t, Config{Timeout: time.Hour}, silent)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		_, err := c.RoundTrip(ctx, req())
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err %v", err)
		}
	})
	t.Run("cancel unblocks the read", func(t *testing.T) {
		c, _ := pipePeer(t, Config{}, silent)
		ctx, cancel := context.WithCancelCause(context.Background())
		errc := make(chan error, 1)
		go func() { _, err := c.RoundTrip(ctx, req()); errc <- err }()
		cause := errors.New("resigned")
		cancel(cause)
		select {
		case err := <-errc:
			if !errors.Is(err, cause) {
				t.Errorf("err %v, want the cause", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("RoundTrip still blocked 10s after cancel")
		}
	})
	t.Run("ended ctx sends nothing", func(t *testing.T) {
		c, wait := pipePeer(t, Config{}, silent)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := c.RoundTrip(ctx, req()); !errors.Is(err, context.Canceled) {
			t.Errorf("err %v", err)
		}
		if hs := wait(); len(hs) != 0 {
			t.Errorf("peer read %d requests", len(hs))
		}
	})
}

// TestAPIName: keys kmsg does not know get the caller's name in errors.
func TestAPIName(t *testing.T) {
	cfg := Config{APIName: func(k int16) string {
		if k == 30070 {
			return "GetReplicaLogInfo"
		}
		return ""
	}}
	c, _ := pipePeer(t, cfg)
	if got := c.name(30070); got != "GetReplicaLogInfo" {
		t.Errorf("name(30070) = %q", got)
	}
	if got := c.name(3); got != "Metadata" {
		t.Errorf("name(3) = %q", got)
	}
}
