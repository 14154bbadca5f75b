package interbroker

import (
	"context"
	"crypto/tls"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	fscram "github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/integration/kafka"
	"github.com/kzadmin/kzadmin/integration/kafkatest"
	"github.com/kzadmin/kzadmin/integration/zkserver"
	"github.com/kzadmin/kzadmin/internal/daemon"
	"github.com/kzadmin/kzadmin/internal/testpki"
	"github.com/kzadmin/kzadmin/security/scram"
	"github.com/kzadmin/kzadmin/zkadmin"
)

const (
	chroot       = "/interbroker"
	controllerID = 3000
	brokerUser   = "broker"
	brokerPass   = "broker-secret"
	scramJAAS    = `org.apache.kafka.common.security.scram.ScramLoginModule required username="` + brokerUser +
		`" password="` + brokerPass + `";`
)

// cluster is one test's ZooKeeper, with a client under the chroot.
type cluster struct {
	zks *zkserver.Server
	zk  *zkadmin.Client
}

// startZooKeeper starts a ZooKeeper of the test's own (the broker JVM
// outlives nothing else) with the chroot's top-level paths.
func startZooKeeper(ctx context.Context, t *testing.T) cluster {
	t.Helper()
	zks, zk := kafkatest.StartZooKeeper(t, ctx, zkserver.Options{HeapMB: 256}, chroot)
	if err := zk.EnsureTopLevelPaths(ctx); err != nil {
		t.Fatal(err)
	}
	return cluster{zks: zks, zk: zk}
}

// putSCRAM stores user's SCRAM-SHA-512 credential with kzadmin's
// AlterConfigs, as `kzadmin configs --entity-type users` does.
func putSCRAM(ctx context.Context, t *testing.T, zk *zkadmin.Client, user, password string) {
	t.Helper()
	c, err := scram.NewCredential(scram.SHA512, password, 4096)
	if err != nil {
		t.Fatal(err)
	}
	_, err = zkadmin.NewAdmin(zk, zkadmin.AdminOptions{}).AlterConfigs(ctx, zkadmin.ConfigAlteration{
		EntityType: "users", EntityName: user, Set: map[string]string{scram.SHA512.Name(): c.String()}})
	if err != nil {
		t.Fatal(err)
	}
}

// pki is a CA with PEM stores for the broker and for kzadmind, both valid
// for 127.0.0.1; each side trusts the CA.
type pki struct {
	ca               *testpki.CA
	broker, kzadmind testpki.Stores
}

func newPKI(t *testing.T) pki {
	t.Helper()
	ca, err := testpki.NewCA("interbroker-ca")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	b, err := ca.WriteStores(dir, "broker", testpki.Options{})
	if err != nil {
		t.Fatal(err)
	}
	k, err := ca.WriteStores(dir, "kzadmind", testpki.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return pki{ca: ca, broker: b, kzadmind: k}
}

// clientTLS is a client's TLS setting trusting the test CA.
func (p pki) clientTLS() kgo.Opt { return kgo.DialTLSConfig(&tls.Config{RootCAs: p.ca.Pool()}) }

// scramSHA512 authenticates a kgo client as user.
func scramSHA512(user, pass string) kgo.Opt {
	return kgo.SASL(fscram.Auth{User: user, Pass: pass}.AsSha512Mechanism())
}

// loadConfig writes lines as kzadmind's properties file and loads it with
// config.Load, as kzadmind does, so the keys are read the operator's way.
func loadConfig(t *testing.T, zkAddr string, lines ...string) config.Config {
	t.Helper()
	base := []string{
		"node.id=" + fmt.Sprint(controllerID),
		"zookeeper.connect=" + zkAddr + chroot,
		"kzadmin.http.listen=",
	}
	path := filepath.Join(t.TempDir(), "kzadmind.properties")
	if err := os.WriteFile(path, []byte(strings.Join(append(base, lines...), "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := config.Load(config.LoadOptions{File: path})
	if err != nil {
		t.Fatalf("kzadmind config refused: %v", err)
	}
	if len(l.UnknownKeys) > 0 {
		t.Fatalf("kzadmind config: unknown keys %q", l.UnknownKeys)
	}
	return l.Config
}

// runDaemon starts kzadmind with conf; its log is shown if the test fails.
func runDaemon(ctx context.Context, t *testing.T, conf config.Config) *daemon.Daemon {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), "kzadmind.log")
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	d, err := daemon.Start(ctx, conf, daemon.Options{}, zerolog.New(f).Level(zerolog.InfoLevel).With().Timestamp().Logger())
	if err != nil {
		f.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		_ = d.Stop(sctx)
		f.Close()
		if t.Failed() {
			data, _ := os.ReadFile(logPath)
			t.Logf("kzadmind log:\n%s", tail(data, 60))
		}
	})
	return d
}

// startBroker starts a Kafka broker with id 1 and the given extra
// properties; its log is shown if the test fails.
func startBroker(ctx context.Context, t *testing.T, zkAddr string, port int, extra map[string]string) *kafka.Broker {
	t.Helper()
	return startBrokerOpts(ctx, t, kafka.BrokerOptions{ZooKeeper: zkAddr + chroot, ID: 1, Port: port, Extra: extra})
}

// startBrokerOpts starts a broker, closed (its log kept on failure) when
// the test ends.
func startBrokerOpts(ctx context.Context, t *testing.T, opts kafka.BrokerOptions) *kafka.Broker {
	t.Helper()
	b, err := kafka.StartBroker(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			keepLog(t, b)
		}
		_ = b.Close()
	})
	return b
}

// waitBrokers waits until kzadmind's controller sees n live brokers.
func waitBrokers(ctx context.Context, t *testing.T, d *daemon.Daemon, n int) {
	t.Helper()
	waitFor(ctx, t, fmt.Sprintf("kzadmind to see %d broker(s)", n), func() error {
		if st := d.Controller().Snapshot(); st == nil || len(st.Brokers) != n {
			return fmt.Errorf("controller snapshot %+v", st)
		}
		return nil
	})
}

func kadmClient(t *testing.T, addr string, opts ...kgo.Opt) *kadm.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(addr)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return kadm.NewClient(cl)
}

// waitLeaders waits until the broker at addr knows topic and every
// partition has a leader: the controller's LeaderAndIsr and
// UpdateMetadata follow CreateTopics asynchronously, and a producer
// gives up on a topic unknown for a few metadata rounds.
func waitLeaders(ctx context.Context, t *testing.T, addr, topic string, opts ...kgo.Opt) {
	t.Helper()
	adm := kadmClient(t, addr, opts...)
	waitFor(ctx, t, "leaders of "+topic+" on "+addr, func() error {
		md, err := adm.Metadata(ctx, topic)
		if err != nil {
			return err
		}
		td, ok := md.Topics[topic]
		switch {
		case !ok:
			return fmt.Errorf("topic %s not in metadata", topic)
		case td.Err != nil:
			return td.Err
		case len(td.Partitions) == 0:
			return fmt.Errorf("topic %s has no partitions yet", topic)
		}
		for _, p := range td.Partitions {
			if p.Err != nil || p.Leader < 0 {
				return fmt.Errorf("partition %d: leader %d, %v", p.Partition, p.Leader, p.Err)
			}
		}
		return nil
	})
}

// produceConsume writes n records to topic through the broker at addr and
// reads them back, with the client options opts (TLS, SASL).
func produceConsume(ctx context.Context, t *testing.T, addr, topic string, n int, opts ...kgo.Opt) {
	t.Helper()
	waitLeaders(ctx, t, addr, topic, opts...)
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(addr), kgo.DefaultProduceTopic(topic)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for i := range n {
		if err := cl.ProduceSync(ctx, kgo.StringRecord(fmt.Sprintf("record-%d", i))).FirstErr(); err != nil {
			t.Fatalf("produce %d: %v", i, err)
		}
	}
	got := 0
	rd := kafkatest.Reader{Addrs: []string{addr}, Topic: topic, Opts: opts, Logf: t.Logf}
	if err := rd.Until(ctx, func() bool { return got >= n }, func(*kgo.Record) error { got++; return nil }); err != nil {
		t.Fatalf("consumed %d of %d: %v", got, n, err)
	}
}

// waitFor polls check, which reads state other processes change, until it
// passes or ctx ends.
func waitFor(ctx context.Context, t *testing.T, what string, check func() error) {
	t.Helper()
	for {
		err := check()
		if err == nil {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		time.Sleep(100 * time.Millisecond) // poll interval for a condition with a deadline
	}
}

func keepLog(t *testing.T, b *kafka.Broker) {
	data, err := os.ReadFile(b.LogPath())
	if err == nil {
		t.Logf("broker log:\n%s", tail(data, 80))
	}
}

// tail is the last n lines of data.
func tail(data []byte, n int) string {
	lines := 0
	for i := len(data) - 1; i >= 0; i-- {
		if data[i] == '\n' {
			lines++
			if lines > n {
				return string(data[i+1:])
			}
		}
	}
	return string(data)
}
