package zkacl

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/integration/netcut"
	"github.com/kzadmin/kzadmin/integration/waitfor"
	"github.com/kzadmin/kzadmin/integration/zkserver"
	"github.com/kzadmin/kzadmin/zkadmin"
)

// writeJAAS writes a JAAS file and returns its path.
func writeJAAS(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "jaas.conf")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// configOf is a configuration getter over a map.
func configOf(kv map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := kv[k]; return v, ok }
}

const brokersJAAS = `
KafkaServer {
  org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret";
};
Client {
  org.apache.zookeeper.server.auth.DigestLoginModule required
  username="kafka"
  password="kafka-secret";
};
Other {
  org.apache.zookeeper.server.auth.DigestLoginModule required username="kafka" password="wrong";
};
Kerberos {
  com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true keyTab="/etc/kafka.keytab" principal="kafka/host@REALM";
};
`

// TestSASLLogin: with a real ZooKeeper whose SASL provider takes the
// user kafka, a session logged in from the brokers' JAAS file (section
// Client) has the identity sasl:kafka: it owns the znodes it creates
// under zookeeper.set.acl, which a session without the login reads but
// cannot change. It logs in again after the server restarts (a write
// needs the identity), and after its session expired (the new session
// logs in). A wrong password, and a server without SASL, fail
// the connection with the reason named.
func TestSASLLogin(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, err := zkserver.Start(ctx, zkserver.Options{HeapMB: 256,
		SASL: &zkserver.SASLOptions{Users: map[string]string{"kafka": "kafka-secret"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	jaas := writeJAAS(t, brokersJAAS)
	// Through a proxy the test can cut, to expire the session.
	proxy := netcut.New(t, srv.Addr())
	connect := func(ctx context.Context, section string) (*zkadmin.Client, error) {
		o := zkadmin.Options{Servers: []string{proxy.Addr()}, Chroot: "/kafka", SessionTimeout: 2 * time.Second}
		ConnectOptions(&o, true, "")
		var err error
		if o.SASL, err = SASLFromConfig(configOf(map[string]string{jaasFileKey: jaas, jaasSectionKey: section})); err != nil {
			t.Fatal(err)
		}
		if err := RequireIdentity(true, o); err != nil {
			t.Fatal(err)
		}
		return zkadmin.Connect(ctx, o)
	}
	c, err := connect(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Create(ctx, "/brokers", nil, zkadmin.Persistent); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create(ctx, "/config", nil, zkadmin.Persistent); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create(ctx, "/config/users", nil, zkadmin.Persistent); err != nil {
		t.Fatal(err)
	}

	plain, err := zkadmin.Connect(ctx, zkadmin.Options{Servers: []string{srv.Addr()}, Chroot: "/kafka", SessionTimeout: 6 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if _, _, err := plain.Get(ctx, "/brokers"); err != nil {
		t.Fatalf("a session without the login could not read /brokers: %v", err)
	}
	if _, err := plain.Set(ctx, "/brokers", []byte("x"), -1); !errors.Is(err, zkadmin.ErrNoAuth) {
		t.Fatalf("a session without the login changed /brokers: %v", err)
	}
	if _, _, err := plain.Get(ctx, "/config/users"); !errors.Is(err, zkadmin.ErrNoAuth) {
		t.Fatalf("a session without the login read /config/users: %v", err)
	}
	// The identity is exactly sasl:kafka: a znode granted to it alone (any
	// session may create one) is the logged-in session's to change.
	granted := []zkadmin.ACL{{Perms: zkadmin.PermAll, Scheme: "sasl", ID: "kafka"}}
	if _, err := c.CreateWithACL(ctx, "/granted", nil, zkadmin.Persistent, granted); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Set(ctx, "/granted", []byte("mine"), -1); err != nil {
		t.Fatalf("the logged-in session could not write a znode granted to sasl:kafka: %v", err)
	}
	if _, err := plain.Set(ctx, "/granted", []byte("x"), -1); !errors.Is(err, zkadmin.ErrNoAuth) {
		t.Fatalf("a session without the login changed a znode granted to sasl:kafka: %v", err)
	}

	// A restart drops the connection; the write after it needs the login
	// of the new connection.
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Set(ctx, "/brokers", []byte("after restart"), -1); err != nil {
		t.Fatalf("write after the server restarted: %v", err)
	}

	// After an expiry the server answers the old session's reconnection
	// with none; the new session logs in again.
	if _, err := c.Create(ctx, "/alive", nil, zkadmin.Ephemeral); err != nil {
		t.Fatal(err)
	}
	oldSession := c.SessionID()
	proxy.Cut()
	if err := waitfor.Until(ctx, 30*time.Second, 50*time.Millisecond, func() error {
		if _, _, err := plain.Get(ctx, "/alive"); !errors.Is(err, zkadmin.ErrNoNode) {
			return fmt.Errorf("the cut session's ephemeral: %v", err)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	proxy.Heal()
	if err := waitfor.Until(ctx, 30*time.Second, 50*time.Millisecond, func() error {
		if c.SessionID() == oldSession || c.State() != zkadmin.StateConnected {
			return fmt.Errorf("session 0x%x, state %v", c.SessionID(), c.State())
		}
		_, err := c.Set(ctx, "/granted", []byte("new session"), -1)
		return err
	}); err != nil {
		t.Fatalf("write as sasl:kafka after the session expired: %v", err)
	}

	wctx, wcancel := context.WithTimeout(ctx, 4*time.Second)
	defer wcancel()
	if bad, err := connect(wctx, "Other"); err == nil {
		bad.Close()
		t.Fatal("a wrong password connected")
	} else if !strings.Contains(err.Error(), "SASL DIGEST-MD5 login") || !strings.Contains(err.Error(), "AUTHFAILED") {
		t.Fatalf("wrong password: %v", err)
	}
}

// TestSASLWithoutServerSupport: a ZooKeeper without the SASL provider
// answers the first token with none; the connection fails saying so.
func TestSASLWithoutServerSupport(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv, err := zkserver.Start(ctx, zkserver.Options{HeapMB: 256})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	wctx, wcancel := context.WithTimeout(ctx, 4*time.Second)
	defer wcancel()
	c, err := zkadmin.Connect(wctx, zkadmin.Options{Servers: []string{srv.Addr()}, SASL: DigestMD5Login{Username: "kafka", Password: "pw"}})
	if err == nil {
		c.Close()
		t.Fatal("connected")
	}
	if !strings.Contains(err.Error(), "no challenge") || !strings.Contains(err.Error(), "authProvider.sasl") {
		t.Fatalf("err = %v", err)
	}
}

func TestSASLFromConfigErrors(t *testing.T) {
	jaas := writeJAAS(t, brokersJAAS)
	if m, err := SASLFromConfig(configOf(nil)); m != nil || err != nil {
		t.Fatalf("unset: %v, %v", m, err)
	}
	m, err := SASLFromConfig(configOf(map[string]string{jaasFileKey: " " + jaas + " "}))
	if err != nil || m != (DigestMD5Login{Username: "kafka", Password: "kafka-secret"}) {
		t.Fatalf("Client section: %+v, %v", m, err)
	}
	for name, tc := range map[string]struct {
		file, section, want string
	}{
		"missing file":    {file: filepath.Join(t.TempDir(), "none.conf"), want: "no such file"},
		"missing section": {file: jaas, section: "Nope", want: `no section "Nope"`},
		"kerberos":        {file: jaas, section: "Kerberos", want: "kerberos: read"},
		"plain only":      {file: jaas, section: "KafkaServer", want: "has no " + DigestLoginModule + " or " + krb5LoginModule},
		"no username": {file: writeJAAS(t, "Client { "+DigestLoginModule+" required password=x; };"),
			want: "has no username"},
		"unparsable": {file: writeJAAS(t, "Client {"), want: "does not end"},
	} {
		_, err := SASLFromConfig(configOf(map[string]string{jaasFileKey: tc.file, jaasSectionKey: tc.section}))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), jaasFileKey) {
			t.Errorf("%s: %v, want an error naming %s and %q", name, err, jaasFileKey, tc.want)
		}
	}
}
