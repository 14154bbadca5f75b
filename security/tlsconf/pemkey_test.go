package tlsconf

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/kzadmin/kzadmin/internal/testpki"
)

// opensslKey runs `openssl <args>` on the server's plain key and returns
// what it writes; the test is skipped without openssl.
func opensslKey(t *testing.T, p pki, args ...string) string {
	t.Helper()
	out, err := testpki.OpenSSL(p.server.KeyPEM, args...)
	if errors.Is(err, testpki.ErrNoOpenSSL) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestEncryptedPEMKeys: a PEM keystore whose private key is encrypted
// PKCS#8, as `openssl pkcs8 -topk8` writes it with Kafka's documented
// PBE-SHA1-3DES and with each PBES2 scheme an operator is likely to pick,
// serves a TLS listener with ssl.key.password, inline (ssl.keystore.key)
// and as a file with the chain after the key; a missing or wrong password
// is named.
func TestEncryptedPEMKeys(t *testing.T) {
	p := newPKI(t)
	chain := string(p.server.CertPEM)
	for name, args := range map[string][]string{
		"PBE-SHA1-3DES (Kafka's documented scheme)":         {"pkcs8", "-topk8", "-v1", "PBE-SHA1-3DES"},
		"openssl default (PBKDF2-HMAC-SHA256, AES-256-CBC)": {"pkcs8", "-topk8"},
		"PBKDF2-HMAC-SHA1, AES-128-CBC":                     {"pkcs8", "-topk8", "-v2", "aes-128-cbc", "-v2prf", "hmacWithSHA1"},
		"PBKDF2-HMAC-SHA256, 3DES-CBC":                      {"pkcs8", "-topk8", "-v2", "des3"},
		"scrypt, AES-256-CBC":                               {"pkcs8", "-topk8", "-scrypt"},
		"testpki":                                           nil,
	} {
		t.Run(name, func(t *testing.T) {
			var key string
			if args == nil {
				ks, err := p.server.EncryptedKeystorePEM("s3cret")
				if err != nil {
					t.Fatal(err)
				}
				key, _, _ = strings.Cut(string(ks), "-----END ENCRYPTED PRIVATE KEY-----")
				key += "-----END ENCRYPTED PRIVATE KEY-----\n"
			} else {
				key = opensslKey(t, p, append(args, "-passout", "pass:s3cret")...)
			}
			if !strings.Contains(key, "ENCRYPTED PRIVATE KEY") {
				t.Fatalf("not an encrypted PKCS#8 key:\n%s", key)
			}
			file, err := os.CreateTemp(t.TempDir(), "keystore-*.pem")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := file.WriteString(key + chain); err != nil {
				t.Fatal(err)
			}
			file.Close()
			for form, s := range map[string]Settings{
				"inline": {KeystoreKey: key, KeystoreCertificateChain: chain, KeyPassword: "s3cret"},
				"file":   {KeystoreType: "PEM", KeystoreLocation: file.Name(), KeyPassword: "s3cret"},
			} {
				srv, err := s.ServerConfig()
				if err != nil {
					t.Fatalf("%s: %v", form, err)
				}
				cli, err := Settings{TruststoreCertificates: string(p.ca.PEM())}.ClientConfig(true)
				if err != nil {
					t.Fatal(err)
				}
				cli.ServerName = "127.0.0.1"
				if serr, cerr := handshake(t, srv, cli); serr != nil || cerr != nil {
					t.Fatalf("%s: handshake: server %v, client %v", form, serr, cerr)
				}
			}
			for want, s := range map[string]Settings{
				"set ssl.key.password":                             {KeystoreKey: key, KeystoreCertificateChain: chain},
				"decrypt the private key with ssl.key.password":    {KeystoreKey: key, KeystoreCertificateChain: chain, KeyPassword: "wrong"},
				"expected one private key, found 2 encrypted ones": {KeystoreKey: key + key, KeystoreCertificateChain: chain, KeyPassword: "s3cret"},
			} {
				if _, err := s.ServerConfig(); err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("want %q, got %v", want, err)
				}
			}
		})
	}
}

// TestEncryptedPEMKeysRefused: the encrypted keys Kafka does not read
// (OpenSSL's legacy format), and the schemes this package does not read
// (other PBES1 schemes, a PBKDF2 digest other than SHA-1 and SHA-256) are
// refused with the reason; a password given
// for an unencrypted key is ignored.
func TestEncryptedPEMKeysRefused(t *testing.T) {
	p := newPKI(t)
	chain := string(p.server.CertPEM)
	for want, args := range map[string][]string{
		"legacy format (Proc-Type: 4,ENCRYPTED)":               {"pkey", "-traditional", "-aes256"},
		"pkcs8: only PBES2 supported (readable: PBE-SHA1-3DES": {"pkcs8", "-topk8", "-v1", "PBE-SHA1-2DES"},
		"unsupported hash function (readable: PBE-SHA1-3DES":   {"pkcs8", "-topk8", "-v2prf", "hmacWithSHA512"},
	} {
		key := opensslKey(t, p, append(args, "-passout", "pass:s3cret")...)
		_, err := Settings{KeystoreKey: key, KeystoreCertificateChain: chain, KeyPassword: "s3cret"}.ServerConfig()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: want %q, got %v", args, want, err)
		}
	}
	_, err := Settings{KeystoreKey: string(p.server.KeyPEM), KeystoreCertificateChain: chain, KeyPassword: "unused"}.ServerConfig()
	if err != nil {
		t.Fatalf("an unencrypted key with ssl.key.password: %v", err)
	}
}
