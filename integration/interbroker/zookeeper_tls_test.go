package interbroker

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/cli"
	"github.com/kzadmin/kzadmin/integration/kafka"
	"github.com/kzadmin/kzadmin/integration/kafkatest"
	"github.com/kzadmin/kzadmin/integration/zkserver"
	"github.com/kzadmin/kzadmin/internal/testpki"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// TestZooKeeperTLS: ZooKeeper serves clients over TLS only to those with a
// certificate (KIP-515), and a real Kafka 3.9 broker and kzadmind both
// reach it there with Kafka's zookeeper.ssl.* keys and
// zookeeper.set.acl=true, sharing one certificate subject, so one x509
// identity, as brokers share a SASL identity. kzadmind creates the
// cluster's znodes (owned by that identity, world-readable), the broker
// registers under them, and a topic created through kzadmind is led by
// the broker and carries records. A plain session may read the topic's
// znode but not change it. The kzadmin CLI reaches the same ZooKeeper
// with the same keys in its --zk-tls-config-file or --config-file.
func TestZooKeeperTLS(t *testing.T) {
	kafka.SkipIfHeavyDisabled(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	dir := t.TempDir()
	ca, err := testpki.NewCA("zookeeper-tls-ca")
	if err != nil {
		t.Fatal(err)
	}
	server, err := ca.WriteStores(dir, "zookeeper", testpki.Options{Subject: pkix.Name{CommonName: "zookeeper"}})
	if err != nil {
		t.Fatal(err)
	}
	cluster, err := ca.WriteStores(dir, "kafka-cluster", testpki.Options{Subject: pkix.Name{CommonName: "kafka-cluster"}})
	if err != nil {
		t.Fatal(err)
	}
	// The chroot is made in plain; kzadmind creates the rest, with ACLs.
	zks, _ := kafkatest.StartZooKeeper(t, ctx, zkserver.Options{HeapMB: 256,
		TLS: &zkserver.TLSOptions{Keystore: server.Keystore, Truststore: server.Truststore}}, chroot)

	zkTLS := map[string]string{
		"zookeeper.ssl.client.enable":       "true",
		"zookeeper.clientCnxnSocket":        "org.apache.zookeeper.ClientCnxnSocketNetty",
		"zookeeper.ssl.keystore.location":   cluster.Keystore,
		"zookeeper.ssl.keystore.type":       "PEM",
		"zookeeper.ssl.truststore.location": cluster.Truststore,
		"zookeeper.ssl.truststore.type":     "PEM",
		"zookeeper.set.acl":                 "true",
	}
	lines := []string{"listeners=PLAINTEXT://127.0.0.1:0"}
	for k, v := range zkTLS {
		lines = append(lines, k+"="+v)
	}
	conf := loadConfig(t, zks.SecureAddr(), lines...)
	d := runDaemon(ctx, t, conf)

	ports, err := zkserver.FreePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	// The harness watches the broker's registration on the plain port;
	// the broker itself talks to ZooKeeper over TLS.
	extra := map[string]string{"zookeeper.connect": zks.SecureAddr() + chroot}
	for k, v := range zkTLS {
		extra[k] = v
	}
	b := startBroker(ctx, t, zks.Addr(), ports[0], extra)
	waitBrokers(ctx, t, d, 1)

	const topic = "over-tls"
	adm := kadmClient(t, d.ListenerAddr("PLAINTEXT"))
	res, err := adm.CreateTopic(ctx, 2, 1, nil, topic)
	if err == nil {
		err = res.Err
	}
	if err != nil {
		t.Fatalf("create %s through kzadmind: %v", topic, err)
	}
	produceConsume(ctx, t, b.Addr(), topic, 5)

	// Without the certificate: the topic's znode reads, but does not change.
	conn, _, err := zk.Connect([]string{zks.Addr()}, 10*time.Second, zk.WithLogger(quiet{}))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	path := chroot + znodes.TopicPath(topic)
	data, stat, err := conn.Get(path)
	if err != nil || !bytes.Contains(data, []byte(`"partitions"`)) {
		t.Fatalf("read %s without the certificate: %q, %v", path, data, err)
	}
	if _, err := conn.Set(path, data, stat.Version); !errors.Is(err, zk.ErrNoAuth) {
		t.Fatalf("changed %s without the certificate: %v", path, err)
	}

	// The CLI, with the same keys in its --config-file.
	cf := filepath.Join(dir, "kzadmin.properties")
	var cfLines []string
	for k, v := range zkTLS {
		cfLines = append(cfLines, k+"="+v)
	}
	if err := os.WriteFile(cf, []byte(strings.Join(cfLines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	// Kafka's tools' way: --zk-tls-config-file, whose other keys are ignored.
	code := cli.Run(ctx, []string{"topics", "describe", "--topic", topic, "--zookeeper", zks.SecureAddr() + chroot,
		"--zk-tls-config-file", cf, "-o", "json"}, &out, &errOut, cli.Options{Terminal: func() bool { return false }})
	if code != cli.ExitOK || !strings.Contains(out.String(), `"leader": 1`) {
		t.Fatalf("kzadmin topics describe --zookeeper --zk-tls-config-file: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	out.Reset()
	errOut.Reset()
	code = cli.Run(ctx, []string{"topics", "create", "--topic", "cli-over-tls", "--partitions", "1", "--replication-factor", "1",
		"--zookeeper", zks.SecureAddr() + chroot, "--config-file", cf}, &out, &errOut, cli.Options{Terminal: func() bool { return false }})
	if code != cli.ExitOK {
		t.Fatalf("kzadmin topics create --zookeeper over TLS: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	if _, err := conn.Set(chroot+znodes.TopicPath("cli-over-tls"), nil, -1); !errors.Is(err, zk.ErrNoAuth) {
		t.Fatalf("the CLI's topic is changeable without the certificate: %v", err)
	}
	waitLeaders(ctx, t, b.Addr(), "cli-over-tls")
}

// quiet silences go-zookeeper's own client.
type quiet struct{}

func (quiet) Printf(string, ...any) {}

// TestZooKeeperSecurityMigrationMatchesKafka: `kzadmin
// zookeeper-security-migration` leaves every znode with the ACL Kafka
// 3.9's own zookeeper-security-migration tool gives it, secure and then
// unsecure. Two chroots hold the same cluster (a topic with configs, a
// SCRAM user, an ACL, a delegation token znode, an old consumer's
// offsets); Kafka's tool migrates one and kzadmin the other, both as the
// x509 identity of one TLS client certificate, and the ACLs are compared
// znode by znode. The one deliberate difference: Kafka's tool creates
// Kafka's root paths that are missing, kzadmin reports them.
func TestZooKeeperSecurityMigrationMatchesKafka(t *testing.T) {
	kafka.SkipIfHeavyDisabled(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	dir := t.TempDir()
	ca, err := testpki.NewCA("zookeeper-migration-ca")
	if err != nil {
		t.Fatal(err)
	}
	server, err := ca.WriteStores(dir, "zookeeper", testpki.Options{Subject: pkix.Name{CommonName: "zookeeper"}})
	if err != nil {
		t.Fatal(err)
	}
	admin, err := ca.WriteStores(dir, "ops", testpki.Options{Subject: pkix.Name{CommonName: "ops", OrganizationalUnit: []string{"kafka"}}})
	if err != nil {
		t.Fatal(err)
	}
	zks, _ := kafkatest.StartZooKeeper(t, ctx, zkserver.Options{HeapMB: 256,
		TLS: &zkserver.TLSOptions{Keystore: server.Keystore, Truststore: server.Truststore}}, "/setup")
	tlsProps := filepath.Join(dir, "zk-tls.properties")
	props := "zookeeper.ssl.client.enable=true\nzookeeper.clientCnxnSocket=org.apache.zookeeper.ClientCnxnSocketNetty\n" +
		"zookeeper.ssl.keystore.location=" + admin.Keystore + "\nzookeeper.ssl.keystore.type=PEM\n" +
		"zookeeper.ssl.truststore.location=" + admin.Truststore + "\nzookeeper.ssl.truststore.type=PEM\n"
	if err := os.WriteFile(tlsProps, []byte(props), 0o600); err != nil {
		t.Fatal(err)
	}
	kz := func(args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		if code := cli.Run(ctx, args, &out, &errOut, cli.Options{Terminal: func() bool { return false }}); code != cli.ExitOK {
			t.Fatalf("kzadmin %s: exit %d\n%s%s", strings.Join(args, " "), code, out.String(), errOut.String())
		}
		return out.String()
	}
	sides := map[string]string{"kafka": "/kafka-side", "kzadmin": "/kzadmin-side"}
	for _, root := range sides {
		// The same open cluster on each side, made the way scripts make one.
		c, err := zkadmin.Connect(ctx, zkadmin.Options{Servers: []string{zks.Addr()}, Chroot: root})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.EnsureTopLevelPaths(ctx); err != nil {
			t.Fatal(err)
		}
		for p, data := range map[string]string{
			"/consumers/old-group/offsets/t/0": "1", "/delegation_token/tokens/tok1": "{}", "/controller_epoch": "1",
			"/brokers/ids/0": `{"version":5,"host":"127.0.0.1","port":9092,"jmx_port":-1,"timestamp":"1",` +
				`"endpoints":["PLAINTEXT://127.0.0.1:9092"],"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"}}`,
		} {
			if _, err := c.CreateRecursive(ctx, p, []byte(data), zkadmin.Persistent); err != nil {
				t.Fatal(err)
			}
		}
		c.Close()
		at := zks.Addr() + root
		kz("topics", "create", "--zookeeper", at, "--topic", "orders", "--replica-assignment", "0,0")
		kz("configs", "alter", "--zookeeper", at, "--entity-type", "topics", "--entity-name", "orders", "--add-config", "retention.ms=1000")
		kz("configs", "alter", "--zookeeper", at, "--entity-type", "users", "--entity-name", "alice",
			"--add-config", "SCRAM-SHA-512=[password=alice-secret]")
		kz("acls", "--zookeeper", at, "--add", "--allow-principal", "User:alice", "--operation", "Read", "--topic", "orders")
	}

	conn := tlsSession(t, zks.SecureAddr(), ca, admin)
	for _, mode := range []string{"secure", "unsecure"} {
		if _, stderr, err := kafka.RunTool(ctx, kafka.ZkSecurityMigrator, "--zookeeper.acl", mode,
			"--zookeeper.connect", zks.SecureAddr()+sides["kafka"], "--zk-tls-config-file", tlsProps); err != nil {
			t.Fatalf("Kafka's migration, %s: %v\n%s", mode, err, stderr)
		}
		out := kz("zookeeper-security-migration", "--zookeeper", zks.SecureAddr()+sides["kzadmin"], "--zk-tls-config-file", tlsProps,
			"--zookeeper.acl", mode)
		kafkaACLs, ours := aclTree(t, conn, sides["kafka"]), aclTree(t, conn, sides["kzadmin"])
		for path, acl := range ours {
			if want, ok := kafkaACLs[path]; !ok || want != acl {
				t.Errorf("%s: %s gives %s %s, Kafka's tool %s", mode, path, "kzadmin", acl, want)
			}
		}
		for path := range kafkaACLs {
			if _, ok := ours[path]; !ok && !strings.Contains(out, path) {
				t.Errorf("%s: Kafka's tool has %s, kzadmin neither has it nor reports it missing:\n%s", mode, path, out)
			}
		}
		if len(ours) < 20 {
			t.Fatalf("%s: only %d znodes compared", mode, len(ours))
		}
		t.Logf("%s: %d znodes compared; kzadmin: %s", mode, len(ours), strings.TrimSpace(out))
		if mode == "secure" && ours["/brokers/topics/orders"] != "x509:CN=ops,OU=kafka:31 world:anyone:1" {
			t.Errorf("secure ACL of a topic: %q", ours["/brokers/topics/orders"])
		}
	}
}

// tlsSession is a go-zookeeper session over TLS with leaf's certificate,
// to read ACLs that only its identity may read.
func tlsSession(t *testing.T, addr string, ca *testpki.CA, leaf testpki.Stores) *zk.Conn {
	t.Helper()
	cert, err := tls.LoadX509KeyPair(leaf.Keystore, leaf.Keystore)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &tls.Config{RootCAs: ca.Pool(), Certificates: []tls.Certificate{cert}, ServerName: "127.0.0.1"}
	conn, _, err := zk.Connect([]string{addr}, 10*time.Second, zk.WithLogger(quiet{}),
		zk.WithDialer(func(network, address string, timeout time.Duration) (net.Conn, error) {
			return tls.DialWithDialer(&net.Dialer{Timeout: timeout}, network, address, cfg)
		}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	return conn
}

// aclTree is every znode under root, relative to it ("/" for root), with
// its ACL written "scheme:id:perms" in order.
func aclTree(t *testing.T, conn *zk.Conn, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	var walk func(rel string)
	walk = func(rel string) {
		full := root + rel
		if rel == "/" {
			full = root
		}
		acl, _, err := conn.GetACL(full)
		if err != nil {
			t.Fatalf("getACL %s: %v", full, err)
		}
		var parts []string
		for _, a := range acl {
			parts = append(parts, fmt.Sprintf("%s:%s:%d", a.Scheme, a.ID, a.Perms))
		}
		out[rel] = strings.Join(parts, " ")
		children, _, err := conn.Children(full)
		if err != nil {
			t.Fatalf("children %s: %v", full, err)
		}
		for _, c := range children {
			walk(znodes.JoinPath(rel, c))
		}
	}
	walk("/")
	return out
}
