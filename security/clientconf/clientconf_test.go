package clientconf

import (
	"strings"
	"testing"

	"github.com/kzadmin/kzadmin/internal/testpki"
)

func getter(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

func TestAdminClientSettings(t *testing.T) {
	ca, err := testpki.NewCA("clientconf CA")
	if err != nil {
		t.Fatal(err)
	}
	stores, err := ca.WriteStores(t.TempDir(), "client", testpki.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const scram = `org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="pw";`
	for _, tc := range []struct {
		name    string
		props   map[string]string
		check   func(t *testing.T, ac AdminClient)
		wantErr string
	}{
		{name: "nothing is PLAINTEXT", props: map[string]string{}, check: func(t *testing.T, ac AdminClient) {
			if ac.Protocol != "PLAINTEXT" || ac.TLS != nil || ac.SASL != nil {
				t.Fatalf("%+v", ac)
			}
		}},
		{name: "SSL verifies host names by default", props: map[string]string{"security.protocol": "ssl",
			"ssl.truststore.location": stores.Truststore}, check: func(t *testing.T, ac AdminClient) {
			if ac.Protocol != "SSL" || ac.TLS == nil || ac.TLS.RootCAs == nil || ac.TLS.InsecureSkipVerify || len(ac.TLS.Certificates) != 0 {
				t.Fatalf("%+v", ac)
			}
		}},
		{name: "an empty algorithm skips only the host name", props: map[string]string{"security.protocol": "SSL",
			"ssl.endpoint.identification.algorithm": "", "ssl.keystore.location": stores.Keystore},
			check: func(t *testing.T, ac AdminClient) {
				if !ac.TLS.InsecureSkipVerify || ac.TLS.VerifyConnection == nil || len(ac.TLS.Certificates) != 1 {
					t.Fatalf("%+v", ac.TLS)
				}
			}},
		{name: "listener-prefixed keys are a broker's, not a client's", props: map[string]string{"security.protocol": "SSL",
			"listener.name..ssl.truststore.location": "/nonexistent"}, check: func(t *testing.T, ac AdminClient) {
			if ac.TLS.RootCAs != nil {
				t.Fatal("took a listener-prefixed key")
			}
		}},
		{name: "SASL_SSL SCRAM", props: map[string]string{"security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-512",
			"sasl.jaas.config": scram}, check: func(t *testing.T, ac AdminClient) {
			if ac.TLS == nil || ac.SASL == nil || ac.SASL.Username != "alice" || ac.SASL.Password != "pw" || ac.TokenAuth {
				t.Fatalf("%+v %+v", ac, ac.SASL)
			}
		}},
		{name: "token login", props: map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "SCRAM-SHA-256",
			"sasl.jaas.config": strings.Replace(scram, `password="pw";`, `password="hmac" tokenauth="true";`, 1)},
			check: func(t *testing.T, ac AdminClient) {
				if ac.TLS != nil || !ac.TokenAuth || ac.SASL.Password != "hmac" {
					t.Fatalf("%+v %+v", ac, ac.SASL)
				}
			}},
		{name: "PLAIN", props: map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
			"sasl.jaas.config": `org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="p";`},
			check: func(t *testing.T, ac AdminClient) {
				if ac.SASL.Mechanism != "PLAIN" || ac.SASL.Username != "u" {
					t.Fatalf("%+v", ac.SASL)
				}
			}},

		{name: "unknown protocol", props: map[string]string{"security.protocol": "TLS"}, wantErr: `security.protocol "TLS"`},
		{name: "GSSAPI", props: map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "GSSAPI",
			"sasl.jaas.config": scram}, wantErr: "needs sasl.jaas.config with com.sun.security.auth.module.Krb5LoginModule"},
		{name: "no mechanism", props: map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.jaas.config": scram},
			wantErr: "SASL GSSAPI (sasl.mechanism, Kafka's default)"},
		{name: "GSSAPI without service", props: map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "GSSAPI",
			"sasl.jaas.config": `com.sun.security.auth.module.Krb5LoginModule required useTicketCache=true;`},
			wantErr: "needs sasl.kerberos.service.name"},
		{name: "no JAAS", props: map[string]string{"security.protocol": "SASL_SSL", "sasl.mechanism": "PLAIN"},
			wantErr: "needs sasl.jaas.config"},
		{name: "no password", props: map[string]string{"security.protocol": "SASL_SSL", "sasl.mechanism": "PLAIN",
			"sasl.jaas.config": `x required username="u";`}, wantErr: "needs a username and a password"},
		{name: "token over PLAIN", props: map[string]string{"security.protocol": "SASL_SSL", "sasl.mechanism": "PLAIN",
			"sasl.jaas.config": `x required username="u" password="p" tokenauth=true;`}, wantErr: "tokenauth=true needs a SCRAM mechanism"},
		{name: "a PEM file named as JKS", props: map[string]string{"security.protocol": "SSL", "ssl.truststore.type": "JKS",
			"ssl.truststore.location": stores.Truststore}, wantErr: "ssl.truststore (JKS)"},
		{name: "an unknown store type", props: map[string]string{"security.protocol": "SSL", "ssl.truststore.type": "BCFKS",
			"ssl.truststore.location": stores.Truststore}, wantErr: "ssl.truststore.type"},
		{name: "missing truststore", props: map[string]string{"security.protocol": "SSL", "ssl.truststore.location": "/nonexistent/ca.pem"},
			wantErr: "ssl.truststore.location"},
		{name: "unknown algorithm", props: map[string]string{"security.protocol": "SSL", "ssl.endpoint.identification.algorithm": "ldap"},
			wantErr: "must be https or empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ac, err := AdminClientSettings(getter(tc.props))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %+v, %v; want error containing %q", ac, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, ac)
		})
	}
}
