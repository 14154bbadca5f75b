package daemon

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/rs/zerolog"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller"
	"github.com/kzadmin/kzadmin/controller/handler"
	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// Options are what the daemon needs beyond the configuration.
type Options struct {
	// DevDir keeps the dev-mode ZooKeeper's data across runs when set.
	DevDir string
	// DevBrokers is how many simulated brokers dev mode starts (racks
	// r1..rN, ids 1..N); zero means 3.
	DevBrokers int
}

// Daemon is a running kzadmind.
type Daemon struct {
	log          zerolog.Logger
	conf         config.Config
	ctrl         *controller.Controller
	zk           *zkadmin.Client
	wire         *wire.Server
	wireAddr     net.Addr
	wireListener net.Listener
	http         *http.Server
	httpAddr     net.Addr
	clusterID    string
	dev          *devParts

	cancel context.CancelFunc
	done   chan error
}

// Start brings kzadmind up and returns once it serves; the controller
// competes for /controller in the background. Stop ends it.
func Start(ctx context.Context, conf config.Config, opts Options, log zerolog.Logger) (_ *Daemon, err error) {
	d := &Daemon{log: log, conf: conf, done: make(chan error, 1)}
	defer func() {
		if err != nil {
			d.teardown()
		}
	}()
	if conf.Dev && len(conf.ZooKeeper.Connect.Servers) == 0 {
		if d.dev, err = startDevZooKeeper(ctx, opts, log); err != nil {
			return nil, err
		}
		d.conf.ZooKeeper.Connect = config.ZKConnect{Servers: []string{d.dev.zk.Addr()}}
	}
	if err := d.connect(ctx); err != nil {
		return nil, err
	}
	if err := d.startListener(); err != nil {
		return nil, err
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	d.ctrl, err = controller.New(controller.Config{
		Conf: d.conf, ZK: d.zk, Endpoints: d.endpoints(), Registry: reg,
		Logger: log.With().Str("component", "controller").Logger(),
	})
	if err != nil {
		return nil, err
	}
	mux := wire.NewMux()
	for _, r := range d.ctrl.BrokerRoutes() {
		if err := mux.Register(r); err != nil {
			return nil, fmt.Errorf("register broker route: %w", err)
		}
	}
	admin := zkadmin.NewAdmin(d.zk, zkadmin.AdminOptions{Config: &d.conf})
	api, err := handler.New(handler.Options{
		Cluster: newViewAdapter(d.ctrl, d.clusterID), Admin: admin, Elector: d.ctrl,
		Config: d.conf, Logger: log.With().Str("component", "api").Logger(),
	})
	if err != nil {
		return nil, err
	}
	if err := api.Register(mux); err != nil {
		return nil, fmt.Errorf("register admin APIs: %w", err)
	}
	if err := d.serveWire(mux); err != nil {
		return nil, err
	}
	if err := d.serveHTTP(reg); err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	d.cancel = cancel
	go func() { d.done <- d.ctrl.Run(runCtx) }()
	if d.dev != nil {
		if err := d.dev.startBrokers(ctx, d.conf, opts, d.wireAddr.String(), log); err != nil {
			return nil, err
		}
	}
	log.Info().
		Strs("zookeeper", d.conf.ZooKeeper.Connect.Servers).
		Str("chroot", d.conf.ZooKeeper.Connect.Chroot).
		Str("cluster_id", d.clusterID).
		Int32("node_id", d.conf.NodeID).
		Str("kafka_listener", d.wireAddr.String()).
		Str("http", httpURL(d.httpAddr)).
		Msg("kzadmind started")
	return d, nil
}

// connect opens the ZooKeeper session and, as a Kafka broker does at
// start-up, creates the top-level znodes and /cluster/id.
func (d *Daemon) connect(ctx context.Context) error {
	zc := d.conf.ZooKeeper.Connect
	zk, err := zkadmin.Connect(ctx, zkadmin.Options{
		Servers: zc.Servers, Chroot: zc.Chroot,
		SessionTimeout: d.conf.ZooKeeper.SessionTimeout,
		Logger:         d.log.With().Str("component", "zookeeper").Logger(),
	})
	if err != nil {
		return fmt.Errorf("connect to ZooKeeper %v: %w", zc.Servers, err)
	}
	d.zk = zk
	if err := zk.EnsureTopLevelPaths(ctx); err != nil {
		return err
	}
	if d.clusterID, err = zk.GetOrCreateClusterID(ctx, d.conf.ClusterID); err != nil {
		return err
	}
	if d.conf.ClusterID != "" && d.clusterID != d.conf.ClusterID {
		return fmt.Errorf("cluster.id=%q but ZooKeeper holds cluster id %q", d.conf.ClusterID, d.clusterID)
	}
	return nil
}

// endpoints are the controller's advertised listeners, with the port the
// listener really got (port 0 means "any free port").
func (d *Daemon) endpoints() []znodes.Endpoint {
	var eps []znodes.Endpoint
	port := d.wireAddr.(*net.TCPAddr).Port
	for _, l := range d.conf.EffectiveAdvertisedListeners() {
		host := l.Host
		if host == "" {
			host = defaultAdvertisedHost(d.conf.Dev)
		}
		p := l.Port
		if p == 0 {
			p = port
		}
		eps = append(eps, znodes.Endpoint{
			Listener: l.Name, Host: host, Port: int32(p),
			SecurityProtocol: string(d.conf.ListenerSecurityProtocolMap[l.Name]),
		})
	}
	return eps
}

func defaultAdvertisedHost(dev bool) string {
	if dev {
		return "127.0.0.1"
	}
	if h, err := os.Hostname(); err == nil {
		return h
	}
	return "127.0.0.1"
}

func (d *Daemon) startListener() error {
	if len(d.conf.Listeners) == 0 {
		return errors.New("listeners: at least one listener is needed")
	}
	l := d.conf.Listeners[0]
	host := l.Host
	if host == "" && d.conf.Dev {
		host = "127.0.0.1"
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(l.Port)))
	if err != nil {
		return fmt.Errorf("listen on %s: %w", l, err)
	}
	d.wireAddr = ln.Addr()
	d.wireListener = ln
	return nil
}
