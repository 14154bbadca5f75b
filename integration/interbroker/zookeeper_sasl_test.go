package interbroker

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/cli"
	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/integration/kafka"
	"github.com/kzadmin/kzadmin/integration/kafkatest"
	"github.com/kzadmin/kzadmin/integration/zkserver"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// TestZooKeeperSASL: ZooKeeper takes SASL DIGEST-MD5 logins, and a real
// Kafka 3.9 broker and kzadmind both log in from the same JAAS file (its
// Client section, user kafka), with zookeeper.set.acl=true, as brokers
// secured this way are run. kzadmind creates the cluster's znodes, owned
// by sasl:kafka and world-readable; the broker, logged in as the same
// user, registers under them (its registration owned by sasl:kafka too),
// and a topic created through kzadmind is led by the broker and carries
// records. A session without the login reads the topic's znode but cannot
// change it. The kzadmin CLI logs in with the same file named in its
// --config-file: it creates a topic, and zookeeper-security-migration
// makes another cluster's znodes sasl:kafka's and open again.
func TestZooKeeperSASL(t *testing.T) {
	kafka.SkipIfHeavyDisabled(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	dir := t.TempDir()
	zks, _ := kafkatest.StartZooKeeper(t, ctx, zkserver.Options{HeapMB: 256,
		SASL: &zkserver.SASLOptions{Users: map[string]string{"kafka": "kafka-secret"}}}, chroot)

	// The brokers' JAAS file: their listener's section, and ZooKeeper's.
	jaas := filepath.Join(dir, "kafka_server_jaas.conf")
	if err := os.WriteFile(jaas, []byte(`KafkaServer {
  org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret" user_admin="admin-secret";
};
Client {
  org.apache.zookeeper.server.auth.DigestLoginModule required
  username="kafka"
  password="kafka-secret";
};
`), 0o600); err != nil {
		t.Fatal(err)
	}
	zkSASL := map[string]string{"zookeeper.set.acl": "true", config.ZooKeeperJAASFileKey: jaas}
	lines := []string{"listeners=PLAINTEXT://127.0.0.1:0"}
	for k, v := range zkSASL {
		lines = append(lines, k+"="+v)
	}
	d := runDaemon(ctx, t, loadConfig(t, zks.Addr(), lines...))

	ports, err := zkserver.FreePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	b := startBrokerOpts(ctx, t, kafka.BrokerOptions{ZooKeeper: zks.Addr() + chroot, ID: 1, Port: ports[0],
		Extra:    map[string]string{"zookeeper.set.acl": "true"},
		JVMFlags: []string{"-Djava.security.auth.login.config=" + jaas}})
	waitBrokers(ctx, t, d, 1)

	conn, cf := checkSharedZooKeeperIdentity(ctx, t, zks.Addr(), d, b, zkSASL, "sasl", "kafka")
	owned := []zk.ACL{{Perms: zk.PermAll, Scheme: "sasl", ID: "kafka"}, {Perms: zk.PermRead, Scheme: "world", ID: "anyone"}}
	var out, errOut bytes.Buffer

	// An open cluster (another chroot), made secure and open again by
	// zookeeper-security-migration logged in with the same file.
	open := zks.Addr() + "/open"
	kz := func(args ...string) {
		t.Helper()
		out.Reset()
		errOut.Reset()
		if code := cli.Run(ctx, args, &out, &errOut, cli.Options{Terminal: func() bool { return false }}); code != cli.ExitOK {
			t.Fatalf("kzadmin %s: exit %d\n%s%s", strings.Join(args, " "), code, out.String(), errOut.String())
		}
	}
	oc, err := zkadmin.Connect(ctx, zkadmin.Options{Servers: []string{zks.Addr()}, Chroot: "/open"})
	if err != nil {
		t.Fatal(err)
	}
	err = oc.EnsureTopLevelPaths(ctx)
	if err == nil {
		_, err = oc.Create(ctx, znodes.BrokerIDPath(1), []byte(`{"version":5,"host":"127.0.0.1","port":9092,"jmx_port":-1,`+
			`"timestamp":"1","endpoints":["PLAINTEXT://127.0.0.1:9092"],"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"}}`),
			zkadmin.Persistent)
	}
	oc.Close()
	if err != nil {
		t.Fatal(err)
	}
	kz("topics", "create", "--zookeeper", open, "--topic", "orders", "--replica-assignment", "1")
	openACL := []zk.ACL{{Perms: zk.PermAll, Scheme: "world", ID: "anyone"}}
	for _, step := range []struct {
		mode string
		want []zk.ACL
	}{{"secure", owned}, {"unsecure", openACL}} {
		kz("zookeeper-security-migration", "--zookeeper", open, "--config-file", cf, "--zookeeper.acl", step.mode)
		if acl, _, err := conn.GetACL("/open" + znodes.TopicPath("orders")); err != nil || !slices.Equal(acl, step.want) {
			t.Errorf("%s: ACL of the open cluster's topic: %v, %v; want %v", step.mode, acl, err, step.want)
		}
	}
}
