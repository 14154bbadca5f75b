package security

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/security/sasl"
)

// metadataOver sends a Metadata request through a kgo client whose
// connections come from dial (kgo itself does no TLS or SASL here).
func metadataOver(t *testing.T, addr string, dial DialFunc) error {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.RequestRetries(0), kgo.Dialer(dial))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl)
	return err
}

// TestClientDialerAgainstOurListeners: the inter-broker dialer
// authenticates with PLAIN and both SCRAM mechanisms, over TLS too, as the
// principal its JAAS names; wrong passwords, unknown mechanisms and
// untrusted servers fail with clear errors.
func TestClientDialerAgainstOurListeners(t *testing.T) {
	zk, _ := connectZK(t)
	putCredentials(t, zk, "ctrl", "ctrl-secret")
	_, ks, ts := pemFiles(t)
	_, _, otherTS := pemFiles(t)
	serverProps := map[string]string{
		"sasl.enabled.mechanisms":                       "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512",
		"listener.name.sasl_ssl.plain.sasl.jaas.config": `org.apache.kafka.common.security.plain.PlainLoginModule required user_ctrl="plain-secret";`,
		"ssl.keystore.type":                             "PEM",
		"ssl.keystore.location":                         ks,
		"connection.failed.authentication.delay.ms":     "0",
	}
	l, err := NewListener(ListenerOptions{Name: "SASL_SSL", Protocol: "SASL_SSL", SCRAM: sasl.ZKCredentials{ZK: zk}.Lookup,
		Props: MapGetter(serverProps)})
	if err != nil {
		t.Fatal(err)
	}
	seen := make(chan wire.Principal, 16)
	addr := serveSelf(t, l, seen)
	jaas := func(module, pass string) string {
		return "org.apache.kafka.common.security." + module + " required username=\"ctrl\" password=\"" + pass + "\";"
	}
	cases := []struct {
		name  string
		props map[string]string
		code  int16 // the broker's refusal; 0: success
		fail  bool  // a client-side failure (TLS)
	}{
		{"PLAIN", map[string]string{"sasl.mechanism.inter.broker.protocol": "PLAIN",
			"listener.name.sasl_ssl.plain.sasl.jaas.config": jaas("plain.PlainLoginModule", "plain-secret")}, 0, false},
		{"SCRAM-SHA-256", map[string]string{"sasl.mechanism.inter.broker.protocol": "SCRAM-SHA-256",
			"listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config": jaas("scram.ScramLoginModule", "ctrl-secret")}, 0, false},
		{"SCRAM-SHA-512 from sasl.jaas.config", map[string]string{"sasl.mechanism.inter.broker.protocol": "SCRAM-SHA-512",
			"sasl.jaas.config": jaas("scram.ScramLoginModule", "ctrl-secret")}, 0, false},
		{"wrong password", map[string]string{"sasl.mechanism.inter.broker.protocol": "SCRAM-SHA-512",
			"sasl.jaas.config": jaas("scram.ScramLoginModule", "wrong")}, kerr.SaslAuthenticationFailed.Code, false},
		{"untrusted server", map[string]string{"sasl.mechanism.inter.broker.protocol": "PLAIN",
			"ssl.truststore.location": otherTS, "sasl.jaas.config": jaas("plain.PlainLoginModule", "plain-secret")}, 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			props := map[string]string{"ssl.truststore.type": "PEM", "ssl.truststore.location": ts}
			for k, v := range tc.props {
				props[k] = v
			}
			dial, err := NewClientDialer(ClientOptions{Listener: "SASL_SSL", Protocol: "SASL_SSL", Props: MapGetter(props), ClientID: "3000"})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			nc, err := dial(ctx, "tcp", addr)
			var ae *sasl.AuthError
			switch {
			case tc.fail:
				if err == nil {
					nc.Close()
					t.Fatal("connected to an untrusted server")
				}
				return
			case tc.code != 0:
				if !errors.As(err, &ae) || ae.Code != tc.code {
					t.Fatalf("err = %v, want code %d", err, tc.code)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			nc.Close()
			if err := metadataOver(t, addr, dial); err != nil {
				t.Fatal(err)
			}
			if p := <-seen; p.String() != "User:ctrl" {
				t.Fatalf("principal %v", p)
			}
		})
	}
}

func TestNewClientDialerRefusesBadSettings(t *testing.T) {
	for name, o := range map[string]ClientOptions{
		"no mechanism":       {Listener: "SASL_PLAINTEXT", Protocol: "SASL_PLAINTEXT", Props: MapGetter(nil)},
		"GSSAPI":             {Listener: "SASL_PLAINTEXT", Protocol: "SASL_PLAINTEXT", Props: MapGetter(map[string]string{"sasl.mechanism.inter.broker.protocol": "GSSAPI", "sasl.jaas.config": `x required username="a" password="b";`})},
		"no JAAS":            {Listener: "SASL_PLAINTEXT", Protocol: "SASL_PLAINTEXT", Props: MapGetter(map[string]string{"sasl.mechanism.inter.broker.protocol": "PLAIN"})},
		"no username":        {Listener: "SASL_PLAINTEXT", Protocol: "SASL_PLAINTEXT", Props: MapGetter(map[string]string{"sasl.mechanism.inter.broker.protocol": "PLAIN", "sasl.jaas.config": `x required user_a="b";`})},
		"unknown protocol":   {Listener: "X", Protocol: "QUIC", Props: MapGetter(nil)},
		"JKS truststore":     {Listener: "SSL", Protocol: "SSL", Props: MapGetter(map[string]string{"ssl.truststore.type": "JKS", "ssl.truststore.location": "/x.jks"})},
		"missing truststore": {Listener: "SSL", Protocol: "SSL", Props: MapGetter(map[string]string{"ssl.truststore.location": "/does/not/exist.pem"})},
	} {
		if _, err := NewClientDialer(o); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
