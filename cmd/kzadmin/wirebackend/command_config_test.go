package wirebackend_test

import (
	"context"
	"crypto/x509/pkix"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/cli"
	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/internal/testpki"
	"github.com/kzadmin/kzadmin/znodes"
)

// writeProps writes a client properties file and returns its path.
func writeProps(t *testing.T, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "client.properties")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCommandConfigSecurity: kzadmin --bootstrap-server --command-config
// talks to listeners that need TLS, a client certificate or SASL/SCRAM,
// read from the client properties Kafka's tools take; a wrong password, a
// missing certificate and settings it cannot honour fail with the reason.
func TestCommandConfigSecurity(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	ca, err := testpki.NewCA("kzadmin CLI test CA")
	if err != nil {
		t.Fatal(err)
	}
	server, err := ca.WriteStores(dir, "kzadmind", testpki.Options{})
	if err != nil {
		t.Fatal(err)
	}
	client, err := ca.WriteStores(dir, "operator", testpki.Options{Subject: pkix.Name{CommonName: "operator"}})
	if err != nil {
		t.Fatal(err)
	}
	// kzadmind's own keystore as Java's keytool makes them (PKCS12), and
	// the operator's in the other binary format (JKS).
	serverP12, err := ca.WriteBinaryStores(dir, "kzadmind-p12", testpki.Options{}, "PKCS12", "server-pw")
	if err != nil {
		t.Fatal(err)
	}
	clientJKS, err := ca.WriteBinaryStores(dir, "operator-jks", testpki.Options{Subject: pkix.Name{CommonName: "operator"}}, "JKS", "changeit")
	if err != nil {
		t.Fatal(err)
	}
	conf := devConfig()
	conf.HTTPListen = ""
	conf.Listeners = []config.Listener{{Name: "PLAINTEXT", Host: "127.0.0.1"}, {Name: "SASL_SSL", Host: "127.0.0.1"},
		{Name: "SSL", Host: "127.0.0.1"}}
	conf.Props = map[string]string{
		"sasl.enabled.mechanisms":                   "SCRAM-SHA-512",
		"ssl.keystore.type":                         "PKCS12",
		"ssl.keystore.location":                     serverP12.Keystore,
		"ssl.keystore.password":                     "server-pw",
		"ssl.truststore.type":                       "PEM",
		"ssl.truststore.location":                   server.Truststore,
		"listener.name.ssl.ssl.client.auth":         "required",
		"connection.failed.authentication.delay.ms": "0",
	}
	if err := conf.Validate(); err != nil {
		t.Fatal(err)
	}
	d := startDaemon(ctx, t, conf)
	c, err := newCluster(ctx, d, "", 3)
	if err != nil {
		t.Fatal(err)
	}
	defer c.zk.Close()
	want(t, c.zook(t, "configs", "alter", "--entity-type", "users", "--entity-name", "alice",
		"--add-config", "SCRAM-SHA-512=[iterations=4096,password=alice-secret]"), 0)

	// kzadmin runs the CLI against one listener with a properties file.
	kz := func(addr, props string, args ...string) result {
		return runCLI(append(args, "--bootstrap-server", addr, "--command-config", props), cli.Options{})
	}
	saslSSL, ssl := d.ListenerAddr("SASL_SSL"), d.ListenerAddr("SSL")
	scram := func(password string, extra ...string) string {
		return writeProps(t, append([]string{
			"security.protocol=SASL_SSL",
			"sasl.mechanism=SCRAM-SHA-512",
			`sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \`,
			`    username="alice" password="` + password + `";`,
			"ssl.truststore.type=PEM",
			"ssl.truststore.location=" + server.Truststore,
		}, extra...)...)
	}

	t.Run("SASL_SSL with SCRAM", func(t *testing.T) {
		want(t, kz(saslSSL, scram("alice-secret"), "topics", "create", "--topic", "cc-secure", "--partitions", "2",
			"--replication-factor", "1"), 0, "Created topic cc-secure.")
		if c.get(t, znodes.TopicPath("cc-secure")) == "" {
			t.Fatal("the topic's znode is missing")
		}
		want(t, kz(saslSSL, scram("alice-secret"), "topics", "list"), 0, "cc-secure")
	})
	t.Run("wrong password", func(t *testing.T) {
		want(t, kz(saslSSL, scram("wrong"), "topics", "list", "--timeout", "10s"), 1, "SASL_AUTHENTICATION_FAILED")
	})
	t.Run("broker not trusted", func(t *testing.T) {
		props := writeProps(t, "security.protocol=SASL_SSL", "sasl.mechanism=SCRAM-SHA-512",
			`sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="alice-secret";`)
		want(t, kz(saslSSL, props, "topics", "list", "--timeout", "10s"), 1, "certificate signed by unknown authority")
	})
	t.Run("SSL with a client certificate", func(t *testing.T) {
		props := writeProps(t, "security.protocol=SSL", "ssl.truststore.type=PEM", "ssl.truststore.location="+client.Truststore,
			"ssl.keystore.type=PEM", "ssl.keystore.location="+client.Keystore)
		want(t, kz(ssl, props, "topics", "describe", "--topic", "cc-secure"), 0, "cc-secure")
	})
	t.Run("SSL with an encrypted PEM key", func(t *testing.T) {
		leaf, err := ca.Issue(testpki.Options{Subject: pkix.Name{CommonName: "operator"}})
		if err != nil {
			t.Fatal(err)
		}
		pemData, err := leaf.EncryptedKeystorePEM("key-secret")
		if err != nil {
			t.Fatal(err)
		}
		ks, err := testpki.WriteFile(dir, "operator-encrypted.pem", pemData)
		if err != nil {
			t.Fatal(err)
		}
		base := []string{"security.protocol=SSL", "ssl.truststore.location=" + client.Truststore, "ssl.keystore.type=PEM",
			"ssl.keystore.location=" + ks}
		want(t, kz(ssl, writeProps(t, append(base, "ssl.key.password=key-secret")...), "topics", "describe", "--topic", "cc-secure"),
			0, "cc-secure")
		want(t, kz(ssl, writeProps(t, base...), "topics", "list"), 2, "set ssl.key.password")
	})
	t.Run("SSL with JKS stores", func(t *testing.T) {
		props := writeProps(t, "security.protocol=SSL", "ssl.truststore.type=JKS", "ssl.truststore.location="+clientJKS.Truststore,
			"ssl.truststore.password=changeit", "ssl.keystore.type=JKS", "ssl.keystore.location="+clientJKS.Keystore,
			"ssl.keystore.password=changeit")
		want(t, kz(ssl, props, "topics", "describe", "--topic", "cc-secure"), 0, "cc-secure")
		wrong := writeProps(t, "security.protocol=SSL", "ssl.truststore.type=JKS", "ssl.truststore.location="+clientJKS.Truststore,
			"ssl.truststore.password=wrong")
		want(t, kz(ssl, wrong, "topics", "list"), 2, "ssl.truststore (JKS)")
	})
	t.Run("SSL without the certificate the listener requires", func(t *testing.T) {
		props := writeProps(t, "security.protocol=SSL", "ssl.truststore.location="+client.Truststore)
		want(t, kz(ssl, props, "topics", "list", "--timeout", "10s"), 1, "certificate required")
	})
	t.Run("settings kzadmin cannot honour", func(t *testing.T) {
		for _, tc := range []struct {
			lines []string
			msg   string
		}{
			{[]string{"security.protocol=SASL_SSL", "sasl.mechanism=GSSAPI", `sasl.jaas.config=x required username="a" password="b";`},
				"GSSAPI (sasl.mechanism, Kafka's default) needs sasl.jaas.config with com.sun.security.auth.module.Krb5LoginModule"},
			{[]string{"security.protocol=SASL_PLAINTEXT"}, "GSSAPI (sasl.mechanism, Kafka's default) needs sasl.jaas.config"},
			{[]string{"security.protocol=SASL_PLAINTEXT", "sasl.mechanism=GSSAPI", "sasl.jaas.config=" +
				"com.sun.security.auth.module.Krb5LoginModule required useTicketCache=true;"}, "needs sasl.kerberos.service.name"},
			{[]string{"security.protocol=SASL_PLAINTEXT", "sasl.mechanism=PLAIN"}, "needs sasl.jaas.config"},
			{[]string{"security.protocol=SSL", "ssl.truststore.type=BCFKS", "ssl.truststore.location=/nonexistent"}, "ssl.truststore.type"},
			{[]string{"security.protocol=TLS"}, `security.protocol "TLS"`},
			{[]string{"security.protocol=SSL", "ssl.endpoint.identification.algorithm=ldap"}, "ssl.endpoint.identification.algorithm"},
		} {
			want(t, kz(saslSSL, writeProps(t, tc.lines...), "topics", "list"), 2, tc.msg)
		}
		want(t, kz(saslSSL, filepath.Join(dir, "missing.properties"), "topics", "list"), 2, "missing.properties")
		want(t, runCLI([]string{"topics", "list", "--zookeeper", c.connect, "--command-config", scram("x")}, cli.Options{}), 2,
			"--command-config applies to --bootstrap-server")
	})
}
