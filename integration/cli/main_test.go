// Package cli_test checks kzadmin's ZooKeeper writes against real Kafka 3.9
// brokers under Kafka's own ZooKeeper-mode controller, and kzadmin's reads
// against what Kafka's own tools write. One ZooKeeper and three brokers
// (racks r1..r3) serve every test of the package. KZADMIN_SKIP_HEAVY=1
// skips them all.
package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/cli"
	"github.com/kzadmin/kzadmin/integration/kafka"
	"github.com/kzadmin/kzadmin/integration/zkserver"
)

// env is the package's cluster, set up by TestMain unless heavy tests are
// skipped.
var env struct {
	zk      *zkserver.Server
	kafka   *kafka.Cluster
	connect string // zookeeper.connect with the chroot
	adm     *kadm.Client
	startup time.Duration
}

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if os.Getenv(kafka.SkipHeavyEnv) == "1" {
		return m.Run() // every test skips itself
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	began := time.Now()
	zks, err := zkserver.Start(ctx, zkserver.Options{})
	if err != nil {
		fmt.Fprintf(os.Stderr, "integration/cli: zookeeper: %v\n", err)
		return 1
	}
	defer zks.Close()
	env.zk, env.connect = zks, zks.Addr()+"/kz"
	c, err := kafka.StartCluster(ctx, env.connect, 3, kafka.ClusterOptions{
		// Two log directories each, for moves between them.
		Broker: kafka.BrokerOptions{OffsetsReplicationFactor: 3, ExtraLogDirs: 1},
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "integration/cli: kafka: %v\n", err)
		return 1
	}
	defer c.Close()
	env.kafka = c
	if _, err := c.WaitMetadata(ctx, 2*time.Minute); err != nil {
		fmt.Fprintf(os.Stderr, "integration/cli: kafka metadata: %v\n", err)
		return 1
	}
	adm, err := kadm.NewOptClient(kgo.SeedBrokers(c.Addrs()...))
	if err != nil {
		fmt.Fprintf(os.Stderr, "integration/cli: kadm: %v\n", err)
		return 1
	}
	defer adm.Close()
	env.adm = adm
	env.startup = time.Since(began)
	return m.Run()
}

func testCtx(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	kafka.SkipIfHeavyDisabled(t)
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// kz runs the kzadmin CLI in-process against the cluster's ZooKeeper.
func kz(t *testing.T, ctx context.Context, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = cli.Run(ctx, append(args, "--zookeeper", env.connect), &out, &errOut, cli.Options{Terminal: func() bool { return false }})
	return out.String(), errOut.String(), code
}

// kzOK runs kzadmin and fails the test unless it exits 0.
func kzOK(t *testing.T, ctx context.Context, args ...string) string {
	t.Helper()
	out, errOut, code := kz(t, ctx, args...)
	if code != 0 {
		t.Fatalf("kzadmin %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// tool runs one of Kafka's command-line tools against the brokers.
func tool(t *testing.T, ctx context.Context, class string, args ...string) string {
	t.Helper()
	began := time.Now()
	out, _, err := kafka.RunTool(ctx, class, append([]string{"--bootstrap-server", env.kafka.Bootstrap()}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s %s ran in %s", class[strings.LastIndexByte(class, '.')+1:], args[0], time.Since(began).Round(time.Millisecond))
	return out
}

// eventually polls check until it returns nil or the deadline passes.
func eventually(t *testing.T, ctx context.Context, what string, timeout time.Duration, check func() error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		err := check()
		if err == nil {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: not within %v: %v", what, timeout, err)
		case <-tick.C:
		}
	}
}

func writeFile(t *testing.T, content string) string {
	t.Helper()
	p := t.TempDir() + "/f.json"
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
