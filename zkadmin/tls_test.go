package zkadmin

import (
	"context"
	"crypto/tls"
	"crypto/x509/pkix"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kzadmin/kzadmin/integration/zkserver"
	"github.com/kzadmin/kzadmin/internal/testpki"
)

// TestTLSConnection: over ZooKeeper's secure client port (KIP-515) a
// session authenticated by its client certificate works as a plain one,
// and is x509:<its subject DN>: it owns what it creates under the "auth"
// ACL, and may write what is granted to that identity; it reconnects over
// TLS after the server restarts. A client that does not trust the
// server's certificate fails to connect, and the wait names the
// handshake's error.
func TestTLSConnection(t *testing.T) {
	dir := t.TempDir()
	ca, err := testpki.NewCA("zookeeper TLS CA")
	if err != nil {
		t.Fatal(err)
	}
	server, err := ca.WriteStores(dir, "zookeeper", testpki.Options{Subject: pkix.Name{CommonName: "zookeeper"}})
	if err != nil {
		t.Fatal(err)
	}
	client, err := ca.Issue(testpki.Options{Subject: pkix.Name{CommonName: "kzadmind", OrganizationalUnit: []string{"ops"}}})
	if err != nil {
		t.Fatal(err)
	}
	cert, err := client.TLS()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	s, err := zkserver.Start(ctx, zkserver.Options{DataDir: filepath.Join(dir, "zk"),
		TLS: &zkserver.TLSOptions{Keystore: server.Keystore, Truststore: server.Truststore}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	c := connect(t, Options{Servers: []string{s.SecureAddr()}, Chroot: "/tls",
		TLS: &tls.Config{RootCAs: ca.Pool(), Certificates: []tls.Certificate{cert}},
		ACL: func(p string) []ACL {
			if p == "/owned" {
				return CreatorAllACL()
			}
			return nil
		}})
	if _, err := c.Create(testCtx(t), "/owned", []byte("x"), Persistent); err != nil {
		t.Fatalf("create over TLS: %v", err)
	}
	if data, _, err := c.Get(testCtx(t), "/owned"); err != nil || string(data) != "x" {
		t.Fatalf("get over TLS: %q, %v", data, err)
	}

	// On the plain port, without the certificate's identity.
	plain, _, err := zk.Connect([]string{s.Addr()}, 10*time.Second, zk.WithLogger(discardLogger{}))
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if _, _, err := plain.Get("/tls/owned"); !errors.Is(err, zk.ErrNoAuth) {
		t.Fatalf("a session without the certificate read the znode: %v", err)
	}
	// The identity is the subject as Java prints it: a znode granted to
	// x509:CN=kzadmind,OU=ops only is writable over TLS, not in plain.
	granted := zk.ACL{Perms: zk.PermAll, Scheme: "x509", ID: "CN=kzadmind,OU=ops"}
	if _, err := plain.Create("/tls/granted", nil, 0, []zk.ACL{granted}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Set(testCtx(t), "/granted", []byte("y"), -1); err != nil {
		t.Fatalf("the certificate's identity cannot write a znode granted to %s: %v", granted.ID, err)
	}
	if _, err := plain.Set("/tls/granted", []byte("z"), -1); !errors.Is(err, zk.ErrNoAuth) {
		t.Fatalf("a session without the certificate wrote a znode granted to %s: %v", granted.ID, err)
	}

	// A server restart: the session reconnects, over TLS again.
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := s.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitConnected(testCtx(t)); err != nil {
		t.Fatalf("reconnect over TLS: %v", err)
	}
	if data, _, err := c.Get(testCtx(t), "/granted"); err != nil || string(data) != "y" {
		t.Fatalf("get after the restart: %q, %v", data, err)
	}

	// A client that does not trust the server.
	other, err := testpki.NewCA("another CA")
	if err != nil {
		t.Fatal(err)
	}
	wctx, wcancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer wcancel()
	_, err = Connect(wctx, Options{Servers: []string{s.SecureAddr()},
		TLS: &tls.Config{RootCAs: other.Pool(), Certificates: []tls.Certificate{cert}}})
	if err == nil || !strings.Contains(err.Error(), "TLS handshake") || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("connect trusting another CA: %v", err)
	}
}

// discardLogger silences go-zookeeper's own client.
type discardLogger struct{}

func (discardLogger) Printf(string, ...any) {}
