package brokersim

import (
	"context"
	"maps"
	"net"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/rs/zerolog"

	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// Broker is one simulated broker. Its methods are safe for concurrent use;
// life-cycle calls (Kill, Crash, Restart, Shutdown) are serialised.
type Broker struct {
	cluster *Cluster
	id      int32
	rack    string
	set     *settings
	log     zerolog.Logger
	mux     *wire.Mux

	// lifeMu serialises the life-cycle calls. inc is written under both
	// lifeMu and mu, so either lock is enough to read it.
	lifeMu sync.Mutex
	// crashedZK is the ZooKeeper client left behind by Crash, closed on
	// Restart or Cluster.Close (lifeMu).
	crashedZK *zkadmin.Client

	// fetch is this broker's liveness as leaders of other brokers see it
	// (fetchOK, fetchDown, fetchLagging); read without any lock.
	fetch atomic.Int32

	mu              sync.Mutex
	inc             *incarnation
	status          Status
	paused          chan struct{} // non-nil while paused; closed by Resume
	lagging         bool
	logDirOffline   bool
	port            int
	epoch           int64
	controllerEpoch int32
	zkControllerID  int32
	replicas        partitionTable[*replica]
	logs            partitionTable[znodes.UUID]
	logEnds         map[TopicPartition]logEnd // scripted by SetLogEnd
	cache           metadataCache
	received        map[int16]int64
	sent            map[int16]int64
	alterQueue      []TopicPartition
	changed         chan struct{} // closed and replaced at every change
}

// Liveness of a broker as a follower, for the ISR decisions of leaders.
const (
	fetchDown int32 = iota
	fetchOK
	fetchLagging
)

// incarnation is one run of a broker, from registration to Kill, Crash or
// Shutdown. A restart makes a new one.
type incarnation struct {
	ctx    context.Context
	cancel context.CancelFunc
	zk     *zkadmin.Client
	dialer *cutDialer
	srv    *wire.Server
	port   int
	wg     sync.WaitGroup
	// alterSignal wakes the AlterPartition sender; ctrlSignal tells it the
	// controller may have moved. Both have capacity 1.
	alterSignal chan struct{}
	ctrlSignal  chan struct{}
}

func newBroker(c *Cluster, spec BrokerSpec) (*Broker, error) {
	b := &Broker{
		cluster:        c,
		id:             spec.ID,
		rack:           spec.Rack,
		set:            &c.set,
		log:            c.set.Logger.With().Int32("broker", spec.ID).Logger(),
		port:           spec.Port,
		zkControllerID: -1,
		logEnds:        make(map[TopicPartition]logEnd),
		received:       make(map[int16]int64),
		sent:           make(map[int16]int64),
		changed:        make(chan struct{}),
	}
	b.resetLocked()
	mux, err := b.newMux()
	if err != nil {
		return nil, err
	}
	b.mux = mux
	return b, nil
}

// resetLocked empties what a broker loses when its process restarts: the
// replica state, the metadata cache and the controller epoch it saw.
func (b *Broker) resetLocked() {
	b.replicas = partitionTable[*replica]{}
	b.cache = newMetadataCache()
	b.controllerEpoch = 0
	b.zkControllerID = -1
	b.alterQueue = nil
	b.lagging = false
}

func notify(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// bumpLocked wakes every WaitFor.
func (b *Broker) bumpLocked() {
	close(b.changed)
	b.changed = make(chan struct{})
}

// updateFetchLocked recomputes the liveness other leaders read.
func (b *Broker) updateFetchLocked() {
	state := fetchDown
	if (b.status == Running || b.status == ShuttingDown) && b.paused == nil {
		state = fetchOK
		if b.lagging {
			state = fetchLagging
		}
	}
	b.fetch.Store(state)
}

// ID returns broker.id.
func (b *Broker) ID() int32 { return b.id }

// Rack returns broker.rack ("" for none).
func (b *Broker) Rack() string { return b.rack }

// Addr returns the listener address, "host:port".
func (b *Broker) Addr() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return net.JoinHostPort(b.set.Host, strconv.Itoa(b.port))
}

// Port returns the listen port.
func (b *Broker) Port() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.port
}

// Epoch returns the broker epoch of the current (or last) registration.
func (b *Broker) Epoch() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.epoch
}

// Status returns the life-cycle state.
func (b *Broker) Status() Status {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.status
}

// Partitions returns a copy of the replica state.
func (b *Broker) Partitions() map[TopicPartition]PartitionState {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.partitionsLocked()
}

func (b *Broker) partitionsLocked() map[TopicPartition]PartitionState {
	out := make(map[TopicPartition]PartitionState, b.replicas.len())
	for tp, r := range b.replicas.all() {
		out[tp] = r.PartitionState
	}
	return out
}

// Requests returns how many requests of each API key the broker answered.
func (b *Broker) Requests() map[int16]int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return maps.Clone(b.received)
}

// CachedPartition returns a partition from the metadata cache.
func (b *Broker) CachedPartition(tp TopicPartition) (PartitionMeta, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	p, ok := b.cache.get(tp)
	if !ok {
		return PartitionMeta{}, false
	}
	return *p, true
}

// Snapshot returns a copy of the broker's state.
func (b *Broker) Snapshot() Snapshot {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.snapshotLocked()
}

func (b *Broker) snapshotLocked() Snapshot {
	ctrl, _ := b.controllerLocked()
	pending := 0
	for _, r := range b.replicas.all() {
		if r.pending != nil {
			pending++
		}
	}
	return Snapshot{
		ID:                     b.id,
		Status:                 b.status,
		Paused:                 b.paused != nil,
		Epoch:                  b.epoch,
		ControllerEpoch:        b.controllerEpoch,
		ControllerID:           ctrl,
		Partitions:             b.partitionsLocked(),
		Log:                    maps.Collect(b.logs.all()),
		LiveBrokers:            append([]LiveBroker(nil), b.cache.live...),
		CachedPartitions:       b.cache.partitions,
		Received:               copyCounters(b.received),
		Sent:                   copyCounters(b.sent),
		PendingAlterPartitions: pending,
	}
}

// WaitFor blocks until cond holds for a snapshot of the broker, or ctx
// ends. cond is evaluated now and after every change of the broker's state.
func (b *Broker) WaitFor(ctx context.Context, cond func(Snapshot) bool) error {
	for {
		b.mu.Lock()
		snap, changed := b.snapshotLocked(), b.changed
		b.mu.Unlock()
		if cond(snap) {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// SetLagging marks the broker as a lagging follower (true) or a caught-up
// one (false). Leaders drop a lagging follower from the ISR and add it back
// once it is caught up, through AlterPartition.
func (b *Broker) SetLagging(lagging bool) {
	b.mu.Lock()
	b.lagging = lagging
	b.updateFetchLocked()
	b.bumpLocked()
	b.mu.Unlock()
	b.cluster.nudgeLeaders(b.id)
}

// SetLogDirOffline fails (true) or repairs (false) the broker's one log
// directory: while it is offline, LeaderAndIsr and StopReplica answer
// KAFKA_STORAGE_ERROR for its partitions, as Kafka does.
func (b *Broker) SetLogDirOffline(offline bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.logDirOffline = offline
	b.bumpLocked()
}
