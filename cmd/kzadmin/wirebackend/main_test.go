package wirebackend_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
	"github.com/kzadmin/kzadmin/cmd/kzadmin/cli"
	"github.com/kzadmin/kzadmin/cmd/kzadmin/wirebackend"
	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller"
	"github.com/kzadmin/kzadmin/internal/daemon"
	"github.com/kzadmin/kzadmin/zkadmin"
)

// dev is the package's kzadmind --dev: a local ZooKeeper, the controller
// and three simulated brokers (ids 1-3, racks r1-r3). Tests share it and
// use their own topic names, so they run once per process (-count=1).
var dev *cluster

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conf := devConfig()
	d, err := daemon.Start(ctx, conf, daemon.Options{}, zerolog.Nop())
	if err != nil {
		fmt.Fprintf(os.Stderr, "start kzadmind --dev: %v\n", err)
		return 1
	}
	defer func() {
		stopCtx, stop := context.WithTimeout(context.Background(), time.Minute)
		defer stop()
		_ = d.Stop(stopCtx)
	}()
	c, err := newCluster(ctx, d, "", 3)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer c.zk.Close()
	dev = c
	return m.Run()
}

func devConfig() config.Config {
	conf := config.Default()
	conf.Dev = true
	conf.NodeID = config.DevNodeID
	conf.Listeners = []config.Listener{{Name: "PLAINTEXT", Host: "127.0.0.1", Port: 0}}
	conf.HTTPListen = "127.0.0.1:0"
	return conf
}

// cluster is a running kzadmind and a ZooKeeper session to check what it
// wrote.
// startDaemon starts kzadmind with conf for one test, stopped when it ends.
func startDaemon(ctx context.Context, t *testing.T, conf config.Config) *daemon.Daemon {
	t.Helper()
	d, err := daemon.Start(ctx, conf, daemon.Options{}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stopCtx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = d.Stop(stopCtx)
	})
	return d
}

type cluster struct {
	d       *daemon.Daemon
	zk      *zkadmin.Client
	connect string // --zookeeper value
}

// newCluster waits until d is the active controller with brokers
// registered, and connects to its ZooKeeper.
func newCluster(ctx context.Context, d *daemon.Daemon, chroot string, brokers int) (*cluster, error) {
	if err := waitView(ctx, d, func(v *controller.MetadataView) bool { return v.Active && len(v.Brokers) == brokers }); err != nil {
		return nil, fmt.Errorf("kzadmind never had %d brokers: %w", brokers, err)
	}
	zk, err := zkadmin.Connect(ctx, zkadmin.Options{Servers: d.ZooKeeperServers(), Chroot: chroot, SessionTimeout: 10 * time.Second})
	if err != nil {
		return nil, err
	}
	return &cluster{d: d, zk: zk, connect: strings.Join(d.ZooKeeperServers(), ",") + chroot}, nil
}

// waitView waits for the controller's view to satisfy cond.
func waitView(ctx context.Context, d *daemon.Daemon, cond func(*controller.MetadataView) bool) error {
	_, err := d.Controller().WaitSnapshot(ctx, cond)
	return err
}

// settled waits until the topics' partitions all have a leader and a full
// ISR, so that ZooKeeper and the controller's view agree on them.
func (c *cluster) settled(t *testing.T, topics ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := waitView(ctx, c.d, func(v *controller.MetadataView) bool {
		for _, name := range topics {
			tv := v.Topics.Get(name)
			if tv == nil {
				return false
			}
			for _, p := range tv.Partitions {
				if p.Leader < 0 || len(p.ISR) != len(p.Replicas) || len(p.Adding)+len(p.Removing) > 0 {
					return false
				}
			}
		}
		return true
	})
	if err != nil {
		t.Fatalf("topics %v never settled: %v", topics, err)
	}
}

// result is one kzadmin run.
type result struct {
	code        int
	out, errOut string
}

func (r result) all() string { return r.out + r.errOut }

// run runs kzadmin in-process with --bootstrap-server at the cluster and
// the backend options given.
func (c *cluster) run(t testing.TB, opts wirebackend.Options, args ...string) result {
	t.Helper()
	open := func(ctx context.Context, g cli.Globals) (backend.Backend, error) {
		o := opts
		o.Bootstrap = g.BootstrapServer
		return wirebackend.Open(ctx, o)
	}
	return runCLI(append(args, "--bootstrap-server", c.d.KafkaAddr()), cli.Options{Open: open})
}

// wire runs kzadmin over the wire with the default options.
func (c *cluster) wire(t testing.TB, args ...string) result {
	t.Helper()
	return c.run(t, wirebackend.Options{}, args...)
}

// zook runs kzadmin with --zookeeper, for comparison.
func (c *cluster) zook(t testing.TB, args ...string) result {
	t.Helper()
	return runCLI(append(args, "--zookeeper", c.connect), cli.Options{})
}

func runCLI(args []string, opts cli.Options) result {
	var out, errOut bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	opts.Terminal = func() bool { return false }
	code := cli.Run(ctx, args, &out, &errOut, opts)
	return result{code, out.String(), errOut.String()}
}

// want checks a run's exit code and that its output holds each fragment.
func want(t *testing.T, r result, code int, fragments ...string) result {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.out, r.errOut)
	}
	for _, f := range fragments {
		if !strings.Contains(r.all(), f) {
			t.Errorf("output lacks %q\nstdout:\n%s\nstderr:\n%s", f, r.out, r.errOut)
		}
	}
	return r
}

// get reads a znode; "" when absent.
func (c *cluster) get(t *testing.T, path string) string {
	t.Helper()
	data, _, err := c.zk.Get(context.Background(), path)
	if err != nil {
		if errors.Is(err, zkadmin.ErrNoNode) {
			return ""
		}
		t.Fatalf("get %s: %v", path, err)
	}
	return string(data)
}

func (c *cluster) children(t *testing.T, path string) []string {
	t.Helper()
	kids, _, err := c.zk.Children(context.Background(), path)
	if err != nil {
		t.Fatalf("children %s: %v", path, err)
	}
	slices.Sort(kids)
	return kids
}

// eventually polls cond (reading ZooKeeper) until it holds or the
// deadline passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		<-tick.C // poll interval for a condition with a deadline
	}
}

func writeFile(t *testing.T, content string) string {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "kzadmin-*.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(content); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return f.Name()
}
