package zkadmin

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/znodes"
)

// adminEnv is one test's cluster: a chroot with Kafka's top-level znodes
// and some registered brokers, and an Admin on it.
type adminEnv struct {
	t      *testing.T
	ctx    context.Context
	chroot string
	zk     *Client
	admin  *Admin
}

// newAdminEnv registers brokers with the given racks ("" for none) as ids
// 1, 2, ... and returns an Admin with static config cfg (nil: defaults).
func newAdminEnv(t *testing.T, racks []string, cfg *config.Config) *adminEnv {
	t.Helper()
	chroot := testChroot(t)
	zk := connect(t, Options{Chroot: chroot})
	e := &adminEnv{t: t, ctx: testCtx(t), chroot: chroot, zk: zk}
	if err := zk.EnsureTopLevelPaths(e.ctx); err != nil {
		t.Fatal(err)
	}
	for i, rack := range racks {
		e.registerBroker(int32(i+1), rack)
	}
	e.admin = NewAdmin(zk, AdminOptions{Config: cfg})
	return e
}

// another opens a second session (another "process") on the same chroot.
func (e *adminEnv) another(cfg *config.Config) *Admin {
	return NewAdmin(connect(e.t, Options{Chroot: e.chroot}), AdminOptions{Config: cfg})
}

func (e *adminEnv) registerBroker(id int32, rack string) {
	e.t.Helper()
	var r *string
	if rack != "" {
		r = &rack
	}
	reg := znodes.NewBrokerRegistration([]znodes.Endpoint{{Listener: "PLAINTEXT", SecurityProtocol: "PLAINTEXT",
		Host: "127.0.0.1", Port: 9000 + id}}, r, -1, time.Now())
	data, err := reg.Encode()
	if err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.zk.Create(e.ctx, znodes.BrokerIDPath(id), data, Ephemeral); err != nil {
		e.t.Fatal(err)
	}
}

func (e *adminEnv) get(path string) []byte {
	e.t.Helper()
	data, _, err := e.zk.Get(e.ctx, path)
	if err != nil {
		e.t.Fatalf("get %s: %v", path, err)
	}
	return data
}

func (e *adminEnv) put(path string, data []byte) {
	e.t.Helper()
	if _, err := e.zk.Set(e.ctx, path, data, AnyVersion); errors.Is(err, ErrNoNode) {
		_, err = e.zk.CreateRecursive(e.ctx, path, data, Persistent)
		if err != nil {
			e.t.Fatalf("create %s: %v", path, err)
		}
	} else if err != nil {
		e.t.Fatalf("set %s: %v", path, err)
	}
}

func (e *adminEnv) exists(path string) bool {
	e.t.Helper()
	ok, _, err := e.zk.Exists(e.ctx, path)
	if err != nil {
		e.t.Fatal(err)
	}
	return ok
}

func (e *adminEnv) assignment(topic string) znodes.TopicAssignment {
	e.t.Helper()
	a, err := znodes.DecodeTopicAssignment(topic, e.get(znodes.TopicPath(topic)))
	if err != nil {
		e.t.Fatal(err)
	}
	return a
}

func (e *adminEnv) create(topic string, partitions int32, rf int16) *CreateTopicResult {
	e.t.Helper()
	res, err := e.admin.CreateTopic(e.ctx, CreateTopicRequest{Topic: topic, Partitions: partitions, ReplicationFactor: rf})
	if err != nil {
		e.t.Fatalf("create %s: %v", topic, err)
	}
	return res
}

// snapshot is every znode under the chroot with its data and versions, so
// a test can show that an operation wrote nothing.
func (e *adminEnv) snapshot() map[string]string {
	e.t.Helper()
	out := map[string]string{}
	var walk func(p string)
	walk = func(p string) {
		data, st, err := e.zk.Get(e.ctx, p)
		if err != nil {
			e.t.Fatalf("snapshot %s: %v", p, err)
		}
		out[p] = fmt.Sprintf("v%d c%d %q", st.Version, st.Cversion, data)
		kids, _, err := e.zk.Children(e.ctx, p)
		if err != nil {
			e.t.Fatal(err)
		}
		sort.Strings(kids)
		for _, k := range kids {
			walk(strings.TrimSuffix(p, "/") + "/" + k)
		}
	}
	walk("/")
	return out
}

func sameSnapshot(t *testing.T, before, after map[string]string) {
	t.Helper()
	for p, v := range after {
		if before[p] != v {
			t.Errorf("znode %s changed: %s -> %s", p, before[p], v)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			t.Errorf("znode %s vanished", p)
		}
	}
}

// wantKind checks err is an *AdminError of kind whose message contains
// every fragment.
func wantKind(t *testing.T, err error, kind ErrorKind, fragments ...string) *AdminError {
	t.Helper()
	var ae *AdminError
	if !errors.As(err, &ae) {
		t.Fatalf("want %s error, got %v", kind, err)
	}
	if ae.Kind != kind {
		t.Fatalf("want %s error, got %s: %v", kind, ae.Kind, err)
	}
	for _, f := range fragments {
		if !strings.Contains(ae.Message, f) {
			t.Errorf("message %q lacks %q", ae.Message, f)
		}
	}
	return ae
}

func limitsConfig(maxBroker, maxCluster int32) *config.Config {
	c := config.Default()
	if maxBroker > 0 {
		c.MaxBrokerPartitions = maxBroker
	}
	if maxCluster > 0 {
		c.MaxPartitions = maxCluster
	}
	return &c
}
