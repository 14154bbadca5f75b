package testpki

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"os"
	"testing"
	"time"
)

// TestIssueVerifies: a leaf verifies against its CA for 127.0.0.1 and
// localhost, and the keystore file is key then chain, as Kafka's PEM
// keystore reads it.
func TestIssueVerifies(t *testing.T) {
	ca, err := NewCA("ca")
	if err != nil {
		t.Fatal(err)
	}
	st, err := ca.WriteStores(t.TempDir(), "server", Options{})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(st.Keystore)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for rest := data; ; {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			break
		}
		types = append(types, b.Type)
	}
	if want := []string{"PRIVATE KEY", "CERTIFICATE", "CERTIFICATE"}; len(types) != 3 || types[0] != want[0] || types[1] != want[1] {
		t.Fatalf("keystore blocks %v, want %v", types, want)
	}
	cert, err := tls.X509KeyPair(data, data)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(cert.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{"127.0.0.1", "localhost"} {
		if _, err := leaf.Verify(x509.VerifyOptions{DNSName: host, Roots: ca.Pool()}); err != nil {
			t.Errorf("verify for %s: %v", host, err)
		}
	}
}

// TestExpired: NotAfter in the past gives a leaf that does not verify.
func TestExpired(t *testing.T) {
	ca, err := NewCA("ca")
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := ca.Issue(Options{NotBefore: time.Now().Add(-2 * time.Hour), NotAfter: time.Now().Add(-time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := leaf.Cert.Verify(x509.VerifyOptions{Roots: ca.Pool()}); err == nil {
		t.Fatal("expired leaf verified")
	}
}
