package kafkaconn

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/wire"
)

// apiVersionsReply answers ApiVersions at the version asked with keys.
func apiVersionsReply(keys ...kmsg.ApiVersionsResponseApiKey) reply {
	return func(h header) []byte {
		body := kmsg.NewPtrApiVersionsResponse()
		body.Version = h.version
		body.ApiKeys = keys
		return frame(kbin.AppendInt32(nil, h.corr), body.AppendTo(nil))
	}
}

// oldBrokerReply answers an ApiVersions version it does not know as a
// broker before 2.4 does: UNSUPPORTED_VERSION, encoded as v0.
func oldBrokerReply(h header) []byte {
	body := kmsg.NewPtrApiVersionsResponse()
	body.Version = 0
	body.ErrorCode = kerr.UnsupportedVersion.Code
	body.ApiKeys = []kmsg.ApiVersionsResponseApiKey{{ApiKey: 18, MaxVersion: 2}}
	return frame(kbin.AppendInt32(nil, h.corr), body.AppendTo(nil))
}

func TestNegotiate(t *testing.T) {
	keys := []kmsg.ApiVersionsResponseApiKey{{ApiKey: 3, MinVersion: 0, MaxVersion: 12}, {ApiKey: 56, MinVersion: 2, MaxVersion: 3}}
	t.Run("v3", func(t *testing.T) {
		c, wait := pipePeer(t, Config{SoftwareName: "kzadmin-test"}, apiVersionsReply(keys...))
		if err := c.Negotiate(context.Background()); err != nil {
			t.Fatal(err)
		}
		if hs := wait(); len(hs) != 1 || hs[0].version != 3 {
			t.Errorf("requests %+v", hs)
		}
		if v, err := c.PickVersion(3, 1, 9); err != nil || v != 9 {
			t.Errorf("PickVersion(Metadata, 1, 9) = %d, %v", v, err)
		}
		vs := c.Versions()
		if len(vs) != 2 || vs[56].MinVersion != 2 || vs[56].MaxVersion != 3 {
			t.Errorf("Versions() = %v", vs)
		}
		delete(vs, 3) // a copy: the connection keeps its own
		if _, err := c.PickVersion(3, 0, 0); err != nil {
			t.Errorf("Versions() shares the connection's map: %v", err)
		}
	})
	t.Run("falls back to v0", func(t *testing.T) {
		c, wait := pipePeer(t, Config{}, oldBrokerReply, apiVersionsReply(keys...))
		if err := c.Negotiate(context.Background()); err != nil {
			t.Fatal(err)
		}
		hs := wait()
		if len(hs) != 2 || hs[0].version != 3 || hs[1].version != 0 {
			t.Errorf("requests %+v", hs)
		}
		if v, err := c.PickVersion(56, 0, 5); err != nil || v != 3 {
			t.Errorf("PickVersion(AlterPartition, 0, 5) = %d, %v", v, err)
		}
	})
	t.Run("error code", func(t *testing.T) {
		c, _ := pipePeer(t, Config{}, func(h header) []byte {
			body := kmsg.NewPtrApiVersionsResponse()
			body.Version = 3
			body.ErrorCode = kerr.ClusterAuthorizationFailed.Code
			return frame(kbin.AppendInt32(nil, h.corr), body.AppendTo(nil))
		})
		if err := c.Negotiate(context.Background()); !errors.Is(err, kerr.ClusterAuthorizationFailed) {
			t.Errorf("err %v", err)
		}
	})
}

func TestPickVersion(t *testing.T) {
	c := &Conn{addr: "b:1", versions: map[int16]kmsg.ApiVersionsResponseApiKey{
		56: {ApiKey: 56, MinVersion: 2, MaxVersion: 3},
	}}
	cases := []struct {
		key, lo, hi int16
		want        int16
		advertised  bool // on error
		ok          bool
	}{
		{56, 0, 3, 3, false, true},
		{56, 0, 9, 3, false, true},
		{56, 2, 2, 2, false, true},
		{56, 0, 1, 0, true, false}, // peer's range is above ours
		{56, 4, 5, 0, true, false}, // ours is above the peer's
		{3, 0, 12, 0, false, false},
	}
	for _, tc := range cases {
		v, err := c.PickVersion(tc.key, tc.lo, tc.hi)
		var ve *VersionError
		switch {
		case tc.ok && (err != nil || v != tc.want):
			t.Errorf("PickVersion(%d, %d, %d) = %d, %v; want %d", tc.key, tc.lo, tc.hi, v, err, tc.want)
		case !tc.ok && (!errors.As(err, &ve) || ve.Advertised != tc.advertised || ve.Key != tc.key):
			t.Errorf("PickVersion(%d, %d, %d) = %d, %v; want a VersionError", tc.key, tc.lo, tc.hi, v, err)
		}
	}
}

// TestAgainstWireServer negotiates with and queries kzadmin's own Kafka
// listener over TCP.
func TestAgainstWireServer(t *testing.T) {
	mux := wire.NewMux()
	err := mux.HandleFunc(wire.VersionRange{Key: 3, Min: 0, Max: 12}, func(_ context.Context, req *wire.Request) (kmsg.Response, error) {
		resp := req.Body.ResponseKind().(*kmsg.MetadataResponse)
		resp.ClusterID = kmsg.StringPtr(req.ClientID)
		return resp, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := wire.New(wire.Config{Mux: mux})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c := New(nc, "", Config{ClientID: "probe", Timeout: 10 * time.Second})
	defer c.Close()
	if c.Addr() != ln.Addr().String() {
		t.Errorf("Addr() = %q", c.Addr())
	}
	if err := c.Negotiate(ctx); err != nil {
		t.Fatal(err)
	}
	v, err := c.PickVersion(3, 0, kmsg.NewPtrMetadataRequest().MaxVersion())
	if err != nil || v != 12 {
		t.Fatalf("PickVersion(Metadata) = %d, %v", v, err)
	}
	req := kmsg.NewPtrMetadataRequest()
	req.Version = v
	resp, err := c.RoundTrip(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if m := resp.(*kmsg.MetadataResponse); m.ClusterID == nil || *m.ClusterID != "probe" {
		t.Errorf("cluster id %v, want the client id echoed", m.ClusterID)
	}
	if _, err := c.PickVersion(56, 0, 3); err == nil {
		t.Error("PickVersion(AlterPartition) on a server without it: no error")
	}
}
