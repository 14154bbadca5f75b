package bench

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/integration/brokersim"
	"github.com/kzadmin/kzadmin/integration/waitfor"
	"github.com/kzadmin/kzadmin/integration/zkserver"
	"github.com/kzadmin/kzadmin/internal/daemon"
	"github.com/kzadmin/kzadmin/zkadmin"
)

const (
	controllerID = 3000
	chroot       = "/kz"
	numBrokers   = 6
)

// env is one benchmark's cluster: ZooKeeper, kzadmind and simulated
// brokers (ids 1..6, racks r1..r3).
type env struct {
	zk  *zkserver.Server
	d   *daemon.Daemon
	sim *brokersim.Cluster
	// zkc is a session of our own under the chroot.
	zkc *zkadmin.Client
}

// startEnv starts ZooKeeper, runs preload (if any) on the empty chroot,
// then kzadmind (which wins /controller and loads what preload wrote) and
// the brokers, and waits until the controller is ready with every broker.
//
// zkJVM is the benchmarks' ZooKeeper JVM. By default it runs G1, the JDK's
// default collector and what a deployed ZooKeeper gets, with a 4 GB heap
// sized up front: a run of the benchmarks leaves close to a million znodes,
// and in the tests' 1 GB heap G1 collected over and over. The tests' serial
// collector stalled the server for 0.3-0.5 s per young collection once it
// held a few hundred thousand znodes, at random against either side of a
// comparison.
var zkJVM = flag.String("bench.zkjvm", "-XX:+UseG1GC -Xms4g -Xmx4g", "JVM options for ZooKeeper, space-separated (\"-XX:+UseSerialGC\" for the tests' collector)")

func startEnv(b *testing.B, ctx context.Context, preload func(context.Context, *zkadmin.Client) error) *env {
	b.Helper()
	e := &env{}
	var err error
	if e.zk, err = zkserver.Start(ctx, zkserver.Options{JVMArgs: strings.Fields(*zkJVM)}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = e.zk.Close() })
	if e.zkc, err = zkadmin.Connect(ctx, zkadmin.Options{Servers: []string{e.zk.Addr()}, Chroot: chroot}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(e.zkc.Close)
	if err := e.zkc.EnsureTopLevelPaths(ctx); err != nil {
		b.Fatal(err)
	}
	if preload != nil {
		if err := preload(ctx, e.zkc); err != nil {
			b.Fatal(err)
		}
	}
	e.startDaemon(b, ctx)
	e.startBrokers(b, ctx)
	err = poll(ctx, 5*time.Minute, func() error {
		st := e.d.Controller().Status()
		if v := e.d.Controller().Snapshot(); !st.Ready || v == nil || len(v.Brokers) != numBrokers {
			return fmt.Errorf("controller not ready with %d brokers: %+v", numBrokers, st)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return e
}

func (e *env) startDaemon(b *testing.B, ctx context.Context) {
	b.Helper()
	conf := config.Default()
	conf.NodeID = controllerID
	conf.ZooKeeper.Connect = config.ZKConnect{Servers: []string{e.zk.Addr()}, Chroot: chroot}
	conf.Listeners = []config.Listener{{Name: "PLAINTEXT", Host: "127.0.0.1", Port: 0}}
	conf.HTTPListen = ""
	conf.AutoLeaderRebalanceEnable = false
	log := zerolog.New(zerolog.NewTestWriter(b)).Level(zerolog.WarnLevel)
	d, err := daemon.Start(ctx, conf, daemon.Options{}, log)
	if err != nil {
		b.Fatal(err)
	}
	e.d = d
	b.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = d.Stop(sctx)
	})
	err = poll(ctx, time.Minute, func() error {
		if st := d.Controller().Status(); !st.Active {
			return fmt.Errorf("kzadmind not active: %+v", st)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

func (e *env) startBrokers(b *testing.B, ctx context.Context) {
	b.Helper()
	specs := make([]brokersim.BrokerSpec, numBrokers)
	for i := range specs {
		specs[i] = brokersim.BrokerSpec{ID: int32(i + 1), Rack: fmt.Sprintf("r%d", i%3+1)}
	}
	sim, err := brokersim.Start(ctx, brokersim.Options{
		ZooKeeperServers: []string{e.zk.Addr()}, Chroot: chroot, Brokers: specs,
		ControllerAddr: e.d.KafkaAddr(),
	})
	if err != nil {
		b.Fatal(err)
	}
	e.sim = sim
	b.Cleanup(sim.Close)
}

// poll calls check until it succeeds or timeout (or ctx) ends.
func poll(ctx context.Context, timeout time.Duration, check func() error) error {
	return waitfor.Until(ctx, timeout, 20*time.Millisecond, check)
}

// loadAvg is the machine's 1-minute load average, logged next to every
// figure: the box is shared, and a figure taken at load 10 on two cores
// says less than one taken at load 1.
func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}
