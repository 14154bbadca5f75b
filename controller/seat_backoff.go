package controller

import "time"

// Reclaim pacing: the first reclaim after a quiet spell goes at once; each
// further one waits twice as long as the one before (from reclaimMinWait up
// to reclaimMaxWait) after the previous attempt. A spell of reclaimQuiet
// without attempts starts over. A broker that keeps taking the seat back
// (say, a second kzadmind-like tool fighting for it) then costs one
// election every 30 s, not a storm.
const (
	reclaimMinWait = time.Second
	reclaimMaxWait = 30 * time.Second
	reclaimQuiet   = 2 * time.Minute
)

// reclaimBackoff paces reclaims. The zero value is ready; it is pure
// (the caller passes the time), so tests drive it with a fake clock.
type reclaimBackoff struct {
	last time.Time     // the previous attempt; zero: none
	wait time.Duration // the pause owed after last
}

// delay returns how long to wait, from now, before the next attempt.
func (b *reclaimBackoff) delay(now time.Time) time.Duration {
	if b.quiet(now) {
		return 0
	}
	return max(b.last.Add(b.wait).Sub(now), 0)
}

// attempted records an attempt at now and grows the pause owed after it.
func (b *reclaimBackoff) attempted(now time.Time) {
	if b.quiet(now) {
		b.wait = reclaimMinWait
	} else {
		b.wait = min(2*b.wait, reclaimMaxWait)
	}
	b.last = now
}

func (b *reclaimBackoff) quiet(now time.Time) bool {
	return b.last.IsZero() || now.Sub(b.last) >= reclaimQuiet
}
