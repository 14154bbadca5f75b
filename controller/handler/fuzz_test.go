package handler

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// FuzzDispatch decodes arbitrary bodies for every route at every version
// it serves and dispatches what decodes to the handlers over a fake
// cluster: no panic, and every response must encode and decode back at
// the request's version, as a client would read it.
//
//	go test -run '^$' -fuzz FuzzDispatch -fuzztime 60s ./controller/handler/
func FuzzDispatch(f *testing.F) {
	seeds := []kmsg.Request{
		mdReq(0), mdReq(4, "foo", "new"), mdAll(12),
		ctReq(0, 0, false, ctTopic{name: "a", parts: 1, rf: 1}, ctTopic{name: "a", parts: 2, rf: 1}),
		ctReq(7, 100, true, ctTopic{name: "b", parts: -1, rf: -1, asg: map[int32][]int32{0: {1}}}),
		dtReq(6, 100, "foo"), dtReq(0, 0, "foo"),
		cpReq(3, 100, false, cpTopic{name: "foo", count: 3}),
		dcReq(4, true, dcRes(topicRes, "foo"), dcRes(brokerRes, "")),
		acReq(false, acRes(topicRes, "foo", sp("retention.ms"), sp("1"))),
		iacReq(iacRes(brokerRes, "", iop{"max.partitions", kmsg.IncrementalAlterConfigOpSet, sp("5")})),
		kmsg.NewPtrDescribeClusterRequest(),
		elReq(0, 0, 100, map[string][]int32{"foo": {0, 1}}), elReq(2, 1, 100, nil),
		v3Req(ElectLeadersV3Topic{Topic: "foo", Partitions: []int32{0, 1}, DesiredLeaders: []int32{2, 1}}),
		aprReq(move{"foo", 0, []int32{2, 1}}, move{"foo", 1, nil}),
		kmsg.NewPtrListPartitionReassignmentsRequest(),
		dtpReq(3, cursor("foo", 1)), dtpReq(10, nil, "foo", "bar"),
		findCoordinatorReq(3, 0, "g"), findCoordinatorReq(4, 1, "t", "u"),
		kmsg.NewPtrListGroupsRequest(), kmsg.NewPtrListTransactionsRequest(), kmsg.NewPtrDescribeLogDirsRequest(),
		describeACLs(1, 3), createACLs(3, 4), deleteACLs(0, 3),
		quotaDescribeSeed(), quotaAlterSeed(), scramDescribeSeed(), scramAlterReq(),
		tokenCreateSeed(), tokenRenewSeed(), tokenExpireSeed(), tokenDescribeSeed(),
	}
	for _, s := range seeds {
		f.Add(s.Key(), s.GetVersion(), s.AppendTo(nil))
	}
	f.Fuzz(func(t *testing.T, key, version int16, body []byte) {
		h := fuzzHandlers(t)
		var route wire.Route
		for _, r := range h.Routes() {
			if r.Key == key {
				route = r
			}
		}
		if route.Handler == nil || !route.Contains(version) {
			return
		}
		req := decodeFor(route, key, version, body)
		if req == nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		resp, err := route.Handler.Handle(ctx, &wire.Request{Key: key, Version: version, Body: req,
			Principal: wire.AnonymousPrincipal(), Protocol: wire.ProtocolSASLPlaintext})
		if errors.Is(err, errUnknownACLElements) {
			return // the connection is closed, as Kafka closes it
		}
		if err != nil {
			t.Fatalf("handler failed: %v", err)
		}
		resp.SetVersion(version)
		back := req.ResponseKind()
		back.SetVersion(version)
		if err := back.ReadFrom(resp.AppendTo(nil)); err != nil {
			t.Fatalf("%s v%d response does not decode: %v", kmsg.NameForKey(key), version, err)
		}
	})
}

// decodeFor decodes body as the route would, nil when it does not decode.
func decodeFor(route wire.Route, key, version int16, body []byte) kmsg.Request {
	if d, ok := route.Decoders[version]; ok {
		req, err := d.Decode(body)
		if err != nil {
			return nil
		}
		return req
	}
	req := kmsg.RequestForKey(key)
	req.SetVersion(version)
	if req.ReadFrom(body) != nil {
		return nil
	}
	return req
}

// fuzzHandlers serves a small cluster whose fake Admin plays an instant
// controller, and refuses partition counts a fuzzer would use to exhaust
// memory (the real Admin answers those with the partition limits).
func fuzzHandlers(t *testing.T) *Handlers {
	v := withTopics(degradedView(), onlineTopic("a", 4, []int32{1, 2}))
	views := NewViews(v)
	admin := newFakeAdmin(views)
	admin.publish, admin.maxPartitions = true, 1000
	elector := fakeDesiredElector{&fakeElector{views: views, publish: true}}
	cfg := config.Default()
	cfg.NodeID = selfID
	cfg.Props = map[string]string{config.DelegationTokenSecretKey: "fuzz-secret"}
	withQuotas := struct {
		*fakeAdmin
		quotaEcho
		tokenEcho
	}{admin, quotaEcho{}, tokenEcho{}}
	h, err := New(Options{Cluster: views, Admin: withQuotas, Elector: elector, Config: cfg, ACLs: &fakeACLs{},
		Authorizer: denyAuthz{deny(OpDescribe, "bar"): true, deny(OpCreate, "new"): true}})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// tokenEcho is a TokenAdmin holding one token, owned by User:ANONYMOUS
// (the fuzzed requests' principal) so that changes reach the rules.
type tokenEcho struct{}

func (tokenEcho) token() znodes.DelegationToken {
	p := znodes.TokenPrincipal{Type: "User", Name: "ANONYMOUS"}
	return znodes.DelegationToken{ID: "fuzz-token", Owner: p, Requester: p, IssueMs: 1, MaxMs: 1 << 50, ExpiryMs: 1 << 49}
}

func (tokenEcho) CreateDelegationToken(context.Context, znodes.DelegationToken) error { return nil }

func (e tokenEcho) ChangeDelegationToken(_ context.Context, _, _ []byte, decide zkadmin.TokenDecision) (znodes.DelegationToken, bool, error) {
	return decide(e.token())
}

func (e tokenEcho) DelegationTokens(context.Context) ([]zkadmin.StoredToken, error) {
	return []zkadmin.StoredToken{{Token: e.token()}}, nil
}

func tokenCreateSeed() kmsg.Request {
	r := kmsg.NewPtrCreateDelegationTokenRequest()
	r.Version, r.MaxLifetimeMillis = 3, 1000
	r.Renewers = []kmsg.CreateDelegationTokenRequestRenewer{{PrincipalType: "User", PrincipalName: "bob"}}
	return r
}

func tokenRenewSeed() kmsg.Request {
	r := kmsg.NewPtrRenewDelegationTokenRequest()
	r.Version, r.HMAC, r.RenewTimeMillis = 2, []byte("mac"), -1
	return r
}

func tokenExpireSeed() kmsg.Request {
	r := kmsg.NewPtrExpireDelegationTokenRequest()
	r.Version, r.HMAC, r.ExpiryPeriodMillis = 1, []byte("mac"), -1
	return r
}

func tokenDescribeSeed() kmsg.Request {
	r := kmsg.NewPtrDescribeDelegationTokenRequest()
	r.Version = 3
	r.Owners = []kmsg.DescribeDelegationTokenRequestOwner{{PrincipalType: "User", PrincipalName: "ANONYMOUS"}}
	return r
}
