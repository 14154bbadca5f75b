package daemon

import (
	"context"
	"crypto/tls"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/kzadmin/kzadmin/internal/testpki"
	kscram "github.com/kzadmin/kzadmin/security/scram"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// TestKadmSCRAMOverTLS is issue #10's "kadm with SASL/SCRAM over TLS":
// kzadmind (dev mode) with a SASL_SSL listener offering SCRAM-SHA-512,
// alice's credential stored in /config/users as kafka-configs stores it.
// kadm creates a topic through that listener and the assignment lands in
// ZooKeeper; a wrong password and an untrusting client are refused.
func TestKadmSCRAMOverTLS(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	ca, err := testpki.NewCA("kzadmin test CA")
	if err != nil {
		t.Fatal(err)
	}
	stores, err := ca.WriteStores(t.TempDir(), "kzadmind", testpki.Options{})
	if err != nil {
		t.Fatal(err)
	}
	conf := devConf("PLAINTEXT", "SASL_SSL")
	conf.Props = map[string]string{
		"sasl.enabled.mechanisms":                   "SCRAM-SHA-512",
		"ssl.keystore.type":                         "PEM",
		"ssl.keystore.location":                     stores.Keystore,
		"connection.failed.authentication.delay.ms": "0",
	}
	d := startDev(ctx, t, conf)

	cred, err := kscram.NewCredential(kscram.SHA512, "alice-secret", 4096)
	if err != nil {
		t.Fatal(err)
	}
	admin := zkadmin.NewAdmin(d.zk, zkadmin.AdminOptions{Config: &d.conf})
	if _, err := admin.AlterConfigs(ctx, zkadmin.ConfigAlteration{EntityType: "users", EntityName: "alice",
		Set: map[string]string{"SCRAM-SHA-512": cred.String()}}); err != nil {
		t.Fatalf("store alice's credential: %v", err)
	}

	addr := d.ListenerAddr("SASL_SSL")
	as := func(pass string, tlsConf *tls.Config) *kadm.Client {
		cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.RequestRetries(1), kgo.DialTLSConfig(tlsConf),
			kgo.SASL(scram.Auth{User: "alice", Pass: pass}.AsSha512Mechanism()))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(cl.Close)
		return kadm.NewClient(cl)
	}
	trusting := &tls.Config{RootCAs: ca.Pool(), ServerName: "127.0.0.1"}

	t.Run("alice creates a topic", func(t *testing.T) {
		res, err := as("alice-secret", trusting).CreateTopic(ctx, 2, 1, nil, "scram-tls")
		if err != nil || res.Err != nil {
			t.Fatalf("create: %v / %v", err, res.Err)
		}
		data, _, err := d.zk.Get(ctx, znodes.TopicPath("scram-tls"))
		if err != nil {
			t.Fatalf("topic znode: %v", err)
		}
		a, err := znodes.DecodeTopicAssignment("scram-tls", data)
		if err != nil || len(a.Partitions) != 2 {
			t.Fatalf("assignment %+v, %v; want 2 partitions", a, err)
		}
	})
	t.Run("wrong password is refused", func(t *testing.T) {
		if _, err := as("nope", trusting).ListBrokers(ctx); err == nil {
			t.Fatal("a wrong password was accepted")
		}
	})
	t.Run("a client that does not trust the CA is refused", func(t *testing.T) {
		if _, err := as("alice-secret", &tls.Config{ServerName: "127.0.0.1"}).ListBrokers(ctx); err == nil {
			t.Fatal("the handshake succeeded without the CA")
		}
	})
}
