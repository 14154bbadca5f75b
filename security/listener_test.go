package security

import (
	"context"
	"crypto/tls"
	"strings"
	"testing"

	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/internal/testpki"
	"github.com/kzadmin/kzadmin/security/scram"
)

func noCreds(context.Context, scram.Mechanism, string) (scram.Credential, bool, error) {
	return scram.Credential{}, false, nil
}

// pemFiles writes a CA and a server keystore and returns their paths.
func pemFiles(t *testing.T) (ca *testpki.CA, keystore, truststore string) {
	t.Helper()
	ca, err := testpki.NewCA("test-ca")
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := ca.Issue(testpki.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if keystore, err = testpki.WriteFile(dir, "server.pem", leaf.KeystorePEM()); err != nil {
		t.Fatal(err)
	}
	if truststore, err = testpki.WriteFile(dir, "ca.pem", ca.PEM()); err != nil {
		t.Fatal(err)
	}
	return ca, keystore, truststore
}

func TestNewListener(t *testing.T) {
	_, ks, ts := pemFiles(t)
	props := map[string]string{
		"ssl.keystore.type":       "PEM",
		"ssl.keystore.location":   ks,
		"ssl.truststore.type":     "PEM",
		"ssl.truststore.location": ts,
		"ssl.client.auth":         "required",
		"sasl.enabled.mechanisms": "SCRAM-SHA-512",
		"listener.name.sasl_plaintext.sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256",
		"listener.name.sasl_plaintext.plain.sasl.jaas.config":  `org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="a";`,
		"connection.failed.authentication.delay.ms":            "0",
		"sasl.server.max.receive.size":                         "1024",
	}
	get := MapGetter(props)
	l, err := NewListener(ListenerOptions{Name: "PLAINTEXT", Protocol: "PLAINTEXT", Props: get})
	if err != nil || l.TLS != nil || l.SASL != nil {
		t.Fatalf("PLAINTEXT: %+v %v", l, err)
	}
	l, err = NewListener(ListenerOptions{Name: "SSL", Protocol: "SSL", Props: get})
	if err != nil || l.TLS == nil || l.TLS.ClientAuth != tls.RequireAndVerifyClientCert || l.TLSPrincipal == nil || l.SASL != nil {
		t.Fatalf("SSL: %+v %v", l, err)
	}
	l, err = NewListener(ListenerOptions{Name: "SASL_PLAINTEXT", Protocol: "sasl_plaintext", Props: get, SCRAM: noCreds})
	if err != nil || l.TLS != nil || l.SASL == nil || strings.Join(l.SASL.Mechanisms, ",") != "PLAIN,SCRAM-SHA-256" ||
		l.SASL.MaxReceiveSize != 1024 || l.SASL.FailedAuthenticationDelay >= 0 {
		t.Fatalf("SASL_PLAINTEXT: %+v %v", l.SASL, err)
	}
	l, err = NewListener(ListenerOptions{Name: "SASL_SSL", Protocol: "SASL_SSL", Props: get, SCRAM: noCreds})
	if err != nil || l.TLS == nil || l.TLS.ClientAuth != tls.NoClientCert || l.SASL == nil ||
		strings.Join(l.SASL.Mechanisms, ",") != "SCRAM-SHA-512" {
		t.Fatalf("SASL_SSL: %+v %v", l, err)
	}
	var cfg wire.Config
	l.Apply(&cfg)
	if cfg.TLS != l.TLS || cfg.SASL != l.SASL || cfg.TLSPrincipal == nil {
		t.Fatal("Apply")
	}
}

func TestNewListenerErrors(t *testing.T) {
	_, ks, _ := pemFiles(t)
	for want, tc := range map[string]struct {
		proto string
		props map[string]string
		scram scram.Lookup
	}{
		"unknown security protocol":                     {"TLS", nil, nil},
		"needs ssl.keystore.location":                   {"SSL", map[string]string{}, nil},
		"needs listener.name.x.gssapi.sasl.jaas.config": {"SASL_PLAINTEXT", map[string]string{}, nil},
		"GSSAPI":                            {"SASL_PLAINTEXT", map[string]string{"sasl.enabled.mechanisms": "GSSAPI"}, nil},
		"PLAIN needs listener.name.x.plain": {"SASL_PLAINTEXT", map[string]string{"sasl.enabled.mechanisms": "PLAIN"}, nil},
		"needs a credential source":         {"SASL_PLAINTEXT", map[string]string{"sasl.enabled.mechanisms": "SCRAM-SHA-256"}, nil},
		"max.receive.size":                  {"SASL_PLAINTEXT", map[string]string{"sasl.enabled.mechanisms": "SCRAM-SHA-256", "sasl.server.max.receive.size": "-1"}, noCreds},
		"delay.ms":                          {"SASL_PLAINTEXT", map[string]string{"sasl.enabled.mechanisms": "SCRAM-SHA-256", "connection.failed.authentication.delay.ms": "x"}, noCreds},
		"ssl.client.auth":                   {"SSL", map[string]string{"ssl.keystore.location": ks, "ssl.client.auth": "maybe"}, nil},
	} {
		_, err := NewListener(ListenerOptions{Name: "X", Protocol: tc.proto, Props: MapGetter(tc.props), SCRAM: tc.scram})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", want, err)
		}
	}
}

func TestAuthorizerSettings(t *testing.T) {
	on, opts, err := AuthorizerSettings(MapGetter(map[string]string{
		"authorizer.class.name":          "kafka.security.authorizer.AclAuthorizer",
		"super.users":                    "User:admin;User:CN=ops,O=Acme",
		"allow.everyone.if.no.acl.found": "TRUE",
	}))
	if err != nil || !on || len(opts.SuperUsers) != 2 || !opts.AllowEveryoneIfNoACLFound {
		t.Fatalf("%v %+v %v", on, opts, err)
	}
	if on, _, err := AuthorizerSettings(MapGetter(nil)); on || err != nil {
		t.Fatalf("none: %v %v", on, err)
	}
	for _, m := range []map[string]string{
		{"authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer"},
		{"authorizer.class.name": AclAuthorizerClass, "super.users": "admin"},
		{"authorizer.class.name": AclAuthorizerClass, "allow.everyone.if.no.acl.found": "yes"},
	} {
		if _, _, err := AuthorizerSettings(MapGetter(m)); err == nil {
			t.Errorf("%v accepted", m)
		}
	}
}
