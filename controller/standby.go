package controller

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// The warm standby (Config.WarmStandby). Kafka's standby controllers hold
// nothing and read the whole cluster when they take over. A warm standby
// instead loads the cluster once, while another node is the controller,
// and keeps that context current by watching what the active controller
// writes: /brokers/ids and each registration, /brokers/topics and each
// topic znode, and every partition state znode (an exists watch while a
// state znode is missing). Winning the election then costs no reads of
// those znodes:
//
//  1. The election multi is sent against a version of /controller_epoch
//     read with a data watch (the seat's epoch read, seat_epoch.go, whose
//     watch leaderStateFor receives). The multi changes that znode, and
//     ZooKeeper delivers a session's watch events in order and before the
//     responses that follow them, so once that watch has fired, every
//     change made before the election has fired its watch too (the
//     barrier).
//  2. The watches that fired are collected and their znodes re-read
//     (pipelined), which makes the context current as of the election.
//  3. The standby's leaderState becomes the leadership: its broker and
//     topic watches are adopted as the controller's own, the state znode
//     watches are dropped (the active controller writes those itself), and
//     the failover goes on from the broker requests, skipping the reads.
//
// The standby's watches have no goroutine each (100k partitions would mean
// 100k goroutines): the watchSet hands their channels to a watchCollector,
// which a sweeper goroutine polls every StandbySweepInterval and which the
// promotion sweeps once more after the barrier. A sweep costs a
// non-blocking receive per watch (a few milliseconds at 100k).
//
// The standby is dropped (and loaded again) when its ZooKeeper session
// ends, when a re-read fails, and when the node becomes the controller
// without it; the promotion falls back to the cold failover when the
// barrier does not fire or a re-read fails.

// DefaultStandbySweepInterval is how often a warm standby collects the
// watches that fired.
const DefaultStandbySweepInterval = 50 * time.Millisecond

// standbyBarrierTimeout bounds the wait for the election's own watch
// event; ZooKeeper sends it before the election's response, so it only
// waits for the client's event goroutine.
const standbyBarrierTimeout = 5 * time.Second

// standbyState is a warm standby's context and watches: a leaderState that
// is not (yet) the leadership. Owned by the loop goroutine; the sweeper
// goroutine touches only the collector.
type standbyState struct {
	ls      *leaderState
	coll    *watchCollector
	session *zkadmin.Session
	stop    context.CancelFunc // stops the sweeper
	sweeper sync.WaitGroup
}

// watchCollector holds the channels of a warm standby's armed watches, and
// those that fired until the loop applies them.
type watchCollector struct {
	mu      sync.Mutex
	chans   map[watchKey]<-chan zkadmin.Event
	pending []firedWatch
	queued  bool // an apply event is queued for pending
}

type firedWatch struct {
	key watchKey
	ev  zkadmin.Event
}

func newWatchCollector() *watchCollector {
	return &watchCollector{chans: map[watchKey]<-chan zkadmin.Event{}}
}

func (wc *watchCollector) add(key watchKey, ch <-chan zkadmin.Event) {
	wc.mu.Lock()
	wc.chans[key] = ch
	wc.mu.Unlock()
}

// sweep moves the watches that fired to pending. It returns true when the
// caller must queue an apply event (something is pending and none is
// queued).
func (wc *watchCollector) sweep() bool {
	wc.mu.Lock()
	defer wc.mu.Unlock()
	for key, ch := range wc.chans {
		select {
		case ev, ok := <-ch:
			delete(wc.chans, key)
			if ok {
				wc.pending = append(wc.pending, firedWatch{key, ev})
			}
		default:
		}
	}
	if len(wc.pending) == 0 || wc.queued {
		return false
	}
	wc.queued = true
	return true
}

// take returns and forgets the pending firings.
func (wc *watchCollector) take() []firedWatch {
	wc.mu.Lock()
	defer wc.mu.Unlock()
	out := wc.pending
	wc.pending, wc.queued = nil, false
	return out
}

// standbyEvent asks the loop to apply a standby's fired watches; with a
// nil sb it only gives maintainStandby a chance to run (a retry).
type standbyEvent struct{ sb *standbyState }

func (*standbyEvent) state() State { return StateIdle }

// onStandbyEvent applies the fired watches of the current standby.
func (c *Controller) onStandbyEvent(e *standbyEvent) error {
	sb := c.standby
	if sb == nil || e.sb != sb {
		return nil
	}
	if err := c.applyStandby(sb); err != nil {
		c.dropStandby(fmt.Sprintf("re-read failed: %v", err))
	}
	return nil
}

// maintainStandby runs after every event: it drops a standby whose session
// ended or that is no longer needed, and loads one when this node is not
// the controller and another is.
func (c *Controller) maintainStandby(ctx context.Context) {
	if !c.cfg.WarmStandby {
		return
	}
	if sb := c.standby; sb != nil {
		switch {
		case c.leader != nil:
			c.dropStandby("this node is the controller")
		case sb.session != c.zk.Session() || sb.session.Expired():
			c.dropStandby("ZooKeeper session ended")
		}
	}
	if c.standby != nil || c.leader != nil || c.activeID < 0 || c.activeID == c.nodeID || ctx.Err() != nil {
		return
	}
	if err := c.startStandby(ctx); err != nil && ctx.Err() == nil {
		c.log.Warn().Err(err).Msg("warm standby not loaded; retrying")
		time.AfterFunc(electRetryBackoff, func() { c.queue.push(&standbyEvent{}) })
	}
}

// startStandby loads the warm context, arming its watches, and starts the
// sweeper.
func (c *Controller) startStandby(ctx context.Context) error {
	sess := c.zk.Session()
	if sess.Expired() {
		return errors.New("session expired")
	}
	ls, err := c.newLeaderState(ctx, 0, 0, sess)
	if err != nil {
		return err
	}
	coll := newWatchCollector()
	ls.watches.collect = coll
	start := time.Now()
	if err := c.warmLoad(ls); err != nil {
		c.teardown(ls)
		return err
	}
	sctx, stop := context.WithCancel(ls.ctx)
	sb := &standbyState{ls: ls, coll: coll, session: sess, stop: stop}
	interval := c.cfg.StandbySweepInterval
	if interval <= 0 {
		interval = DefaultStandbySweepInterval
	}
	sb.sweeper.Add(1)
	go func() {
		defer sb.sweeper.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				if coll.sweep() {
					c.queue.push(&standbyEvent{sb: sb})
				}
			case <-sctx.Done():
				return
			}
		}
	}()
	c.standby = sb
	c.viewDirty = true // publishes the status
	parts := ls.cc.partitionCount()
	c.log.Info().Int("brokers", len(ls.cc.brokers)).Int("topics", len(ls.cc.topics)).Int("partitions", parts).
		Dur("load", time.Since(start)).Msg("warm standby loaded")
	return nil
}

// warmLoad reads brokers, topics and partition states into the standby's
// context, arming a watch on each; it writes nothing.
func (c *Controller) warmLoad(ls *leaderState) error {
	cc := ls.cc
	reads, err := c.readBrokersAndTopics(ls)
	if err != nil {
		return err
	}
	for name, r := range reads {
		cc.putTopic(name, r.assignment)
	}
	return c.warmReadStates(ls, cc.sortedPartitions())
}

// warmReadStates reads the state znodes of tps into the context, arming a
// data watch on each, or an exists watch on those that are missing.
func (c *Controller) warmReadStates(ls *leaderState, tps []TopicPartition) error {
	for round := 0; len(tps) > 0; round++ {
		if round == maxElectionRounds {
			return fmt.Errorf("state znodes of %d partitions keep appearing and vanishing", len(tps))
		}
		paths := make([]string, len(tps))
		for i, tp := range tps {
			paths[i] = znodes.PartitionStatePath(tp.Topic, tp.Partition)
		}
		var missing []TopicPartition
		for i, r := range ls.watches.getMany(ls.ctx, c.zk, paths, c.inFlight) {
			p := ls.cc.partition(tps[i])
			switch {
			case p == nil:
			case errors.Is(r.Err, zkadmin.ErrNoNode):
				p.lead, p.unknown, p.stateErr = nil, nil, nil
				missing = append(missing, tps[i])
			case r.Err != nil:
				return fmt.Errorf("read %s: %w", r.Path, r.Err)
			case len(r.Data) == 0:
				p.lead, p.unknown, p.stateErr = nil, nil, nil
			default:
				s, err := znodes.DecodePartitionState(tps[i].Topic, tps[i].Partition, r.Data)
				if err != nil {
					p.lead, p.unknown, p.stateErr = nil, nil, err
					continue
				}
				l := leaderAndIsrFrom(s, r.Stat.Version)
				p.lead, p.unknown, p.stateErr = &l, s.Unknown, nil
			}
		}
		tps = nil
		for _, tp := range missing {
			ok, err := ls.watches.exists(ls.ctx, c.zk, znodes.PartitionStatePath(tp.Topic, tp.Partition))
			if err != nil {
				return err
			}
			if ok { // created since: read it (and watch its data)
				tps = append(tps, tp)
			}
		}
	}
	return nil
}

// applyStandby re-reads what the collected watches say changed, re-arming
// them. A watch that ended without a change (session gone) fails it.
func (c *Controller) applyStandby(sb *standbyState) error {
	ls, cc := sb.ls, sb.ls.cc
	brokers, topicList := false, false
	topicData := map[string]bool{}
	var states []TopicPartition
	for _, f := range sb.coll.take() {
		ls.watches.fired(f.key)
		if f.ev.Type == zkadmin.EventNotWatching {
			return fmt.Errorf("watch on %s ended: %v", f.key.path, f.ev.Err)
		}
		path := f.key.path
		if tp, ok := znodes.ParsePartitionStatePath(path); ok {
			states = append(states, TopicPartition{Topic: tp.Topic, Partition: tp.Partition})
			continue
		}
		switch _, isBroker := znodes.ParseBrokerIDPath(path); {
		case path == znodes.BrokerIDsPath || isBroker:
			brokers = true
		case path == znodes.TopicsPath:
			topicList = true
		default:
			if name, ok := znodes.ParseTopicPath(path); ok {
				topicData[name] = true
			}
		}
	}
	if brokers {
		cur, err := c.readBrokers(ls.ctx, ls)
		if err != nil {
			return err
		}
		cc.brokers = cur
	}
	if topicList {
		if err := c.warmTopicList(ls, topicData); err != nil {
			return err
		}
	}
	more, err := c.warmTopicData(ls, topicData)
	if err != nil {
		return err
	}
	return c.warmReadStates(ls, append(states, more...))
}

// warmTopicList re-lists /brokers/topics: topics gone are dropped, new
// ones are added to toRead.
func (c *Controller) warmTopicList(ls *leaderState, toRead map[string]bool) error {
	names, err := ls.watches.children(ls.ctx, c.zk, znodes.TopicsPath)
	if err != nil {
		return fmt.Errorf("list %s: %w", znodes.TopicsPath, err)
	}
	listed := map[string]bool{}
	for _, n := range names {
		listed[n] = true
		if ls.cc.topics[n] == nil {
			toRead[n] = true
		}
	}
	for n := range ls.cc.topics {
		if !listed[n] {
			ls.cc.removeTopic(n)
		}
	}
	return nil
}

// warmTopicData re-reads topic znodes into the context and returns the
// partitions that are new (their states are to be read).
func (c *Controller) warmTopicData(ls *leaderState, names map[string]bool) ([]TopicPartition, error) {
	if len(names) == 0 {
		return nil, nil
	}
	list := make([]string, 0, len(names))
	for n := range names {
		list = append(list, n)
	}
	reads, err := c.readTopics(ls.ctx, ls, list)
	if err != nil {
		return nil, err
	}
	var fresh []TopicPartition
	for name, r := range reads {
		t := ls.cc.topics[name]
		for _, p := range r.assignment.PartitionIDs() {
			if t == nil || t.parts[p] == nil {
				fresh = append(fresh, TopicPartition{Topic: name, Partition: p})
			}
		}
		ls.cc.putTopic(name, r.assignment)
	}
	return fresh, nil
}

// leaderStateFor returns the leadership of a won election: the warm
// standby's, made current and promoted, or else a fresh one (cold
// failover).
func (c *Controller) leaderStateFor(ctx context.Context, epoch, zkVersion int32, sess *zkadmin.Session,
	barrier <-chan zkadmin.Event) (*leaderState, error) {
	if sb := c.standby; sb != nil {
		c.standby = nil
		if ls, err := c.promote(sb, sess, barrier); err == nil {
			ls.epoch, ls.zkVersion, ls.session = epoch, zkVersion, sess
			return ls, nil
		} else {
			c.log.Warn().Err(err).Msg("warm standby not usable; loading the cluster")
			c.teardown(sb.ls)
		}
	}
	return c.newLeaderState(ctx, epoch, zkVersion, sess)
}

// promote makes the standby current as of the election (barrier, sweep,
// re-reads) and turns its watches into the leadership's.
func (c *Controller) promote(sb *standbyState, sess *zkadmin.Session, barrier <-chan zkadmin.Event) (*leaderState, error) {
	start := time.Now()
	sb.stop()
	sb.sweeper.Wait()
	switch {
	case sb.session != sess || sess.Expired():
		return nil, errors.New("the standby's ZooKeeper session ended")
	case barrier == nil:
		return nil, errors.New("no barrier watch")
	}
	timer := time.NewTimer(standbyBarrierTimeout)
	defer timer.Stop()
	select {
	case <-barrier:
	case <-timer.C:
		return nil, errors.New("the election's watch event did not arrive")
	}
	sb.coll.sweep()
	if err := c.applyStandby(sb); err != nil {
		return nil, err
	}
	ls := sb.ls
	w := ls.watches
	w.collect = nil
	sb.coll.mu.Lock()
	defer sb.coll.mu.Unlock()
	for key, ch := range sb.coll.chans {
		if _, ok := znodes.ParsePartitionStatePath(key.path); ok {
			delete(w.armed, key) // the controller does not watch state znodes
			continue
		}
		w.forward(key, ch)
	}
	clear(sb.coll.chans)
	ls.preloaded = true
	c.log.Info().Dur("promote", time.Since(start)).Msg("warm standby promoted: taking over without the failover reads")
	return ls, nil
}

// finishPreloaded is the failover's load step for a promoted standby: only
// topics without an id get one (what the cold load's prepareTopic does for
// existing partitions).
func (c *Controller) finishPreloaded(ls *leaderState) error {
	if !c.ibp.TopicIDsSupported() {
		return nil
	}
	for name, t := range ls.cc.topics {
		if !t.id.IsZero() {
			continue
		}
		data, stat, err := c.zk.Get(ls.ctx, znodes.TopicPath(name))
		if errors.Is(err, zkadmin.ErrNoNode) {
			continue
		}
		if err != nil {
			return fmt.Errorf("read topic %s: %w", name, err)
		}
		a, err := znodes.DecodeTopicAssignment(name, data)
		if err != nil {
			continue
		}
		if a, err = c.prepareTopic(ls, name, topicRead{assignment: a, version: stat.Version}, []int32{}); err != nil {
			return err
		}
		ls.cc.putTopic(name, a)
	}
	return nil
}

// dropStandby stops the standby and forgets its context.
func (c *Controller) dropStandby(reason string) {
	sb := c.standby
	if sb == nil {
		return
	}
	c.standby = nil
	c.viewDirty = true
	c.log.Info().Str("reason", reason).Msg("warm standby dropped")
	sb.stop()
	sb.sweeper.Wait()
	c.teardown(sb.ls)
}

// teardown ends a leaderState that never became (or no longer is) the
// leadership: its context, channels and goroutines.
func (c *Controller) teardown(ls *leaderState) {
	ls.cancel()
	ls.chans.Close()
	ls.wg.Wait()
}
