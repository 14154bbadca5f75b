package config

import (
	"reflect"
	"strings"
	"testing"
)

// TestSecurityListenersLoad loads files with secured listeners and checks
// what lands in Props and what is refused.
func TestSecurityListenersLoad(t *testing.T) {
	jaas := `org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-pw";`
	tests := []struct {
		name    string
		lines   []string
		env     []string
		props   map[string]string // wanted Config.Props; nil: don't compare
		unknown []string
		err     string // substring of the error; "" means success
	}{
		{
			name: "SASL_PLAINTEXT with a prefixed jaas config",
			lines: []string{
				"listeners=PLAINTEXT://:9092,SASL_PLAINTEXT://:9093",
				"sasl.enabled.mechanisms=PLAIN",
				"listener.name.sasl_plaintext.plain.sasl.jaas.config=" + jaas,
				"broker.rack=r1",
			},
			props: map[string]string{
				"sasl.enabled.mechanisms":                             "PLAIN",
				"listener.name.sasl_plaintext.plain.sasl.jaas.config": jaas,
			},
			unknown: []string{"broker.rack"},
		},
		{
			name: "mechanisms given only for the listener",
			lines: []string{
				"listeners=CLIENT://:9093",
				"listener.security.protocol.map=CLIENT:SASL_SSL",
				"inter.broker.listener.name=CLIENT",
				"listener.name.client.sasl.enabled.mechanisms=SCRAM-SHA-512",
				"ssl.keystore.location=/k.pem",
			},
			props: map[string]string{
				"listener.name.client.sasl.enabled.mechanisms": "SCRAM-SHA-512",
				"ssl.keystore.location":                        "/k.pem",
			},
		},
		{
			name:  "SSL needs no SASL keys",
			lines: []string{"listeners=PLAINTEXT://:9092,SSL://:9093", "ssl.client.auth=required"},
			props: map[string]string{"ssl.client.auth": "required"},
		},
		{
			name:  "SASL_SSL without mechanisms",
			lines: []string{"listeners=PLAINTEXT://:9092,SASL_SSL://:9093"},
			err:   "listener SASL_SSL uses SASL_SSL and needs SASL mechanisms",
		},
		{
			name:  "another listener's mechanisms do not count",
			lines: []string{"listeners=PLAINTEXT://:9092,SASL_SSL://:9093", "listener.name.plaintext.sasl.enabled.mechanisms=PLAIN"},
			err:   "listener SASL_SSL uses SASL_SSL and needs SASL mechanisms",
		},
		{
			name:  "env wins over file for a security key",
			lines: []string{"authorizer.class.name=x", "super.users=User:a"},
			env:   []string{"KZADMIN_AUTHORIZER_CLASS_NAME=kafka.security.authorizer.AclAuthorizer", "KZADMIN_ZOOKEEPER_DIGEST=u:p"},
			props: map[string]string{
				"authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
				"super.users":           "User:a",
				ZooKeeperDigestKey:      "u:p",
			},
		},
		{
			name:  "bad super.users",
			lines: []string{"super.users=admin"},
			err:   `config: super.users="admin": must be <type>:<name> separated by ';'`,
		},
		{
			name:  "bad allow.everyone",
			lines: []string{"allow.everyone.if.no.acl.found=yes"},
			err:   `allow.everyone.if.no.acl.found="yes": must be true or false`,
		},
		{
			name:  "bad receive size",
			lines: []string{"sasl.server.max.receive.size=0"},
			err:   `sasl.server.max.receive.size="0": must be a 32-bit integer > 0`,
		},
		{
			name:  "digest is hidden in errors",
			lines: []string{ZooKeeperDigestKey + "=nocolon"},
			err:   `kzadmin.zookeeper.digest="[hidden]": must be user:password`,
		},
		{
			name:  "keystore type",
			lines: []string{"ssl.keystore.type=BCFKS"},
			err:   `ssl.keystore.type="BCFKS": must be one of PEM, PKCS12, JKS`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := append([]string{"node.id=1", "zookeeper.connect=zk:2181"}, tt.lines...)
			l, err := Load(LoadOptions{File: writeFile(t, lines...), Env: tt.env})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				if strings.Contains(err.Error(), "nocolon") {
					t.Errorf("error shows the secret: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.props != nil && !reflect.DeepEqual(l.Config.Props, tt.props) {
				t.Errorf("Props = %v, want %v", l.Config.Props, tt.props)
			}
			if !reflect.DeepEqual(l.UnknownKeys, tt.unknown) {
				t.Errorf("UnknownKeys = %q, want %q", l.UnknownKeys, tt.unknown)
			}
			for k, v := range tt.props {
				if got, ok := l.Config.Property(k); !ok || got != v {
					t.Errorf("Property(%s) = %q, %v", k, got, ok)
				}
			}
		})
	}
}

func TestIsSecurityKey(t *testing.T) {
	for key, want := range map[string]bool{
		"ssl.client.auth":                        true,
		"listener.name.client.ssl.client.auth":   true,
		"listener.name.":                         false,
		ZooKeeperDigestKey:                       true,
		"zookeeper.set.acl":                      false,
		"broker.rack":                            false,
		"listener.name.x.plain.sasl.jaas.config": true,
	} {
		if got := IsSecurityKey(key); got != want {
			t.Errorf("IsSecurityKey(%q) = %v", key, got)
		}
	}
}

// Setting a security key copies Props, so copies of a Config stay apart.
func TestPropsCopyOnSet(t *testing.T) {
	spec, _ := lookupSpec("super.users")
	a := valid()
	if err := spec.set(&a, "User:a"); err != nil {
		t.Fatal(err)
	}
	b := a
	if err := spec.set(&b, "User:b"); err != nil {
		t.Fatal(err)
	}
	if a.Props["super.users"] != "User:a" || b.Props["super.users"] != "User:b" {
		t.Errorf("a %v, b %v", a.Props, b.Props)
	}
	if err := spec.set(&b, ""); err != nil || b.Props != nil {
		t.Errorf("clearing the last key left %v (%v)", b.Props, err)
	}
}
