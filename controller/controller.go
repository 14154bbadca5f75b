package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller/brokerchan"
	"github.com/kzadmin/kzadmin/controller/replicalog"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// DefaultFirstRebalanceDelay is Kafka's delay between a failover and the
// first auto leader rebalance check.
const DefaultFirstRebalanceDelay = 5 * time.Second

// Config configures a Controller.
type Config struct {
	// Conf is the daemon's configuration: node.id, the inter-broker
	// protocol version and listener, unclean election and rebalance
	// settings, timeouts.
	Conf config.Config
	// ZK is the ZooKeeper session to run on. The controller does not close
	// it.
	ZK *zkadmin.Client
	// Endpoints are the controller's own advertised listeners (those of
	// its Kafka-protocol server). The controller lists itself among the
	// live brokers of every UpdateMetadata with them, because that is how
	// brokers find it for AlterPartition and ControlledShutdown.
	Endpoints []znodes.Endpoint
	// Logger receives the controller's logs.
	Logger zerolog.Logger
	// Registry, when set, gets the controller's metrics (Kafka's names).
	Registry prometheus.Registerer
	// BrokerDial opens connections to brokers; nil means plain TCP.
	BrokerDial brokerchan.DialFunc
	// FirstRebalanceDelay is the wait before the first auto leader
	// rebalance check after a failover (zero: 5 s, as Kafka).
	FirstRebalanceDelay time.Duration
	// MaxInFlight bounds pipelined ZooKeeper reads (zero: zkadmin's
	// default, deeper than Kafka's 10, which pays off at failover).
	MaxInFlight int
	// WarmStandby makes a node that is not the controller keep the
	// cluster loaded and current by watching, so that taking over skips
	// the failover reads (standby.go).
	WarmStandby bool
	// StandbySweepInterval is how often a warm standby collects its
	// watches that fired (zero: 50 ms).
	StandbySweepInterval time.Duration
	// Prober asks brokers for their replicas' log ends during KIP-966
	// unclean recovery (replicalog.New). Nil: no unclean recovery is
	// possible; partitions that need one stay offline, with a warning.
	Prober replicalog.Prober
}

// Controller is a ZooKeeper-mode Kafka controller: it competes for
// /controller, and while it holds it, it runs Kafka's controller duties.
// Every method is safe for concurrent use.
type Controller struct {
	// propagation tracks the brokers' answers to UpdateMetadata
	// (propagation.go).
	propagation *propagation
	cfg         Config
	conf        config.Config
	zk          *zkadmin.Client
	log         zerolog.Logger
	ibp         config.IBP
	metrics     *metrics
	queue       *eventQueue
	nodeID      int32
	inFlight    int

	delMetrics *deletionMetrics // topic deletion gauges (deletion_effects.go)
	elrMetrics *elrMetrics      // KIP-966 metrics (elr_metrics.go)

	// Owned by the loop goroutine (see DESIGN.md).
	activeID   int32
	leader     *leaderState
	ctrlWatch  *watchSet // the /controller watch, which outlives leaderships
	lastView   *MetadataView
	viewDirty  bool
	dirtyTopic map[string]bool
	pids       pidPool // this node's producer ids, for InitProducerId

	// seat is the election bookkeeping that outlives leaderships (seat.go).
	seat seatState
	// standby is the warm standby, when WarmStandby and not active.
	standby *standbyState
	// configs tracks /config/changes and the dynamic defaults for the
	// current leadership (config_watch.go).
	configs *configState

	// Published by the loop for other goroutines.
	status      atomic.Pointer[Status]
	view        atomic.Pointer[MetadataView]
	viewMu      sync.Mutex    // orders view stores with viewChanged
	viewChanged chan struct{} // closed when a new view is published
	running     atomic.Bool

	bg sync.WaitGroup // goroutines that live as long as Run
}

// Status is the controller's externally visible state.
type Status struct {
	// Active: this node holds /controller and acts as the controller.
	Active bool
	// Ready: active, and the failover load has finished.
	Ready bool
	// ActiveControllerID is the id in /controller as last read (-1: none).
	ActiveControllerID int32
	// Epoch and EpochZkVersion are the controller epoch and the zkVersion
	// of /controller_epoch won at election; zero when not active.
	Epoch          int32
	EpochZkVersion int32
	// Warm: a warm standby (Config.WarmStandby) holds the cluster loaded
	// and current, ready to take over without the failover reads.
	Warm bool
}

// ErrNodeIDConflict is returned by Run when a broker is registered with the
// controller's node.id: brokers decide whether they are the controller by
// comparing /controller's id with their own.
var ErrNodeIDConflict = errors.New("controller node.id equals a registered broker id")

// New checks the configuration and returns a Controller. It does no I/O.
func New(cfg Config) (*Controller, error) {
	if cfg.ZK == nil {
		return nil, errors.New("controller: no ZooKeeper client")
	}
	if cfg.Conf.NodeID < 0 {
		return nil, fmt.Errorf("controller: node.id %d must be >= 0", cfg.Conf.NodeID)
	}
	ibp := cfg.Conf.InterBrokerProtocolVersion
	if !ibp.Valid() {
		return nil, fmt.Errorf("controller: unknown inter.broker.protocol.version %s", ibp)
	}
	queue := newEventQueue()
	m, err := newMetrics(cfg.Registry, queue)
	if err != nil {
		return nil, fmt.Errorf("controller: register metrics: %w", err)
	}
	dm, err := newDeletionMetrics(cfg.Registry)
	if err != nil {
		return nil, fmt.Errorf("controller: register metrics: %w", err)
	}
	em, err := newELRMetrics(cfg.Registry)
	if err != nil {
		return nil, fmt.Errorf("controller: register metrics: %w", err)
	}
	sm, err := newSeatMetrics(cfg.Registry)
	if err != nil {
		return nil, fmt.Errorf("controller: register metrics: %w", err)
	}
	c := &Controller{
		cfg: cfg, conf: cfg.Conf, zk: cfg.ZK, ibp: ibp, metrics: m,
		log:         cfg.Logger.With().Str("component", "controller").Int32("node_id", cfg.Conf.NodeID).Logger(),
		queue:       queue,
		nodeID:      cfg.Conf.NodeID,
		inFlight:    cfg.MaxInFlight,
		activeID:    -1,
		dirtyTopic:  map[string]bool{},
		delMetrics:  dm,
		elrMetrics:  em,
		propagation: newPropagation(),
	}
	c.seat.metrics = sm
	c.status.Store(&Status{ActiveControllerID: -1})
	c.viewChanged = make(chan struct{})
	c.lastView = &MetadataView{ControllerID: -1}
	c.view.Store(c.lastView)
	return c, nil
}

// Run competes for the controller seat and serves as controller whenever
// it holds it, until ctx ends. It refuses to start (ErrNodeIDConflict) when
// a broker is registered with node.id. On return the controller has
// resigned and, if it held /controller, deleted it so that a standby takes
// over at once. Run may be called once.
func (c *Controller) Run(ctx context.Context) error {
	if !c.running.CompareAndSwap(false, true) {
		return errors.New("controller: Run called twice")
	}
	if err := c.checkNodeID(ctx); err != nil {
		c.queue.close()
		return err
	}
	c.ctrlWatch = newWatchSet(ctx, &c.bg, nil, c.queue)
	c.bg.Add(1)
	go func() {
		defer c.bg.Done()
		c.watchSessions(ctx)
	}()
	c.queue.push(&startupEvent{})
	c.loop(ctx)
	c.dropStandby("shutting down")

	c.queue.close()
	c.shutdown()
	c.bg.Wait()
	return nil
}

// checkNodeID refuses a node.id that a broker has registered.
func (c *Controller) checkNodeID(ctx context.Context) error {
	ids, _, err := c.zk.Children(ctx, znodes.BrokerIDsPath)
	if err != nil && !errors.Is(err, zkadmin.ErrNoNode) {
		return fmt.Errorf("controller: list brokers: %w", err)
	}
	if slices.Contains(ids, strconv.FormatInt(int64(c.nodeID), 10)) {
		return fmt.Errorf("controller: node.id %d: %w; give the controller an id no broker uses", c.nodeID, ErrNodeIDConflict)
	}
	return nil
}

// shutdown runs after the loop has stopped: resign, and hand the seat over
// by deleting /controller if it is ours (the session stays open, since the
// caller owns the client).
func (c *Controller) shutdown() {
	if c.leader == nil {
		return
	}
	c.metrics.state.Set(float64(StateControllerShutdown))
	c.resign("shutting down")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c.releaseControllerZnode(ctx)
	c.publishStatus()
}

// IsActive reports whether this node is the active controller.
func (c *Controller) IsActive() bool { return c.status.Load().Active }

// Status returns the controller's current status.
func (c *Controller) Status() Status { return *c.status.Load() }

// Snapshot returns the latest consistent view of the cluster, produced by
// the loop after each change. It is immutable: share it, never modify it.
// A standby's view has Active false and no brokers or topics.
func (c *Controller) Snapshot() *MetadataView { return c.view.Load() }

// loop is the single goroutine that owns the controller state.
func (c *Controller) loop(ctx context.Context) {
	for {
		ev, waited, ok := c.queue.popTimed(ctx)
		if !ok {
			return
		}
		c.metrics.queueTime.Observe(float64(waited) / float64(time.Millisecond))
		c.process(ctx, ev)
	}
}

// process handles one event: Kafka's ControllerEventThread.doWork.
func (c *Controller) process(ctx context.Context, ev event) {
	st := ev.state()
	c.metrics.state.Set(float64(st))
	start := time.Now()
	c.seat.calls = 0
	err := c.handle(ctx, ev)
	switch {
	case errors.Is(err, zkadmin.ErrControllerMoved):
		c.onControllerMoved(ctx, err)
	case err != nil && ctx.Err() == nil:
		c.log.Error().Err(err).Str("event", fmt.Sprintf("%T", ev)).Msg("error processing controller event")
		c.retryWatch(ev, err)
	}
	c.metrics.observe(st, time.Since(start))
	c.metrics.state.Set(float64(StateIdle))
	c.maintainStandby(ctx)
	c.afterEvent()
}

// handle dispatches one event. Handlers of cluster events check that this
// node is active first, as Kafka's do.
func (c *Controller) handle(ctx context.Context, ev event) error {
	switch e := ev.(type) {
	case *startupEvent:
		return c.retryIfTransient(c.elect(ctx))
	case *expireEvent:
		return c.onSessionExpired()
	case *sessionBackEvent:
		return c.retryIfTransient(c.maybeResignAndElect(ctx))
	case *watchEvent:
		return c.onWatch(ctx, e)
	case *rebalanceEvent:
		return c.onAutoRebalance(e)
	case *leaderAndIsrResponseEvent:
		return c.onLeaderAndIsrResponse(e)
	case *alterPartitionEvent:
		return c.onAlterPartition(e)
	case *controlledShutdownEvent:
		return c.onControlledShutdown(e)
	case *electLeadersEvent:
		return c.onElectLeaders(e)
	case *createTopicsEvent:
		return c.onCreateTopics(e)
	case *createdWatchEvent:
		return c.onCreatedWatch(e)
	case *topicListEvent:
		return c.onTopicList(e)
	case *topicRefreshEvent:
		c.onTopicRefresh(e)
		return nil
	case deletionInput:
		return c.onDeletionInput(e)
	case *alterReassignmentsEvent:
		return c.onAlterReassignments(e)
	case *reassignZnodeEvent:
		return c.onReassignZnodeEvent(e)
	case *standbyEvent:
		return c.onStandbyEvent(e)
	case *reclaimEvent:
		return c.onReclaim(ctx, e)
	case *allocateProducerIDsEvent:
		return c.onAllocateProducerIDs(e)
	case *initProducerIDEvent:
		return c.onInitProducerID(e)
	case *recoveryEvent:
		return c.onRecovery(e)
	case *syncEvent:
		e.done <- true
		return nil
	}
	return fmt.Errorf("unknown event %T", ev)
}

// retryWatch queues a watch event again, after a pause, when its handler
// failed for a transient reason: the re-read that re-arms the watch may
// not have happened, and then no firing would ever come.
func (c *Controller) retryWatch(ev event, err error) {
	e, ok := ev.(*watchEvent)
	if !ok || !transient(err) {
		return
	}
	again := *e
	again.retry = true
	time.AfterFunc(electRetryBackoff, func() { c.queue.push(&again) })
}

// onWatch routes a watch firing to its handler.
func (c *Controller) onWatch(ctx context.Context, e *watchEvent) error {
	switch {
	case e.retry:
		if e.gen != nil && e.gen != c.leader {
			return nil
		}
	case e.gen == nil:
		c.ctrlWatch.fired(e.key)
	case e.gen == c.leader:
		e.gen.watches.fired(e.key)
	default:
		return nil // a watch of an older leadership
	}
	if e.zev.Type == zkadmin.EventNotWatching {
		return nil // session expired; the expiry event re-reads everything
	}
	path := e.key.path
	switch {
	case path == znodes.ControllerPath:
		if e.zev.Type == zkadmin.EventNodeDeleted && !e.retry {
			return c.electFast(ctx) // seat.go
		}
		if e.zev.Type == zkadmin.EventNodeDeleted {
			return c.maybeResignAndElect(ctx)
		}
		return c.maybeResign(ctx)
	case c.leader == nil:
		return nil
	case path == znodes.BrokerIDsPath:
		return c.onBrokerChange(c.leader)
	case path == znodes.TopicsPath:
		c.leader.refresh.listDue = true
		c.refreshTopics(c.leader)
		return nil
	case path == znodes.DeleteTopicsPath:
		return c.onDeleteTopicsChange(c.leader)
	case path == znodes.PreferredReplicaElectionPath:
		return c.onPreferredElectionZnode(c.leader)
	case path == znodes.ReassignPartitionsPath:
		return c.onReassignZnodeWatch(c.leader, e.zev.Type)
	case path == znodes.IsrChangeNotificationPath:
		return c.onIsrChangeNotification(c.leader)
	case path == znodes.LogDirEventNotificationPath:
		return c.onLogDirEventNotification(c.leader)
	case path == znodes.ConfigChangesPath:
		return c.onConfigChanges(c.leader)
	}
	if id, ok := znodes.ParseBrokerIDPath(path); ok {
		return c.onBrokerModification(c.leader, id)
	}
	if name, ok := znodes.ParseTopicPath(path); ok {
		return c.onPartitionModifications(c.leader, name)
	}
	if tp, ok := znodes.ParsePartitionStatePath(path); ok {
		return c.onReassignIsrChange(c.leader, TopicPartition{Topic: tp.Topic, Partition: tp.Partition})
	}
	return nil
}

// watchSessions turns session expiry into the Expire event and a new
// session into a re-election, as Kafka's session state handler does.
func (c *Controller) watchSessions(ctx context.Context) {
	for {
		s := c.zk.Session()
		if !s.Expired() {
			select {
			case <-s.Done():
			case <-ctx.Done():
				return
			}
			// Everything queued ran against the old session: drop it.
			c.queue.clearAndPut(&expireEvent{})
		}
		if err := c.zk.WaitConnected(ctx); err != nil {
			return
		}
		c.queue.push(&sessionBackEvent{})
	}
}

// retryIfTransient schedules another election attempt when one failed
// for a transient ZooKeeper reason: the /controller watch may not be armed
// then, so no event would ever come to retry it.
func (c *Controller) retryIfTransient(err error) error {
	if err != nil && transient(err) {
		time.AfterFunc(electRetryBackoff, func() { c.queue.push(&startupEvent{}) })
	}
	return err
}

// electRetryBackoff is the pause before retrying a failed election.
const electRetryBackoff = time.Second

type startupEvent struct{}

func (*startupEvent) state() State { return StateControllerChange }

type expireEvent struct{}

func (*expireEvent) state() State { return StateControllerChange }

type sessionBackEvent struct{}

func (*sessionBackEvent) state() State { return StateControllerChange }
