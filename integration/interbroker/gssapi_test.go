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
	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/integration/kafka"
	"github.com/kzadmin/kzadmin/integration/zkserver"
	"github.com/kzadmin/kzadmin/security/acl"
)

// TestGSSAPIInterBrokerListener runs kzadmind as the controller of a real
// Kafka 3.9 broker whose inter-broker listener is SASL_PLAINTEXT with
// GSSAPI (Kafka's default mechanism), against a real MIT KDC: both log in
// as kafka/localhost from one keytab, as brokers and controllers on one
// host would. kzadmind authenticates to the broker to send LeaderAndIsr
// and UpdateMetadata (the broker's SASL listener accepts nothing else);
// the broker's own requests to kzadmind (AllocateProducerIds, for the
// idempotent producer) arrive as User:kafka, a super user of kzadmind's
// ACL authorizer; Kafka 3.9's kafka-topics, logged in as alice from her
// keytab, creates the topic through kzadmind's GSSAPI listener as
// User:alice, the other super user. Records then go through the broker.
func TestGSSAPIInterBrokerListener(t *testing.T) {
	kafka.SkipIfHeavyDisabled(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	dir := t.TempDir()
	k, keytab := startKDC(ctx, t, dir)
	serviceKeytab, aliceKeytab := keytab("kafka/localhost"), keytab("alice")
	keytabJAAS := func(keytab, principal string) string {
		return fmt.Sprintf(`com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true keyTab="%s" principal="%s@%s";`,
			keytab, principal, k.Realm())
	}
	gssapi := map[string]string{
		"sasl.enabled.mechanisms":                              "GSSAPI",
		"sasl.mechanism.inter.broker.protocol":                 "GSSAPI",
		"sasl.kerberos.service.name":                           "kafka",
		"listener.name.sasl_plaintext.gssapi.sasl.jaas.config": keytabJAAS(serviceKeytab, "kafka/localhost"),
	}

	cl := startZooKeeper(ctx, t)
	// The idempotent producer may pick kzadmind (listed among the
	// brokers) for InitProducerId, as User:ANONYMOUS on PLAINTEXT.
	err := acl.NewStore(cl.zk).Add(ctx, []acl.Binding{{
		Pattern: acl.Pattern{Type: acl.ResourceTopic, Name: "kerberized", PatternType: acl.PatternLiteral},
		Entry:   acl.Entry{Principal: "User:ANONYMOUS", Host: "*", Operation: acl.OpWrite, Permission: acl.PermissionAllow},
	}})
	if err != nil {
		t.Fatal(err)
	}
	conf := config.Default()
	conf.NodeID = controllerID
	conf.ZooKeeper.Connect = config.ZKConnect{Servers: []string{cl.zks.Addr()}, Chroot: chroot}
	conf.Listeners = []config.Listener{{Name: "PLAINTEXT", Host: "127.0.0.1"}, {Name: "SASL_PLAINTEXT", Host: "127.0.0.1"}}
	conf.InterBrokerListenerName = "SASL_PLAINTEXT"
	conf.HTTPListen = ""
	conf.Props = map[string]string{
		config.Krb5ConfKey:      k.Krb5Conf(),
		"authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
		"super.users":           "User:kafka;User:alice",
	}
	for key, v := range gssapi {
		conf.Props[key] = v
	}
	if err := conf.Validate(); err != nil {
		t.Fatalf("config refused: %v", err)
	}
	d := runDaemon(ctx, t, conf)

	ports, err := zkserver.FreePorts(2)
	if err != nil {
		t.Fatal(err)
	}
	props := map[string]string{
		"listeners":                  fmt.Sprintf("PLAINTEXT://127.0.0.1:%d,SASL_PLAINTEXT://127.0.0.1:%d", ports[0], ports[1]),
		"inter.broker.listener.name": "SASL_PLAINTEXT",
	}
	for key, v := range gssapi {
		props[key] = v
	}
	b := startBrokerOpts(ctx, t, kafka.BrokerOptions{ZooKeeper: cl.zks.Addr() + chroot, ID: 1, Port: ports[0], Extra: props,
		JVMFlags: []string{"-Djava.security.krb5.conf=" + k.Krb5Conf()}})
	waitBrokers(ctx, t, d, 1)

	// Kafka's own tool, through kzadmind's GSSAPI listener.
	cc := filepath.Join(dir, "alice.properties")
	if err := os.WriteFile(cc, []byte("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=GSSAPI\nsasl.kerberos.service.name=kafka\n"+
		"sasl.jaas.config="+keytabJAAS(aliceKeytab, "alice")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("JAVA_TOOL_OPTIONS", "-Djava.security.krb5.conf="+k.Krb5Conf())
	out, errOut, err := kafka.RunTool(ctx, kafka.TopicCommand, "--bootstrap-server", d.ListenerAddr("SASL_PLAINTEXT"),
		"--command-config", cc, "--create", "--topic", "kerberized", "--partitions", "2", "--replication-factor", "1")
	if err != nil || !strings.Contains(out, "Created topic kerberized") {
		t.Fatalf("kafka-topics --create over GSSAPI: %v\n%s\n%s", err, out, errOut)
	}
	produceConsume(ctx, t, b.Addr(), "kerberized", 10)

	// The kzadmin CLI, with the same file (and the krb5.conf, which Java
	// took from its system property).
	if err := os.WriteFile(cc, []byte("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=GSSAPI\nsasl.kerberos.service.name=kafka\n"+
		"sasl.jaas.config="+keytabJAAS(aliceKeytab, "alice")+"\n"+config.Krb5ConfKey+"="+k.Krb5Conf()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var cliOut, cliErr bytes.Buffer
	for _, args := range [][]string{
		{"topics", "create", "--topic", "kerberized-cli", "--partitions", "1", "--replication-factor", "1"},
		{"topics", "describe", "--topic", "kerberized"},
	} {
		cliOut.Reset()
		cliErr.Reset()
		args = append(args, "--bootstrap-server", d.ListenerAddr("SASL_PLAINTEXT"), "--command-config", cc)
		if code := cli.Run(ctx, args, &cliOut, &cliErr, cli.Options{Terminal: func() bool { return false }}); code != cli.ExitOK {
			t.Fatalf("kzadmin %s over GSSAPI: exit %d\n%s%s", strings.Join(args, " "), code, cliOut.String(), cliErr.String())
		}
	}
	if !strings.Contains(cliOut.String(), "PartitionCount: 2") {
		t.Fatalf("kzadmin topics describe over GSSAPI:\n%s", cliOut.String())
	}
	waitLeaders(ctx, t, b.Addr(), "kerberized-cli")
}
