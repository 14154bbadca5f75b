package mutationquota

import (
	"errors"
	"math"
	"testing"
	"time"
)

func rate(v float64) *float64 { return &v }

func TestResolveFollowsKafkasOrder(t *testing.T) {
	all := Rates{
		UserClient: rate(1), UserDefaultClient: rate(2), User: rate(3), DefaultUserClient: rate(4),
		DefaultUserDefaultClient: rate(5), DefaultUser: rate(6), Client: rate(7), DefaultClient: rate(8),
	}
	// Removing each level in turn uncovers the next.
	steps := []struct {
		drop       func(*Rates)
		wantRate   float64
		wantBucket string
	}{
		{func(*Rates) {}, 1, `user="alice" client-id="app"`},
		{func(r *Rates) { r.UserClient = nil }, 2, `user="alice" client-id="app"`},
		{func(r *Rates) { r.UserDefaultClient = nil }, 3, `user="alice" client-id=""`},
		{func(r *Rates) { r.User = nil }, 4, `user="alice" client-id="app"`},
		{func(r *Rates) { r.DefaultUserClient = nil }, 5, `user="alice" client-id="app"`},
		{func(r *Rates) { r.DefaultUserDefaultClient = nil }, 6, `user="alice" client-id=""`},
		{func(r *Rates) { r.DefaultUser = nil }, 7, `user="" client-id="app"`},
		{func(r *Rates) { r.Client = nil }, 8, `user="" client-id="app"`},
	}
	r := all
	for i, s := range steps {
		s.drop(&r)
		l, ok := Resolve("alice", "app", r)
		if !ok || l.Rate != s.wantRate || l.Bucket != s.wantBucket {
			t.Fatalf("step %d: got %+v %v, want rate %v bucket %s", i, l, ok, s.wantRate, s.wantBucket)
		}
	}
	r.DefaultClient = nil
	if l, ok := Resolve("alice", "app", r); ok {
		t.Fatalf("no quota: got %+v", l)
	}
	// A user-level quota for someone else leaves this user unbounded.
	if l, ok := Resolve("alice", "app", Rates{}); ok {
		t.Fatalf("got %+v", l)
	}
	// An empty client id: the user's own quotas, then the default user's.
	if l, ok := Resolve("alice", "", Rates{DefaultUserDefaultClient: rate(5), DefaultUser: rate(6)}); !ok || l.Rate != 6 {
		t.Fatalf("empty client id: got %+v %v", l, ok)
	}
	// Default entities give each user (or client id) its own bucket.
	a, _ := Resolve("alice", "x", Rates{DefaultUser: rate(1)})
	b, _ := Resolve("bob", "x", Rates{DefaultUser: rate(1)})
	c, _ := Resolve("alice", "y", Rates{DefaultUser: rate(1)})
	if a.Bucket == b.Bucket || a.Bucket != c.Bucket {
		t.Fatalf("buckets %q %q %q", a.Bucket, b.Bucket, c.Bucket)
	}
}

type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

func throttled(t *testing.T, err error) int32 {
	t.Helper()
	var te *ThrottledError
	if !errors.As(err, &te) {
		t.Fatalf("got %v, want THROTTLING_QUOTA_EXCEEDED", err)
	}
	if te.Error() != "The throttling quota has been exceeded." {
		t.Fatalf("message %q", te.Error())
	}
	return te.ThrottleMillis
}

func TestStrictQuota(t *testing.T) {
	clk := &clock{t: time.Unix(1_700_000_000, 0)}
	m := New(Options{Now: clk.now})
	l := Limit{Rate: 2, Bucket: "b"} // burst 22
	q := m.For(l, true, true)
	// A full bucket takes a mutation larger than itself, once.
	if err := q.Record(30); err != nil {
		t.Fatal(err)
	}
	if q.ThrottleMillis() != 0 {
		t.Fatalf("no violation yet, throttle %d", q.ThrottleMillis())
	}
	// 8 tokens short: 4 s at 2/s.
	if ms := throttled(t, q.Record(1)); ms != 4000 {
		t.Fatalf("throttle %d, want 4000", ms)
	}
	clk.advance(time.Second)
	if q.ThrottleMillis() != 3000 {
		t.Fatalf("throttle after 1 s: %d", q.ThrottleMillis())
	}
	// Another request sees the same bucket, refilled to -6.
	q2 := m.For(l, true, true)
	if ms := throttled(t, q2.Record(1)); ms != 3000 {
		t.Fatalf("second request: %d", ms)
	}
	clk.advance(3 * time.Second)
	if err := q2.Record(5); err != nil {
		t.Fatalf("back at zero: %v", err)
	}
	// The refill stops at the burst.
	clk.advance(time.Hour)
	q3 := m.For(l, true, true)
	if err := q3.Record(22); err != nil {
		t.Fatal(err)
	}
	if err := q3.Record(1); err != nil {
		t.Fatalf("at exactly zero the bucket is not below: %v", err)
	}
	if ms := throttled(t, q3.Record(1)); ms != 500 {
		t.Fatalf("one token short: %d", ms)
	}
	// Another bucket is untouched.
	if err := m.For(Limit{Rate: 2, Bucket: "other"}, true, true).Record(22); err != nil {
		t.Fatal(err)
	}
	if taken, refused := m.Counts(); taken != 30+5+22+1+22 || refused != 3 {
		t.Fatalf("counts %d taken, %d refused", taken, refused)
	}
}

func TestPermissiveQuota(t *testing.T) {
	clk := &clock{t: time.Unix(1_700_000_000, 0)}
	m := New(Options{Now: clk.now, Samples: 2, Window: 500 * time.Millisecond})
	l := Limit{Rate: 10, Bucket: "b"} // burst 10
	q := m.For(l, true, false)
	if err := q.Record(10); err != nil || q.ThrottleMillis() != 0 {
		t.Fatalf("%v %d", err, q.ThrottleMillis())
	}
	// Never refused; the throttle time is reported once below zero.
	if err := q.Record(15); err != nil {
		t.Fatal(err)
	}
	if q.ThrottleMillis() != 1500 {
		t.Fatalf("throttle %d, want 1500", q.ThrottleMillis())
	}
	// A strict request of the same user and client id now waits.
	if ms := throttled(t, m.For(l, true, true).Record(1)); ms != 1500 {
		t.Fatalf("strict after permissive: %d", ms)
	}
}

func TestUnboundedAndZeroRate(t *testing.T) {
	clk := &clock{t: time.Unix(1_700_000_000, 0)}
	m := New(Options{Now: clk.now})
	var none *Quota = m.For(Limit{}, false, true)
	if none != nil || none.Record(1_000_000) != nil || none.ThrottleMillis() != 0 {
		t.Fatal("no quota must be unbounded")
	}
	var nilManager *Manager
	if nilManager.For(Limit{Rate: 1, Bucket: "b"}, true, true) != nil {
		t.Fatal("a nil Manager must give no quota")
	}
	// A rate of 0: one mutation passes, then every one is refused.
	q := m.For(Limit{Rate: 0, Bucket: "zero"}, true, true)
	if err := q.Record(1); err != nil {
		t.Fatal(err)
	}
	if ms := throttled(t, q.Record(1)); ms != math.MaxInt32 {
		t.Fatalf("throttle %d", ms)
	}
}

func TestIdleBucketsAreForgotten(t *testing.T) {
	clk := &clock{t: time.Unix(1_700_000_000, 0)}
	m := New(Options{Now: clk.now})
	for i := range 1024 {
		if err := m.For(Limit{Rate: 1, Bucket: string(rune('a'+i%26)) + string(rune(i))}, true, true).Record(1); err != nil {
			t.Fatal(err)
		}
	}
	clk.advance(2 * time.Hour)
	if err := m.For(Limit{Rate: 1, Bucket: "new"}, true, true).Record(1); err != nil {
		t.Fatal(err)
	}
	if len(m.buckets) != 1 {
		t.Fatalf("%d buckets kept", len(m.buckets))
	}
}
