package interbroker

import (
	"context"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/integration/kafka"
	"github.com/kzadmin/kzadmin/integration/zkserver"
	"github.com/kzadmin/kzadmin/internal/daemon"
	"github.com/kzadmin/kzadmin/security/acl"
)

// TestSASLInterBrokerListener runs kzadmind as the controller of a real
// Kafka 3.9 broker whose inter-broker listener is SASL_PLAINTEXT with
// SCRAM-SHA-512. The broker's SCRAM credential is written with kzadmin's
// own AlterConfigs. kzadmind must authenticate to send LeaderAndIsr and
// UpdateMetadata (the broker's SASL listener accepts nothing else), and
// the broker's own requests to kzadmind arrive as User:broker, the only
// super user of kzadmind's ACL authorizer. A topic created through
// kzadmind gets a leader on the broker, and records go through it; the
// idempotent producer's InitProducerId passes kzadmind's authorizer on
// Write to the topic alone (KIP-679).
func TestSASLInterBrokerListener(t *testing.T) {
	kafka.SkipIfHeavyDisabled(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cl := startZooKeeper(ctx, t)
	putSCRAM(ctx, t, cl.zk, brokerUser, brokerPass)
	// The test's producer is idempotent and may pick kzadmind (listed
	// among the brokers) for InitProducerId, as User:ANONYMOUS on
	// PLAINTEXT: Write on the topic grants it (KIP-679), as in Kafka.
	err := acl.NewStore(cl.zk).Add(ctx, []acl.Binding{{
		Pattern: acl.Pattern{Type: acl.ResourceTopic, Name: "secured", PatternType: acl.PatternLiteral},
		Entry:   acl.Entry{Principal: "User:ANONYMOUS", Host: "*", Operation: acl.OpWrite, Permission: acl.PermissionAllow},
	}})
	if err != nil {
		t.Fatal(err)
	}

	d := startDaemon(ctx, t, cl.zks.Addr())
	b, _ := startSASLBroker(ctx, t, cl.zks.Addr(), nil)
	waitBrokers(ctx, t, d, 1)

	// Create through kzadmind's SASL listener as the broker principal
	// (the only one the authorizer allows), then use the topic on the
	// broker's PLAINTEXT listener.
	adm := kadmClient(t, d.ListenerAddr("SASL_PLAINTEXT"), scramSHA512(brokerUser, brokerPass))
	res, err := adm.CreateTopic(ctx, 2, 1, nil, "secured")
	if err != nil || res.Err != nil {
		t.Fatalf("create topic: %v / %v", err, res.Err)
	}
	produceConsume(ctx, t, b.Addr(), "secured", 10)
}

// startSASLBroker starts a broker with a PLAINTEXT listener and a
// SASL_PLAINTEXT one (SCRAM-SHA-512) it also uses between brokers, with
// extra properties; it returns the broker and its SASL address.
func startSASLBroker(ctx context.Context, t *testing.T, zkAddr string, extra map[string]string) (*kafka.Broker, string) {
	t.Helper()
	ports, err := zkserver.FreePorts(2)
	if err != nil {
		t.Fatal(err)
	}
	props := map[string]string{
		"listeners":                            fmt.Sprintf("PLAINTEXT://127.0.0.1:%d,SASL_PLAINTEXT://127.0.0.1:%d", ports[0], ports[1]),
		"inter.broker.listener.name":           "SASL_PLAINTEXT",
		"sasl.enabled.mechanisms":              "SCRAM-SHA-512",
		"sasl.mechanism.inter.broker.protocol": "SCRAM-SHA-512",
		"listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config": scramJAAS,
	}
	maps.Copy(props, extra)
	return startBroker(ctx, t, zkAddr, ports[0], props), fmt.Sprintf("127.0.0.1:%d", ports[1])
}

// startDaemon runs kzadmind with a PLAINTEXT listener for clients and the
// SASL_PLAINTEXT inter-broker listener, the ACL authorizer on and
// User:broker its super user.
func startDaemon(ctx context.Context, t *testing.T, zkAddr string) *daemon.Daemon {
	t.Helper()
	conf := saslDaemonConfig(zkAddr)
	if err := conf.Validate(); err != nil {
		t.Fatalf("config refused: %v", err)
	}
	return runDaemon(ctx, t, conf)
}

// saslDaemonConfig is startDaemon's configuration.
func saslDaemonConfig(zkAddr string) config.Config {
	conf := config.Default()
	conf.NodeID = controllerID
	conf.ZooKeeper.Connect = config.ZKConnect{Servers: []string{zkAddr}, Chroot: chroot}
	conf.Listeners = []config.Listener{{Name: "PLAINTEXT", Host: "127.0.0.1"}, {Name: "SASL_PLAINTEXT", Host: "127.0.0.1"}}
	conf.InterBrokerListenerName = "SASL_PLAINTEXT"
	conf.HTTPListen = ""
	conf.Props = map[string]string{
		"sasl.enabled.mechanisms":                                     "SCRAM-SHA-512",
		"sasl.mechanism.inter.broker.protocol":                        "SCRAM-SHA-512",
		"listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config": scramJAAS,
		"authorizer.class.name":                                       "kafka.security.authorizer.AclAuthorizer",
		"super.users":                                                 "User:" + brokerUser,
	}
	return conf
}
