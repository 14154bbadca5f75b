package tlsconf

import (
	"crypto/tls"
	"io"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kzadmin/kzadmin/internal/testpki"
)

// handshake runs a TLS handshake between server and client configs over
// loopback and returns the server's error, then the client's: with TLS
// 1.3 a refused client certificate shows on the server's side first.
func handshake(t *testing.T, server, client *tls.Config) (serverErr, clientErr error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	done := make(chan error, 1)
	go func() {
		nc, err := ln.Accept()
		if err != nil {
			done <- err
			return
		}
		defer nc.Close()
		s := tls.Server(nc, server)
		err = s.Handshake()
		if err == nil {
			_, err = s.Write([]byte{1}) // the client reads it, so its side is done too
		}
		done <- err
	}()
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	c := tls.Client(nc, client)
	clientErr = c.Handshake()
	if clientErr == nil {
		_, clientErr = io.ReadFull(c, make([]byte, 1))
	}
	return <-done, clientErr
}

// TestBinaryStores: PKCS12 and JKS keystores and truststores, as Java's
// keytool makes them, serve a listener (with a client certificate
// required) and verify its clients and servers, as PEM ones do; a wrong
// password and a PEM-only setting are refused with the reason.
func TestBinaryStores(t *testing.T) {
	ca, err := testpki.NewCA("stores CA")
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"PKCS12", "JKS"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			server, err := ca.WriteBinaryStores(dir, "server", testpki.Options{}, format, "server-pw")
			if err != nil {
				t.Fatal(err)
			}
			client, err := ca.WriteBinaryStores(dir, "client", testpki.Options{}, format, "client-pw")
			if err != nil {
				t.Fatal(err)
			}
			srv, err := Settings{KeystoreType: strings.ToLower(format), KeystoreLocation: server.Keystore, KeystorePassword: "server-pw",
				TruststoreType: format, TruststoreLocation: server.Truststore, TruststorePassword: "server-pw",
				ClientAuth: "required"}.ServerConfig()
			if err != nil {
				t.Fatalf("server config: %v", err)
			}
			cli, err := Settings{KeystoreType: format, KeystoreLocation: client.Keystore, KeystorePassword: "client-pw",
				TruststoreType: format, TruststoreLocation: client.Truststore, TruststorePassword: "client-pw"}.ClientConfig(true)
			if err != nil {
				t.Fatalf("client config: %v", err)
			}
			cli.ServerName = "127.0.0.1"
			if serr, cerr := handshake(t, srv, cli); serr != nil || cerr != nil {
				t.Fatalf("handshake: server %v, client %v", serr, cerr)
			}
			// Without the client's certificate the listener refuses.
			anon, err := Settings{TruststoreType: format, TruststoreLocation: client.Truststore, TruststorePassword: "client-pw"}.ClientConfig(true)
			if err != nil {
				t.Fatal(err)
			}
			anon.ServerName = "127.0.0.1"
			if serr, _ := handshake(t, srv, anon); serr == nil || !strings.Contains(serr.Error(), "certificate") {
				t.Fatalf("handshake without a client certificate: server %v", serr)
			}

			for _, bad := range []struct {
				s    Settings
				want string
			}{
				{Settings{KeystoreType: format, KeystoreLocation: server.Keystore, KeystorePassword: "wrong"}, "ssl.keystore (" + format + ")"},
				{Settings{KeystoreType: format, KeystoreLocation: server.Keystore}, "ssl.keystore (" + format + ")"},
				{Settings{KeystoreType: format, KeystoreKey: "x", KeystoreCertificateChain: "y"}, "PEM only"},
				{Settings{KeystoreType: format, KeystoreLocation: server.Keystore, KeystorePassword: "server-pw",
					TruststoreType: format, TruststoreLocation: server.Truststore, TruststorePassword: "wrong"}, "ssl.truststore (" + format + ")"},
				{Settings{KeystoreType: format, KeystoreLocation: server.Keystore, KeystorePassword: "server-pw",
					TruststoreType: format, TruststoreCertificates: "pem"}, "PEM only"},
				{Settings{KeystoreType: "BCFKS", KeystoreLocation: server.Keystore}, "use PEM, PKCS12 or JKS"},
			} {
				if _, err := bad.s.ServerConfig(); err == nil || !strings.Contains(err.Error(), bad.want) {
					t.Errorf("%+v: got %v, want an error containing %q", bad.s, err, bad.want)
				}
			}
		})
	}
}

// TestKeytoolStores reads stores made by Java's own keytool, the tool
// Kafka's operators make them with: a JKS and a PKCS12 keystore holding a
// self-signed key, and truststores holding its certificate; a listener
// serves with each keystore and a client trusts it through each
// truststore. The JKS key has a password of its own (ssl.key.password).
func TestKeytoolStores(t *testing.T) {
	keytool, err := exec.LookPath("keytool")
	if err != nil {
		t.Skip("keytool (Java) is not installed")
	}
	for _, format := range []string{"JKS", "PKCS12"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			ks, ts, crt := filepath.Join(dir, "ks"), filepath.Join(dir, "ts"), filepath.Join(dir, "cert.pem")
			keyPass := "store-pass"
			if format == "JKS" {
				keyPass = "key-pass" // PKCS12 stores take one password
			}
			for _, args := range [][]string{
				{"-genkeypair", "-alias", "kzadmind", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=kzadmind",
					"-ext", "SAN=IP:127.0.0.1", "-validity", "2", "-keystore", ks, "-storetype", format,
					"-storepass", "store-pass", "-keypass", keyPass},
				{"-exportcert", "-rfc", "-alias", "kzadmind", "-keystore", ks, "-storetype", format, "-storepass", "store-pass", "-file", crt},
				{"-importcert", "-noprompt", "-alias", "ca", "-file", crt, "-keystore", ts, "-storetype", format, "-storepass", "trust-pass"},
			} {
				if out, err := exec.Command(keytool, args...).CombinedOutput(); err != nil {
					t.Fatalf("keytool %s: %v\n%s", args[0], err, out)
				}
			}
			srv, err := Settings{KeystoreType: format, KeystoreLocation: ks, KeystorePassword: "store-pass",
				KeyPassword: keyPass}.ServerConfig()
			if err != nil {
				t.Fatalf("keystore: %v", err)
			}
			cli, err := Settings{TruststoreType: format, TruststoreLocation: ts, TruststorePassword: "trust-pass"}.ClientConfig(true)
			if err != nil {
				t.Fatalf("truststore: %v", err)
			}
			cli.ServerName = "127.0.0.1"
			if serr, cerr := handshake(t, srv, cli); serr != nil || cerr != nil {
				t.Fatalf("handshake: server %v, client %v", serr, cerr)
			}
			if format == "JKS" {
				if _, err := (Settings{KeystoreType: format, KeystoreLocation: ks, KeystorePassword: "store-pass"}).ServerConfig(); err == nil {
					t.Fatal("a JKS key with its own password opened without ssl.key.password")
				}
			}
		})
	}
}
