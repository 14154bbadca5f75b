package controller

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller/brokerchan"
	"github.com/kzadmin/kzadmin/controller/replicalog"
	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/integration/zkserver"
	"github.com/kzadmin/kzadmin/integration/zktest"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// env is the package's one ZooKeeper server (zktest's, started by TestMain
// so that no test's deadline pays for the start); each test works under
// its own chroot. Sessions default to 4s, so expiry tests stay short.
var env struct {
	zk     zktest.Shared
	server *zkserver.Server
}

func TestMain(m *testing.M) { os.Exit(runTests(m)) }

func runTests(m *testing.M) int {
	env.zk.SessionTimeout = 4 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), zktest.StartTimeout)
	s, err := env.zk.Start(ctx)
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "controller tests need a ZooKeeper server: %v\n", err)
		return 1
	}
	env.server = s
	return env.zk.Run(m)
}

const waitTimeout = 30 * time.Second

func testChroot(tb testing.TB) string { return env.zk.Chroot(tb, "ct") }

func testCtx(tb testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	tb.Cleanup(cancel)
	return ctx
}

// connectZK opens a client under chroot with Kafka's top-level znodes
// (through addr when set; timeout zero means the package's 4s).
func connectZK(tb testing.TB, chroot, addr string, timeout time.Duration) *zkadmin.Client {
	tb.Helper()
	return env.zk.ConnectWith(tb, chroot, zktest.Session{Addr: addr, Timeout: timeout, TopLevel: true})
}

// node is one controller under test with its own session and listener.
type node struct {
	t        testing.TB
	c        *Controller
	zk       *zkadmin.Client
	reg      *prometheus.Registry
	cancel   context.CancelFunc
	done     chan error
	listener net.Listener
	server   *wire.Server
}

type nodeOpts struct {
	id       int32
	zkAddr   string        // proxy, when the test cuts the session
	timeout  time.Duration // session timeout
	unclean  bool
	logLevel zerolog.Level
	logTo    io.Writer // also receives the controller's logs
	// rebalance, when set, is the first auto-rebalance delay and the
	// check interval (default: an hour, so tests do not rebalance).
	rebalance time.Duration
	// configure, when set, adjusts the configuration last.
	configure func(*config.Config)
	// warm makes the node a warm standby while another is the controller.
	warm bool
	// dial, when set, opens the controller's broker connections (the
	// golden scenarios record the requests through it).
	dial brokerchan.DialFunc
	// prober, when set, is the unclean recovery's replica log prober.
	prober replicalog.Prober
}

// startNode starts a controller under chroot, serving its broker routes on
// a loopback listener that it lists as its endpoint.
func startNode(t testing.TB, chroot string, o nodeOpts) *node {
	t.Helper()
	zk := connectZK(t, chroot, o.zkAddr, o.timeout)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	conf := config.Default()
	conf.NodeID = o.id
	conf.UncleanLeaderElectionEnable = o.unclean
	conf.ControllerSocketTimeout = 2 * time.Second
	conf.RequestTimeout = 5 * time.Second
	firstRebalance := time.Hour
	if o.rebalance > 0 {
		firstRebalance, conf.LeaderImbalanceCheckInterval = o.rebalance, o.rebalance
	}
	if o.configure != nil {
		o.configure(&conf)
	}
	reg := prometheus.NewRegistry()
	var w io.Writer = zerolog.NewTestWriter(t)
	if o.logTo != nil {
		w = io.MultiWriter(w, o.logTo)
	}
	log := zerolog.New(w).Level(zerolog.WarnLevel).With().Timestamp().Logger()
	if o.logLevel != 0 {
		log = log.Level(o.logLevel)
	}
	c, err := New(Config{
		Conf: conf, ZK: zk, Logger: log, Registry: reg,
		Endpoints:           []znodes.Endpoint{{Listener: "PLAINTEXT", Host: "127.0.0.1", Port: int32(port), SecurityProtocol: "PLAINTEXT"}},
		FirstRebalanceDelay: firstRebalance,
		WarmStandby:         o.warm,
		BrokerDial:          o.dial,
		Prober:              o.prober,
	})
	if err != nil {
		t.Fatal(err)
	}
	mux := wire.NewMux()
	for _, r := range c.BrokerRoutes() {
		if err := mux.Register(r); err != nil {
			t.Fatal(err)
		}
	}
	srv, err := wire.New(wire.Config{Mux: mux})
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	ctx, cancel := context.WithCancel(context.Background())
	n := &node{t: t, c: c, zk: zk, reg: reg, cancel: cancel, done: make(chan error, 1), listener: ln, server: srv}
	go func() { n.done <- c.Run(ctx) }()
	t.Cleanup(n.stop)
	return n
}

// stop ends Run and waits for it; safe to call twice.
func (n *node) stop() {
	n.cancel()
	if n.done != nil {
		select {
		case <-n.done:
		case <-time.After(waitTimeout):
			n.t.Errorf("controller %d did not stop", n.c.nodeID)
		}
		n.done = nil
	}
	_ = n.server.Close()
}

// waitFor polls cond until it holds. Polling reads state; it never stands
// in for synchronisation on a known event.
func waitFor(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(waitTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out after %v waiting for %s", waitTimeout, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
