package daemon

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"
)

// TestSecuredListeners runs kzadmind (dev mode) with a SASL_PLAINTEXT
// listener whose PLAIN users come from the JAAS config, a PLAINTEXT one,
// and Kafka's ACL authorizer with no ACLs: the super user creates a topic
// over SASL, a wrong password is refused, and everyone else is denied
// CreateTopics with TOPIC_AUTHORIZATION_FAILED on either listener.
func TestSecuredListeners(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	conf := devConf("PLAINTEXT", "SASL_PLAINTEXT")
	conf.Props = map[string]string{
		"sasl.enabled.mechanisms": "PLAIN",
		"listener.name.sasl_plaintext.plain.sasl.jaas.config": `org.apache.kafka.common.security.plain.PlainLoginModule required ` +
			`username="admin" password="admin-pw" user_admin="admin-pw" user_alice="alice-pw";`,
		"connection.failed.authentication.delay.ms": "0",
		"authorizer.class.name":                     "kafka.security.authorizer.AclAuthorizer",
		"super.users":                               "User:admin",
		"allow.everyone.if.no.acl.found":            "false",
	}
	d := startDev(ctx, t, conf)

	saslAddr := d.ListenerAddr("SASL_PLAINTEXT")
	client := func(addr string, opts ...kgo.Opt) *kadm.Client {
		cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(addr), kgo.RequestRetries(1)}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(cl.Close)
		return kadm.NewClient(cl)
	}
	as := func(user, pass string) *kadm.Client {
		return client(saslAddr, kgo.SASL(plain.Auth{User: user, Pass: pass}.AsMechanism()))
	}

	t.Run("super user creates over SASL", func(t *testing.T) {
		adm := as("admin", "admin-pw")
		res, err := adm.CreateTopic(ctx, 3, 1, nil, "sasl-topic")
		if err != nil || res.Err != nil {
			t.Fatalf("create: %v / %v", err, res.Err)
		}
		td, err := adm.ListTopics(ctx, "sasl-topic")
		if err != nil || td["sasl-topic"].Err != nil || len(td["sasl-topic"].Partitions) != 3 {
			t.Fatalf("sasl-topic in Metadata: %+v %v", td["sasl-topic"], err)
		}
	})
	t.Run("wrong password", func(t *testing.T) {
		_, err := as("alice", "wrong").ListBrokers(ctx)
		if !errors.Is(err, kerr.SaslAuthenticationFailed) {
			t.Fatalf("err = %v, want SASL_AUTHENTICATION_FAILED", err)
		}
	})
	for name, adm := range map[string]*kadm.Client{
		"alice over SASL":        as("alice", "alice-pw"),
		"anonymous on PLAINTEXT": client(d.ListenerAddr("PLAINTEXT")),
	} {
		t.Run(name+" is denied", func(t *testing.T) {
			if code := createTopicCode(ctx, t, adm, "denied-topic"); code != kerr.TopicAuthorizationFailed.Code {
				t.Fatalf("CreateTopics error %v, want TOPIC_AUTHORIZATION_FAILED", kerr.ErrorForCode(code))
			}
		})
	}
}

// createTopicCode sends CreateTopics for one topic and returns its code.
func createTopicCode(ctx context.Context, t *testing.T, adm *kadm.Client, topic string) int16 {
	t.Helper()
	res, err := adm.CreateTopic(ctx, 1, 1, nil, topic)
	if err == nil {
		err = res.Err // kadm reports a lone topic's error either way
	}
	var ke *kerr.Error
	if !errors.As(err, &ke) {
		t.Fatalf("CreateTopics: %v, want a Kafka error code", err)
	}
	return ke.Code
}

// waitBrokers waits until the controller is active and sees n brokers.
func waitBrokers(ctx context.Context, t *testing.T, d *Daemon, n int) {
	t.Helper()
	for {
		st := d.Controller().Snapshot()
		if st != nil && st.Active && len(st.Brokers) == n {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("controller not active with %d brokers", n)
		}
		time.Sleep(50 * time.Millisecond) // poll interval for a condition with a deadline
	}
}
