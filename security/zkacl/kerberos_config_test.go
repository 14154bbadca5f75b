package zkacl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jcmturner/gokrb5/v8/iana/etypeID"
	"github.com/jcmturner/gokrb5/v8/keytab"
)

// writeKeytab writes a keytab with a key of principal (name@REALM).
func writeKeytab(t *testing.T, principal string) string {
	t.Helper()
	name, realm, _ := strings.Cut(principal, "@")
	kt := keytab.New()
	if err := kt.AddEntry(name, realm, "secret", time.Now(), 1, etypeID.AES256_CTS_HMAC_SHA1_96); err != nil {
		t.Fatal(err)
	}
	b, err := kt.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "kafka.keytab")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

const testKrb5Conf = `[libdefaults]
  default_realm = EXAMPLE.COM
[realms]
  EXAMPLE.COM = {
    kdc = 127.0.0.1:88
  }
`

// TestKerberosFromConfig: a Krb5LoginModule section becomes a GSSAPI
// login with ZooKeeper's client defaults, or the keys that change them;
// every missing piece is named, before any KDC is asked.
func TestKerberosFromConfig(t *testing.T) {
	dir := t.TempDir()
	krb5 := filepath.Join(dir, "krb5.conf")
	if err := os.WriteFile(krb5, []byte(testKrb5Conf), 0o600); err != nil {
		t.Fatal(err)
	}
	kt := writeKeytab(t, "kafka/broker1@EXAMPLE.COM")
	section := func(options string) string {
		return writeJAAS(t, "Client {\n  com.sun.security.auth.module.Krb5LoginModule required "+options+";\n};\n")
	}
	good := section(`useKeyTab=true storeKey=true keyTab="` + kt + `" principal="kafka/broker1@EXAMPLE.COM"`)

	m, err := SASLFromConfig(configOf(map[string]string{jaasFileKey: good, krb5ConfKey: krb5}))
	if err != nil {
		t.Fatal(err)
	}
	g, ok := m.(*GSSAPILogin)
	if !ok || g.Name() != "GSSAPI" || g.ServiceName != "zookeeper" || !g.Canonicalize || g.ServerPrincipal != "" ||
		g.Login.Principal() != "kafka/broker1@EXAMPLE.COM" {
		t.Fatalf("defaults: %#v", m)
	}
	// Without a realm, krb5.conf's default realm.
	m, err = SASLFromConfig(configOf(map[string]string{
		jaasFileKey: section(`useKeyTab=TRUE keyTab="` + kt + `" principal="kafka/broker1"`), krb5ConfKey: krb5,
		serviceNameKey: "zk", canonicalKey: "false", serverPrinKey: "zookeeper/zk1.example.com@EXAMPLE.COM"}))
	if err != nil {
		t.Fatal(err)
	}
	if g := m.(*GSSAPILogin); g.ServiceName != "zk" || g.Canonicalize || g.ServerPrincipal != "zookeeper/zk1.example.com" ||
		g.Login.Principal() != "kafka/broker1@EXAMPLE.COM" {
		t.Fatalf("keys: %#v", g)
	}

	for name, tc := range map[string]struct {
		jaas, krb5, canonical, want string
	}{
		"no krb5.conf":     {jaas: good, krb5: filepath.Join(dir, "none.conf"), want: "none.conf"},
		"keytab missing":   {jaas: section(`useKeyTab=true keyTab="/nonexistent/kafka.keytab" principal="kafka/broker1"`), want: "read keytab"},
		"no keyTab":        {jaas: section(`useKeyTab=true principal="kafka/broker1"`), want: "useKeyTab=true without keyTab"},
		"no principal":     {jaas: section(`useKeyTab=true keyTab="` + kt + `"`), want: "useKeyTab=true without principal"},
		"other principal":  {jaas: section(`useKeyTab=true keyTab="` + kt + `" principal="kafka/broker2"`), want: "has no key for kafka/broker2@EXAMPLE.COM"},
		"no cache":         {jaas: section(`useTicketCache=true ticketCache="/nonexistent/krb5cc"`), want: "read ticket cache /nonexistent/krb5cc"},
		"neither":          {jaas: section(`storeKey=true`), want: "neither useKeyTab=true"},
		"bad canonicalize": {jaas: good, canonical: "yes", want: canonicalKey},
	} {
		kv := map[string]string{jaasFileKey: tc.jaas, krb5ConfKey: krb5}
		if tc.krb5 != "" {
			kv[krb5ConfKey] = tc.krb5
		}
		if tc.canonical != "" {
			kv[canonicalKey] = tc.canonical
		}
		_, err := SASLFromConfig(configOf(kv))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), jaasFileKey) {
			t.Errorf("%s: %v, want an error naming %s and %q", name, err, jaasFileKey, tc.want)
		}
	}
}

// TestServiceHost: the service principal's host is the canonical name of
// the server's address, as ZooKeeper's client names it.
func TestServiceHost(t *testing.T) {
	for _, tc := range []struct {
		addr         string
		canonicalize bool
		want         string
	}{
		{"127.0.0.1:2181", true, "localhost"},
		{"localhost:2181", true, "localhost"},
		{"127.0.0.1:2181", false, "127.0.0.1"},
		{"zk1.invalid:2181", false, "zk1.invalid"},
		{"zk1.invalid:2181", true, "zk1.invalid"}, // not resolvable: as given
	} {
		if got := serviceHost(tc.addr, tc.canonicalize); got != tc.want {
			t.Errorf("serviceHost(%s, %v) = %q, want %q", tc.addr, tc.canonicalize, got, tc.want)
		}
	}
}
