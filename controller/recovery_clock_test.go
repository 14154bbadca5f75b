package controller

import (
	"context"
	"testing"
	"time"
)

// waitResult runs f in a goroutine and returns its result, failing the
// test if it has not returned within a minute.
func waitResult(t *testing.T, f func() bool) bool {
	t.Helper()
	done := make(chan bool, 1)
	go func() { done <- f() }()
	select {
	case ok := <-done:
		return ok
	case <-time.After(time.Minute):
		t.Fatal("wait did not return")
		return false
	}
}

// TestRecoveryClockFollowsChanges: a wait on an hour-long timeout ends
// once the timeout is lowered; a deadline is counted from the recovery's
// start, so one already past after a change ends the wait at once.
func TestRecoveryClockFollowsChanges(t *testing.T) {
	k := newRecoveryClock(time.Hour)
	go k.set(time.Millisecond) // before or during the wait: either way it ends
	if !waitResult(t, func() bool { return k.waitFrom(context.Background(), time.Now()) }) {
		t.Fatal("wait ended without its deadline")
	}

	// Started 30 minutes ago: an hour waits, ten minutes does not.
	k = newRecoveryClock(time.Hour)
	since := time.Now().Add(-30 * time.Minute)
	ctx, cancel := k.contextFrom(context.Background(), since)
	defer cancel()
	select {
	case <-ctx.Done():
		t.Fatal("context ended with 30 of 60 minutes left")
	case <-time.After(20 * time.Millisecond):
	}
	k.set(10 * time.Minute)
	select {
	case <-ctx.Done():
	case <-time.After(time.Minute):
		t.Fatal("context still open past its lowered deadline")
	}
}

// TestRecoveryClockStopsWithItsContext: a wait whose context ends reports
// that its deadline did not come.
func TestRecoveryClockStopsWithItsContext(t *testing.T) {
	k := newRecoveryClock(time.Hour)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if waitResult(t, func() bool { return k.waitFrom(ctx, time.Now()) }) {
		t.Fatal("a cancelled wait reported its deadline")
	}
	k.set(time.Hour) // unchanged: nothing to wake
	if d, _ := k.current(); d != time.Hour {
		t.Fatalf("timeout %v", d)
	}
}
