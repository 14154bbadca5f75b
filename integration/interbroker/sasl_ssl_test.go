package interbroker

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/cli"
	"github.com/kzadmin/kzadmin/integration/kafka"
	"github.com/kzadmin/kzadmin/integration/zkserver"
	"github.com/kzadmin/kzadmin/security/acl"
)

const (
	aliceUser = "alice"
	alicePass = "alice-secret"
	sslTopic  = "secured-ssl"
)

// TestSASLSSLInterBrokerListener runs kzadmind as the controller of a real
// Kafka 3.9 broker whose inter-broker listener is SASL_SSL with
// SCRAM-SHA-512 and PEM stores issued by one test CA. kzadmind's
// configuration is a properties file read by config.Load, as an operator
// writes it: its connections to the broker verify the broker's
// certificate (ssl.endpoint.identification.algorithm defaults to https)
// and authenticate as User:broker; the broker reaches kzadmind's SASL_SSL
// listener the same way, as the authorizer's only super user.
//
// Kafka's own AdminClient (kafka-topics) creates the topic through
// kzadmind's SASL_SSL listener as User:alice, allowed by Create on the
// topic (KIP-277); the topic gets a leader on the broker, and alice
// produces and consumes over the broker's SASL_SSL listener with kgo.
func TestSASLSSLInterBrokerListener(t *testing.T) {
	kafka.SkipIfHeavyDisabled(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cl := startZooKeeper(ctx, t)
	putSCRAM(ctx, t, cl.zk, brokerUser, brokerPass)
	putSCRAM(ctx, t, cl.zk, aliceUser, alicePass)
	// Create for kafka-topics; Write for the idempotent producer's
	// InitProducerId, which may land on kzadmind (KIP-679), and for
	// Metadata (Write implies Describe); DescribeConfigs for kzadmin
	// topics describe.
	var bindings []acl.Binding
	for _, op := range []acl.Operation{acl.OpCreate, acl.OpWrite, acl.OpDescribeConfigs} {
		bindings = append(bindings, acl.Binding{
			Pattern: acl.Pattern{Type: acl.ResourceTopic, Name: sslTopic, PatternType: acl.PatternLiteral},
			Entry:   acl.Entry{Principal: "User:" + aliceUser, Host: "*", Operation: op, Permission: acl.PermissionAllow},
		})
	}
	if err := acl.NewStore(cl.zk).Add(ctx, bindings); err != nil {
		t.Fatal(err)
	}
	p := newPKI(t)
	conf := loadConfig(t, cl.zks.Addr(),
		"listeners=PLAINTEXT://127.0.0.1:0,SASL_SSL://127.0.0.1:0",
		"inter.broker.listener.name=SASL_SSL",
		"sasl.enabled.mechanisms=SCRAM-SHA-512",
		"sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512",
		"listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config="+scramJAAS,
		"ssl.keystore.type=PEM",
		"ssl.keystore.location="+p.kzadmind.Keystore,
		"ssl.truststore.type=PEM",
		"ssl.truststore.location="+p.kzadmind.Truststore,
		"authorizer.class.name=kafka.security.authorizer.AclAuthorizer",
		"super.users=User:"+brokerUser,
	)
	d := runDaemon(ctx, t, conf)

	ports, err := zkserver.FreePorts(2)
	if err != nil {
		t.Fatal(err)
	}
	saslSSL := fmt.Sprintf("127.0.0.1:%d", ports[1])
	startBroker(ctx, t, cl.zks.Addr(), ports[0], map[string]string{
		"listeners":                                             fmt.Sprintf("PLAINTEXT://127.0.0.1:%d,SASL_SSL://%s", ports[0], saslSSL),
		"inter.broker.listener.name":                            "SASL_SSL",
		"sasl.enabled.mechanisms":                               "SCRAM-SHA-512",
		"sasl.mechanism.inter.broker.protocol":                  "SCRAM-SHA-512",
		"listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config": scramJAAS,
		"ssl.keystore.type":                                     "PEM",
		"ssl.keystore.location":                                 p.broker.Keystore,
		"ssl.truststore.type":                                   "PEM",
		"ssl.truststore.location":                               p.broker.Truststore,
	})
	waitBrokers(ctx, t, d, 1)

	createWithKafkaTopics(ctx, t, d.ListenerAddr("SASL_SSL"), p.broker.Truststore)
	produceConsume(ctx, t, saslSSL, sslTopic, 10, p.clientTLS(), scramSHA512(aliceUser, alicePass))
	// The kzadmin CLI takes the same client properties file as Kafka's
	// tools: it describes the topic as alice through kzadmind's SASL_SSL
	// listener and through the broker's.
	for _, addr := range []string{d.ListenerAddr("SASL_SSL"), saslSSL} {
		describeWithKzadmin(ctx, t, addr, p.broker.Truststore)
	}
}

// describeWithKzadmin runs kzadmin topics describe --command-config
// against the SASL_SSL listener at addr as User:alice and checks that the
// topic's partitions have the broker (id 1) as leader.
func describeWithKzadmin(ctx context.Context, t *testing.T, addr, truststore string) {
	t.Helper()
	cc := aliceCommandConfig(t, "SASL_SSL", "ssl.truststore.type=PEM", "ssl.truststore.location="+truststore)
	var out, errOut bytes.Buffer
	code := cli.Run(ctx, []string{"topics", "describe", "--topic", sslTopic, "--bootstrap-server", addr,
		"--command-config", cc, "-o", "json"}, &out, &errOut, cli.Options{Terminal: func() bool { return false }})
	if code != cli.ExitOK {
		t.Fatalf("kzadmin topics describe over SASL_SSL at %s: exit %d\n%s%s", addr, code, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), `"leader": 1`) || !strings.Contains(out.String(), sslTopic) {
		t.Fatalf("kzadmin topics describe at %s:\n%s", addr, out.String())
	}
}

// aliceCommandConfig writes a Kafka tool's --command-config logging in as
// User:alice with SCRAM-SHA-512 over protocol, with extra lines.
func aliceCommandConfig(t *testing.T, protocol string, extra ...string) string {
	t.Helper()
	props := append([]string{
		"security.protocol=" + protocol,
		"sasl.mechanism=SCRAM-SHA-512",
		`sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="` +
			aliceUser + `" password="` + alicePass + `";`,
		"default.api.timeout.ms=30000",
	}, extra...)
	cc := filepath.Join(t.TempDir(), "alice.properties")
	if err := os.WriteFile(cc, []byte(strings.Join(props, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return cc
}

// createWithKafkaTopics runs Kafka's kafka-topics --create against
// kzadmind's SASL_SSL listener at addr as User:alice.
func createWithKafkaTopics(ctx context.Context, t *testing.T, addr, truststore string) {
	t.Helper()
	cc := aliceCommandConfig(t, "SASL_SSL", "ssl.truststore.type=PEM", "ssl.truststore.location="+truststore)
	stdout, stderr, err := kafka.RunTool(ctx, kafka.TopicCommand, "--bootstrap-server", addr, "--command-config", cc,
		"--create", "--topic", sslTopic, "--partitions", "2", "--replication-factor", "1")
	if err != nil {
		t.Fatalf("kafka-topics --create over SASL_SSL: %v\n%s%s", err, stdout, stderr)
	}
}
