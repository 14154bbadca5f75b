package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/integration/zktest"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// sharedZK is the package's one ZooKeeper server, started by the first test
// that needs it; each test works under its own chroot. Sessions are short
// so that brokers registered by a test vanish soon after it.
var sharedZK = zktest.Shared{SessionTimeout: 4 * time.Second}

func TestMain(m *testing.M) { os.Exit(sharedZK.Run(m)) }

// cluster is one test's fake cluster: Kafka's top-level znodes and broker
// registrations under a chroot, as brokers would leave them.
type cluster struct {
	t       *testing.T
	ctx     context.Context
	chroot  string
	zk      *zkadmin.Client
	connect string
}

func newCluster(t *testing.T, racks ...string) *cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	chroot := sharedZK.Chroot(t, "cli")
	zk := sharedZK.ConnectWith(t, chroot, zktest.Session{TopLevel: true})
	c := &cluster{t: t, ctx: ctx, chroot: chroot, zk: zk, connect: sharedZK.Addr(t) + chroot}
	for i, rack := range racks {
		c.registerBroker(int32(i+1), rack)
	}
	return c
}

func (c *cluster) registerBroker(id int32, rack string) {
	c.t.Helper()
	var r *string
	if rack != "" {
		r = &rack
	}
	data, err := znodes.NewBrokerRegistration([]znodes.Endpoint{{Listener: "PLAINTEXT", SecurityProtocol: "PLAINTEXT",
		Host: "127.0.0.1", Port: 9090 + id}}, r, -1, time.Now()).Encode()
	if err != nil {
		c.t.Fatal(err)
	}
	if _, err := c.zk.Create(c.ctx, znodes.BrokerIDPath(id), data, zkadmin.Ephemeral); err != nil {
		c.t.Fatal(err)
	}
}

// result is one kzadmin run.
type result struct {
	code        int
	out, errOut string
}

// run runs kzadmin in-process with --zookeeper pointing at the cluster.
func (c *cluster) run(args ...string) result {
	c.t.Helper()
	var out, errOut bytes.Buffer
	all := append([]string{}, args...)
	if len(all) > 0 && all[0] != "--help" {
		all = append(all, "--zookeeper", c.connect)
	}
	code := Run(c.ctx, all, &out, &errOut, Options{Terminal: func() bool { return false }})
	return result{code, out.String(), errOut.String()}
}

// ok runs kzadmin and fails the test unless it exits 0.
func (c *cluster) ok(args ...string) result {
	c.t.Helper()
	r := c.run(args...)
	if r.code != 0 {
		c.t.Fatalf("kzadmin %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, r.out, r.errOut)
	}
	return r
}

// want runs kzadmin and checks the exit code and that stdout+stderr holds
// every fragment.
func (c *cluster) want(code int, fragments []string, args ...string) result {
	c.t.Helper()
	r := c.run(args...)
	if r.code != code {
		c.t.Fatalf("kzadmin %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, code, r.out, r.errOut)
	}
	for _, f := range fragments {
		if !strings.Contains(r.out+r.errOut, f) {
			c.t.Errorf("kzadmin %s: output lacks %q\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), f, r.out, r.errOut)
		}
	}
	return r
}

func (c *cluster) get(path string) string {
	c.t.Helper()
	data, _, err := c.zk.Get(c.ctx, path)
	if err != nil {
		c.t.Fatalf("get %s: %v", path, err)
	}
	return string(data)
}

func (c *cluster) put(path, data string) {
	c.t.Helper()
	var b []byte
	if data != "" {
		b = []byte(data)
	}
	if _, err := c.zk.Set(c.ctx, path, b, zkadmin.AnyVersion); err == nil {
		return
	}
	if _, err := c.zk.CreateRecursive(c.ctx, path, b, zkadmin.Persistent); err != nil {
		c.t.Fatalf("put %s: %v", path, err)
	}
}

func (c *cluster) exists(path string) bool {
	c.t.Helper()
	ok, _, err := c.zk.Exists(c.ctx, path)
	if err != nil {
		c.t.Fatal(err)
	}
	return ok
}

// setState writes a partition state as a controller would.
func (c *cluster) setState(topic string, p int32, leader int32, isr ...int32) {
	c.t.Helper()
	data, err := znodes.PartitionState{Leader: leader, ISR: isr, ControllerEpoch: 1}.Encode()
	if err != nil {
		c.t.Fatal(err)
	}
	c.put(znodes.PartitionStatePath(topic, p), string(data))
}

// snapshot lists every znode under the chroot with data and versions.
func (c *cluster) snapshot() map[string]string {
	c.t.Helper()
	out := map[string]string{}
	var walk func(p string)
	walk = func(p string) {
		data, st, err := c.zk.Get(c.ctx, p)
		if err != nil {
			c.t.Fatal(err)
		}
		out[p] = fmt.Sprintf("v%d c%d %q", st.Version, st.Cversion, data)
		kids, _, err := c.zk.Children(c.ctx, p)
		if err != nil {
			c.t.Fatal(err)
		}
		sort.Strings(kids)
		for _, k := range kids {
			walk(strings.TrimSuffix(p, "/") + "/" + k)
		}
	}
	walk("/")
	return out
}

func sameTree(t *testing.T, before, after map[string]string) {
	t.Helper()
	if len(before) != len(after) {
		t.Errorf("%d znodes before, %d after", len(before), len(after))
	}
	for p, v := range after {
		if before[p] != v {
			t.Errorf("znode %s changed: %s -> %s", p, before[p], v)
		}
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
