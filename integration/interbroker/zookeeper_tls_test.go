package interbroker

import (
	"bytes"
	"context"
	"crypto/x509/pkix"
	"errors"
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
// with the same keys in its --config-file.
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
	code := cli.Run(ctx, []string{"topics", "describe", "--topic", topic, "--zookeeper", zks.SecureAddr() + chroot,
		"--config-file", cf, "-o", "json"}, &out, &errOut, cli.Options{Terminal: func() bool { return false }})
	if code != cli.ExitOK || !strings.Contains(out.String(), `"leader": 1`) {
		t.Fatalf("kzadmin topics describe --zookeeper over TLS: exit %d\n%s%s", code, out.String(), errOut.String())
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
