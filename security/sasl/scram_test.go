package sasl

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/IBM/sarama"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	fscram "github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/security/scram"
)

// metadataAs sends one Metadata request through kgo authenticating with
// mech.
func metadataAs(t *testing.T, addr string, mech sasl.Mechanism, opts ...kgo.Opt) error {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(addr), kgo.RequestRetries(0), kgo.SASL(mech)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	_, err = kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl)
	return err
}

func scramMech(m scram.Mechanism, user, pass string) sasl.Mechanism {
	a := fscram.Auth{User: user, Pass: pass}
	if m == scram.SHA512 {
		return a.AsSha512Mechanism()
	}
	return a.AsSha256Mechanism()
}

// TestSCRAMFromZooKeeper authenticates kgo's SCRAM client against
// credentials stored in /config/users as Kafka stores them.
func TestSCRAMFromZooKeeper(t *testing.T) {
	zk, _ := connectZK(t)
	cfg := map[string]string{"producer_byte_rate": "1024"}
	for _, m := range scram.Mechanisms() {
		c, err := scram.NewCredential(m, "alice-secret", 8192)
		if err != nil {
			t.Fatal(err)
		}
		cfg[m.Name()] = c.String()
	}
	putUserConfig(t, zk, "alice", cfg)
	// A principal name that needs sanitizing in the znode name.
	odd := "CN=carol,O=Acme"
	c, _ := scram.NewCredential(scram.SHA256, "carol-pw", 4096)
	putUserConfig(t, zk, odd, map[string]string{"SCRAM-SHA-256": c.String()})
	putUserConfig(t, zk, "broken", map[string]string{"SCRAM-SHA-256": "salt=nope"})

	addr, seen := serveSASL(t, Config{Mechanisms: []string{"SCRAM-SHA-512", "SCRAM-SHA-256"},
		SCRAM: ZKCredentials{ZK: zk}.Lookup, FailedAuthenticationDelay: -1})
	for _, m := range scram.Mechanisms() {
		if err := metadataAs(t, addr, scramMech(m, "alice", "alice-secret")); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		if p := <-seen; p.String() != "User:alice" {
			t.Fatalf("%s: principal %v", m, p)
		}
	}
	if err := metadataAs(t, addr, scramMech(scram.SHA256, odd, "carol-pw")); err != nil {
		t.Fatalf("sanitized user: %v", err)
	}
	if p := <-seen; p.Name != odd {
		t.Fatalf("principal %v", p)
	}
	const generic = "Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-"
	for name, mech := range map[string]sasl.Mechanism{
		"wrong password":       scramMech(scram.SHA256, "alice", "nope"),
		"unknown user":         scramMech(scram.SHA512, "mallory", "alice-secret"),
		"no SHA-512 for carol": scramMech(scram.SHA512, odd, "carol-pw"),
		"unreadable":           scramMech(scram.SHA256, "broken", "x"),
	} {
		err := metadataAs(t, addr, mech)
		if !errors.Is(err, kerr.SaslAuthenticationFailed) || !strings.Contains(err.Error(), generic) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// PLAIN is not enabled on this listener.
	if err := metadataAs(t, addr, plain.Auth{User: "alice", Pass: "alice-secret"}.AsMechanism()); !errors.Is(err, kerr.UnsupportedSaslMechanism) {
		t.Errorf("PLAIN on a SCRAM listener: %v", err)
	}
	// A credential changed in ZooKeeper applies to the next connection.
	c2, _ := scram.NewCredential(scram.SHA256, "rotated", 4096)
	putUserConfig(t, zk, "alice", map[string]string{"SCRAM-SHA-256": c2.String()})
	if err := metadataAs(t, addr, scramMech(scram.SHA256, "alice", "rotated")); err != nil {
		t.Fatalf("rotated password: %v", err)
	}
	<-seen
	if err := metadataAs(t, addr, scramMech(scram.SHA256, "alice", "alice-secret")); err == nil {
		t.Fatal("old password still accepted")
	}
}

// TestPlainWithSarama checks sarama's SASL/PLAIN (v1 handshake with
// SaslAuthenticate) against the PLAIN mechanism.
func TestPlainWithSarama(t *testing.T) {
	users, err := ParsePlainUsers(`org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-secret";`)
	if err != nil {
		t.Fatal(err)
	}
	addr, seen := serveSASL(t, Config{Mechanisms: []string{"PLAIN"}, PlainUsers: users, FailedAuthenticationDelay: -1})
	for _, tc := range []struct {
		pass string
		ok   bool
	}{{"alice-secret", true}, {"wrong", false}} {
		conf := sarama.NewConfig()
		conf.Version = sarama.V3_9_0_0
		conf.Net.SASL.Enable = true
		conf.Net.SASL.Mechanism = sarama.SASLTypePlaintext
		conf.Net.SASL.Version = sarama.SASLHandshakeV1
		conf.Net.SASL.User, conf.Net.SASL.Password = "alice", tc.pass
		conf.Metadata.Retry.Max = 0
		b := sarama.NewBroker(addr)
		if err := b.Open(conf); err != nil {
			t.Fatal(err)
		}
		_, err := b.GetMetadata(&sarama.MetadataRequest{Version: 1})
		_ = b.Close()
		if tc.ok != (err == nil) {
			t.Fatalf("password %q: err %v", tc.pass, err)
		}
		if tc.ok {
			if p := <-seen; p != (wire.Principal{Type: "User", Name: "alice"}) {
				t.Fatalf("principal %v", p)
			}
		} else if !errors.Is(err, sarama.ErrSASLAuthenticationFailed) {
			t.Fatalf("wrong password: %v", err)
		}
	}
}
