package interbroker

import (
	"bytes"
	"context"
	"errors"
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
	"github.com/kzadmin/kzadmin/integration/kdc"
	"github.com/kzadmin/kzadmin/integration/zkserver"
	"github.com/kzadmin/kzadmin/internal/daemon"
	"github.com/kzadmin/kzadmin/znodes"
)

// TestZooKeeperKerberos: ZooKeeper is a Kerberos service of a real MIT KDC,
// mapping principals to their short names (kerberos.removeHostFromPrincipal
// and removeRealmFromPrincipal), as clusters whose brokers log in as
// kafka/<their host> are run. A real Kafka 3.9 broker logs in as
// kafka/broker1 and kzadmind as kafka/kzadmind, each from its own keytab,
// with zookeeper.set.acl=true: both are sasl:kafka. kzadmind creates the
// cluster's znodes, the broker registers under them, and a topic created
// through kzadmind is led by the broker and carries records. A session
// without a login reads the topic's znode but cannot change it. The CLI
// logs in from the same JAAS file named in its --config-file and creates a
// topic the broker leads.
func TestZooKeeperKerberos(t *testing.T) {
	kafka.SkipIfHeavyDisabled(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	dir := t.TempDir()
	k, keytab := startKDC(ctx, t, dir)
	zkKeytab, brokerKeytab, kzadmindKeytab := keytab("zookeeper/localhost"), keytab("kafka/broker1"), keytab("kafka/kzadmind")
	zks, _ := kafkatest.StartZooKeeper(t, ctx, zkserver.Options{HeapMB: 256, SASL: &zkserver.SASLOptions{
		Kerberos: &zkserver.KerberosOptions{Krb5Conf: k.Krb5Conf(), Keytab: zkKeytab,
			Principal: "zookeeper/localhost@" + k.Realm(), ShortNames: true}}}, chroot)

	// Each side's JAAS file, as each host of such a cluster has its own.
	jaasFor := func(name, keytab, principal string) string {
		path := filepath.Join(dir, name+"_jaas.conf")
		if err := os.WriteFile(path, []byte(`Client {
  com.sun.security.auth.module.Krb5LoginModule required
  useKeyTab=true
  storeKey=true
  useTicketCache=false
  keyTab="`+keytab+`"
  principal="`+principal+`@`+k.Realm()+`";
};
`), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	kzKeys := map[string]string{"zookeeper.set.acl": "true", config.ZooKeeperJAASFileKey: jaasFor("kzadmind", kzadmindKeytab, "kafka/kzadmind"),
		config.Krb5ConfKey: k.Krb5Conf()}
	lines := []string{"listeners=PLAINTEXT://127.0.0.1:0"}
	for key, v := range kzKeys {
		lines = append(lines, key+"="+v)
	}
	d := runDaemon(ctx, t, loadConfig(t, zks.Addr(), lines...))

	ports, err := zkserver.FreePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	b := startBrokerOpts(ctx, t, kafka.BrokerOptions{ZooKeeper: zks.Addr() + chroot, ID: 1, Port: ports[0],
		Extra: map[string]string{"zookeeper.set.acl": "true"},
		JVMFlags: []string{"-Djava.security.auth.login.config=" + jaasFor("broker1", brokerKeytab, "kafka/broker1"),
			"-Djava.security.krb5.conf=" + k.Krb5Conf()}})
	waitBrokers(ctx, t, d, 1)

	conn, _ := checkSharedZooKeeperIdentity(ctx, t, zks.Addr(), d, b, kzKeys, "kerberos", "kafka")
	conn.Close()
}

// checkSharedZooKeeperIdentity checks a cluster whose broker b and
// kzadmind d log in to the ZooKeeper at zkAddr with the identity
// sasl:<identity> under zookeeper.set.acl=true: a topic created through
// kzadmind is led by the broker and carries records; the znodes kzadmind
// and the broker made are owned by that identity and world-readable; a
// session without a login reads the topic's znode but cannot change it;
// and the CLI, with keys (kzadmind's ZooKeeper settings) in its
// --config-file, creates a topic owned alike. It returns the session
// without a login, for more checks, and the CLI's configuration file.
func checkSharedZooKeeperIdentity(ctx context.Context, t *testing.T, zkAddr string, d *daemon.Daemon, b *kafka.Broker,
	keys map[string]string, name, identity string) (*zk.Conn, string) {
	t.Helper()
	topic := "over-" + name
	adm := kadmClient(t, d.ListenerAddr("PLAINTEXT"))
	res, err := adm.CreateTopic(ctx, 2, 1, nil, topic)
	if err == nil {
		err = res.Err
	}
	if err != nil {
		t.Fatalf("create %s through kzadmind: %v", topic, err)
	}
	produceConsume(ctx, t, b.Addr(), topic, 5)

	conn, _, err := zk.Connect([]string{zkAddr}, 10*time.Second, zk.WithLogger(quiet{}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	owned := []zk.ACL{{Perms: zk.PermAll, Scheme: "sasl", ID: identity}, {Perms: zk.PermRead, Scheme: "world", ID: "anyone"}}
	// Made by kzadmind, and by the broker: one identity.
	for _, p := range []string{znodes.TopicPath(topic), znodes.BrokerIDsPath, znodes.BrokerIDPath(1)} {
		acl, _, err := conn.GetACL(chroot + p)
		if err != nil || !slices.Equal(acl, owned) {
			t.Errorf("ACL of %s: %v, %v; want %v", p, acl, err, owned)
		}
	}
	path := chroot + znodes.TopicPath(topic)
	data, stat, err := conn.Get(path)
	if err != nil || !bytes.Contains(data, []byte(`"partitions"`)) {
		t.Fatalf("read %s without a login: %q, %v", path, data, err)
	}
	if _, err := conn.Set(path, data, stat.Version); !errors.Is(err, zk.ErrNoAuth) {
		t.Fatalf("changed %s without a login: %v", path, err)
	}

	// The CLI, with the same keys in its --config-file.
	cf := filepath.Join(t.TempDir(), "kzadmin.properties")
	var lines []string
	for k, v := range keys {
		lines = append(lines, k+"="+v)
	}
	if err := os.WriteFile(cf, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cliTopic := "cli-over-" + name
	var out, errOut bytes.Buffer
	code := cli.Run(ctx, []string{"topics", "create", "--topic", cliTopic, "--partitions", "1", "--replication-factor", "1",
		"--zookeeper", zkAddr + chroot, "--config-file", cf}, &out, &errOut, cli.Options{Terminal: func() bool { return false }})
	if code != cli.ExitOK {
		t.Fatalf("kzadmin topics create --zookeeper with %s: exit %d\n%s%s", name, code, out.String(), errOut.String())
	}
	if acl, _, err := conn.GetACL(chroot + znodes.TopicPath(cliTopic)); err != nil || !slices.Equal(acl, owned) {
		t.Errorf("ACL of the CLI's topic: %v, %v; want %v", acl, err, owned)
	}
	waitLeaders(ctx, t, b.Addr(), cliTopic)
	return conn, cf
}

// startKDC starts a KDC of the test's own in dir, stopped when the test
// ends; keytab adds a principal and returns the path of its own keytab.
func startKDC(ctx context.Context, t *testing.T, dir string) (k *kdc.KDC, keytab func(principal string) string) {
	t.Helper()
	k, err := kdc.Start(ctx, kdc.Options{Dir: filepath.Join(dir, "kdc")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k.Stop() })
	return k, func(principal string) string {
		t.Helper()
		path := filepath.Join(dir, strings.ReplaceAll(principal, "/", "_")+".keytab")
		if err := k.AddPrincipal(ctx, principal, path); err != nil {
			t.Fatal(err)
		}
		return path
	}
}
