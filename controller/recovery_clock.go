package controller

import (
	"context"
	"sync"
	"time"
)

// recoveryClock is how long unclean recovery waits for replicas to
// answer (unclean.recovery.timeout.ms), as the loop last set it from the
// dynamic defaults. A wait already running follows a change: an operator
// who lowers the timeout because a recovery is stuck on a replica that
// will not come back gets the election at the new deadline, not hours
// later, and one who raises it gives the replicas being asked more time
// (their probes keep trying until the new deadline). A deadline is always
// counted from when the recovery started.
type recoveryClock struct {
	mu      sync.Mutex
	timeout time.Duration
	changed chan struct{} // closed, and replaced, when timeout changes
}

func newRecoveryClock(timeout time.Duration) *recoveryClock {
	return &recoveryClock{timeout: timeout, changed: make(chan struct{})}
}

// set changes the timeout of every wait, running or to come.
func (k *recoveryClock) set(timeout time.Duration) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if timeout == k.timeout {
		return
	}
	k.timeout = timeout
	close(k.changed)
	k.changed = make(chan struct{})
}

func (k *recoveryClock) current() (time.Duration, <-chan struct{}) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.timeout, k.changed
}

// waitFrom waits until since plus the timeout, following changes of the
// timeout meanwhile; it reports whether that deadline came (false: ctx
// ended first).
func (k *recoveryClock) waitFrom(ctx context.Context, since time.Time) bool {
	for {
		timeout, changed := k.current()
		t := time.NewTimer(time.Until(since.Add(timeout)))
		select {
		case <-t.C:
			return true
		case <-changed:
			t.Stop()
		case <-ctx.Done():
			t.Stop()
			return false
		}
	}
}

// contextFrom returns a context that ends at since plus the timeout, as
// waitFrom follows it, or when parent ends.
func (k *recoveryClock) contextFrom(parent context.Context, since time.Time) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	go func() {
		if k.waitFrom(ctx, since) {
			cancel()
		}
	}()
	return ctx, cancel
}
