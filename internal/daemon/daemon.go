package daemon

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/rs/zerolog"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller"
	"github.com/kzadmin/kzadmin/controller/brokerchan"
	"github.com/kzadmin/kzadmin/controller/handler"
	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/mutationquota"
	"github.com/kzadmin/kzadmin/security/acl"
	"github.com/kzadmin/kzadmin/security/tlsconf"
	"github.com/kzadmin/kzadmin/security/zkacl"
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
	// ConfigSources says which layer set each config key
	// (config.Loaded.Sources), for DescribeConfigs of this node's own id
	// (handler.Options.ConfigSources).
	ConfigSources map[string]config.Source
}

// Daemon is a running kzadmind.
type Daemon struct {
	log     zerolog.Logger
	conf    config.Config
	sources map[string]config.Source // opts.ConfigSources
	ctrl    *controller.Controller
	zk      *zkadmin.Client
	// zkLogin is the Kerberos login of SASL to ZooKeeper, when there is
	// one: closed after zk.
	zkLogin   *zkacl.GSSAPILogin
	listeners []*kafkaListener
	aclStop   func() // stops the ACL cache; nil without an authorizer
	http      *http.Server
	httpAddr  net.Addr
	clusterID string
	dev       *devParts
	dir       *controllerDir   // this node's endpoints, the active controller's
	features  *featureFollower // the finalized features ApiVersions advertises
	// followersDone is closed when dir's and features' goroutines have
	// ended.
	followersDone chan struct{}

	cancel context.CancelFunc
	done   chan error

	metrics      *prometheus.Registry
	createRounds *createRoundMetrics
	// newAdminAPI builds the admin API handlers for a listener, answering
	// for a broker (nil: this node); all share one Admin and one view of
	// the controller (set by startController).
	newAdminAPI func(listener string, self *int32) (*handler.Handlers, error)
}

// Metrics is what /metrics serves.
func (d *Daemon) Metrics() prometheus.Gatherer { return d.metrics }

// Start brings kzadmind up and returns once it serves; the controller
// competes for /controller in the background. Stop ends it.
func Start(ctx context.Context, conf config.Config, opts Options, log zerolog.Logger) (_ *Daemon, err error) {
	d := &Daemon{log: log, conf: conf, sources: opts.ConfigSources, done: make(chan error, 1)}
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
	if err := d.startListeners(); err != nil {
		return nil, err
	}
	authz, err := d.startAuthorizer(ctx)
	if err != nil {
		return nil, err
	}
	if err := d.startController(ctx, authz); err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	d.cancel = cancel
	go func() { d.done <- d.ctrl.Run(runCtx) }()
	d.followersDone = make(chan struct{})
	var followers sync.WaitGroup
	followers.Go(func() { d.dir.run(runCtx) })
	followers.Go(func() { d.features.run(runCtx) })
	go func() {
		followers.Wait()
		close(d.followersDone)
	}()
	if d.dev != nil {
		if err := d.dev.startBrokers(ctx, d.conf, opts, d.interBrokerAddr(), d.newAdminAPI, log); err != nil {
			return nil, err
		}
	}
	d.logStarted(authz != nil)
	return d, nil
}

// startController builds the controller with its metrics and broker
// connections, publishes this node's endpoints, and serves the Kafka and
// HTTP listeners. The controller does not compete for its seat yet.
func (d *Daemon) startController(ctx context.Context, authz handler.Authorizer) error {
	dial, err := d.brokerDialer()
	if err != nil {
		return err
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	d.metrics = reg
	if d.createRounds, err = newCreateRoundMetrics(reg); err != nil {
		return err
	}
	d.ctrl, err = controller.New(controller.Config{
		Conf: d.conf, ZK: d.zk, WarmStandby: d.conf.WarmStandby, Endpoints: d.endpoints(), Registry: reg,
		BrokerDial: brokerchan.DialFunc(dial),
		Prober:     replicaLogProber(d.conf, dial),
		Logger:     d.log, // the controller tags its lines with component=controller
	})
	if err != nil {
		return err
	}
	// Published before the controller competes, so that /controller never
	// names this node without its endpoints being readable.
	if d.dir, err = newControllerDir(d.zk, d.ctrl, d.conf.NodeID, d.endpoints(), d.log); err != nil {
		return err
	}
	if err := d.dir.publish(ctx); err != nil {
		return err
	}
	d.features = newFeatureFollower(d.zk, d.log)
	d.newAdminAPI = d.adminAPIs(authz)
	if err := d.serveWire(d.routes(authz)); err != nil {
		return err
	}
	return d.serveHTTP(reg)
}

// logStarted logs where the daemon runs.
func (d *Daemon) logStarted(authorizer bool) {
	d.log.Info().
		Strs("zookeeper", d.conf.ZooKeeper.Connect.Servers).
		Str("chroot", d.conf.ZooKeeper.Connect.Chroot).
		Str("cluster_id", d.clusterID).
		Int32("node_id", d.conf.NodeID).
		Strs("kafka_listeners", d.listenerAddrs()).
		Bool("authorizer", authorizer).
		Str("http", httpURL(d.httpAddr)).
		Msg("kzadmind started")
}

// connect opens the ZooKeeper session and, as a Kafka broker does at
// start-up, creates the top-level znodes and /cluster/id.
func (d *Daemon) connect(ctx context.Context) error {
	zc := d.conf.ZooKeeper.Connect
	zo := zkadmin.Options{
		Servers: zc.Servers, Chroot: zc.Chroot,
		SessionTimeout: d.conf.ZooKeeper.SessionTimeout,
		Logger:         d.log, // zkadmin tags its lines with component=zkadmin
	}
	// Kafka's ACL layout on every znode kzadmin creates; with
	// zookeeper.set.acl it needs an identity: the digest one, the x509 one
	// of the client certificate of TLS to ZooKeeper (zookeeper.ssl.*), or
	// the sasl one of a SASL login.
	digest, _ := d.conf.Property(config.ZooKeeperDigestKey)
	zkacl.ConnectOptions(&zo, d.conf.ZooKeeper.SetACL, digest)
	var err error
	if zo.TLS, err = tlsconf.ZooKeeperClientConfig(d.conf.Property); err != nil {
		return err
	}
	if zo.SASL, err = zkacl.SASLFromConfig(d.conf.Property); err != nil {
		return err
	}
	if g, ok := zo.SASL.(*zkacl.GSSAPILogin); ok {
		d.zkLogin = g
	}
	if err := zkacl.RequireIdentity(d.conf.ZooKeeper.SetACL, zo); err != nil {
		return err
	}
	zk, err := zkadmin.Connect(ctx, zo)
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

// endpoints are the controller's advertised listeners, each with the port
// its listener really got when it advertises port 0 ("any free port").
func (d *Daemon) endpoints() []znodes.Endpoint {
	var eps []znodes.Endpoint
	for _, l := range d.conf.EffectiveAdvertisedListeners() {
		host := l.Host
		if host == "" {
			host = defaultAdvertisedHost(d.conf.Dev)
		}
		p := l.Port
		if bound := d.listener(l.Name); p == 0 && bound != nil {
			p = bound.port()
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

// adminAPIs returns a builder of the admin API handlers for a listener,
// whose Metadata advertises that listener's endpoints, answering for
// broker self (nil: this node).
func (d *Daemon) adminAPIs(authz handler.Authorizer) func(listener string, self *int32) (*handler.Handlers, error) {
	// One admin for every listener and connection, so that concurrent
	// CreateTopics are group-committed (create_batcher.go).
	// The controller commits the creates, writing each new topic's
	// partition states in the same multi (zkadmin.CreateCommitter).
	admin := newCreateBatcher(zkadmin.NewAdmin(d.zk, zkadmin.AdminOptions{Config: &d.conf, Committer: d.ctrl,
		PrereadCreates: true, OnCreateRound: d.createRounds.observe}))
	view := newViewAdapter(d.ctrl, d.clusterID)
	view.dir = d.dir
	// With an authorizer, the ACL APIs read and write the ACL znodes it
	// follows; without one they answer SECURITY_DISABLED, as Kafka's do.
	var acls handler.ACLAdmin
	if authz != nil {
		acls = acl.NewWireAdmin(acl.NewStore(d.zk), d.log.With().Str("component", "acl-api").Logger())
	}
	// One set of controller mutation quota buckets per node, as a broker
	// has (KIP-599).
	mutations := mutationquota.New(mutationquota.Options{Samples: int(d.conf.ControllerQuotaWindowNum),
		Window: d.conf.ControllerQuotaWindowSize})
	if err := registerMutationQuotaMetrics(d.metrics, mutations); err != nil {
		d.log.Warn().Err(err).Msg("controller mutation quota metrics not registered")
	}
	return func(listener string, self *int32) (*handler.Handlers, error) {
		return handler.New(handler.Options{
			Cluster: view, Admin: admin, Elector: d.ctrl, Authorizer: authz, ACLs: acls, MutationQuotas: mutations,
			Config: d.conf, ConfigSources: d.sources, NodeID: self, Listener: listener,
			Logger: d.log.With().Str("component", "api").Str("listener", listener).Logger(),
		})
	}
}

// routes builds a listener's mux: the broker→controller routes and the
// admin APIs.
func (d *Daemon) routes(authz handler.Authorizer) func(listener string) (*wire.Mux, error) {
	return func(listener string) (*wire.Mux, error) {
		mux := wire.NewMux()
		brokerRoutes, err := guardBrokerRoutes(d.ctrl.BrokerRoutes(), authz)
		if err != nil {
			return nil, err
		}
		for _, r := range brokerRoutes {
			if err := mux.Register(r); err != nil {
				return nil, fmt.Errorf("register broker route: %w", err)
			}
		}
		api, err := d.newAdminAPI(listener, nil)
		if err != nil {
			return nil, err
		}
		if err := api.Register(mux); err != nil {
			return nil, fmt.Errorf("register admin APIs on %s: %w", listener, err)
		}
		return mux, nil
	}
}

// interBrokerAddr is where brokers reach the controller: the inter-broker
// listener, or the first one.
func (d *Daemon) interBrokerAddr() string {
	if l := d.listener(d.conf.EffectiveInterBrokerListenerName()); l != nil {
		return l.ln.Addr().String()
	}
	return d.listeners[0].ln.Addr().String()
}

func (d *Daemon) listenerAddrs() []string {
	out := make([]string, len(d.listeners))
	for i, l := range d.listeners {
		out[i] = l.conf.Name + "://" + l.ln.Addr().String()
	}
	return out
}
