package handler

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/mutationquota"
)

// ratesAdmin is the fake Admin with controller mutation quotas.
type ratesAdmin struct {
	*fakeAdmin
	rates mutationquota.Rates
	reads int
}

func (a *ratesAdmin) ControllerMutationRates(_ context.Context, user, clientID string) (mutationquota.Rates, error) {
	a.reads++
	return a.rates, nil
}

// TestControllerMutationQuota: KIP-599 on the three APIs, with the
// default user's quota of 1 partition/s (a bucket of 11) covering the
// anonymous requester. A strict version refuses each topic while the
// bucket is below zero, with Kafka's code and no message; a permissive one
// never refuses; both report the time the bucket needs to reach zero,
// once it went below it; validateOnly takes nothing.
func TestControllerMutationQuota(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	var admin *ratesAdmin
	f := newFixture(t, baseView(), func(o *Options) {
		admin = &ratesAdmin{fakeAdmin: o.Admin.(*fakeAdmin), rates: mutationquota.Rates{DefaultUser: new(1.0)}}
		o.Admin, o.Clock = admin, func() time.Time { return now }
	})
	f.admin.publish = true
	create := func(version int16, validateOnly bool, topics ...ctTopic) *kmsg.CreateTopicsResponse {
		t.Helper()
		return f.call(ctReq(version, 10000, validateOnly, topics...)).(*kmsg.CreateTopicsResponse)
	}
	codes := func(resp *kmsg.CreateTopicsResponse) []int16 {
		var out []int16
		for _, rt := range resp.Topics {
			out = append(out, rt.ErrorCode)
			if rt.ErrorCode == kerr.ThrottlingQuotaExceeded.Code && rt.ErrorMessage != nil {
				t.Errorf("%s: message %q, Kafka sends none", rt.Topic, *rt.ErrorMessage)
			}
		}
		return out
	}

	// validateOnly takes nothing, even beyond the bucket.
	if got := create(6, true, ctTopic{name: "big", parts: 50, rf: 1}); got.ThrottleMillis != 0 || codes(got)[0] != 0 {
		t.Fatalf("validateOnly: %+v", got)
	}
	// The full bucket takes 12, the next topic of the same request is refused.
	got := create(6, false, ctTopic{name: "a", parts: 12, rf: 1}, ctTopic{name: "b", parts: 1, rf: 1})
	if c := codes(got); c[0] != 0 || c[1] != kerr.ThrottlingQuotaExceeded.Code || got.ThrottleMillis != 1000 {
		t.Fatalf("strict create: codes %v throttle %d", c, got.ThrottleMillis)
	}
	// Permissive: accepted, told to wait 1.5 s (at -1.5 after 0.5 s of refill).
	now = now.Add(500 * time.Millisecond)
	got = create(5, false, ctTopic{name: "c", parts: 1, rf: 1})
	if c := codes(got); c[0] != 0 || got.ThrottleMillis != 1500 {
		t.Fatalf("permissive create: codes %v throttle %d", c, got.ThrottleMillis)
	}

	grow := func(version int16, count int32) *kmsg.CreatePartitionsResponse {
		r := kmsg.NewPtrCreatePartitionsRequest()
		r.Version, r.TimeoutMillis = version, 10000
		rt := kmsg.NewCreatePartitionsRequestTopic()
		rt.Topic, rt.Count = "c", count
		r.Topics = append(r.Topics, rt)
		return f.call(r).(*kmsg.CreatePartitionsResponse)
	}
	now = now.Add(2 * time.Second) // back to +0.5
	if r := grow(3, 3); r.Topics[0].ErrorCode != 0 || r.ThrottleMillis != 0 {
		t.Fatalf("strict grow with tokens left: %+v", r)
	}
	if r := grow(3, 4); r.Topics[0].ErrorCode != kerr.ThrottlingQuotaExceeded.Code || r.ThrottleMillis != 1500 {
		t.Fatalf("strict grow below zero: %+v", r)
	}
	if r := grow(2, 4); r.Topics[0].ErrorCode != 0 || r.ThrottleMillis != 2500 {
		t.Fatalf("permissive grow: %+v", r)
	}

	del := func(version int16, names ...string) *kmsg.DeleteTopicsResponse {
		r := kmsg.NewPtrDeleteTopicsRequest()
		r.Version, r.TimeoutMillis, r.TopicNames = version, 0, names
		return f.call(r).(*kmsg.DeleteTopicsResponse)
	}
	if r := del(5, "a"); r.Topics[0].ErrorCode != kerr.ThrottlingQuotaExceeded.Code || r.ThrottleMillis != 2500 {
		t.Fatalf("strict delete below zero: %+v", r)
	}
	now = now.Add(3 * time.Second) // +0.5
	if r := del(5, "a", "c"); r.Topics[0].ErrorCode != kerr.RequestTimedOut.Code ||
		r.Topics[1].ErrorCode != kerr.ThrottlingQuotaExceeded.Code || r.ThrottleMillis != 11500 {
		t.Fatalf("strict delete: the first topic takes its 12, the second is refused: %+v", r)
	}

	// Without a quota nothing is refused or throttled, and quotas are read
	// once per request.
	admin.rates, admin.reads = mutationquota.Rates{}, 0
	if got := create(7, false, ctTopic{name: "d", parts: 40, rf: 1}, ctTopic{name: "e", parts: 40, rf: 1}); codes(got)[0] != 0 ||
		codes(got)[1] != 0 || got.ThrottleMillis != 0 || admin.reads != 1 {
		t.Fatalf("no quota: %+v, %d reads", got, admin.reads)
	}
}
