package controller

import (
	"context"
	"sync"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// watchKind is the ZooKeeper watch table a watch lives in.
type watchKind uint8

const (
	watchData watchKind = iota
	watchChildren
	watchExists
)

// watchKey names one armed watch.
type watchKey struct {
	path string
	kind watchKind
}

// watchEvent is a watch firing, forwarded into the loop. Watches are
// re-read triggers: the handler re-reads the znode, which re-arms the
// watch.
type watchEvent struct {
	key watchKey
	// gen is the leader state the watch belongs to; nil for the
	// /controller watch, which outlives leaderships. A firing for an older
	// leadership is dropped.
	gen *leaderState
	zev zkadmin.Event
	// retry marks a firing queued again after its handler failed; its
	// watch was already cleared.
	retry bool
}

func (e *watchEvent) state() State {
	switch {
	case e.key.path == znodes.ControllerPath:
		return StateControllerChange
	case e.key.path == znodes.BrokerIDsPath:
		return StateBrokerChange
	case e.key.path == znodes.TopicsPath:
		return StateTopicChange
	case e.key.path == znodes.PreferredReplicaElectionPath:
		return StateManualLeaderBalance
	case e.key.path == znodes.DeleteTopicsPath:
		return StateTopicDeletion
	case e.key.path == znodes.ReassignPartitionsPath:
		return StateAlterPartitionReassignment
	case e.key.path == znodes.IsrChangeNotificationPath:
		return StateIsrChange
	case e.key.path == znodes.LogDirEventNotificationPath:
		return StateLogDirChange
	case e.key.path == znodes.ConfigChangesPath:
		return StateTopicUncleanLeaderElectionEnable
	}
	if _, ok := znodes.ParsePartitionStatePath(e.key.path); ok {
		return StateAlterPartitionReassignment
	}
	if _, ok := znodes.ParseBrokerIDPath(e.key.path); ok {
		return StateBrokerChange
	}
	return StateTopicChange
}

// watchSet records which watches are armed, so that a re-read arms a watch
// only when none is outstanding: one forwarder goroutine per watch at most.
// It is owned by the loop goroutine.
type watchSet struct {
	ctx   context.Context
	wg    *sync.WaitGroup
	gen   *leaderState
	queue *eventQueue
	armed map[watchKey]bool
	// collect, when set, takes the channels of armed watches instead of a
	// forwarder goroutine each: a warm standby's watches (standby.go).
	collect *watchCollector
}

func newWatchSet(ctx context.Context, wg *sync.WaitGroup, gen *leaderState, q *eventQueue) *watchSet {
	return &watchSet{ctx: ctx, wg: wg, gen: gen, queue: q, armed: map[watchKey]bool{}}
}

// needs reports whether the next read of key should leave a watch.
func (w *watchSet) needs(key watchKey) bool { return !w.armed[key] }

// fired clears a watch that has fired (its forwarder has ended).
func (w *watchSet) fired(key watchKey) { delete(w.armed, key) }

// reset forgets every watch, for when they all ended at once (session
// expiry drops them with EventNotWatching, possibly discarded by
// clearAndPut).
func (w *watchSet) reset() { clear(w.armed) }

// forward arms key with ch: one goroutine waits for the firing and queues
// it, or gives up when the set's context ends. A nil ch (the read left no
// watch) arms nothing.
func (w *watchSet) forward(key watchKey, ch <-chan zkadmin.Event) {
	if ch == nil {
		return
	}
	w.armed[key] = true
	if w.collect != nil {
		w.collect.add(key, ch)
		return
	}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		select {
		case zev, ok := <-ch:
			if ok {
				w.queue.push(&watchEvent{key: key, gen: w.gen, zev: zev})
			}
		case <-w.ctx.Done():
		}
	}()
}

// get reads a znode, arming its data watch unless one is armed.
func (w *watchSet) get(ctx context.Context, zk *zkadmin.Client, path string) ([]byte, zkadmin.Stat, error) {
	key := watchKey{path, watchData}
	if !w.needs(key) {
		return zk.Get(ctx, path)
	}
	data, stat, ch, err := zk.GetW(ctx, path)
	w.forward(key, ch)
	return data, stat, err
}

// children lists a znode's children, arming its child watch unless armed.
func (w *watchSet) children(ctx context.Context, zk *zkadmin.Client, path string) ([]string, error) {
	key := watchKey{path, watchChildren}
	if !w.needs(key) {
		names, _, err := zk.Children(ctx, path)
		return names, err
	}
	names, _, ch, err := zk.ChildrenW(ctx, path)
	w.forward(key, ch)
	return names, err
}

// exists checks a znode, arming its exists watch unless armed. The watch
// fires on creation, data change and deletion.
func (w *watchSet) exists(ctx context.Context, zk *zkadmin.Client, path string) (bool, error) {
	key := watchKey{path, watchExists}
	if !w.needs(key) {
		ok, _, err := zk.Exists(ctx, path)
		return ok, err
	}
	ok, _, ch, err := zk.ExistsW(ctx, path)
	w.forward(key, ch)
	return ok, err
}

// getMany reads paths pipelined (bounded by maxInFlight), arming data
// watches on those not yet watched. Results are in input order.
func (w *watchSet) getMany(ctx context.Context, zk *zkadmin.Client, paths []string, maxInFlight int) []zkadmin.GetResult {
	var watchIdx, plainIdx []int
	var watchPaths, plainPaths []string
	for i, p := range paths {
		if w.needs(watchKey{p, watchData}) {
			watchIdx, watchPaths = append(watchIdx, i), append(watchPaths, p)
		} else {
			plainIdx, plainPaths = append(plainIdx, i), append(plainPaths, p)
		}
	}
	out := make([]zkadmin.GetResult, len(paths))
	for j, r := range zk.GetManyW(ctx, watchPaths, maxInFlight) {
		out[watchIdx[j]] = r
		w.forward(watchKey{r.Path, watchData}, r.Watch)
	}
	for j, r := range zk.GetMany(ctx, plainPaths, maxInFlight) {
		out[plainIdx[j]] = r
	}
	return out
}
