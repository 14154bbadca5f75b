package zkadmin

import (
	"fmt"
	"sync"

	"github.com/go-zookeeper/zk"
)

// EventType says what an Event reports.
type EventType int

const (
	// EventNodeCreated fires an exists watch set on a missing znode.
	EventNodeCreated EventType = iota + 1
	// EventNodeDeleted fires every kind of watch on the znode.
	EventNodeDeleted
	// EventNodeDataChanged fires data and exists watches.
	EventNodeDataChanged
	// EventNodeChildrenChanged fires children watches.
	EventNodeChildrenChanged
	// EventNotWatching: the watch was dropped without the znode changing
	// (session expired, or client closed); Err says why. Re-read and
	// re-watch once a session is back.
	EventNotWatching
	// EventSession: the session changed state; see Event.State. Only
	// Options.OnEvent receives these, never a watch channel.
	EventSession
)

func (t EventType) String() string {
	switch t {
	case EventNodeCreated:
		return "created"
	case EventNodeDeleted:
		return "deleted"
	case EventNodeDataChanged:
		return "data-changed"
	case EventNodeChildrenChanged:
		return "children-changed"
	case EventNotWatching:
		return "not-watching"
	case EventSession:
		return "session"
	}
	return fmt.Sprintf("EventType(%d)", int(t))
}

// Event is a watch firing or a session state change. Watches are one-shot
// and are triggers to re-read, not deltas: ZooKeeper sends no data with
// them, and a watch may fire spuriously (treat every firing as "re-read").
type Event struct {
	Type EventType
	// Path is relative to the chroot; empty for session events.
	Path string
	// State and SessionID are set on session events.
	State     SessionState
	SessionID int64
	// Err is set on EventNotWatching (ErrSessionExpired or ErrClosed).
	Err error
}

func (e Event) String() string {
	if e.Type == EventSession {
		return fmt.Sprintf("session %s (id 0x%x)", e.State, e.SessionID)
	}
	return e.Type.String() + " " + e.Path
}

func eventTypeFrom(t zk.EventType) (EventType, bool) {
	switch t {
	case zk.EventNodeCreated:
		return EventNodeCreated, true
	case zk.EventNodeDeleted:
		return EventNodeDeleted, true
	case zk.EventNodeDataChanged:
		return EventNodeDataChanged, true
	case zk.EventNodeChildrenChanged:
		return EventNodeChildrenChanged, true
	case zk.EventNotWatching:
		return EventNotWatching, true
	}
	return 0, false
}

// watchKind mirrors ZooKeeper's three client-side watch tables.
type watchKind uint8

const (
	watchData  watchKind = iota // GetW, ExistsW on an existing znode
	watchExist                  // ExistsW (either way: we cannot know in advance)
	watchChild                  // ChildrenW
)

type watchKey struct {
	path string // caller-side path
	kind watchKind
}

// watchRegistry holds the channels of outstanding one-shot watches. It is
// fed from the event goroutine, never from go-zookeeper's receive loop, and
// delivers to channels with a buffer of one that get exactly one event and
// are then closed, so delivery never blocks.
//
// A channel is registered before its request is sent, so an event can never
// slip between the response and the registration; the price is that an
// event from an earlier watch on the same path may fire it early, which a
// re-read trigger tolerates.
type watchRegistry struct {
	mu sync.Mutex
	m  map[watchKey][]chan Event
	// reads are the results of WatchedReader reads whose watch is still
	// armed (watched_reads.go); a firing drops them with the channels.
	reads map[watchKey]watchedRead
	// readGen counts the session events handled: a read sent before one
	// is not remembered.
	readGen uint64
	// flights are the WatchedReader reads in flight, which a concurrent
	// read of the same znode waits for instead of asking again.
	flights map[watchKey]*readFlight
}

func newWatchRegistry() *watchRegistry {
	return &watchRegistry{m: make(map[watchKey][]chan Event), reads: make(map[watchKey]watchedRead),
		flights: make(map[watchKey]*readFlight)}
}

func (r *watchRegistry) add(path string, kind watchKind) chan Event {
	ch := make(chan Event, 1)
	r.mu.Lock()
	k := watchKey{path, kind}
	r.m[k] = append(r.m[k], ch)
	r.mu.Unlock()
	return ch
}

// remove drops a registration whose request failed.
func (r *watchRegistry) remove(path string, kind watchKind, ch chan Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := watchKey{path, kind}
	list := r.m[k]
	for i, c := range list {
		if c == ch {
			list = append(list[:i:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(r.m, k)
	} else {
		r.m[k] = list
	}
}

// kindsFiredBy follows ZooKeeper's client rules for which watch tables an
// event empties.
func kindsFiredBy(t EventType) []watchKind {
	switch t {
	case EventNodeCreated:
		return []watchKind{watchExist}
	case EventNodeDataChanged:
		return []watchKind{watchExist, watchData}
	case EventNodeChildrenChanged:
		return []watchKind{watchChild}
	case EventNodeDeleted, EventNotWatching:
		return []watchKind{watchExist, watchData, watchChild}
	}
	return nil
}

func (r *watchRegistry) fire(ev Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, kind := range kindsFiredBy(ev.Type) {
		k := watchKey{ev.Path, kind}
		for _, ch := range r.m[k] {
			ch <- ev
			close(ch)
		}
		delete(r.m, k)
		delete(r.reads, k)
	}
}

// closeAll ends every outstanding watch with EventNotWatching.
func (r *watchRegistry) closeAll(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, list := range r.m {
		for _, ch := range list {
			ch <- Event{Type: EventNotWatching, Path: k.path, Err: err}
			close(ch)
		}
	}
	r.m = make(map[watchKey][]chan Event)
	r.readGen++
	clear(r.reads)
}

func (r *watchRegistry) len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, list := range r.m {
		n += len(list)
	}
	return n
}

// eventQueue is an unbounded FIFO between go-zookeeper's callback (which
// runs on its receive loop and must never block) and the client's event
// goroutine. Unbounded because dropping an event would lose a watch firing,
// and a burst is bounded by the number of watches set. A barrier (see
// Client.syncEvents) rides in the same FIFO, so the event goroutine reaches
// it only after every event queued before it.
type eventQueue struct {
	mu     sync.Mutex
	items  []queued
	signal chan struct{} // capacity 1: "items is non-empty"
}

// queued is an event from go-zookeeper, or a barrier to close.
type queued struct {
	ev      zk.Event
	barrier chan struct{}
}

func newEventQueue() *eventQueue { return &eventQueue{signal: make(chan struct{}, 1)} }

func (q *eventQueue) push(ev zk.Event) { q.add(queued{ev: ev}) }

func (q *eventQueue) pushBarrier(ch chan struct{}) { q.add(queued{barrier: ch}) }

func (q *eventQueue) add(it queued) {
	q.mu.Lock()
	q.items = append(q.items, it)
	q.mu.Unlock()
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

// drain takes every queued item.
func (q *eventQueue) drain() []queued {
	q.mu.Lock()
	defer q.mu.Unlock()
	items := q.items
	q.items = nil
	return items
}
