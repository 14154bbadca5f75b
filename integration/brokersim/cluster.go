package brokersim

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// Cluster is a set of simulated brokers registered in one ZooKeeper
// (chroot). Create it with Start; Close stops every broker.
type Cluster struct {
	set       settings
	clusterID string
	intern    *interner

	mu      sync.RWMutex
	brokers map[int32]*Broker
	closed  bool

	// bg counts background closes of crashed brokers' ZooKeeper clients.
	bg sync.WaitGroup
}

// Start prepares ZooKeeper as a broker's start-up does (the chroot, the
// top-level paths, /cluster/id) and starts opts.Brokers, at most
// opts.StartConcurrency at a time. On error nothing is left running.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	set, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	c := &Cluster{set: set, intern: newInterner(), brokers: make(map[int32]*Broker)}
	if c.clusterID, err = c.prepareZooKeeper(ctx); err != nil {
		return nil, err
	}
	if err := c.startAll(ctx, set.Brokers); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

func (c *Cluster) startAll(ctx context.Context, specs []BrokerSpec) error {
	sem := make(chan struct{}, c.set.StartConcurrency)
	errs := make([]error, len(specs))
	var wg sync.WaitGroup
	for i, spec := range specs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			_, errs[i] = c.AddBroker(ctx, spec)
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// prepareZooKeeper does steps 1-3 of a broker's start-up (znodes reference
// §3.1) once for the whole cluster: chroot, createTopLevelPaths, and read
// or create /cluster/id. It returns the cluster id.
func (c *Cluster) prepareZooKeeper(ctx context.Context) (string, error) {
	zk, err := zkadmin.Connect(ctx, zkadmin.Options{
		Servers: c.set.ZooKeeperServers, Chroot: c.set.Chroot,
		SessionTimeout: c.set.SessionTimeout, Logger: c.set.Logger,
	})
	if err != nil {
		return "", fmt.Errorf("brokersim: %w", err)
	}
	defer zk.Close()
	for _, p := range znodes.TopLevelPersistentPaths() {
		if err := zk.EnsurePath(ctx, p); err != nil {
			return "", fmt.Errorf("brokersim: create %s: %w", p, err)
		}
	}
	return getOrCreateClusterID(ctx, zk)
}

// getOrCreateClusterID is Kafka's getOrGenerateClusterId: read /cluster/id,
// or create it with a random id (losing a race means reading the winner's).
func getOrCreateClusterID(ctx context.Context, zk *zkadmin.Client) (string, error) {
	for {
		data, _, err := zk.Get(ctx, znodes.ClusterIDPath)
		if err == nil {
			id, err := znodes.DecodeClusterID(data)
			if err != nil {
				return "", fmt.Errorf("brokersim: %w", err)
			}
			return id.ID, nil
		}
		if !errors.Is(err, zkadmin.ErrNoNode) {
			return "", fmt.Errorf("brokersim: read %s: %w", znodes.ClusterIDPath, err)
		}
		id, err := znodes.NewClusterID(rand.Reader)
		if err != nil {
			return "", fmt.Errorf("brokersim: %w", err)
		}
		payload, err := znodes.ClusterID{ID: id}.Encode()
		if err != nil {
			return "", fmt.Errorf("brokersim: %w", err)
		}
		_, err = zk.CreateRecursive(ctx, znodes.ClusterIDPath, payload, zkadmin.Persistent)
		if err == nil {
			return id, nil
		}
		if !errors.Is(err, zkadmin.ErrNodeExists) {
			return "", fmt.Errorf("brokersim: create %s: %w", znodes.ClusterIDPath, err)
		}
	}
}

// AddBroker starts one more broker. It fails if the id is already in the
// cluster or registered by another session (IDInUseError).
func (c *Cluster) AddBroker(ctx context.Context, spec BrokerSpec) (*Broker, error) {
	if err := spec.validate(); err != nil {
		return nil, err
	}
	b, err := newBroker(c, spec)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	switch {
	case c.closed:
		c.mu.Unlock()
		return nil, errors.New("brokersim: cluster closed")
	case c.brokers[spec.ID] != nil:
		c.mu.Unlock()
		return nil, fmt.Errorf("brokersim: broker %d already exists", spec.ID)
	}
	c.brokers[spec.ID] = b
	c.mu.Unlock()

	b.lifeMu.Lock()
	err = b.boot(ctx, 0)
	b.lifeMu.Unlock()
	if err != nil {
		c.mu.Lock()
		delete(c.brokers, spec.ID)
		c.mu.Unlock()
		return nil, err
	}
	return b, nil
}

// ClusterID returns the id read from (or written to) /cluster/id.
func (c *Cluster) ClusterID() string { return c.clusterID }

// Broker returns the broker with this id, or nil.
func (c *Cluster) Broker(id int32) *Broker {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.brokers[id]
}

// Brokers returns every broker, sorted by id.
func (c *Cluster) Brokers() []*Broker {
	c.mu.RLock()
	out := make([]*Broker, 0, len(c.brokers))
	for _, b := range c.brokers {
		out = append(out, b)
	}
	c.mu.RUnlock()
	slices.SortFunc(out, func(a, b *Broker) int { return int(a.id) - int(b.id) })
	return out
}

// followerState returns how a broker of this cluster fetches (fetchOK,
// fetchDown, fetchLagging); sibling is false for ids outside the cluster.
func (c *Cluster) followerState(id int32) (state int32, sibling bool) {
	c.mu.RLock()
	b := c.brokers[id]
	c.mu.RUnlock()
	if b == nil {
		return fetchDown, false
	}
	return b.fetch.Load(), true
}

// nudgeLeaders makes every other broker re-check the ISR of the partitions
// it leads, after broker id's liveness changed. No broker lock is held.
func (c *Cluster) nudgeLeaders(id int32) {
	for _, b := range c.Brokers() {
		if b.id != id {
			b.reconcileAll(true)
		}
	}
}

// Shutdown stops every running broker with a controlled shutdown, all at
// once, and returns their errors joined (brokers not running are skipped).
func (c *Cluster) Shutdown(ctx context.Context) error {
	brokers := c.Brokers()
	errs := make([]error, len(brokers))
	var wg sync.WaitGroup
	for i, b := range brokers {
		wg.Go(func() {
			if err := b.Shutdown(ctx); err != nil && !errors.Is(err, ErrNotRunning) {
				errs[i] = fmt.Errorf("broker %d: %w", b.id, err)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// WaitAll blocks until cond holds for every broker's snapshot, or ctx
// ends.
func (c *Cluster) WaitAll(ctx context.Context, cond func(Snapshot) bool) error {
	for _, b := range c.Brokers() {
		if err := b.WaitFor(ctx, cond); err != nil {
			return fmt.Errorf("broker %d: %w", b.id, err)
		}
	}
	return nil
}

// Close kills every broker (closing their sessions, so the registrations
// vanish at once) and waits until all their goroutines have stopped.
func (c *Cluster) Close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	var wg sync.WaitGroup
	for _, b := range c.Brokers() {
		wg.Go(func() {
			b.Kill()
			b.lifeMu.Lock()
			if zk := b.crashedZK; zk != nil {
				b.crashedZK = nil
				zk.Close()
			}
			b.lifeMu.Unlock()
		})
	}
	wg.Wait()
	c.bg.Wait()
}
