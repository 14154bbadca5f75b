package zkadmin

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/kzadmin/kzadmin/znodes"
)

// topicCache keeps the topic znodes that earlier creates read, so that a
// create on a cluster of N topics does not re-read N znodes to count the
// replicas for the partition limits (it did: go-zookeeper has no
// multi-read, and every create read every topic).
//
// An entry may only be used when it provably holds the znode as of the
// fence read of the round using it, that is as of the read of
// /brokers/topics whose version the round's multi expects. Versions alone
// cannot prove that: our writers bump the fence when they change an
// assignment, but Kafka's tools, Kafka's controller (reassignments) and
// scripts do not, and partitions can be added or moved without a change
// to the children of /brokers/topics. So each entry carries the data watch
// armed by the very read that filled it, and after the fence read the
// round waits for the client's event barrier (Client.syncEvents): ZooKeeper
// delivers the notification of any change the fence read can see before
// the fence read's reply, so an entry whose watch has not fired by then is
// current as of the fence read, from whichever writer the change came. An
// entry is also dropped when the connection dropped or the session changed
// since its read (the session-event count moved), because go-zookeeper
// re-arms watches after a reconnect asynchronously.
//
// The limit guarantee itself does not rest on the cache: it is still the
// fenced multi (see "Partition limits" in the package doc). The cache only
// replaces re-reading znodes known not to have changed, so a round counts
// exactly what a full re-read would have.
//
// Cost: one data watch per topic znode on this session (ZooKeeper keeps
// one per path and session, however many readers ask), and entries left
// over after a reconnect keep their never-fired channel registered until
// the znode changes or the session ends.
type topicCache struct {
	mu      sync.Mutex
	entries map[string]cachedTopic
	// warming are the warm-up reads in flight (warmTopics), each closed
	// when its entries are in.
	warming map[chan struct{}]bool
}

type cachedTopic struct {
	topic *Topic // as decoded; never changed once cached
	watch <-chan Event
	// sessionEvents is the client's session-event count before the read.
	sessionEvents uint64
}

func newTopicCache() *topicCache {
	return &topicCache{entries: map[string]cachedTopic{}, warming: map[chan struct{}]bool{}}
}

// startWarming registers a warm-up read; call the result when it is over.
func (tc *topicCache) startWarming() (done func()) {
	ch := make(chan struct{})
	tc.mu.Lock()
	tc.warming[ch] = true
	tc.mu.Unlock()
	return func() {
		tc.mu.Lock()
		delete(tc.warming, ch)
		tc.mu.Unlock()
		close(ch)
	}
}

// awaitWarming waits for the warm-up reads in flight: their znodes, just
// created, are what the next create would otherwise read again, and the
// warm-up, sent first, answers first.
func (tc *topicCache) awaitWarming(ctx context.Context) error {
	tc.mu.Lock()
	chans := make([]chan struct{}, 0, len(tc.warming))
	for ch := range tc.warming {
		chans = append(chans, ch)
	}
	tc.mu.Unlock()
	for _, ch := range chans {
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// current reports whether e still holds its znode, given the session-event
// count that a barrier after the fence read returned.
func (e cachedTopic) current(sessionEvents uint64) bool {
	if e.sessionEvents != sessionEvents {
		return false
	}
	select {
	case <-e.watch:
		return false
	default:
		return true
	}
}

// lookup returns, for each of names, its current entry (nil when there is
// none) and the names to read, and drops the entries of names that are no
// longer current; with sweep, names is every topic listed, and every other
// entry no longer current is dropped too.
func (tc *topicCache) lookup(names []string, sessionEvents uint64, sweep bool) (hits []*Topic, misses []string) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	hits = make([]*Topic, len(names))
	found := 0
	for i, n := range names {
		e, ok := tc.entries[n]
		if ok && e.current(sessionEvents) {
			hits[i] = e.topic
			found++
			continue
		}
		if ok {
			delete(tc.entries, n)
		}
		misses = append(misses, n)
	}
	if sweep && len(tc.entries) > found {
		// Entries of topics no longer listed: deleted, so their watch
		// fired (or the session moved on).
		for n, e := range tc.entries {
			if !e.current(sessionEvents) {
				delete(tc.entries, n)
			}
		}
	}
	return hits, misses
}

func (tc *topicCache) put(name string, e cachedTopic) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	tc.entries[name] = e
}

// writtenTopic is a topic znode this Admin just created: its name, id and
// assignment, and the data it wrote.
type writtenTopic struct {
	name string
	id   znodes.UUID
	asg  [][]int32
	data []byte
}

// topic is the Topic that read r of the znode stands for. When r holds
// the data written, byte for byte, it is built from the assignment
// instead of decoding the JSON again, which cost about as much CPU as
// the rest of the Admin's create round, measured; the result is the same
// (TestWrittenTopicMatchesDecoded).
func (w writtenTopic) topic(r GetResult) (*Topic, error) {
	if r.Err != nil || !bytes.Equal(r.Data, w.data) {
		return newTopic(w.name, r, false)
	}
	asg := znodes.TopicAssignment{Version: znodes.TopicAssignmentVersion,
		Partitions: make(map[int32][]int32, len(w.asg)), TopicID: w.id}
	for p, replicas := range w.asg {
		asg.Partitions[int32(p)] = slices.Clone(replicas)
	}
	return topicFrom(w.name, r.Stat.Version, asg, false), nil
}

// warmTopicsTimeout bounds warmTopics' background read.
const warmTopicsTimeout = 30 * time.Second

// warmTopics reads the topics just created, with watches, and caches them,
// off the creator's path: the next create (often a moment later, while
// this one waits for the controller) then plans without reading them.
// The entries are as good as those readForCreate caches, and one that
// loses a race with a change is dropped at its next lookup.
func (a *Admin) warmTopics(written []writtenTopic) {
	if len(written) == 0 {
		return
	}
	done := a.topics.startWarming()
	go func() {
		defer done()
		ctx, cancel := context.WithTimeout(context.Background(), warmTopicsTimeout)
		defer cancel()
		sessionEvents := a.zk.sessionEvents.Load() // before the read, as lookup requires
		paths := make([]string, len(written))
		for i, w := range written {
			paths[i] = znodes.TopicPath(w.name)
		}
		w, err := a.zk.Watched(ctx)
		if err != nil {
			return
		}
		for i, r := range w.GetManyW(ctx, paths, a.opts.MaxInFlight) {
			if r.Err != nil || r.Watch == nil {
				continue
			}
			if t, err := written[i].topic(r); err == nil && t != nil {
				a.topics.put(written[i].name, cachedTopic{topic: t, watch: r.Watch, sessionEvents: sessionEvents})
			}
		}
	}()
}

func (tc *topicCache) len() int {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	return len(tc.entries)
}

// readForCreate is ReadCluster(ReadOptions{AllTopics: true}) for the
// create path: the same reads in the same order, except that the topic
// znodes still current in the cache (see topicCache) are not read again,
// and those read are read with a watch and cached. The Cluster's Topics
// may be shared with other reads: callers must not change them.
//
// When no watch of the session fired since the last such read (see
// topicReadMemo), the topics that read resolved are taken from it as they
// are, and only the names it did not have are looked up: the round then
// costs the topics that changed, not every topic of the cluster.
func (a *Admin) readForCreate(ctx context.Context) (*Cluster, error) {
	return a.readForCreateWith(ctx, false)
}

// readForCreateWith is readForCreate; a pre-read (prereading) takes an
// exact kept listing without a stat read (see topic_listing.go).
func (a *Admin) readForCreateWith(ctx context.Context, prereading bool) (*Cluster, error) {
	c, side, err := a.readHead(ctx, true, a.listing.get(), prereading, true)
	if err != nil {
		return nil, err
	}
	w := side.watched
	c.byName = nil // Topic searches the sorted Topics
	if c.TopicsExist {
		a.listing.set(&topicListing{names: c.TopicNames, cversion: c.topicsCversion, version: c.TopicsVersion})
	}
	sessionEvents, err := a.zk.syncEvents(ctx)
	if err != nil {
		return nil, fmt.Errorf("read cluster: %w", err)
	}
	nodeEvents := a.zk.nodeEvents.Load() // before the lookup: see topicReadMemo
	if err := a.topics.awaitWarming(ctx); err != nil {
		return nil, fmt.Errorf("read cluster: %w", err)
	}
	carried := a.readMemo.get().carry(c.TopicNames, sessionEvents, nodeEvents)
	hits, misses := a.topics.lookup(carried.rest, sessionEvents, carried.base == nil)
	allBrokers := c.brokerPaths(side.brokerIDs)
	have, brokerPaths := side.brokerReads(allBrokers)
	a.knownBrokers.set(allBrokers)
	topicPaths := make([]string, len(misses))
	for i, n := range misses {
		topicPaths[i] = znodes.TopicPath(n)
	}
	var brokers, topics []GetResult
	var wg sync.WaitGroup
	if len(brokerPaths) > 0 {
		wg.Go(func() { brokers = w.GetMany(ctx, brokerPaths, a.opts.MaxInFlight) })
	}
	if len(topicPaths) > 0 {
		topics = w.GetManyW(ctx, topicPaths, a.opts.MaxInFlight)
	}
	wg.Wait()
	if err := c.addBrokers(mergeBrokerReads(allBrokers, have, brokers)); err != nil {
		return nil, fmt.Errorf("read cluster: %w", err)
	}
	read := make(map[string]GetResult, len(misses))
	for i, n := range misses {
		read[n] = topics[i]
	}
	// Resolve the names not carried, in listing order.
	resolved := make([]*Topic, len(carried.rest))
	watched := make([]bool, len(carried.rest))
	for i, n := range carried.rest {
		t, err := a.createTopicOf(c, n, hits[i], read, sessionEvents)
		if err != nil {
			return nil, fmt.Errorf("read cluster: %w", err)
		}
		resolved[i] = t
		watched[i] = hits[i] != nil || read[n].Watch != nil
	}
	memo := carried.assemble(c, resolved, watched)
	memo.sessionEvents, memo.nodeEvents = sessionEvents, nodeEvents
	a.readMemo.set(memo)
	return c, nil
}

// createTopicOf returns topic n for readForCreate: the cached one, or the
// one just read (which it caches when the read left a watch).
func (a *Admin) createTopicOf(c *Cluster, n string, hit *Topic, read map[string]GetResult,
	sessionEvents uint64) (*Topic, error) {
	marked := c.MarkedForDeletion[n]
	if hit != nil {
		if hit.MarkedForDeletion != marked {
			cp := *hit // the marker is not part of the topic znode
			cp.MarkedForDeletion = marked
			return &cp, nil
		}
		return hit, nil
	}
	r := read[n]
	t, err := newTopic(n, r, marked)
	if err != nil || t == nil {
		return nil, err
	}
	if r.Watch != nil {
		a.topics.put(n, cachedTopic{topic: t, watch: r.Watch, sessionEvents: sessionEvents})
	}
	return t, nil
}
