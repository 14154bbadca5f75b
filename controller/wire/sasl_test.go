package wire

import (
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl/plain"
)

// fakeExchange is a test mechanism. PLAIN tokens are
// "authzid\x00user\x00password": alice/secret succeeds, mallory fails with
// a client-visible message, anything else with a generic failure.
// TWO-STEP needs "hello", then answers "who?" and takes a user name.
type fakeExchange struct {
	mechanism string
	step      int
	user      string
}

func (f *fakeExchange) Step(_ context.Context, token []byte) ([]byte, bool, error) {
	f.step++
	if f.mechanism == "TWO-STEP" {
		switch {
		case f.step == 1 && string(token) == "hello":
			return []byte("who?"), false, nil
		case f.step == 2 && len(token) > 0:
			f.user = string(token)
			return []byte("welcome"), true, nil
		}
		return nil, false, errors.New("bad two-step token")
	}
	parts := strings.Split(string(token), "\x00")
	switch {
	case len(parts) == 3 && parts[1] == "alice" && parts[2] == "secret":
		f.user = "alice"
		return nil, true, nil
	case len(parts) == 3 && parts[1] == "mallory":
		return nil, false, &SASLError{Message: "Authentication failed: Invalid username or password"}
	}
	return nil, false, errors.New("wrong password")
}

func (f *fakeExchange) Principal() Principal { return Principal{Type: "User", Name: f.user} }

func saslConfig() *SASLConfig {
	return &SASLConfig{
		Mechanisms:                []string{"PLAIN", "TWO-STEP"},
		Start:                     func(m string) (SASLExchange, error) { return &fakeExchange{mechanism: m}, nil },
		FailedAuthenticationDelay: -1,
	}
}

// startSASL serves Metadata (reporting each request on seen) behind SASL.
func startSASL(t *testing.T, sc *SASLConfig, seen chan *Request) (*Server, string) {
	t.Helper()
	m := NewMux()
	mustRegister(t, m, Route{VersionRange: VersionRange{3, 0, 12}, Handler: metadataHandler(seen)})
	return startServer(t, Config{Mux: m, SASL: sc})
}

func (c *rawConn) handshake(version int16, mechanism string, corr int32) *kmsg.SASLHandshakeResponse {
	c.t.Helper()
	req := kmsg.NewPtrSASLHandshakeRequest()
	req.Version, req.Mechanism = version, mechanism
	c.sendReq(req, corr, nil)
	return c.readResp(17, version, corr, false).(*kmsg.SASLHandshakeResponse)
}

func (c *rawConn) authenticate(version int16, token string, corr int32) *kmsg.SASLAuthenticateResponse {
	c.t.Helper()
	req := kmsg.NewPtrSASLAuthenticateRequest()
	req.Version, req.SASLAuthBytes = version, []byte(token)
	c.sendReq(req, corr, nil)
	return c.readResp(36, version, corr, version >= 2).(*kmsg.SASLAuthenticateResponse)
}

func (c *rawConn) metadata(corr int32) {
	c.t.Helper()
	md := kmsg.NewPtrMetadataRequest()
	md.Version = 1
	c.sendReq(md, corr, nil)
}

func TestSASLKgoPlain(t *testing.T) {
	seen := make(chan *Request, 1)
	_, addr := startSASL(t, saslConfig(), seen)
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr),
		kgo.SASL(plain.Auth{User: "alice", Pass: "secret"}.AsMechanism()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if _, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl); err != nil {
		t.Fatalf("Metadata over SASL/PLAIN: %v", err)
	}
	if p := recv(t, seen, "request").Principal; p.String() != "User:alice" {
		t.Fatalf("principal %v", p)
	}
}

func TestSASLKgoWrongPassword(t *testing.T) {
	_, addr := startSASL(t, saslConfig(), nil)
	for _, tc := range []struct{ user, want string }{
		{"alice", "Authentication failed during authentication due to invalid credentials with SASL mechanism PLAIN"},
		{"mallory", "Authentication failed: Invalid username or password"},
	} {
		cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.RequestRetries(0),
			kgo.SASL(plain.Auth{User: tc.user, Pass: "wrong"}.AsMechanism()))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
		_, err = kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl)
		cancel()
		cl.Close()
		if !errors.Is(err, kerr.SaslAuthenticationFailed) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want SASL_AUTHENTICATION_FAILED with %q", tc.user, err, tc.want)
		}
	}
}

func TestSASLApiVersionsAdvertisesSASL(t *testing.T) {
	for _, withSASL := range []bool{false, true} {
		m := NewMux()
		cfg := Config{Mux: m}
		if withSASL {
			cfg.SASL = saslConfig()
		}
		_, addr := startServer(t, cfg)
		c := dialRaw(t, addr)
		req := kmsg.NewPtrApiVersionsRequest()
		req.Version, req.ClientSoftwareName, req.ClientSoftwareVersion = 3, "test", "1"
		c.sendReq(req, 1, nil)
		resp := c.readResp(18, 3, 1, false).(*kmsg.ApiVersionsResponse)
		var keys []int16
		for _, k := range resp.ApiKeys {
			keys = append(keys, k.ApiKey)
			if k.ApiKey == 17 && k.MaxVersion != 1 || k.ApiKey == 36 && k.MaxVersion != 2 {
				t.Fatalf("SASL range %+v", k)
			}
		}
		want := []int16{18}
		if withSASL {
			want = []int16{17, 18, 36}
		}
		if !slicesEqual(keys, want) {
			t.Fatalf("sasl=%v: keys %v, want %v", withSASL, keys, want)
		}
	}
}

func slicesEqual(a, b []int16) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestSASLRawFlowsAndAfterAuth(t *testing.T) {
	seen := make(chan *Request, 1)
	_, addr := startSASL(t, saslConfig(), seen)

	// v1: ApiVersions, handshake, two SaslAuthenticate rounds (v2,
	// flexible), then normal requests.
	c := dialRaw(t, addr)
	// An ApiVersions answered with an error may be retried.
	av := kmsg.NewPtrApiVersionsRequest()
	av.Version = 3
	c.sendReq(av, 1, nil)
	if r := c.readResp(18, 3, 1, false).(*kmsg.ApiVersionsResponse); r.ErrorCode != kerr.InvalidRequest.Code {
		t.Fatalf("ApiVersions without software name: %+v", r)
	}
	av.ClientSoftwareName, av.ClientSoftwareVersion = "test", "1"
	c.sendReq(av, 1, nil)
	c.readResp(18, 3, 1, false)
	if r := c.handshake(1, "TWO-STEP", 2); r.ErrorCode != 0 || strings.Join(r.SupportedMechanisms, ",") != "PLAIN,TWO-STEP" {
		t.Fatalf("handshake %+v", r)
	}
	if r := c.authenticate(2, "hello", 3); r.ErrorCode != 0 || string(r.SASLAuthBytes) != "who?" {
		t.Fatalf("first round %+v", r)
	}
	if r := c.authenticate(2, "bob", 4); r.ErrorCode != 0 || string(r.SASLAuthBytes) != "welcome" || r.SessionLifetimeMillis != 0 {
		t.Fatalf("second round %+v", r)
	}
	c.metadata(5)
	if p := recv(t, seen, "request").Principal; p.String() != "User:bob" {
		t.Fatalf("principal %v", p)
	}
	c.readResp(3, 1, 5, false)
	// After authentication both SASL keys get ILLEGAL_SASL_STATE and the
	// connection stays open.
	if r := c.handshake(1, "PLAIN", 6); r.ErrorCode != kerr.IllegalSaslState.Code {
		t.Fatalf("handshake after auth: %+v", r)
	}
	if r := c.authenticate(1, "x", 7); r.ErrorCode != kerr.IllegalSaslState.Code || r.ErrorMessage == nil {
		t.Fatalf("authenticate after auth: %+v", r)
	}
	c.metadata(8)
	recv(t, seen, "request")
	c.readResp(3, 1, 8, false)

	// v0: no ApiVersions, handshake v0, raw token, raw (empty) answer.
	c = dialRaw(t, addr)
	if r := c.handshake(0, "PLAIN", 1); r.ErrorCode != 0 {
		t.Fatalf("v0 handshake %+v", r)
	}
	c.write(frameOf([]byte("\x00alice\x00secret")))
	if got := c.readFrame(); len(got) != 0 {
		t.Fatalf("raw answer %q", got)
	}
	c.metadata(2)
	if p := recv(t, seen, "request").Principal; p.String() != "User:alice" {
		t.Fatalf("principal %v", p)
	}
	c.readResp(3, 1, 2, false)
}

// TestSASLNegative covers the ways a client can get authentication wrong;
// each ends with the connection closed.
func TestSASLNegative(t *testing.T) {
	_, addr := startSASL(t, saslConfig(), nil)
	cases := map[string]func(c *rawConn){
		"metadata before anything": func(c *rawConn) { c.metadata(1) },
		"metadata after ApiVersions": func(c *rawConn) {
			c.sendReq(kmsg.NewPtrApiVersionsRequest(), 1, nil)
			c.readResp(18, 0, 1, false)
			c.metadata(2)
		},
		"ApiVersions twice": func(c *rawConn) {
			c.sendReq(kmsg.NewPtrApiVersionsRequest(), 1, nil)
			c.readResp(18, 0, 1, false)
			c.sendReq(kmsg.NewPtrApiVersionsRequest(), 2, nil)
		},
		"SaslAuthenticate before handshake": func(c *rawConn) { c.sendReq(kmsg.NewPtrSASLAuthenticateRequest(), 1, nil) },
		"handshake v2": func(c *rawConn) {
			req := kmsg.NewPtrSASLHandshakeRequest()
			req.Version, req.Mechanism = 1, "PLAIN"
			b := req.AppendTo(append(headerBytes(17, 2, 1), 0xff, 0xff))
			c.write(frameOf(b))
		},
		"unsupported mechanism": func(c *rawConn) {
			r := c.handshake(1, "GSSAPI", 1)
			if r.ErrorCode != kerr.UnsupportedSaslMechanism.Code || len(r.SupportedMechanisms) != 2 {
				t.Errorf("unsupported mechanism: %+v", r)
			}
		},
		"handshake out of order": func(c *rawConn) {
			c.handshake(1, "PLAIN", 1)
			if r := c.handshake(1, "PLAIN", 2); r.ErrorCode != kerr.IllegalSaslState.Code {
				t.Errorf("second handshake: %+v", r)
			}
		},
		"ApiVersions during authentication": func(c *rawConn) {
			c.handshake(1, "PLAIN", 1)
			c.sendReq(kmsg.NewPtrApiVersionsRequest(), 2, nil)
			if r := c.readResp(18, 0, 2, false).(*kmsg.ApiVersionsResponse); r.ErrorCode != kerr.IllegalSaslState.Code {
				t.Errorf("ApiVersions during authentication: %+v", r)
			}
		},
		"metadata during authentication": func(c *rawConn) {
			c.handshake(1, "PLAIN", 1)
			c.metadata(2)
		},
		"wrong password": func(c *rawConn) {
			c.handshake(1, "PLAIN", 1)
			r := c.authenticate(1, "\x00alice\x00nope", 2)
			if r.ErrorCode != kerr.SaslAuthenticationFailed.Code || r.ErrorMessage == nil ||
				*r.ErrorMessage != "Authentication failed during authentication due to invalid credentials with SASL mechanism PLAIN" {
				t.Errorf("wrong password: %+v", r)
			}
		},
		"wrong password v0": func(c *rawConn) {
			c.handshake(0, "PLAIN", 1)
			c.write(frameOf([]byte("\x00alice\x00nope")))
		},
		"oversized SASL frame": func(c *rawConn) {
			c.handshake(1, "PLAIN", 1)
			var b [4]byte
			binary.BigEndian.PutUint32(b[:], uint32(DefaultSASLMaxReceive+1))
			c.write(b[:])
		},
		"oversized first frame": func(c *rawConn) {
			var b [4]byte
			binary.BigEndian.PutUint32(b[:], 1<<20)
			c.write(b[:])
		},
	}
	for name, run := range cases {
		t.Run(name, func(t *testing.T) {
			c := dialRaw(t, addr)
			c.t = t
			run(c)
			c.expectClosed()
		})
	}
}

// TestSASLFailedAuthenticationDelay: the failure answer is held back.
func TestSASLFailedAuthenticationDelay(t *testing.T) {
	sc := saslConfig()
	sc.FailedAuthenticationDelay = 150 * time.Millisecond
	_, addr := startSASL(t, sc, nil)
	c := dialRaw(t, addr)
	c.handshake(1, "PLAIN", 1)
	start := time.Now()
	r := c.authenticate(1, "\x00alice\x00nope", 2)
	if took := time.Since(start); took < sc.FailedAuthenticationDelay {
		t.Fatalf("failure answered after %v, want at least %v", took, sc.FailedAuthenticationDelay)
	}
	if r.ErrorCode != kerr.SaslAuthenticationFailed.Code {
		t.Fatalf("%+v", r)
	}
	c.expectClosed()
}

// TestSASLShutdownDuringAuthentication: a connection waiting in the middle
// of its authentication is idle, so Shutdown closes it at once.
func TestSASLShutdownDuringAuthentication(t *testing.T) {
	s, addr := startSASL(t, saslConfig(), nil)
	c := dialRaw(t, addr)
	c.handshake(1, "TWO-STEP", 1)
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	c.expectClosed()
}

func TestSASLConfigValidation(t *testing.T) {
	for _, sc := range []*SASLConfig{
		{},
		{Mechanisms: []string{"PLAIN"}},
		{Mechanisms: []string{"PLAIN"}, Start: saslConfig().Start, MaxReceiveSize: -1},
	} {
		if _, err := New(Config{SASL: sc}); err == nil {
			t.Errorf("%+v accepted", sc)
		}
	}
}

// TestClientAddrInHandlerContext: handlers' contexts carry the client
// address, for the authorizer's host matching.
func TestClientAddrInHandlerContext(t *testing.T) {
	got := make(chan string, 1)
	m := NewMux()
	mustRegister(t, m, Route{VersionRange: VersionRange{3, 0, 12}, Handler: HandlerFunc(
		func(ctx context.Context, req *Request) (kmsg.Response, error) {
			a, ok := ClientAddr(ctx)
			if !ok {
				got <- "none"
			} else {
				got <- a.String()
			}
			return req.Body.ResponseKind(), nil
		})})
	_, addr := startServer(t, Config{Mux: m})
	c := dialRaw(t, addr)
	c.metadata(1)
	if a := recv(t, got, "handler"); a != c.nc.LocalAddr().String() {
		t.Fatalf("ClientAddr %s, want %s", a, c.nc.LocalAddr())
	}
	c.readResp(3, 1, 1, false)
	if _, ok := ClientAddr(context.Background()); ok {
		t.Fatal("ClientAddr in a bare context")
	}
}
