package zkacl

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kzadmin/kzadmin/integration/kdc"
	"github.com/kzadmin/kzadmin/integration/zkserver"
	"github.com/kzadmin/kzadmin/zkadmin"
)

// TestKerberosLogin: with a real MIT KDC and a real ZooKeeper that is a
// Kerberos service (zookeeper/localhost, principals mapped to their
// short names as clusters whose brokers log in as kafka/<host> run it),
// a session logged in from a keytab as kafka/kzadmind has the identity
// sasl:kafka: it owns what it creates under zookeeper.set.acl, and a
// session without the login cannot change it. A session logged in from
// the ticket cache kinit filled has its principal's identity. It logs in
// again after the server restarts. A principal the KDC does not know, a
// service the KDC does not know, and a server that is not a Kerberos
// service fail the connection with the reason named.
func TestKerberosLogin(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	k, err := kdc.Start(ctx, kdc.Options{Dir: filepath.Join(dir, "kdc")})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Stop()
	zkKeytab, kafkaKeytab := filepath.Join(dir, "zookeeper.keytab"), filepath.Join(dir, "kafka.keytab")
	if err := k.AddPrincipal(ctx, "zookeeper/localhost", zkKeytab); err != nil {
		t.Fatal(err)
	}
	if err := k.AddPrincipal(ctx, "kafka/kzadmind", kafkaKeytab); err != nil {
		t.Fatal(err)
	}
	srv, err := zkserver.Start(ctx, zkserver.Options{HeapMB: 256, SASL: &zkserver.SASLOptions{Kerberos: &zkserver.KerberosOptions{
		Krb5Conf: k.Krb5Conf(), Keytab: zkKeytab, Principal: "zookeeper/localhost@" + k.Realm(), ShortNames: true}}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()

	connect := func(ctx context.Context, options string, keys map[string]string) (*zkadmin.Client, error) {
		t.Helper()
		jaas := writeJAAS(t, "Client {\n  com.sun.security.auth.module.Krb5LoginModule required "+options+";\n};\n")
		kv := map[string]string{jaasFileKey: jaas, krb5ConfKey: k.Krb5Conf()}
		for key, v := range keys {
			kv[key] = v
		}
		o := zkadmin.Options{Servers: []string{srv.Addr()}, Chroot: "/kafka", SessionTimeout: 6 * time.Second}
		ConnectOptions(&o, true, "")
		if o.SASL, err = SASLFromConfig(configOf(kv)); err != nil {
			return nil, err
		}
		return zkadmin.Connect(ctx, o)
	}
	keytabLogin := `useKeyTab=true storeKey=true keyTab="` + kafkaKeytab + `" principal="kafka/kzadmind@` + k.Realm() + `"`
	c, err := connect(ctx, keytabLogin, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Create(ctx, "/brokers", nil, zkadmin.Persistent); err != nil {
		t.Fatal(err)
	}
	owned := []zk.ACL{{Perms: zk.PermAll, Scheme: "sasl", ID: "kafka"}, {Perms: zk.PermRead, Scheme: "world", ID: "anyone"}}
	if acl := aclOf(t, srv.Addr(), "/brokers"); !slices.Equal(acl, owned) {
		t.Fatalf("ACL of a znode the Kerberos session created: %v; want %v", acl, owned)
	}
	plain, err := zkadmin.Connect(ctx, zkadmin.Options{Servers: []string{srv.Addr()}, Chroot: "/kafka", SessionTimeout: 6 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if _, err := plain.Set(ctx, "/brokers", []byte("x"), -1); !errors.Is(err, zkadmin.ErrNoAuth) {
		t.Fatalf("a session without the login changed /brokers: %v", err)
	}

	// A restart drops the connection; the write after it needs the login
	// of the new connection (a service ticket kept from the first).
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

	// The ticket cache kinit filled, as an operator running the CLI has.
	if err := k.AddPrincipalWithPassword(ctx, "alice", "alice-secret"); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, "krb5cc_alice")
	kinit := exec.CommandContext(ctx, "kinit", "alice@"+k.Realm())
	kinit.Env = append(os.Environ(), append(k.Env(), "KRB5CCNAME=FILE:"+cache)...)
	kinit.Stdin = strings.NewReader("alice-secret\n")
	if out, err := kinit.CombinedOutput(); err != nil {
		t.Fatalf("kinit: %v\n%s", err, out)
	}
	// Under a znode open to all, since /kafka is sasl:kafka's.
	if _, err := c.CreateWithACL(ctx, "/shared", nil, zkadmin.Persistent, zkadmin.OpenACL()); err != nil {
		t.Fatal(err)
	}
	ac, err := connect(ctx, `useTicketCache=true ticketCache="`+cache+`"`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ac.Create(ctx, "/shared/alice", nil, zkadmin.Persistent); err != nil {
		t.Fatal(err)
	}
	want := []zk.ACL{{Perms: zk.PermAll, Scheme: "sasl", ID: "alice"}, {Perms: zk.PermRead, Scheme: "world", ID: "anyone"}}
	if acl := aclOf(t, srv.Addr(), "/shared/alice"); !slices.Equal(acl, want) {
		t.Fatalf("ACL of a znode the ticket-cache session created: %v; want %v", acl, want)
	}
	ac.Close()

	refused := func(name, options string, keys map[string]string, wants ...string) {
		t.Helper()
		wctx, wcancel := context.WithTimeout(ctx, 5*time.Second)
		defer wcancel()
		bad, err := connect(wctx, options, keys)
		if err == nil {
			bad.Close()
			t.Fatalf("%s: connected", name)
		}
		for _, w := range wants {
			if !strings.Contains(err.Error(), w) {
				t.Fatalf("%s: %v; want it to say %q", name, err, w)
			}
		}
	}
	// A keytab of a principal the KDC has never heard of.
	ghost := writeKeytab(t, "kafka/ghost@"+k.Realm())
	refused("unknown principal", `useKeyTab=true keyTab="`+ghost+`" principal="kafka/ghost"`, nil,
		"SASL GSSAPI login", "log in as kafka/ghost@"+k.Realm())
	refused("unknown service", keytabLogin, map[string]string{serverPrinKey: "zookeeper/elsewhere"},
		"SASL GSSAPI login", "service ticket for zookeeper/elsewhere")

	// A ZooKeeper without SASL answers the first token with none.
	open, err := zkserver.Start(ctx, zkserver.Options{HeapMB: 256})
	if err != nil {
		t.Fatal(err)
	}
	defer open.Close()
	jaas := writeJAAS(t, "Client {\n  com.sun.security.auth.module.Krb5LoginModule required "+keytabLogin+";\n};\n")
	mech, err := SASLFromConfig(configOf(map[string]string{jaasFileKey: jaas, krb5ConfKey: k.Krb5Conf(),
		serverPrinKey: "zookeeper/localhost"}))
	if err != nil {
		t.Fatal(err)
	}
	wctx, wcancel := context.WithTimeout(ctx, 5*time.Second)
	defer wcancel()
	if oc, err := zkadmin.Connect(wctx, zkadmin.Options{Servers: []string{open.Addr()}, SASL: mech}); err == nil {
		oc.Close()
		t.Fatal("connected to a ZooKeeper without SASL")
	} else if !strings.Contains(err.Error(), "authProvider.sasl") {
		t.Fatalf("a ZooKeeper without SASL: %v", err)
	}
}

// aclOf reads path's ACL (chrooted at /kafka) with a plain session.
func aclOf(t *testing.T, server, path string) []zk.ACL {
	t.Helper()
	conn, _, err := zk.Connect([]string{server}, 10*time.Second, zk.WithLogger(quietLogger{}))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	acl, _, err := conn.GetACL("/kafka" + path)
	if err != nil {
		t.Fatalf("ACL of %s: %v", path, err)
	}
	return acl
}

type quietLogger struct{}

func (quietLogger) Printf(string, ...any) {}
