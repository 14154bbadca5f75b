package wire

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"math/big"
	"net"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl/plain"
)

// testCA is a throwaway certificate authority.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

func newTestCA(t *testing.T, name string) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return &testCA{cert: cert, key: key}
}

// issue makes a leaf certificate for subject, valid from notBefore to
// notAfter, usable by servers (for 127.0.0.1) and clients.
func (ca *testCA) issue(t *testing.T, subject pkix.Name, notBefore, notAfter time.Time) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: subject, NotBefore: notBefore, NotAfter: notAfter,
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

func (ca *testCA) pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.cert)
	return p
}

type tlsSetup struct {
	ca, rogue *testCA
	server    *tls.Config
}

func newTLSSetup(t *testing.T, auth tls.ClientAuthType) tlsSetup {
	ca := newTestCA(t, "test-ca")
	now := time.Now()
	srv := ca.issue(t, pkix.Name{CommonName: "kzadmind"}, now.Add(-time.Hour), now.Add(time.Hour))
	return tlsSetup{ca: ca, rogue: newTestCA(t, "rogue-ca"), server: &tls.Config{
		Certificates: []tls.Certificate{srv}, ClientCAs: ca.pool(), ClientAuth: auth, MinVersion: tls.VersionTLS12,
	}}
}

func (s tlsSetup) client(certs ...tls.Certificate) *tls.Config {
	return &tls.Config{RootCAs: s.ca.pool(), Certificates: certs, MinVersion: tls.VersionTLS12}
}

// forceCert makes the client present cert even when the server's list of
// acceptable CAs does not include its issuer (Go's client would otherwise
// send none).
func forceCert(cfg *tls.Config, cert tls.Certificate) *tls.Config {
	cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &cert, nil }
	return cfg
}

func cnPrincipal(st tls.ConnectionState) (Principal, error) {
	if len(st.PeerCertificates) == 0 {
		return AnonymousPrincipal(), nil
	}
	if cn := st.PeerCertificates[0].Subject.CommonName; cn != "forbidden" {
		return Principal{Type: "User", Name: "CN=" + cn}, nil
	}
	return Principal{}, errors.New("no rule matches")
}

// metadataVia sends one Metadata request through kgo with opts.
func metadataVia(t *testing.T, addr string, opts ...kgo.Opt) error {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(addr), kgo.RequestRetries(0)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	_, err = kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl)
	return err
}

func TestTLSClientCertificates(t *testing.T) {
	ts := newTLSSetup(t, tls.RequireAndVerifyClientCert)
	seen := make(chan *Request, 1)
	m := NewMux()
	mustRegister(t, m, Route{VersionRange: VersionRange{3, 0, 12}, Handler: metadataHandler(seen)})
	_, addr := startServer(t, Config{Mux: m, TLS: ts.server, TLSPrincipal: cnPrincipal})
	now := time.Now()
	alice := ts.ca.issue(t, pkix.Name{CommonName: "alice", Organization: []string{"Acme"}}, now.Add(-time.Hour), now.Add(time.Hour))
	if err := metadataVia(t, addr, kgo.DialTLSConfig(ts.client(alice))); err != nil {
		t.Fatalf("trusted client: %v", err)
	}
	if p := recv(t, seen, "request").Principal; p.String() != "User:CN=alice" {
		t.Fatalf("principal %v", p)
	}
	for name, cfg := range map[string]*tls.Config{
		"no client certificate": ts.client(),
		"untrusted certificate": forceCert(ts.client(), ts.rogue.issue(t, pkix.Name{CommonName: "alice"}, now.Add(-time.Hour), now.Add(time.Hour))),
		"expired certificate":   ts.client(ts.ca.issue(t, pkix.Name{CommonName: "alice"}, now.Add(-2*time.Hour), now.Add(-time.Hour))),
		"principal refused":     ts.client(ts.ca.issue(t, pkix.Name{CommonName: "forbidden"}, now.Add(-time.Hour), now.Add(time.Hour))),
		"server not trusted":    {RootCAs: ts.rogue.pool(), Certificates: []tls.Certificate{alice}},
	} {
		if err := metadataVia(t, addr, kgo.DialTLSConfig(cfg)); err == nil {
			t.Errorf("%s: request served", name)
		}
	}
	// Plain TCP to a TLS listener gets nowhere either.
	if err := metadataVia(t, addr); err == nil {
		t.Error("plaintext client served by a TLS listener")
	}
}

func TestTLSOptionalClientAuth(t *testing.T) {
	ts := newTLSSetup(t, tls.VerifyClientCertIfGiven)
	seen := make(chan *Request, 1)
	m := NewMux()
	mustRegister(t, m, Route{VersionRange: VersionRange{3, 0, 12}, Handler: metadataHandler(seen)})
	_, addr := startServer(t, Config{Mux: m, TLS: ts.server, TLSPrincipal: cnPrincipal})
	if err := metadataVia(t, addr, kgo.DialTLSConfig(ts.client())); err != nil {
		t.Fatalf("client without certificate: %v", err)
	}
	if p := recv(t, seen, "request").Principal; p != AnonymousPrincipal() {
		t.Fatalf("principal %v", p)
	}
}

// TestSASLOverTLS is SASL_SSL: the SASL principal replaces the TLS one.
func TestSASLOverTLS(t *testing.T) {
	ts := newTLSSetup(t, tls.VerifyClientCertIfGiven)
	seen := make(chan *Request, 1)
	m := NewMux()
	mustRegister(t, m, Route{VersionRange: VersionRange{3, 0, 12}, Handler: metadataHandler(seen)})
	_, addr := startServer(t, Config{Mux: m, TLS: ts.server, TLSPrincipal: cnPrincipal, SASL: saslConfig()})
	now := time.Now()
	bob := ts.ca.issue(t, pkix.Name{CommonName: "bob"}, now.Add(-time.Hour), now.Add(time.Hour))
	err := metadataVia(t, addr, kgo.DialTLSConfig(ts.client(bob)),
		kgo.SASL(plain.Auth{User: "alice", Pass: "secret"}.AsMechanism()))
	if err != nil {
		t.Fatalf("SASL_SSL: %v", err)
	}
	if p := recv(t, seen, "request").Principal; p.String() != "User:alice" {
		t.Fatalf("principal %v", p)
	}
	if err := metadataVia(t, addr, kgo.DialTLSConfig(ts.client()),
		kgo.SASL(plain.Auth{User: "alice", Pass: "nope"}.AsMechanism())); err == nil {
		t.Fatal("wrong password served over TLS")
	}
}
