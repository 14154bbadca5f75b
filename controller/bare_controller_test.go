package controller

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller/brokerchan"
	"github.com/kzadmin/kzadmin/znodes"
)

// smBare is a controller that never ran and has no ZooKeeper client, with
// its metrics in reg: enough for the loop's in-memory work (state machine
// bookkeeping that writes nothing, publishing views, gauges). Anything
// that would touch ZooKeeper panics on the nil client, which a test would
// report.
type smBare struct {
	c   *Controller
	reg *prometheus.Registry
}

func smNewBare(t *testing.T) *smBare {
	t.Helper()
	reg := prometheus.NewRegistry()
	q := newEventQueue()
	m, err := newMetrics(reg, q)
	if err != nil {
		t.Fatal(err)
	}
	dm, err := newDeletionMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	em, err := newELRMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	ep := []znodes.Endpoint{{Listener: "PLAINTEXT", Host: "127.0.0.1", Port: 9, SecurityProtocol: "PLAINTEXT"}}
	c := &Controller{cfg: Config{Endpoints: ep}, conf: config.Default(), log: zerolog.Nop(), ibp: config.IBPLatest,
		queue: q, metrics: m, delMetrics: dm, elrMetrics: em, dirtyTopic: map[string]bool{}, nodeID: 100, activeID: -1}
	c.conf.NodeID = 100
	c.status.Store(&Status{ActiveControllerID: -1})
	c.viewChanged = make(chan struct{})
	c.lastView = &MetadataView{ControllerID: -1}
	c.view.Store(c.lastView)
	return &smBare{c: c, reg: reg}
}

// lead makes the bare controller active with a new leadership of epoch,
// with an empty context and broker channels that reach nobody (every send
// fails at once, as to a broker without the inter-broker listener).
func (b *smBare) lead(t *testing.T, epoch int32) *leaderState {
	t.Helper()
	chans, err := brokerchan.NewManager(brokerchan.ManagerConfig{ControllerID: b.c.nodeID})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ls := &leaderState{epoch: epoch, zkVersion: epoch, ctx: ctx, cancel: cancel, chans: chans, cc: newClusterContext()}
	t.Cleanup(func() {
		cancel()
		chans.Close()
	})
	b.c.leader, b.c.activeID = ls, b.c.nodeID
	b.c.metrics.elected()
	return ls
}

// gauge reads a gauge of the registry by its full name.
func (b *smBare) gauge(t *testing.T, name string) float64 {
	t.Helper()
	mfs, err := b.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name && len(mf.GetMetric()) == 1 && mf.GetMetric()[0].GetGauge() != nil {
			return mf.GetMetric()[0].GetGauge().GetValue()
		}
	}
	t.Fatalf("gauge %s not registered", name)
	return 0
}

// smBroker registers broker id in the context, with an endpoint on the
// inter-broker listener and, when rack is not empty, a rack.
func smBroker(cc *clusterContext, id int32, rack string) {
	b := brokerchan.Broker{ID: id, Epoch: int64(1000 + id),
		Endpoints: []znodes.Endpoint{{Listener: "PLAINTEXT", Host: "127.0.0.1", Port: 1, SecurityProtocol: "PLAINTEXT"}}}
	if rack != "" {
		b.Rack = &rack
	}
	cc.brokers[id] = b
}
