package tlsconf

import (
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"strings"
	"testing"

	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/internal/testpki"
)

type pki struct {
	ca                   *testpki.CA
	server               *testpki.Leaf
	keystore, truststore string
}

func newPKI(t *testing.T) pki {
	t.Helper()
	ca, err := testpki.NewCA("ca")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := ca.Issue(testpki.Options{Subject: pkix.Name{CommonName: "kzadmind"}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ks, err := testpki.WriteFile(dir, "keystore.pem", srv.KeystorePEM())
	if err != nil {
		t.Fatal(err)
	}
	ts, err := testpki.WriteFile(dir, "truststore.pem", ca.PEM())
	if err != nil {
		t.Fatal(err)
	}
	return pki{ca: ca, server: srv, keystore: ks, truststore: ts}
}

func TestServerConfig(t *testing.T) {
	p := newPKI(t)
	cfg, err := Settings{KeystoreType: "PEM", KeystoreLocation: p.keystore, TruststoreLocation: p.truststore,
		ClientAuth: "required", EnabledProtocols: []string{"TLSv1.3"},
	}.ServerConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ClientAuth != tls.RequireAndVerifyClientCert || cfg.MinVersion != tls.VersionTLS13 ||
		cfg.MaxVersion != tls.VersionTLS13 || cfg.ClientCAs == nil || len(cfg.Certificates) != 1 {
		t.Fatalf("config %+v", cfg)
	}
	if leaf, _ := x509.ParseCertificate(cfg.Certificates[0].Certificate[0]); leaf.Subject.CommonName != "kzadmind" {
		t.Fatalf("leaf %v", leaf.Subject)
	}
	// Inline PEM, requested client auth, default protocols, suites.
	cfg, err = Settings{KeystoreKey: string(p.server.KeyPEM), KeystoreCertificateChain: string(p.server.CertPEM),
		TruststoreCertificates: string(p.ca.PEM()), ClientAuth: "requested",
		CipherSuites: []string{"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"},
	}.ServerConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ClientAuth != tls.VerifyClientCertIfGiven || cfg.MinVersion != tls.VersionTLS12 ||
		cfg.MaxVersion != tls.VersionTLS13 || len(cfg.CipherSuites) != 1 {
		t.Fatalf("config %+v", cfg)
	}
}

func TestServerConfigErrors(t *testing.T) {
	p := newPKI(t)
	encrypted := string(pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED PRIVATE KEY", Bytes: []byte{1}}))
	ok := Settings{KeystoreLocation: p.keystore}
	for want, s := range map[string]Settings{
		"use PEM, PKCS12 or JKS":   {KeystoreType: "BCFKS", KeystoreLocation: p.keystore},
		"ssl.keystore (JKS)":       {KeystoreType: "JKS", KeystoreLocation: p.keystore}, // a PEM file
		"ssl.truststore (PKCS12)":  {KeystoreLocation: p.keystore, TruststoreType: "PKCS12", TruststoreLocation: p.truststore},
		"needs ssl.keystore":       {},
		"not both":                 {KeystoreLocation: p.keystore, KeystoreKey: "x"},
		"no such file":             {KeystoreLocation: p.keystore + ".missing"},
		"set ssl.key.password":     {KeystoreKey: encrypted, KeystoreCertificateChain: string(p.server.CertPEM)},
		"needs a truststore":       {KeystoreLocation: p.keystore, ClientAuth: "required"},
		"want none, requested":     {KeystoreLocation: p.keystore, ClientAuth: "sometimes"},
		"no PEM certificate found": {KeystoreLocation: p.keystore, TruststoreCertificates: "junk"},
		"ssl.enabled.protocols":    {KeystoreLocation: p.keystore, EnabledProtocols: []string{"SSLv3"}},
		"ssl.cipher.suites":        {KeystoreLocation: p.keystore, CipherSuites: []string{"TLS_NOPE"}},
		"ssl.keystore: tls":        {KeystoreKey: string(p.server.KeyPEM), KeystoreCertificateChain: string(p.ca.PEM())},
	} {
		_, err := s.ServerConfig()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v", want, err)
		}
	}
	if _, err := ok.ServerConfig(); err != nil {
		t.Fatal(err)
	}
}

func TestPrincipal(t *testing.T) {
	p := newPKI(t)
	leaf, err := p.ca.Issue(testpki.Options{Subject: pkix.Name{CommonName: "alice", OrganizationalUnit: []string{"Users"}, Organization: []string{"Acme"}}})
	if err != nil {
		t.Fatal(err)
	}
	st := tls.ConnectionState{PeerCertificates: []*x509.Certificate{leaf.Cert}}
	build, err := Settings{}.PrincipalBuilder()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := build(st); err != nil || got.String() != "User:CN=alice,OU=Users,O=Acme" {
		t.Fatalf("default: %v %v", got, err)
	}
	build, _ = Settings{PrincipalMappingRules: "RULE:^CN=([^,]*),OU=Users,.*$/$1/L"}.PrincipalBuilder()
	if got, err := build(st); err != nil || got != (wire.Principal{Type: "User", Name: "alice"}) {
		t.Fatalf("rule: %v %v", got, err)
	}
	if got, err := build(tls.ConnectionState{}); err != nil || got != wire.AnonymousPrincipal() {
		t.Fatalf("no certificate: %v %v", got, err)
	}
	build, _ = Settings{PrincipalMappingRules: "RULE:^CN=bob$/bob/"}.PrincipalBuilder()
	if _, err := build(st); err == nil {
		t.Fatal("unmapped DN accepted")
	}
	if _, err := (Settings{PrincipalMappingRules: "RULE:("}).PrincipalBuilder(); err == nil {
		t.Fatal("bad rules accepted")
	}
}

func TestSettingsFromProperties(t *testing.T) {
	props := map[string]string{
		"ssl.keystore.location":                      "/global.pem",
		"listener.name.secure.ssl.keystore.location": "/secure.pem",
		"ssl.client.auth":                            "required",
		"ssl.enabled.protocols":                      "TLSv1.2, TLSv1.3,",
		"listener.name.sasl_ssl.ssl.truststore.type": "PEM",
		"listener.name.sasl_ssl2.ssl.client.auth":    "requested",
		"ssl.principal.mapping.rules":                "DEFAULT",
	}
	get := func(k string) (string, bool) { v, ok := props[k]; return v, ok }
	s := SettingsFromProperties(get, "SECURE", false)
	if s.KeystoreLocation != "/secure.pem" || s.ClientAuth != "required" ||
		strings.Join(s.EnabledProtocols, "|") != "TLSv1.2|TLSv1.3" || s.PrincipalMappingRules != "DEFAULT" {
		t.Fatalf("SECURE: %+v", s)
	}
	s = SettingsFromProperties(get, "SASL_SSL", true)
	if s.KeystoreLocation != "/global.pem" || s.ClientAuth != "" || s.TruststoreType != "PEM" {
		t.Fatalf("SASL_SSL: %+v", s)
	}
	if s = SettingsFromProperties(get, "SASL_SSL2", true); s.ClientAuth != "requested" {
		t.Fatalf("SASL_SSL2: %+v", s)
	}
}
