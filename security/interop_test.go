package security

import (
	"context"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	fscram "github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/integration/kafka"
	"github.com/kzadmin/kzadmin/integration/zkserver"
	"github.com/kzadmin/kzadmin/integration/zktest"
	"github.com/kzadmin/kzadmin/internal/testpki"
	"github.com/kzadmin/kzadmin/security/sasl"
	"github.com/kzadmin/kzadmin/security/scram"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// These tests check the security pieces against Kafka 3.9 itself: its
// kafka-configs tool, its Java AdminClient and its broker.

// sharedZK is the package's one ZooKeeper, started by the first test that
// needs it.
var sharedZK = zktest.Shared{Options: zkserver.Options{HeapMB: 256}}

func TestMain(m *testing.M) {
	code := m.Run()
	sharedZK.Close()
	os.Exit(code)
}

func zookeeper(t testing.TB) *zkserver.Server { return sharedZK.Server(t) }

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func connectZK(t *testing.T) (*zkadmin.Client, string) {
	t.Helper()
	return sharedZK.Connect(t, "security")
}

// serveSelf serves ApiVersions and a Metadata that lists this server as
// broker and controller 1, with l's security, on a loopback port. The
// principal of each Metadata request goes to principals, if given.
func serveSelf(t *testing.T, l Listener, principals ...chan<- wire.Principal) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := int32(ln.Addr().(*net.TCPAddr).Port)
	mux := wire.NewMux()
	err = mux.HandleFunc(wire.VersionRange{Key: 3, Min: 0, Max: 12}, func(_ context.Context, req *wire.Request) (kmsg.Response, error) {
		for _, ch := range principals {
			select {
			case ch <- req.Principal:
			default:
			}
		}
		resp := req.Body.ResponseKind().(*kmsg.MetadataResponse)
		b := kmsg.NewMetadataResponseBroker()
		b.NodeID, b.Host, b.Port = 1, "127.0.0.1", port
		resp.Brokers, resp.ControllerID, resp.ClusterID = []kmsg.MetadataResponseBroker{b}, 1, kmsg.StringPtr("security-test")
		return resp, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg := wire.Config{Mux: mux, Logger: zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.InfoLevel)}
	l.Apply(&cfg)
	srv, err := wire.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		_ = srv.Close()
		<-done
	})
	return ln.Addr().String()
}

func scramMetadata(t *testing.T, addr string, m scram.Mechanism, user, pass string, opts ...kgo.Opt) error {
	t.Helper()
	a := fscram.Auth{User: user, Pass: pass}
	mech := a.AsSha256Mechanism()
	if m == scram.SHA512 {
		mech = a.AsSha512Mechanism()
	}
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(addr), kgo.RequestRetries(0), kgo.SASL(mech)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl)
	return err
}

// TestKafkaConfigsCredentialsAuthenticate: SCRAM credentials made by
// Kafka's kafka-configs (ZooKeeper mode) authenticate against the
// listener, and their stored keys are the ones this code derives from the
// same password and salt.
func TestKafkaConfigsCredentialsAuthenticate(t *testing.T) {
	kafka.SkipIfHeavyDisabled(t)
	zk, chroot := connectZK(t)
	ctx := testCtx(t)
	if err := zk.EnsureTopLevelPaths(ctx); err != nil {
		t.Fatal(err)
	}
	_, _, err := kafka.RunTool(ctx, kafka.ConfigCommand, "--zookeeper", zookeeper(t).Addr()+chroot,
		"--alter", "--entity-type", "users", "--entity-name", "alice",
		"--add-config", "SCRAM-SHA-256=[iterations=8192,password=alice-secret],SCRAM-SHA-512=[password=alice-secret]")
	if err != nil {
		t.Fatal(err)
	}
	data, _, err := zk.Get(ctx, "/config/users/alice")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := znodes.DecodeEntityConfig("users", "alice", data)
	if err != nil {
		t.Fatal(err)
	}
	creds, err := scram.FromUserConfig(cfg.Config)
	if err != nil || len(creds) != 2 {
		t.Fatalf("kafka-configs wrote %s: %v", data, err)
	}
	for m, c := range creds {
		mine, err := scram.DeriveCredential(m, "alice-secret", c.Salt, c.Iterations)
		if err != nil || mine.String() != c.String() {
			t.Errorf("%s: kafka stored %s, derived %s (%v)", m, c, mine, err)
		}
	}
	if creds[scram.SHA256].Iterations != 8192 || creds[scram.SHA512].Iterations != 4096 {
		t.Errorf("iterations %d/%d", creds[scram.SHA256].Iterations, creds[scram.SHA512].Iterations)
	}
	l, err := NewListener(ListenerOptions{Name: "SASL_PLAINTEXT", Protocol: "SASL_PLAINTEXT", SCRAM: sasl.ZKCredentials{ZK: zk}.Lookup,
		Props: MapGetter(map[string]string{"sasl.enabled.mechanisms": "SCRAM-SHA-256,SCRAM-SHA-512"})})
	if err != nil {
		t.Fatal(err)
	}
	addr := serveSelf(t, l)
	for _, m := range scram.Mechanisms() {
		if err := scramMetadata(t, addr, m, "alice", "alice-secret"); err != nil {
			t.Errorf("%s: %v", m, err)
		}
		if err := scramMetadata(t, addr, m, "alice", "wrong"); err == nil {
			t.Errorf("%s: wrong password accepted", m)
		}
	}
}

// putCredentials writes user's SCRAM credentials for password as
// `kzadmin configs --entity-type users` is to: the entity config and its
// change notification.
func putCredentials(t *testing.T, zk *zkadmin.Client, user, password string) {
	t.Helper()
	ctx := testCtx(t)
	cfg := map[string]string{}
	for _, m := range scram.Mechanisms() {
		c, err := scram.NewCredential(m, password, 4096)
		if err != nil {
			t.Fatal(err)
		}
		cfg[m.Name()] = c.String()
	}
	data, err := znodes.EntityConfig{Config: cfg}.Encode()
	if err != nil {
		t.Fatal(err)
	}
	name := znodes.SanitizeEntityName(user)
	if _, err := zk.CreateRecursive(ctx, znodes.ConfigEntityPath("users", name), data, zkadmin.Persistent); err != nil {
		t.Fatal(err)
	}
	note, err := znodes.NewConfigChangeNotification("users", name).Encode()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zk.CreateRecursive(ctx, znodes.ConfigChangeSequencePath, note, zkadmin.PersistentSequential); err != nil {
		t.Fatal(err)
	}
}

// TestJavaAdminClientSASLSSL: Kafka's own kafka-topics (the Java
// AdminClient) lists topics over SASL_SSL with SCRAM-SHA-512 and a PEM
// truststore, and is refused with a wrong password.
func TestJavaAdminClientSASLSSL(t *testing.T) {
	kafka.SkipIfHeavyDisabled(t)
	zk, _ := connectZK(t)
	putCredentials(t, zk, "alice", "alice-secret")
	_, ks, ts := pemFiles(t)
	l, err := NewListener(ListenerOptions{Name: "SASL_SSL", Protocol: "SASL_SSL", SCRAM: sasl.ZKCredentials{ZK: zk}.Lookup,
		Props: MapGetter(map[string]string{"sasl.enabled.mechanisms": "SCRAM-SHA-512", "ssl.keystore.type": "PEM",
			"ssl.keystore.location": ks, "connection.failed.authentication.delay.ms": "0"})})
	if err != nil {
		t.Fatal(err)
	}
	addr := serveSelf(t, l)
	dir := t.TempDir()
	for _, tc := range []struct {
		pass string
		ok   bool
	}{{"alice-secret", true}, {"wrong", false}} {
		props := strings.Join([]string{
			"security.protocol=SASL_SSL",
			"sasl.mechanism=SCRAM-SHA-512",
			`sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="` + tc.pass + `";`,
			"ssl.truststore.type=PEM",
			"ssl.truststore.location=" + ts,
		}, "\n")
		cc := filepath.Join(dir, "client-"+tc.pass+".properties")
		if err := os.WriteFile(cc, []byte(props), 0o600); err != nil {
			t.Fatal(err)
		}
		_, stderr, err := kafka.RunTool(testCtx(t), kafka.TopicCommand, "--bootstrap-server", addr, "--command-config", cc, "--list")
		if tc.ok && err != nil {
			t.Fatalf("kafka-topics over SASL_SSL: %v", err)
		}
		if !tc.ok && (err == nil || !strings.Contains(stderr, "Authentication failed")) {
			t.Fatalf("wrong password: %v\n%s", err, stderr)
		}
	}
}

// TestKafkaBrokerAcceptsOurCredentials: credentials written by this code
// authenticate against a real Kafka 3.9 broker's SCRAM listener.
func TestKafkaBrokerAcceptsOurCredentials(t *testing.T) {
	kafka.SkipIfHeavyDisabled(t)
	zk, chroot := connectZK(t)
	ctx := testCtx(t)
	if err := zk.EnsureTopLevelPaths(ctx); err != nil {
		t.Fatal(err)
	}
	putCredentials(t, zk, "alice", "alice-secret")
	addr := startSCRAMBroker(t, ctx, chroot)
	checkSCRAMLogins(t, addr, "alice", "alice-secret")
}

// startSCRAMBroker starts a real Kafka broker under chroot with a
// SASL_PLAINTEXT listener offering SCRAM-SHA-256 and -512, whose users are
// read from /config/users, and returns that listener's address.
func startSCRAMBroker(t *testing.T, ctx context.Context, chroot string) string {
	t.Helper()
	ports, err := zkserver.FreePorts(2)
	if err != nil {
		t.Fatal(err)
	}
	const jaas = "org.apache.kafka.common.security.scram.ScramLoginModule required;"
	b, err := kafka.StartBroker(ctx, kafka.BrokerOptions{ZooKeeper: zookeeper(t).Addr() + chroot, ID: 1, Port: ports[0], Extra: map[string]string{
		"listeners":                  fmt.Sprintf("PLAINTEXT://127.0.0.1:%d,SASL_PLAINTEXT://127.0.0.1:%d", ports[0], ports[1]),
		"sasl.enabled.mechanisms":    "SCRAM-SHA-256,SCRAM-SHA-512",
		"inter.broker.listener.name": "PLAINTEXT",
		"listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config": jaas,
		"listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config": jaas,
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return fmt.Sprintf("127.0.0.1:%d", ports[1])
}

// checkSCRAMLogins asserts that user logs in at addr with password under
// both SCRAM mechanisms, and is refused with a wrong one.
func checkSCRAMLogins(t *testing.T, addr, user, password string) {
	t.Helper()
	for _, m := range scram.Mechanisms() {
		if err := scramMetadata(t, addr, m, user, password); err != nil {
			t.Errorf("%s against Kafka: %v", m, err)
		}
		if err := scramMetadata(t, addr, m, user, "wrong"); !errors.Is(err, kerr.SaslAuthenticationFailed) {
			t.Errorf("%s wrong password against Kafka: %v", m, err)
		}
	}
}

// TestJavaClientMutualTLS: Kafka's kafka-topics with a PEM keystore
// authenticates by certificate; the principal is the subject DN mapped by
// ssl.principal.mapping.rules. A client without a certificate is refused.
func TestJavaClientMutualTLS(t *testing.T) {
	kafka.SkipIfHeavyDisabled(t)
	ca, ks, ts := pemFiles(t)
	client, err := ca.Issue(testpki.Options{Subject: pkix.Name{CommonName: "alice", OrganizationalUnit: []string{"Users"}}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cks, err := testpki.WriteFile(dir, "client.pem", client.KeystorePEM())
	if err != nil {
		t.Fatal(err)
	}
	l, err := NewListener(ListenerOptions{Name: "SSL", Protocol: "SSL", Props: MapGetter(map[string]string{
		"ssl.keystore.type": "PEM", "ssl.keystore.location": ks, "ssl.truststore.type": "PEM",
		"ssl.truststore.location": ts, "ssl.client.auth": "required",
		"ssl.principal.mapping.rules": "RULE:^CN=([^,]*),OU=Users$/$1/L,DEFAULT"})})
	if err != nil {
		t.Fatal(err)
	}
	seen := make(chan wire.Principal, 64)
	addr := serveSelf(t, l, seen)
	for _, withCert := range []bool{true, false} {
		props := []string{"security.protocol=SSL", "ssl.truststore.type=PEM", "ssl.truststore.location=" + ts,
			"default.api.timeout.ms=5000", "request.timeout.ms=4000"}
		if withCert {
			props = append(props, "ssl.keystore.type=PEM", "ssl.keystore.location="+cks)
		}
		cc := filepath.Join(dir, fmt.Sprintf("client-%v.properties", withCert))
		if err := os.WriteFile(cc, []byte(strings.Join(props, "\n")), 0o600); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(testCtx(t), 90*time.Second)
		_, stderr, err := kafka.RunTool(ctx, kafka.TopicCommand, "--bootstrap-server", addr, "--command-config", cc, "--list")
		cancel()
		if withCert != (err == nil) {
			t.Fatalf("client certificate %v: %v\n%s", withCert, err, stderr)
		}
	}
	if p := <-seen; p.String() != "User:alice" {
		t.Fatalf("principal %v", p)
	}
}

// TestJavaClientEncryptedPEMKeys: PEM keystores whose private keys are
// encrypted as Kafka's own tests make them (`openssl pkcs8 -topk8 -v1
// PBE-SHA1-3DES`) open with ssl.key.password on both sides of a mutual TLS
// connection: kzadmind's listener, and Kafka's kafka-topics with the same
// kind of file. Without the client's key password the tool fails.
func TestJavaClientEncryptedPEMKeys(t *testing.T) {
	kafka.SkipIfHeavyDisabled(t)
	ca, _, ts := pemFiles(t)
	dir := t.TempDir()
	encrypted := func(name, password string, o testpki.Options) string {
		leaf, err := ca.Issue(o)
		if err != nil {
			t.Fatal(err)
		}
		key, err := testpki.OpenSSL(leaf.KeyPEM, "pkcs8", "-topk8", "-v1", "PBE-SHA1-3DES", "-passout", "pass:"+password)
		if errors.Is(err, testpki.ErrNoOpenSSL) {
			t.Skip(err)
		}
		if err != nil {
			t.Fatal(err)
		}
		path, err := testpki.WriteFile(dir, name, append(key, leaf.CertPEM...))
		if err != nil {
			t.Fatal(err)
		}
		return path
	}
	ks := encrypted("server.pem", "server-key-pass", testpki.Options{})
	cks := encrypted("client.pem", "client-key-pass", testpki.Options{Subject: pkix.Name{CommonName: "bob"}})
	l, err := NewListener(ListenerOptions{Name: "SSL", Protocol: "SSL", Props: MapGetter(map[string]string{
		"ssl.keystore.type": "PEM", "ssl.keystore.location": ks, "ssl.key.password": "server-key-pass",
		"ssl.truststore.type": "PEM", "ssl.truststore.location": ts, "ssl.client.auth": "required"})})
	if err != nil {
		t.Fatal(err)
	}
	seen := make(chan wire.Principal, 64)
	addr := serveSelf(t, l, seen)
	for _, withPassword := range []bool{true, false} {
		props := []string{"security.protocol=SSL", "ssl.truststore.type=PEM", "ssl.truststore.location=" + ts,
			"ssl.keystore.type=PEM", "ssl.keystore.location=" + cks, "default.api.timeout.ms=5000", "request.timeout.ms=4000"}
		if withPassword {
			props = append(props, "ssl.key.password=client-key-pass")
		}
		cc := filepath.Join(dir, fmt.Sprintf("client-%v.properties", withPassword))
		if err := os.WriteFile(cc, []byte(strings.Join(props, "\n")), 0o600); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(testCtx(t), 90*time.Second)
		_, stderr, err := kafka.RunTool(ctx, kafka.TopicCommand, "--bootstrap-server", addr, "--command-config", cc, "--list")
		cancel()
		if withPassword != (err == nil) {
			t.Fatalf("client key password given %v: %v\n%s", withPassword, err, stderr)
		}
	}
	if p := <-seen; p.String() != "User:CN=bob" {
		t.Fatalf("principal %v", p)
	}
}
