package scram

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"

	fscram "github.com/twmb/franz-go/pkg/sasl/scram"
)

// users is a Lookup over a fixed map of passwords, with credentials made
// once per user and mechanism.
func users(t testing.TB, passwords map[string]string) Lookup {
	t.Helper()
	creds := map[Mechanism]map[string]Credential{}
	for _, m := range Mechanisms() {
		creds[m] = map[string]Credential{}
		for u, p := range passwords {
			c, err := NewCredential(m, p, MinIterations)
			if err != nil {
				t.Fatal(err)
			}
			creds[m][u] = c
		}
	}
	return func(_ context.Context, m Mechanism, u string) (Credential, bool, error) {
		c, ok := creds[m][u]
		return c, ok, nil
	}
}

// TestServerRFC7677 replays the SCRAM-SHA-256 example of RFC 7677 §3.
func TestServerRFC7677(t *testing.T) {
	salt, _ := base64.StdEncoding.DecodeString("W22ZaJ0SNY7soEsUEjb6gQ==")
	cred, err := DeriveCredential(SHA256, "pencil", salt, 4096)
	if err != nil {
		t.Fatal(err)
	}
	s := NewServer(SHA256, func(_ context.Context, m Mechanism, u string) (Credential, bool, error) {
		return cred, u == "user", nil
	})
	s.newNonce = func() (string, error) { return "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0", nil }
	ctx := context.Background()
	first, done, err := s.Step(ctx, []byte("n,,n=user,r=rOprNGfwEbeRWgbNEkqO"))
	if err != nil || done {
		t.Fatalf("client first: %v done=%v", err, done)
	}
	if want := "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"; string(first) != want {
		t.Fatalf("server first %q, want %q", first, want)
	}
	final, done, err := s.Step(ctx, []byte("c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="))
	if err != nil || !done {
		t.Fatalf("client final: %v done=%v", err, done)
	}
	if want := "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="; string(final) != want {
		t.Fatalf("server final %q, want %q", final, want)
	}
	if s.Username() != "user" {
		t.Fatalf("username %q", s.Username())
	}
	if _, _, err := s.Step(ctx, []byte("again")); !errors.Is(err, ErrAuthenticationFailed) {
		t.Fatalf("step after completion: %v", err)
	}
}

// exchange runs franz-go's SCRAM client against a Server.
func exchange(t *testing.T, m Mechanism, lookup Lookup, auth fscram.Auth) (*Server, error) {
	t.Helper()
	return exchangeWith(t, NewServer(m, lookup), auth)
}

// exchangeWith runs franz-go's SCRAM client against s.
func exchangeWith(t *testing.T, s *Server, auth fscram.Auth) (*Server, error) {
	t.Helper()
	m := s.Mechanism()
	mech := auth.AsSha256Mechanism()
	if m == SHA512 {
		mech = auth.AsSha512Mechanism()
	}
	ctx := context.Background()
	sess, msg, err := mech.Authenticate(ctx, "test:9092")
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		resp, done, err := s.Step(ctx, msg)
		if err != nil {
			return s, err
		}
		cdone, next, err := sess.Challenge(resp)
		if err != nil {
			return s, fmt.Errorf("client: %w", err)
		}
		if done != cdone {
			t.Fatalf("server done=%v, client done=%v", done, cdone)
		}
		if done {
			return s, nil
		}
		msg = next
	}
	t.Fatal("exchange did not finish in two rounds")
	return nil, nil
}

func TestServerWithFranzGoClient(t *testing.T) {
	lookup := users(t, map[string]string{"alice": "alice-secret", "a,b=c": "p", "zoë": "ü-pass"})
	for _, m := range Mechanisms() {
		for _, tc := range []struct {
			user, pass, zid string
			wantErr         error
			client          bool
		}{
			{user: "alice", pass: "alice-secret"},
			{user: "alice", pass: "alice-secret", zid: "alice"},
			{user: "a,b=c", pass: "p"},
			{user: "zoë", pass: "ü-pass"},
			{user: "alice", pass: "wrong", wantErr: ErrAuthenticationFailed},
			{user: "bob", pass: "alice-secret", wantErr: ErrAuthenticationFailed},
			{user: "alice", pass: "alice-secret", zid: "bob", client: true},
		} {
			name := fmt.Sprintf("%s/%s/%s/%s", m, tc.user, tc.pass, tc.zid)
			s, err := exchange(t, m, lookup, fscram.Auth{User: tc.user, Pass: tc.pass, Zid: tc.zid})
			var ce *ClientError
			switch {
			case tc.client:
				if !errors.As(err, &ce) || !strings.Contains(ce.Message, "authorization id") {
					t.Errorf("%s: err %v, want the authorization id ClientError", name, err)
				}
			case tc.wantErr != nil:
				if !errors.Is(err, tc.wantErr) {
					t.Errorf("%s: err %v, want %v", name, err, tc.wantErr)
				}
			case err != nil:
				t.Errorf("%s: %v", name, err)
			case s.Username() != tc.user:
				t.Errorf("%s: username %q", name, s.Username())
			}
		}
	}
}

func TestServerRejects(t *testing.T) {
	lookup := users(t, map[string]string{"alice": "pw"})
	lowIter := func(_ context.Context, m Mechanism, u string) (Credential, bool, error) {
		c, _ := DeriveCredential(m, "pw", []byte("salt"), 4095)
		return c, true, nil
	}
	broken := func(context.Context, Mechanism, string) (Credential, bool, error) {
		return Credential{}, false, errors.New("zookeeper unavailable")
	}
	for _, tc := range []struct {
		name   string
		lookup Lookup
		first  string
	}{
		{"channel binding requested", lookup, "p=tls-unique,,n=alice,r=abc"},
		{"client supports binding", lookup, "y,,n=alice,r=abc"},
		{"no gs2 end", lookup, "n,"},
		{"bad authzid", lookup, "n,x=1,n=alice,r=abc"},
		{"mandatory extension", lookup, "n,,m=x,n=alice,r=abc"},
		{"no nonce", lookup, "n,,n=alice"},
		{"empty nonce", lookup, "n,,n=alice,r="},
		{"bad nonce", lookup, "n,,n=alice,r=a\x01b"},
		{"no name", lookup, "n,,r=abc,n=alice"},
		{"empty name", lookup, "n,,n=,r=abc"},
		{"bad escape", lookup, "n,,n=al=ice,r=abc"},
		{"bad extension", lookup, "n,,n=alice,r=abc,1=2"},
		{"token auth", lookup, "n,,n=alice,r=abc,tokenauth=true"},
		{"unknown user", lookup, "n,,n=bob,r=abc"},
		{"low iterations", lowIter, "n,,n=alice,r=abc"},
		{"lookup error", broken, "n,,n=alice,r=abc"},
	} {
		s := NewServer(SHA256, tc.lookup)
		if _, _, err := s.Step(context.Background(), []byte(tc.first)); !errors.Is(err, ErrAuthenticationFailed) {
			t.Errorf("%s: err %v", tc.name, err)
		}
	}
}

func TestServerRejectsBadFinal(t *testing.T) {
	lookup := users(t, map[string]string{"alice": "pw"})
	for _, tc := range []struct {
		name  string
		final func(nonce string) string
	}{
		{"no proof", func(n string) string { return "c=biws,r=" + n }},
		{"proof not base64", func(n string) string { return "c=biws,r=" + n + ",p=!!" }},
		{"short proof", func(n string) string { return "c=biws,r=" + n + ",p=AAAA" }},
		{"wrong nonce", func(n string) string { return "c=biws,r=" + n + "x,p=" + zeros(32) }},
		{"wrong binding", func(n string) string { return "c=eSws,r=" + n + ",p=" + zeros(32) }},
		{"no binding", func(n string) string { return "r=" + n + ",c=biws,p=" + zeros(32) }},
		{"bad extension", func(n string) string { return "c=biws,r=" + n + ",9,p=" + zeros(32) }},
		{"wrong proof", func(n string) string { return "c=biws,r=" + n + ",p=" + zeros(32) }},
	} {
		s := NewServer(SHA256, lookup)
		first, _, err := s.Step(context.Background(), []byte("n,,n=alice,r=abc"))
		if err != nil {
			t.Fatal(err)
		}
		nonce := strings.TrimPrefix(strings.Split(string(first), ",")[0], "r=")
		if _, _, err := s.Step(context.Background(), []byte(tc.final(nonce))); !errors.Is(err, ErrAuthenticationFailed) {
			t.Errorf("%s: err %v", tc.name, err)
		}
	}
}

func zeros(n int) string { return base64.StdEncoding.EncodeToString(make([]byte, n)) }

func TestSaslNameEscaping(t *testing.T) {
	for _, name := range []string{"alice", "a=b", "a,b", "=2C", "CN=x,O=y"} {
		got, err := decodeSaslName(EncodeSaslName(name))
		if err != nil || got != name {
			t.Errorf("%q: round trip %q %v", name, got, err)
		}
	}
}

// FuzzServerStep feeds arbitrary messages to both steps: no input may
// panic, and nothing but a valid proof may complete the exchange.
func FuzzServerStep(f *testing.F) {
	f.Add("n,,n=alice,r=abc", "c=biws,r=abc,p=AAAA")
	f.Add("n,a=alice,n=alice,r=x,tokenauth=false", "c=bixhPWFsaWNlLA==,r=x,e=1,p=")
	f.Add("n,,n==3D=2C,r=!", ",p=")
	cred, _ := DeriveCredential(SHA256, "pw", []byte("salt"), 4096)
	lookup := func(context.Context, Mechanism, string) (Credential, bool, error) { return cred, true, nil }
	f.Fuzz(func(t *testing.T, first, final string) {
		s := NewServer(SHA256, lookup)
		if _, _, err := s.Step(context.Background(), []byte(first)); err != nil {
			return
		}
		if _, done, err := s.Step(context.Background(), []byte(final)); done || err == nil {
			t.Fatalf("arbitrary final message %q authenticated", final)
		}
	})
}
