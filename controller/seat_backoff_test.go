package controller

import (
	"testing"
	"time"
)

// TestReclaimBackoffPacing: reclaims are paced: the first at once, then 1 s, 2 s, 4 s
// ... capped at 30 s after the previous attempt; a quiet spell starts over.
func TestReclaimBackoffPacing(t *testing.T) {
	var b reclaimBackoff
	now := time.Unix(1000, 0)
	if d := b.delay(now); d != 0 {
		t.Fatalf("first reclaim waits %s", d)
	}
	want := []time.Duration{1, 2, 4, 8, 16, 30, 30}
	for i, w := range want {
		b.attempted(now)
		now = now.Add(100 * time.Millisecond) // the broker takes the seat back
		if d, exp := b.delay(now), w*time.Second-100*time.Millisecond; d != exp {
			t.Fatalf("after attempt %d: wait %s, want %s", i+1, d, exp)
		}
		now = now.Add(b.delay(now))
	}
	// Once the owed pause has passed, no wait.
	if d := b.delay(now); d != 0 {
		t.Fatalf("after the pause: wait %s", d)
	}
	// A quiet spell resets the growth.
	now = now.Add(reclaimQuiet)
	b.attempted(now)
	if d := b.delay(now); d != reclaimMinWait {
		t.Fatalf("after a quiet spell and one attempt: wait %s, want %s", d, reclaimMinWait)
	}
}
