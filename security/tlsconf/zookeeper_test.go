package tlsconf

import (
	"crypto/tls"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kzadmin/kzadmin/internal/testpki"
)

// zkProps is a Getter over a map.
func zkProps(m map[string]string) Getter {
	return func(key string) (string, bool) { v, ok := m[key]; return v, ok }
}

// TestZooKeeperClientConfig: Kafka's zookeeper.ssl.* keys as a broker's
// ZooKeeper client reads them: off unless enabled; store types told by
// the extension; TLS 1.2 only by default; host names checked unless the
// algorithm is set empty; the keystore password opening the key.
func TestZooKeeperClientConfig(t *testing.T) {
	p := newPKI(t)
	dir := t.TempDir()
	// The same PEM keystore and truststore under names whose extensions
	// tell (or do not tell) their type.
	copyAs := func(src, name string) string {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	ksPEM, tsPEM, tsOdd := copyAs(p.keystore, "client.PEM"), copyAs(p.truststore, "ca.pem"), copyAs(p.truststore, "ca.crt")
	p12, err := p.ca.WriteBinaryStores(dir, "zk", testpki.Options{}, "PKCS12", "p12-pass")
	if err != nil {
		t.Fatal(err)
	}
	if cfg, err := ZooKeeperClientConfig(zkProps(map[string]string{"zookeeper.ssl.keystore.location": ksPEM})); cfg != nil || err != nil {
		t.Fatalf("without zookeeper.ssl.client.enable: %v, %v", cfg, err)
	}
	base := map[string]string{"zookeeper.ssl.client.enable": "true", "zookeeper.ssl.keystore.location": ksPEM,
		"zookeeper.ssl.truststore.location": tsPEM}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == "<unset>" {
				delete(m, kv[i])
			} else {
				m[kv[i]] = kv[i+1]
			}
		}
		return m
	}
	cfg, err := ZooKeeperClientConfig(zkProps(base))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Certificates) != 1 || cfg.RootCAs == nil || cfg.MinVersion != tls.VersionTLS12 || cfg.MaxVersion != tls.VersionTLS12 ||
		cfg.InsecureSkipVerify {
		t.Fatalf("defaults: %d certificates, roots %v, versions %x-%x, skip verify %v", len(cfg.Certificates), cfg.RootCAs != nil,
			cfg.MinVersion, cfg.MaxVersion, cfg.InsecureSkipVerify)
	}
	for _, tc := range []struct {
		props    map[string]string
		min, max uint16
	}{
		{with("zookeeper.ssl.protocol", "TLSv1.3"), tls.VersionTLS13, tls.VersionTLS13},
		{with("zookeeper.ssl.protocol", "TLS"), tls.VersionTLS12, tls.VersionTLS13},
		{with("zookeeper.ssl.protocol", "tlsv1.3"), tls.VersionTLS13, tls.VersionTLS13}, // the config check takes any case
		{with("zookeeper.ssl.protocol", "TLSv1.3", "zookeeper.ssl.enabled.protocols", "TLSv1.2,TLSv1.3"), tls.VersionTLS12, tls.VersionTLS13},
	} {
		cfg, err := ZooKeeperClientConfig(zkProps(tc.props))
		if err != nil {
			t.Errorf("%v: %v", tc.props, err)
		} else if cfg.MinVersion != tc.min || cfg.MaxVersion != tc.max {
			t.Errorf("%v: versions %x-%x, want %x-%x", tc.props, cfg.MinVersion, cfg.MaxVersion, tc.min, tc.max)
		}
	}

	// Host names: checked by default and with HTTPS; not with an empty value.
	srv, err := Settings{KeystoreLocation: p.keystore}.ServerConfig()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		alg    string
		verify bool
	}{{"<unset>", true}, {"HTTPS", true}, {"https", true}, {"", false}} {
		cfg, err := ZooKeeperClientConfig(zkProps(with("zookeeper.ssl.endpoint.identification.algorithm", tc.alg)))
		if err != nil {
			t.Fatal(err)
		}
		cfg.ServerName = "zookeeper.elsewhere.example"
		_, cerr := handshake(t, srv, cfg)
		if tc.verify != (cerr != nil) {
			t.Errorf("algorithm %q, a certificate for another host name: %v", tc.alg, cerr)
		}
		cfg.ServerName = "127.0.0.1"
		if _, cerr := handshake(t, srv, cfg); cerr != nil {
			t.Errorf("algorithm %q, the right host name: %v", tc.alg, cerr)
		}
	}

	// A PKCS12 keystore told by its extension, opened by its one password.
	if _, err := ZooKeeperClientConfig(zkProps(with("zookeeper.ssl.keystore.location", p12.Keystore,
		"zookeeper.ssl.keystore.password", "p12-pass"))); err != nil {
		t.Fatalf("PKCS12 keystore by extension: %v", err)
	}
	for want, props := range map[string]map[string]string{
		"zookeeper.ssl.truststore.type is unset and the extension of": with("zookeeper.ssl.truststore.location", tsOdd),
		"zookeeper.ssl.crl.enable=true is not supported":              with("zookeeper.ssl.crl.enable", "true"),
		"zookeeper.ssl.ocsp.enable=true is not supported":             with("zookeeper.ssl.ocsp.enable", "true"),
		"zookeeper.ssl.client.enable=yes: must be true or false":      with("zookeeper.ssl.client.enable", "yes"),
		"zookeeper.ssl.protocol=SSLv3: must be":                       with("zookeeper.ssl.protocol", "SSLv3"),
		"identification.algorithm=ldap: must be HTTPS or empty":       with("zookeeper.ssl.endpoint.identification.algorithm", "ldap"),
		"TLS to ZooKeeper (zookeeper.ssl.*): ssl.keystore (PKCS12)": with("zookeeper.ssl.keystore.location", p12.Keystore,
			"zookeeper.ssl.keystore.password", "wrong"),
	} {
		if _, err := ZooKeeperClientConfig(zkProps(props)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want %q, got %v", want, err)
		}
	}
}
