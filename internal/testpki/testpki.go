package testpki

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/youmark/pkcs8"
)

// CA is a certificate authority.
type CA struct {
	Cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

// NewCA makes a CA valid for a day around now.
func NewCA(name string) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &CA{Cert: cert, key: key}, nil
}

// PEM is the CA certificate in PEM.
func (ca *CA) PEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.Cert.Raw})
}

// Pool is a pool holding the CA.
func (ca *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.Cert)
	return p
}

// Leaf is an issued certificate and its key.
type Leaf struct {
	Cert    *x509.Certificate
	CertPEM []byte // leaf then CA
	KeyPEM  []byte // PKCS#8
}

// Options shape a leaf. Zero values give a certificate for 127.0.0.1 and
// "localhost", valid for a day around now.
type Options struct {
	Subject    pkix.Name
	RawSubject []byte // DER Name; wins over Subject
	NotBefore  time.Time
	NotAfter   time.Time
}

// Issue makes a leaf usable by servers and clients.
func (ca *CA) Issue(o Options) (*Leaf, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	if o.NotBefore.IsZero() {
		o.NotBefore = time.Now().Add(-time.Hour)
	}
	if o.NotAfter.IsZero() {
		o.NotAfter = time.Now().Add(24 * time.Hour)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: o.Subject, RawSubject: o.RawSubject,
		NotBefore: o.NotBefore, NotAfter: o.NotAfter,
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	pk, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	certPEM = append(certPEM, ca.PEM()...)
	return &Leaf{Cert: cert, CertPEM: certPEM, KeyPEM: pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pk})}, nil
}

// TLS is the leaf as a tls.Certificate.
func (l *Leaf) TLS() (tls.Certificate, error) { return tls.X509KeyPair(l.CertPEM, l.KeyPEM) }

// KeystorePEM is key then chain, the layout of a Kafka PEM keystore file.
func (l *Leaf) KeystorePEM() []byte { return append(append([]byte(nil), l.KeyPEM...), l.CertPEM...) }

// WriteFile writes data to dir/name and returns the path.
func WriteFile(dir, name string, data []byte) (string, error) {
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		return "", fmt.Errorf("write %s: %w", p, err)
	}
	return p, nil
}

// Stores are a PEM keystore and truststore on disk, the files Kafka's
// ssl.keystore.location and ssl.truststore.location (type PEM) name, and
// kzadmind's too.
type Stores struct {
	Keystore   string // the leaf's key then its chain
	Truststore string // the CA certificate
}

// WriteStores issues a leaf with o and writes it, with the CA, to dir as
// <name>-keystore.pem and <name>-truststore.pem.
func (ca *CA) WriteStores(dir, name string, o Options) (Stores, error) {
	leaf, err := ca.Issue(o)
	if err != nil {
		return Stores{}, fmt.Errorf("issue %s: %w", name, err)
	}
	ks, err := WriteFile(dir, name+"-keystore.pem", leaf.KeystorePEM())
	if err != nil {
		return Stores{}, err
	}
	ts, err := WriteFile(dir, name+"-truststore.pem", ca.PEM())
	if err != nil {
		return Stores{}, err
	}
	return Stores{Keystore: ks, Truststore: ts}, nil
}

// EncryptedKeystorePEM is KeystorePEM with the key encrypted under
// password as `openssl pkcs8 -topk8` does by default (PKCS#8 with PBES2:
// PBKDF2-HMAC-SHA256 and AES-256-CBC), the keystore a Kafka PEM keystore
// opens with ssl.key.password.
func (l *Leaf) EncryptedKeystorePEM(password string) ([]byte, error) {
	blk, _ := pem.Decode(l.KeyPEM)
	if blk == nil {
		return nil, errors.New("leaf key is not PEM")
	}
	key, err := x509.ParsePKCS8PrivateKey(blk.Bytes)
	if err != nil {
		return nil, err
	}
	der, err := pkcs8.MarshalPrivateKey(key, []byte(password), &pkcs8.Opts{
		Cipher:  pkcs8.AES256CBC,
		KDFOpts: pkcs8.PBKDF2Opts{SaltSize: 16, IterationCount: 2048, HMACHash: crypto.SHA256},
	})
	if err != nil {
		return nil, fmt.Errorf("encrypt the leaf key: %w", err)
	}
	return append(pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED PRIVATE KEY", Bytes: der}), l.CertPEM...), nil
}

// ErrNoOpenSSL is returned by OpenSSL when the openssl command is missing.
var ErrNoOpenSSL = errors.New("openssl is not installed")

// OpenSSL runs the openssl command with args, input on its stdin, and
// returns its stdout: the tool operators make their keys with, e.g.
// OpenSSL(leaf.KeyPEM, "pkcs8", "-topk8", "-v1", "PBE-SHA1-3DES", "-passout", "pass:secret").
func OpenSSL(input []byte, args ...string) ([]byte, error) {
	path, err := exec.LookPath("openssl")
	if err != nil {
		return nil, ErrNoOpenSSL
	}
	cmd := exec.Command(path, args...)
	cmd.Stdin = bytes.NewReader(input)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("openssl %s: %w: %s", strings.Join(args, " "), err, stderr.String())
	}
	return out, nil
}
