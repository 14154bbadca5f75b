package handler

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// hcrtEnv is the handlers over the real zkadmin.Admin writing to the
// package's real ZooKeeper (brokers 1-3 registered, no racks), called in
// process through the wire codec (fixture.call). e2e's zkController
// publishes a view after every write, in which every partition is led by
// its first replica and topics with a deletion marker are Deleting.
type hcrtEnv struct {
	*e2e
	fx      *fixture
	watched *hcrtWatchedViews
}

// hcrtWatchedViews is Views counting the handlers' waits.
type hcrtWatchedViews struct {
	*Views
	waits atomic.Int32
}

func (w *hcrtWatchedViews) WaitView(ctx context.Context, cond func(*View) bool) (*View, error) {
	w.waits.Add(1)
	return w.Views.WaitView(ctx, cond)
}

// hcrtBatchAdmin adds the batch create to syncAdmin, so that the handlers
// take kzadmind's path (zkadmin.Admin.CreateTopics, one plan for the
// whole request).
type hcrtBatchAdmin struct {
	*syncAdmin
	real *zkadmin.Admin
}

func (a *hcrtBatchAdmin) CreateTopics(ctx context.Context, reqs []zkadmin.CreateTopicRequest) ([]zkadmin.CreateTopicOutcome, error) {
	out, err := a.real.CreateTopics(ctx, reqs)
	for i, o := range out {
		if o.Err == nil && !reqs[i].DryRun {
			if rerr := a.ctl.refresh(ctx); rerr != nil {
				return out, rerr
			}
			break
		}
	}
	return out, err
}

func hcrtNewEnv(t *testing.T, mods ...func(*config.Config)) *hcrtEnv {
	t.Helper()
	ctx, zk, clusterID := handlerChroot(t)
	registerBrokers(ctx, t, zk, 9092)
	cfg := config.Default()
	cfg.NodeID = selfID
	for _, m := range mods {
		m(&cfg)
	}
	e := &e2e{t: t, ctx: ctx, zk: zk, views: NewViews(nil)}
	e.admin = zkadmin.NewAdmin(zk, zkadmin.AdminOptions{Config: &cfg})
	e.ctl = &zkController{admin: e.admin, views: e.views, clusterID: clusterID,
		self: controller.BrokerView{ID: selfID, Endpoints: ep(9092)}}
	if err := e.ctl.refresh(ctx); err != nil {
		t.Fatal(err)
	}
	watched := &hcrtWatchedViews{Views: e.views}
	sa := &syncAdmin{Admin: e.admin, ctl: e.ctl}
	h, err := New(Options{Cluster: watched, Admin: &hcrtBatchAdmin{syncAdmin: sa, real: e.admin}, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	return &hcrtEnv{e2e: e, fx: &fixture{t: t, views: e.views, h: h}, watched: watched}
}

// markForDeletion writes a deletion marker, as another tool would, and
// lets the simulated controller see it.
func (env *hcrtEnv) markForDeletion(topic string) {
	env.t.Helper()
	if _, err := env.zk.Create(env.ctx, znodes.DeleteTopicPath(topic), znodes.DeleteTopicMarkerData(), zkadmin.Persistent); err != nil {
		env.t.Fatal(err)
	}
	env.refresh()
}

func (env *hcrtEnv) refresh() {
	env.t.Helper()
	if err := env.ctl.refresh(env.ctx); err != nil {
		env.t.Fatal(err)
	}
}

// create creates topics through CreateTopics v7, waiting for them, and
// fails the test unless every one succeeds.
func (env *hcrtEnv) create(topics ...ctTopic) {
	env.t.Helper()
	got := env.fx.call(ctReq(7, 10000, false, topics...)).(*kmsg.CreateTopicsResponse)
	for _, rt := range got.Topics {
		if rt.ErrorCode != 0 {
			env.t.Fatalf("setup: creating %s: code %d %v", rt.Topic, rt.ErrorCode, ptr(rt.ErrorMessage))
		}
	}
}

// partitions returns a topic znode's replica lists in partition
// order ("<missing>" when there is no znode).
func (env *hcrtEnv) partitions(name string) string {
	env.t.Helper()
	zt := env.zkTopic(name)
	if zt == nil {
		return "<missing>"
	}
	out := make([][]int32, len(zt.Partitions))
	for p, replicas := range zt.Partitions {
		if int(p) >= len(out) || p < 0 {
			return fmt.Sprintf("non-contiguous %v", zt.Partitions)
		}
		out[p] = replicas
	}
	return fmt.Sprint(out)
}
