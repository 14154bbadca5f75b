// Package mutationquota is KIP-599's controller mutation quota, as a
// ZooKeeper-mode Kafka broker enforces it on CreateTopics, CreatePartitions
// and DeleteTopics: each (user, client id) that a controller_mutation_rate
// quota covers has a token bucket of partitions, refilled at the rate and
// holding at most rate × samples × window seconds (Kafka's
// controller.quota.window.num, 11, and controller.quota.window.size.seconds,
// 1). A mutation of n partitions takes n tokens.
//
// Strict quotas (CreateTopics v6+, CreatePartitions v3+, DeleteTopics v5+)
// refuse a mutation while the bucket is below zero, with
// THROTTLING_QUOTA_EXCEEDED; one that finds tokens left is allowed even if
// it takes the bucket below zero. Permissive quotas (older versions) allow
// every mutation and only report a throttle time. The throttle time is the
// time the bucket needs to climb back to zero, reported by the request
// that found it below zero.
//
// The package is pure: the quota configs and the clock come from the
// caller.
package mutationquota

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// Rates are the controller_mutation_rate quotas (partitions/s) configured
// for the entities that may cover one user and client id, nil where the
// entity has none.
type Rates struct {
	UserClient               *float64 // /config/users/<user>/clients/<client id>
	UserDefaultClient        *float64 // /config/users/<user>/clients/<default>
	User                     *float64 // /config/users/<user>
	DefaultUserClient        *float64 // /config/users/<default>/clients/<client id>
	DefaultUserDefaultClient *float64 // /config/users/<default>/clients/<default>
	DefaultUser              *float64 // /config/users/<default>
	Client                   *float64 // /config/clients/<client id>
	DefaultClient            *float64 // /config/clients/<default>
}

// Limit is the quota that applies to one user and client id: its rate and
// the bucket it draws from.
type Limit struct {
	Rate float64
	// Bucket names the bucket: the user, the client id or both, as the
	// covering entity's level says (Kafka's quota metric tags). A default
	// entity's rate still gives each user or client id a bucket of its own.
	Bucket string
}

// Resolve picks the quota that covers user (the principal's sanitized
// name) and clientID, in Kafka's order: user and client id, user and
// default client id, user, default user and client id, default user and
// default client id, default user, client id, default client id. ok is
// false when none does: the mutations are unbounded.
func Resolve(user, clientID string, r Rates) (Limit, bool) {
	tagUser, tagClient := "", clientID
	switch {
	case r.UserClient != nil || r.UserDefaultClient != nil:
		tagUser = user
	case r.User != nil:
		tagUser, tagClient = user, ""
	case r.DefaultUserClient != nil || r.DefaultUserDefaultClient != nil:
		tagUser = user
	case r.DefaultUser != nil:
		tagUser, tagClient = user, ""
	}
	var rate *float64
	switch {
	case tagUser != "" && tagClient != "":
		rate = first(r.UserClient, r.UserDefaultClient, r.DefaultUserClient, r.DefaultUserDefaultClient)
	case tagUser != "":
		rate = first(r.User, r.DefaultUser)
	case tagClient != "":
		rate = first(r.Client, r.DefaultClient)
	}
	if rate == nil {
		return Limit{}, false
	}
	return Limit{Rate: *rate, Bucket: fmt.Sprintf("user=%q client-id=%q", tagUser, tagClient)}, true
}

func first(rates ...*float64) *float64 {
	for _, r := range rates {
		if r != nil {
			return r
		}
	}
	return nil
}

// Options configure a Manager.
type Options struct {
	// Samples and Window are controller.quota.window.num and
	// controller.quota.window.size.seconds; zero means Kafka's 11 and 1 s.
	Samples int
	Window  time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Manager holds the buckets of one node, shared by its requests.
type Manager struct {
	samples int
	window  time.Duration
	now     func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket

	// For metrics: partitions taken from buckets, and strict refusals.
	taken, refused atomic.Int64
}

// Counts returns the partitions taken from buckets and the mutations
// refused, since the Manager was made.
func (m *Manager) Counts() (taken, refused int64) { return m.taken.Load(), m.refused.Load() }

// New returns a Manager with no buckets (each starts full).
func New(o Options) *Manager {
	m := &Manager{samples: o.Samples, window: o.Window, now: o.Now, buckets: map[string]*bucket{}}
	if m.samples <= 0 {
		m.samples = 11
	}
	if m.window <= 0 {
		m.window = time.Second
	}
	if m.now == nil {
		m.now = time.Now
	}
	return m
}

// bucket is a TokenBucket of partitions.
type bucket struct {
	tokens float64
	last   time.Time
}

func (m *Manager) burst(rate float64) float64 {
	return float64(m.samples) * m.window.Seconds() * rate
}

// refilled returns the bucket of l refilled up to now; a new one is full.
// m.mu is held.
func (m *Manager) refilled(l Limit, now time.Time) *bucket {
	b := m.buckets[l.Bucket]
	burst := m.burst(l.Rate)
	if b == nil {
		m.forgetFull(now)
		b = &bucket{tokens: burst, last: now}
		m.buckets[l.Bucket] = b
		return b
	}
	b.tokens = math.Min(burst, b.tokens+l.Rate*now.Sub(b.last).Seconds())
	b.last = now
	return b
}

// forgetFull drops buckets that have refilled completely, once there are
// many: a full bucket is what a new one would be. Kafka expires its quota
// sensors after an hour without use to the same end. m.mu is held.
func (m *Manager) forgetFull(now time.Time) {
	if len(m.buckets) < 1024 {
		return
	}
	for key, b := range m.buckets {
		// The rate is not kept with the bucket: one idle for an hour is
		// full at any rate above 0.0003 partitions/s.
		if now.Sub(b.last) > time.Hour && b.tokens >= 0 {
			delete(m.buckets, key)
		}
	}
}

// ThrottledError refuses a mutation under a strict quota.
type ThrottledError struct {
	ThrottleMillis int32
}

func (e *ThrottledError) Error() string { return "The throttling quota has been exceeded." }

// Quota is one request's view of its bucket.
type Quota struct {
	m      *Manager
	limit  Limit
	strict bool

	throttle time.Duration // the last violation's throttle time
	at       time.Time     // when it was reported
}

// For returns the quota of one request: none (unbounded) when ok is false,
// strict or permissive as its API version says.
func (m *Manager) For(l Limit, ok, strict bool) *Quota {
	if !ok || m == nil {
		return nil
	}
	return &Quota{m: m, limit: l, strict: strict}
}

// Record takes permits partitions from the bucket. A strict quota refuses
// with a *ThrottledError while the bucket is below zero, and takes
// nothing then; a permissive one never refuses. A nil Quota is unbounded.
func (q *Quota) Record(permits int) error {
	if q == nil {
		return nil
	}
	m := q.m
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	b := m.refilled(q.limit, now)
	if q.strict && b.tokens < 0 {
		q.violated(b.tokens, now)
		m.refused.Add(1)
		return &ThrottledError{ThrottleMillis: q.ThrottleMillis()}
	}
	m.taken.Add(int64(permits))
	b.tokens = math.Min(m.burst(q.limit.Rate), b.tokens-float64(permits))
	if !q.strict && b.tokens < 0 {
		q.violated(b.tokens, now)
	}
	return nil
}

// violated notes the time the bucket, at tokens, needs to reach zero.
func (q *Quota) violated(tokens float64, now time.Time) {
	ms := float64(math.MaxInt32) // a rate of 0 never refills
	if q.limit.Rate > 0 {
		ms = min(ms, math.Round(-tokens/q.limit.Rate*1000))
	}
	q.throttle, q.at = time.Duration(ms)*time.Millisecond, now
}

// ThrottleMillis is the throttle time for the response: what is left of
// the last violation's, 0 without one. A nil Quota gives 0.
func (q *Quota) ThrottleMillis() int32 {
	if q == nil || q.throttle == 0 {
		return 0
	}
	left := q.throttle - q.m.now().Sub(q.at)
	if left <= 0 {
		return 0
	}
	return int32(min(left.Milliseconds(), math.MaxInt32))
}
