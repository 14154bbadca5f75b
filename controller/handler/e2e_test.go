package handler

import (
	"context"
	"errors"
	"net"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller"
	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/integration/zktest"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// The end-to-end tests serve the handlers on a real wire.Server, with the
// real zkadmin.Admin writing to a real ZooKeeper, and call them with real
// clients. The controller is simulated by zkController: after every write
// it re-reads ZooKeeper and publishes a view in which every partition is
// led by its preferred replica, as an instant controller would.

// sharedZK is the one ZooKeeper server of the package's tests, started by
// the first test that needs it and stopped by TestMain.
var sharedZK zktest.Shared

func TestMain(m *testing.M) {
	code := m.Run()
	sharedZK.Close()
	os.Exit(code)
}

// e2e is a handler stack on loopback over ZooKeeper.
type e2e struct {
	t     *testing.T
	ctx   context.Context
	zk    *zkadmin.Client
	admin *zkadmin.Admin
	views *Views
	ctl   *zkController
	addr  string
}

// handlerChroot connects to the package's ZooKeeper under a chroot of
// the test's own, with Kafka's top-level znodes and a cluster id.
func handlerChroot(t *testing.T) (context.Context, *zkadmin.Client, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	zk, _ := sharedZK.Connect(t, "handler")
	if err := zk.EnsureTopLevelPaths(ctx); err != nil {
		t.Fatal(err)
	}
	clusterID, err := zk.GetOrCreateClusterID(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	return ctx, zk, clusterID
}

func newE2E(t *testing.T, mods ...func(*config.Config)) *e2e {
	t.Helper()
	ctx, zk, clusterID := handlerChroot(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := int32(ln.Addr().(*net.TCPAddr).Port)
	registerBrokers(ctx, t, zk, port)
	cfg := config.Default()
	cfg.NodeID = selfID
	for _, m := range mods {
		m(&cfg)
	}
	e := &e2e{t: t, ctx: ctx, zk: zk, views: NewViews(nil), addr: ln.Addr().String()}
	e.admin = zkadmin.NewAdmin(zk, zkadmin.AdminOptions{Config: &cfg})
	e.ctl = &zkController{admin: e.admin, views: e.views, clusterID: clusterID, self: controller.BrokerView{ID: selfID, Endpoints: ep(port)}}
	if err := e.ctl.refresh(ctx); err != nil {
		t.Fatal(err)
	}
	h, err := New(Options{Cluster: e.views, Admin: &syncAdmin{Admin: e.admin, ctl: e.ctl}, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	mux := wire.NewMux()
	if err := h.Register(mux); err != nil {
		t.Fatal(err)
	}
	srv, err := wire.New(wire.Config{Mux: mux})
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	t.Cleanup(func() {
		_ = srv.Close()
		if err := <-served; !errors.Is(err, wire.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
	})
	return e
}

// registerBrokers registers brokers 1-3, all advertising this listener,
// so whichever node a client picks it reaches these handlers.
func registerBrokers(ctx context.Context, t *testing.T, zk *zkadmin.Client, port int32) {
	t.Helper()
	for id := 1; id <= 3; id++ {
		data, err := znodes.NewBrokerRegistration(ep(port), nil, -1, time.Now()).Encode()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := zk.Create(ctx, znodes.BrokerIDsPath+"/"+strconv.Itoa(id), data, zkadmin.Ephemeral); err != nil {
			t.Fatal(err)
		}
	}
}

// zkController publishes views read from ZooKeeper.
type zkController struct {
	admin     *zkadmin.Admin
	views     *Views
	clusterID string
	self      controller.BrokerView
	mu        sync.Mutex
}

func (c *zkController) refresh(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	cl, err := c.admin.ReadCluster(ctx, zkadmin.ReadOptions{AllTopics: true})
	if err != nil {
		return err
	}
	v := &View{ClusterID: c.clusterID, MetadataView: controller.MetadataView{Active: true, ControllerID: c.self.ID, Self: c.self,
		Topics: controller.TopicViews{}}}
	for _, b := range cl.Brokers {
		v.Brokers = append(v.Brokers, controller.BrokerView{ID: b.ID, Endpoints: b.Endpoints})
	}
	for _, t := range cl.Topics {
		vt := &controller.TopicView{Name: t.Name, ID: t.Assignment.TopicID, Deleting: t.MarkedForDeletion}
		for _, p := range t.Partitions {
			vt.Partitions = append(vt.Partitions, controller.PartitionView{Partition: p.ID, Leader: p.Replicas[0], LeaderEpoch: 0,
				Replicas: p.Replicas, ISR: p.Replicas})
		}
		v.Topics = v.Topics.With(vt)
	}
	c.views.Publish(v)
	return nil
}

// syncAdmin is the real Admin followed, after every write, by the
// simulated controller noticing it.
type syncAdmin struct {
	Admin
	ctl *zkController
}

func (a *syncAdmin) after(ctx context.Context, dryRun bool, err error) error {
	if err != nil || dryRun {
		return err
	}
	return a.ctl.refresh(ctx)
}

func (a *syncAdmin) CreateTopic(ctx context.Context, req zkadmin.CreateTopicRequest) (*zkadmin.CreateTopicResult, error) {
	res, err := a.Admin.CreateTopic(ctx, req)
	return res, a.after(ctx, req.DryRun, err)
}

func (a *syncAdmin) AddPartitions(ctx context.Context, req zkadmin.AddPartitionsRequest) (*zkadmin.AddPartitionsResult, error) {
	res, err := a.Admin.AddPartitions(ctx, req)
	return res, a.after(ctx, req.DryRun, err)
}

func (a *syncAdmin) MarkTopicForDeletion(ctx context.Context, topic string, dryRun bool) (*zkadmin.DeleteTopicResult, error) {
	res, err := a.Admin.MarkTopicForDeletion(ctx, topic, dryRun)
	return res, a.after(ctx, dryRun, err)
}

// zkTopic reads a topic znode as ZooKeeper holds it; nil when absent.
func (e *e2e) zkTopic(name string) *znodes.TopicAssignment {
	e.t.Helper()
	data, _, err := e.zk.Get(e.ctx, znodes.TopicPath(name))
	if errors.Is(err, zkadmin.ErrNoNode) {
		return nil
	}
	if err != nil {
		e.t.Fatal(err)
	}
	t, err := znodes.DecodeTopicAssignment(name, data)
	if err != nil {
		e.t.Fatal(err)
	}
	return &t
}

// zkExists reports whether a znode exists.
func (e *e2e) zkExists(path string) bool {
	e.t.Helper()
	ok, _, err := e.zk.Exists(e.ctx, path)
	if err != nil {
		e.t.Fatal(err)
	}
	return ok
}

// zkConfig reads an entity's overrides.
func (e *e2e) zkConfig(entityType, name string) map[string]string {
	e.t.Helper()
	cfg, _, err := e.admin.ReadEntityConfig(e.ctx, entityType, name)
	if err != nil {
		e.t.Fatal(err)
	}
	return cfg
}

// checkTopic asserts ZooKeeper holds the topic with n partitions of rf
// replicas each, on registered brokers, and a topic id.
func (e *e2e) checkTopic(name string, n, rf int) {
	e.t.Helper()
	t := e.zkTopic(name)
	if t == nil {
		e.t.Fatalf("topic %s is not in ZooKeeper", name)
	}
	if len(t.Partitions) != n || t.TopicID.IsZero() {
		e.t.Fatalf("topic %s in ZooKeeper: %+v, want %d partitions and an id", name, t, n)
	}
	for p, replicas := range t.Partitions {
		if len(replicas) != rf {
			e.t.Errorf("%s-%d replicas %v, want %d", name, p, replicas, rf)
		}
		for _, r := range replicas {
			if r < 1 || r > 3 {
				e.t.Errorf("%s-%d on unregistered broker %d", name, p, r)
			}
		}
	}
}
