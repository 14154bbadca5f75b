package zkadmin

import (
	"context"
	"fmt"
	"sync"

	"github.com/go-zookeeper/zk"
)

// SessionState is the client's view of its ZooKeeper session.
type SessionState int

const (
	// StateDisconnected: no connection right now. The session may still be
	// alive on the server (watches and ephemerals survive a reconnect
	// within the session timeout).
	StateDisconnected SessionState = iota
	// StateConnected: connected with a live session.
	StateConnected
	// StateExpired: the server expired the session. Its ephemerals (for
	// example /controller) are gone; the client opens a new session on its
	// own, and announces it with StateConnected and a new SessionID.
	StateExpired
	// StateAuthFailed: the server refused the credentials.
	StateAuthFailed
	// StateClosed: Close was called.
	StateClosed
)

func (s SessionState) String() string {
	switch s {
	case StateDisconnected:
		return "disconnected"
	case StateConnected:
		return "connected"
	case StateExpired:
		return "expired"
	case StateAuthFailed:
		return "auth-failed"
	case StateClosed:
		return "closed"
	}
	return fmt.Sprintf("SessionState(%d)", int(s))
}

// Session is one ZooKeeper session of a Client. A controller takes the
// Session it won its election in and resigns when Done is closed.
type Session struct {
	ID   int64
	done chan struct{}
}

// Done is closed when this session has expired or the client was closed.
func (s *Session) Done() <-chan struct{} { return s.done }

// Expired reports whether Done is closed.
func (s *Session) Expired() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// sessionTracker follows go-zookeeper's state callbacks. It is updated only
// by the event goroutine; readers take the lock.
type sessionTracker struct {
	mu    sync.Mutex
	state SessionState
	cur   *Session
	ready chan struct{} // closed while state == StateConnected
}

func newSessionTracker() *sessionTracker {
	// A placeholder session that is already over, so Session() never
	// returns nil before the first one is established.
	done := make(chan struct{})
	close(done)
	return &sessionTracker{state: StateDisconnected, cur: &Session{done: done}, ready: make(chan struct{})}
}

// update applies a go-zookeeper state and returns the event to publish, if
// the change is visible at our level. sessionID is the connection's current
// session id.
func (t *sessionTracker) update(st zk.State, sessionID int64) (Event, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch st {
	case zk.StateHasSession:
		if sessionID == 0 {
			return Event{}, false // already expired again; its event follows
		}
		newSession := t.cur.ID != sessionID || t.cur.Expired()
		if t.state == StateConnected && !newSession {
			return Event{}, false
		}
		if newSession {
			t.endLocked()
			t.cur = &Session{ID: sessionID, done: make(chan struct{})}
		}
		t.setLocked(StateConnected)
		return Event{Type: EventSession, State: StateConnected, SessionID: sessionID}, true
	case zk.StateDisconnected:
		return t.transitionLocked(StateDisconnected)
	case zk.StateExpired:
		t.endLocked()
		return t.transitionLocked(StateExpired)
	case zk.StateAuthFailed:
		return t.transitionLocked(StateAuthFailed)
	}
	// Connecting and Connected (TCP only) are internal to the reconnect loop.
	return Event{}, false
}

func (t *sessionTracker) transitionLocked(s SessionState) (Event, bool) {
	if t.state == s || t.state == StateClosed {
		return Event{}, false
	}
	// After an expiry, stay "expired" until a new session is up: the
	// disconnected that follows it says nothing new.
	if t.state == StateExpired && s == StateDisconnected {
		return Event{}, false
	}
	t.setLocked(s)
	return Event{Type: EventSession, State: s, SessionID: t.cur.ID}, true
}

func (t *sessionTracker) setLocked(s SessionState) {
	if s == StateConnected {
		select {
		case <-t.ready:
		default:
			close(t.ready)
		}
	} else if t.state == StateConnected {
		t.ready = make(chan struct{})
	}
	t.state = s
}

func (t *sessionTracker) endLocked() {
	if !t.cur.Expired() {
		close(t.cur.done)
	}
}

func (t *sessionTracker) close() (Event, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.endLocked()
	if t.state == StateClosed {
		return Event{}, false
	}
	t.setLocked(StateClosed)
	return Event{Type: EventSession, State: StateClosed, SessionID: t.cur.ID}, true
}

func (t *sessionTracker) snapshot() (SessionState, *Session, chan struct{}) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.state, t.cur, t.ready
}

// State returns the current session state.
func (c *Client) State() SessionState {
	s, _, _ := c.sess.snapshot()
	return s
}

// SessionID returns the id of the current (or last) session, as ZooKeeper
// stores it in a znode's EphemeralOwner.
func (c *Client) SessionID() int64 { return c.conn.SessionID() }

// Session returns the current session. If the session in hand has already
// ended (expired, not yet replaced), its Done is closed.
func (c *Client) Session() *Session {
	_, s, _ := c.sess.snapshot()
	return s
}

// WaitConnected blocks until the client has a live session, ctx ends, or
// the client is closed.
func (c *Client) WaitConnected(ctx context.Context) error {
	for {
		state, _, ready := c.sess.snapshot()
		switch state {
		case StateConnected:
			return nil
		case StateClosed:
			return ErrClosed
		}
		select {
		case <-ready:
		case <-c.closed:
			return ErrClosed
		case <-ctx.Done():
			if last := c.lastDialErr.Load(); last != nil {
				return fmt.Errorf("wait for zookeeper session (state %s; last connection attempt: %v): %w", state, *last, ctx.Err())
			}
			return fmt.Errorf("wait for zookeeper session (state %s): %w", state, ctx.Err())
		}
	}
}
