package handler

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/security/tokens"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// The delegation-token APIs (38-41). The rules they follow are
// security/tokens' and are tested there; these tests pin what the handlers
// add: Kafka's allowTokenRequests, the order of the refusals, the answer
// shapes, the authorizer questions, and the clock and configuration they
// read. Success paths run over the real zkadmin.Admin and ZooKeeper;
// fakeTokens, a TokenAdmin in memory, serves the refusals (where the
// TokenAdmin must not be reached) and the mapping of its errors.

// The real zkadmin.Admin must serve the token APIs as is.
var _ TokenAdmin = (*zkadmin.Admin)(nil)

const tokenSecret = "token-secret"

// The configured lifetimes, short and distinct so that every min() the
// rules take shows in the timestamps.
const (
	tokenMaxLifetime = 10 * time.Hour
	tokenExpiryTime  = 2 * time.Hour
)

// tokenT0 is where every test's clock starts.
var tokenT0 = time.UnixMilli(1_700_000_000_000)

// tokenCfg is the default configuration with the token lifetimes above
// and, unless secret is "", delegation.token.secret.key.
func tokenCfg(secret string) config.Config {
	cfg := config.Default()
	cfg.NodeID = selfID
	cfg.Props = map[string]string{}
	if secret != "" {
		cfg.Props[config.DelegationTokenSecretKey] = secret
	}
	cfg.DelegationTokenMaxLifetime, cfg.DelegationTokenExpiryTime = tokenMaxLifetime, tokenExpiryTime
	return cfg
}

// fakeClock is Options.Clock, moved by hand.
type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time          { return c.now }
func (c *fakeClock) advance(d time.Duration) { c.now = c.now.Add(d) }
func (c *fakeClock) ms() int64               { return c.now.UnixMilli() }

// authQ is one authorizer question: who asked for op on r.
type authQ struct {
	who wire.Principal
	op  Operation
	r   Resource
}

func (q authQ) String() string { return fmt.Sprintf("%s %d %d %s", q.who, q.op, q.r.Type, q.r.Name) }

// tokenAuthz allows exactly the (operation, resource) pairs in allow, to
// anyone, and records every question, so that a test sees both the
// resource type and name the handlers checked and that they asked nothing
// when a refusal comes first.
type tokenAuthz struct {
	allow map[authQ]bool // keyed with who unset
	asked []authQ
}

func (a *tokenAuthz) Authorize(_ context.Context, p wire.Principal, op Operation, r Resource) bool {
	a.asked = append(a.asked, authQ{who: p, op: op, r: r})
	return a.allow[authQ{op: op, r: r}]
}

// reset allows qs alone and forgets the questions asked.
func (a *tokenAuthz) reset(qs ...authQ) {
	a.allow, a.asked = map[authQ]bool{}, nil
	for _, q := range qs {
		a.allow[q] = true
	}
}

func (a *tokenAuthz) questions() string {
	var out []string
	for _, q := range a.asked {
		out = append(out, q.String())
	}
	return strings.Join(out, ", ")
}

func mayCreateTokensFor(owner string) authQ {
	return authQ{op: OpCreateTokens, r: Resource{Type: ResourceUser, Name: owner}}
}

func mayDescribeToken(id string) authQ {
	return authQ{op: OpDescribe, r: Resource{Type: ResourceDelegationToken, Name: id}}
}

func mayDescribeTokensOf(owner string) authQ {
	return authQ{op: OpDescribeTokens, r: Resource{Type: ResourceUser, Name: owner}}
}

func user(name string) wire.Principal { return wire.Principal{Type: "User", Name: name} }

func tokenUser(name string) znodes.TokenPrincipal {
	return znodes.TokenPrincipal{Type: "User", Name: name}
}

// tokenConn is the connection a request arrives on: its listener's
// security protocol, the principal it authenticated as, and whether it
// authenticated with a delegation token.
type tokenConn struct {
	protocol  string
	principal wire.Principal
	tokenAuth bool
}

func (c tokenConn) String() string {
	s := c.protocol + "/" + c.principal.String()
	if c.tokenAuth {
		s += "/token"
	}
	return s
}

func sasl(name string) tokenConn {
	return tokenConn{protocol: wire.ProtocolSASLPlaintext, principal: user(name)}
}

// callAs is fixture.call from conn: the request goes through the wire
// format at its version, as a client sends it, and the response comes
// back through it. It returns the handler's own response too, whose nil
// and empty fields the wire does not tell apart.
func callAs[R kmsg.Response](t *testing.T, h *Handlers, conn tokenConn, body kmsg.Request) (raw, got R) {
	t.Helper()
	var route wire.Route
	for _, r := range h.Routes() {
		if r.Key == body.Key() {
			route = r
		}
	}
	if route.Handler == nil {
		t.Fatalf("no route for key %d", body.Key())
	}
	version := body.GetVersion()
	decoded := kmsg.RequestForKey(body.Key())
	decoded.SetVersion(version)
	if err := decoded.ReadFrom(body.AppendTo(nil)); err != nil {
		t.Fatalf("decode request: %v", err)
	}
	req := &wire.Request{Key: body.Key(), Version: version, Body: decoded,
		Principal: conn.principal, Protocol: conn.protocol, TokenAuthenticated: conn.tokenAuth}
	resp, err := route.Handler.Handle(context.Background(), req)
	if err != nil {
		t.Fatalf("handle: %v", err)
	}
	resp.SetVersion(version)
	out := body.ResponseKind()
	out.SetVersion(version)
	if err := out.ReadFrom(resp.AppendTo(nil)); err != nil {
		t.Fatalf("decode response: %v", err)
	}
	return resp.(R), out.(R)
}

func createReq(version int16, maxLifetime int64, renewers ...wire.Principal) *kmsg.CreateDelegationTokenRequest {
	r := kmsg.NewPtrCreateDelegationTokenRequest()
	r.Version, r.MaxLifetimeMillis = version, maxLifetime
	for _, p := range renewers {
		rn := kmsg.NewCreateDelegationTokenRequestRenewer()
		rn.PrincipalType, rn.PrincipalName = p.Type, p.Name
		r.Renewers = append(r.Renewers, rn)
	}
	return r
}

func renewReq(version int16, mac []byte, periodMs int64) *kmsg.RenewDelegationTokenRequest {
	r := kmsg.NewPtrRenewDelegationTokenRequest()
	r.Version, r.HMAC, r.RenewTimeMillis = version, mac, periodMs
	return r
}

func expireReq(version int16, mac []byte, periodMs int64) *kmsg.ExpireDelegationTokenRequest {
	r := kmsg.NewPtrExpireDelegationTokenRequest()
	r.Version, r.HMAC, r.ExpiryPeriodMillis = version, mac, periodMs
	return r
}

// describeReq lists owners; nil owners ask for every token.
func describeReq(version int16, owners []wire.Principal) *kmsg.DescribeDelegationTokenRequest {
	r := kmsg.NewPtrDescribeDelegationTokenRequest()
	r.Version = version
	if owners != nil {
		r.Owners = []kmsg.DescribeDelegationTokenRequestOwner{}
	}
	for _, o := range owners {
		r.Owners = append(r.Owners, kmsg.DescribeDelegationTokenRequestOwner{PrincipalType: o.Type, PrincipalName: o.Name})
	}
	return r
}

func macOf(id string) []byte { return tokens.HMAC([]byte(tokenSecret), id) }

// fakeTokens is a TokenAdmin in memory. It records what it is given;
// ChangeDelegationToken fails with err, or decides on token as the real
// one decides on the token it finds.
type fakeTokens struct {
	*fakeAdmin
	token   znodes.DelegationToken
	err     error
	calls   []string
	created []znodes.DelegationToken
	secret  []byte
	mac     []byte
}

func newFakeTokens() *fakeTokens { return &fakeTokens{fakeAdmin: newFakeAdmin(NewViews(baseView()))} }

func (f *fakeTokens) CreateDelegationToken(_ context.Context, t znodes.DelegationToken) error {
	f.calls = append(f.calls, "create")
	f.created = append(f.created, t)
	return nil
}

func (f *fakeTokens) ChangeDelegationToken(_ context.Context, secret, mac []byte, decide zkadmin.TokenDecision) (znodes.DelegationToken, bool, error) {
	f.calls = append(f.calls, "change")
	f.secret, f.mac = secret, mac
	if f.err != nil {
		return znodes.DelegationToken{}, false, f.err
	}
	return decide(f.token)
}

func (f *fakeTokens) DelegationTokens(context.Context) ([]zkadmin.StoredToken, error) {
	f.calls = append(f.calls, "list")
	return nil, f.err
}

// tokenHandlers builds handlers over admin with cfg, a fakeClock at
// tokenT0 and a tokenAuthz that allows nothing.
func tokenHandlers(t *testing.T, admin Admin, cfg config.Config) (*Handlers, *fakeClock, *tokenAuthz) {
	t.Helper()
	clock, authz := &fakeClock{now: tokenT0}, &tokenAuthz{}
	authz.reset()
	h, err := New(Options{Cluster: NewViews(baseView()), Admin: admin, Config: cfg, Clock: clock.Now, Authorizer: authz})
	if err != nil {
		t.Fatal(err)
	}
	return h, clock, authz
}

// zkTokens is the real zkadmin.Admin over the package's ZooKeeper,
// recording the tokens the handlers hand it.
type zkTokens struct {
	*zkadmin.Admin
	ctx     context.Context
	zk      *zkadmin.Client
	created []znodes.DelegationToken
}

func newZKTokens(t *testing.T, cfg config.Config) *zkTokens {
	t.Helper()
	ctx, zk, _ := handlerChroot(t)
	return &zkTokens{Admin: zkadmin.NewAdmin(zk, zkadmin.AdminOptions{Config: &cfg}), ctx: ctx, zk: zk}
}

func (z *zkTokens) CreateDelegationToken(ctx context.Context, t znodes.DelegationToken) error {
	z.created = append(z.created, t)
	return z.Admin.CreateDelegationToken(ctx, t)
}

// stored is the token id as ZooKeeper holds it.
func (z *zkTokens) stored(t *testing.T, id string) (znodes.DelegationToken, bool) {
	t.Helper()
	all, err := z.DelegationTokens(z.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range all {
		if st.Token.ID == id {
			return st.Token, true
		}
	}
	return znodes.DelegationToken{}, false
}

// TestTokenRoutes: the four APIs are served, at Kafka 3.9's versions, when
// the Admin keeps tokens, and not over one that cannot (so ApiVersions
// does not advertise them).
func TestTokenRoutes(t *testing.T) {
	want := map[int16]int16{38: 3, 39: 2, 40: 2, 41: 3}
	ranges := func(h *Handlers) map[int16]wire.VersionRange {
		out := map[int16]wire.VersionRange{}
		for _, r := range h.Routes() {
			out[r.Key] = r.VersionRange
		}
		return out
	}
	_, zk, _ := handlerChroot(t)
	cfg := tokenCfg(tokenSecret)
	h, err := New(Options{Cluster: NewViews(baseView()), Admin: zkadmin.NewAdmin(zk, zkadmin.AdminOptions{Config: &cfg}), Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	got := ranges(h)
	for k, max := range want {
		if r, ok := got[k]; !ok || r.Min != 0 || r.Max != max {
			t.Errorf("key %d over zkadmin.Admin: %+v (served %v), want v0-%d", k, r, ok, max)
		}
	}
	// Served without a secret too: Kafka answers DELEGATION_TOKEN_AUTH_DISABLED
	// rather than leaving the APIs out.
	h, _, _ = tokenHandlers(t, newFakeTokens(), tokenCfg(""))
	for k := range want {
		if _, ok := ranges(h)[k]; !ok {
			t.Errorf("key %d not served without a secret", k)
		}
	}
	fake := newFixture(t, baseView())
	for k := range want {
		if _, ok := ranges(fake.h)[k]; ok {
			t.Errorf("key %d served over an Admin without tokens", k)
		}
	}
}

// TestTokenRequestsAllowed is Kafka's allowTokenRequests: a connection
// that did not authenticate (PLAINTEXT, SSL without a client certificate)
// or authenticated with a token itself is answered
// DELEGATION_TOKEN_REQUEST_NOT_ALLOWED by all four APIs, before anything
// else is checked, secret or no secret. The others get past it, to
// DELEGATION_TOKEN_AUTH_DISABLED when no secret is configured.
func TestTokenRequestsAllowed(t *testing.T) {
	cn := wire.Principal{Type: "User", Name: "CN=client,O=example"}
	refused := []tokenConn{
		{protocol: wire.ProtocolPlaintext, principal: wire.AnonymousPrincipal()},
		// A PLAINTEXT principal builder naming someone changes nothing.
		{protocol: wire.ProtocolPlaintext, principal: user("alice")},
		// No protocol at all (an in-process call) is not trusted either.
		{protocol: "", principal: user("alice")},
		{protocol: wire.ProtocolSSL, principal: wire.AnonymousPrincipal()},
		{protocol: wire.ProtocolSSL, principal: cn, tokenAuth: true},
		{protocol: wire.ProtocolSASLPlaintext, principal: user("alice"), tokenAuth: true},
		{protocol: wire.ProtocolSASLSSL, principal: user("alice"), tokenAuth: true},
	}
	allowed := []tokenConn{
		{protocol: wire.ProtocolSSL, principal: cn},
		{protocol: wire.ProtocolSASLPlaintext, principal: user("alice")},
		{protocol: wire.ProtocolSASLSSL, principal: user("alice")},
	}
	type expectation struct {
		conn      tokenConn
		secret    string
		code      int16 // of every API
		succeeded bool  // with the secret: create and describe succeed, renew and expire reach the TokenAdmin
	}
	var cases []expectation
	for _, c := range refused {
		for _, secret := range []string{tokenSecret, ""} {
			cases = append(cases, expectation{conn: c, secret: secret, code: kerr.DelegationTokenRequestNotAllowed.Code})
		}
	}
	for _, c := range allowed {
		cases = append(cases, expectation{conn: c, code: kerr.DelegationTokenAuthDisabled.Code},
			expectation{conn: c, secret: tokenSecret, succeeded: true})
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s/secret=%v", tc.conn, tc.secret != ""), func(t *testing.T) {
			ft := newFakeTokens()
			ft.err = tokens.ErrNotFound
			h, _, authz := tokenHandlers(t, ft, tokenCfg(tc.secret))
			// The creates name another owner at v3, whom the requester may
			// create tokens for: the refusal must still name both.
			authz.reset(mayCreateTokensFor("User:bob"))
			for v := int16(0); v <= 3; v++ {
				r := createReq(v, -1)
				owner := tc.conn.principal
				if v >= 3 {
					r.OwnerPrincipalType, r.OwnerPrincipalName = sp("User"), sp("bob")
					owner = user("bob")
				}
				raw, got := callAs[*kmsg.CreateDelegationTokenResponse](t, h, tc.conn, r)
				if tc.succeeded {
					if got.ErrorCode != 0 || got.TokenID == "" {
						t.Errorf("create v%d: %s", v, dump(got))
					}
					continue
				}
				if got.ErrorCode != tc.code {
					t.Errorf("create v%d: code %d, want %d", v, got.ErrorCode, tc.code)
				}
				checkCreateRefusal(t, v, raw, got, owner, tc.conn.principal)
			}
			for v := int16(0); v <= 2; v++ {
				_, rn := callAs[*kmsg.RenewDelegationTokenResponse](t, h, tc.conn, renewReq(v, macOf("x"), 1000))
				_, ex := callAs[*kmsg.ExpireDelegationTokenResponse](t, h, tc.conn, expireReq(v, macOf("x"), -1))
				want := tc.code
				if tc.succeeded {
					want = kerr.DelegationTokenNotFound.Code // the fake's answer
				}
				if rn.ErrorCode != want || rn.ExpiryTimestamp != -1 {
					t.Errorf("renew v%d: %s, want code %d", v, dump(rn), want)
				}
				if ex.ErrorCode != want || ex.ExpiryTimestamp != -1 {
					t.Errorf("expire v%d: %s, want code %d", v, dump(ex), want)
				}
			}
			ft.err = nil
			for v := int16(0); v <= 3; v++ {
				_, got := callAs[*kmsg.DescribeDelegationTokenResponse](t, h, tc.conn, describeReq(v, nil))
				want := tc.code
				if tc.succeeded {
					want = 0
				}
				if got.ErrorCode != want || len(got.TokenDetails) != 0 {
					t.Errorf("describe v%d: %s, want code %d", v, dump(got), want)
				}
			}
			if tc.succeeded {
				return
			}
			// A refusal reaches neither the TokenAdmin nor, before
			// DELEGATION_TOKEN_AUTH_DISABLED, the authorizer of a
			// refused connection.
			if len(ft.calls) != 0 {
				t.Errorf("TokenAdmin called: %v", ft.calls)
			}
			if tc.code == kerr.DelegationTokenRequestNotAllowed.Code && len(authz.asked) != 0 {
				t.Errorf("authorizer asked %s", authz.questions())
			}
		})
	}
}

// checkCreateRefusal checks the shape of a refused create, Kafka's
// CreateDelegationTokenResponse.prepareResponse(error, owner, requester):
// the owner and (from v3) the requester, -1 timestamps, no id and an empty
// HMAC, which the handler must give non-nil.
func checkCreateRefusal(t *testing.T, v int16, raw, got *kmsg.CreateDelegationTokenResponse, owner, requester wire.Principal) {
	t.Helper()
	if got.PrincipalType != owner.Type || got.PrincipalName != owner.Name {
		t.Errorf("create v%d refused: owner %s:%s, want %s", v, got.PrincipalType, got.PrincipalName, owner)
	}
	wantReq := requester
	if v < 3 {
		wantReq = wire.Principal{} // not on the wire
	}
	if got.TokenRequesterPrincipalType != wantReq.Type || got.TokenRequesterPrincipalName != wantReq.Name {
		t.Errorf("create v%d refused: requester %s:%s, want %s", v, got.TokenRequesterPrincipalType,
			got.TokenRequesterPrincipalName, wantReq)
	}
	if got.IssueTimestamp != -1 || got.ExpiryTimestamp != -1 || got.MaxTimestamp != -1 || got.TokenID != "" || len(got.HMAC) != 0 {
		t.Errorf("create v%d refused: %s", v, dump(got))
	}
	if raw.HMAC == nil {
		t.Errorf("create v%d refused: nil HMAC", v)
	}
}

// TestCreateDelegationToken: the owner, the authorization of a token for
// another owner, the renewer and owner checks in Kafka's order, and the
// token written: its id, HMAC and timestamps from the clock and the
// configured lifetimes.
func TestCreateDelegationToken(t *testing.T) {
	z := newZKTokens(t, tokenCfg(tokenSecret))
	h, clock, authz := tokenHandlers(t, z, tokenCfg(tokenSecret))
	alice, bob := user("alice"), user("bob")
	asked := func(qs ...authQ) string {
		var out []string
		for _, q := range qs {
			q.who = alice
			out = append(out, q.String())
		}
		return strings.Join(out, ", ")
	}
	cases := []struct {
		name       string
		version    int16
		ownerType  *string
		ownerName  *string
		renewers   []wire.Principal
		maxLife    int64 // requested, ms
		allow      []authQ
		wantCode   int16
		wantOwner  wire.Principal
		wantAsked  string
		wantMax    time.Duration // after issue
		wantExpiry time.Duration
	}{
		{name: "own token, configured lifetimes", version: 1, renewers: []wire.Principal{bob, user("carol")}, maxLife: -1,
			wantOwner: alice, wantMax: tokenMaxLifetime, wantExpiry: tokenExpiryTime},
		{name: "zero lifetime is the configured one", version: 0, maxLife: 0,
			wantOwner: alice, wantMax: tokenMaxLifetime, wantExpiry: tokenExpiryTime},
		{name: "lifetime below the renew time", version: 2, maxLife: time.Hour.Milliseconds(),
			wantOwner: alice, wantMax: time.Hour, wantExpiry: time.Hour},
		{name: "lifetime above the configured max", version: 3, maxLife: (100 * time.Hour).Milliseconds(),
			wantOwner: alice, wantMax: tokenMaxLifetime, wantExpiry: tokenExpiryTime},
		{name: "owner named as the requester needs no authorization", version: 3, ownerType: sp("User"), ownerName: sp("alice"),
			maxLife: -1, wantOwner: alice, wantMax: tokenMaxLifetime, wantExpiry: tokenExpiryTime},
		{name: "empty owner name is the requester", version: 3, ownerType: sp("User"), ownerName: sp(""),
			maxLife: -1, wantOwner: alice, wantMax: tokenMaxLifetime, wantExpiry: tokenExpiryTime},
		{name: "another owner, allowed", version: 3, ownerType: sp("User"), ownerName: sp("bob"), maxLife: -1,
			allow: []authQ{mayCreateTokensFor("User:bob")}, wantOwner: bob, wantAsked: asked(mayCreateTokensFor("User:bob")),
			wantMax: tokenMaxLifetime, wantExpiry: tokenExpiryTime},
		{name: "another owner, denied", version: 3, ownerType: sp("User"), ownerName: sp("bob"), maxLife: -1,
			wantCode: kerr.DelegationTokenAuthorizationFailed.Code, wantOwner: bob, wantAsked: asked(mayCreateTokensFor("User:bob"))},
		// The resource is the owner as a whole, type included.
		{name: "owner of another type", version: 3, ownerType: sp("Group"), ownerName: sp("bob"), maxLife: -1,
			allow:    []authQ{mayCreateTokensFor("User:bob")},
			wantCode: kerr.DelegationTokenAuthorizationFailed.Code, wantOwner: wire.Principal{Type: "Group", Name: "bob"},
			wantAsked: asked(mayCreateTokensFor("Group:bob"))},
		{name: "renewer not a User", version: 1, renewers: []wire.Principal{bob, {Type: "Group", Name: "ops"}}, maxLife: -1,
			wantCode: kerr.InvalidPrincipalType.Code, wantOwner: alice},
		{name: "authorization before the renewers", version: 3, ownerType: sp("User"), ownerName: sp("bob"),
			renewers: []wire.Principal{{Type: "Group", Name: "ops"}}, maxLife: -1,
			wantCode: kerr.DelegationTokenAuthorizationFailed.Code, wantOwner: bob, wantAsked: asked(mayCreateTokensFor("User:bob"))},
		// Kafka fails on it with UNKNOWN_SERVER_ERROR; a deliberate difference.
		{name: "owner name without a type", version: 3, ownerName: sp("bob"), maxLife: -1,
			wantCode: kerr.InvalidRequest.Code, wantOwner: wire.Principal{Name: "bob"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			authz.reset(tc.allow...)
			z.created = nil
			clock.advance(time.Minute) // each token its own issue time
			r := createReq(tc.version, tc.maxLife, tc.renewers...)
			r.OwnerPrincipalType, r.OwnerPrincipalName = tc.ownerType, tc.ownerName
			raw, got := callAs[*kmsg.CreateDelegationTokenResponse](t, h, sasl("alice"), r)
			if got.ErrorCode != tc.wantCode {
				t.Fatalf("code %d, want %d: %s", got.ErrorCode, tc.wantCode, dump(got))
			}
			if q := authz.questions(); q != tc.wantAsked {
				t.Errorf("authorizer asked %q, want %q", q, tc.wantAsked)
			}
			if tc.wantCode != 0 {
				checkCreateRefusal(t, tc.version, raw, got, tc.wantOwner, alice)
				if len(z.created) != 0 {
					t.Errorf("refused, yet created %+v", z.created)
				}
				return
			}
			if got.PrincipalType != tc.wantOwner.Type || got.PrincipalName != tc.wantOwner.Name {
				t.Errorf("owner %s:%s, want %s", got.PrincipalType, got.PrincipalName, tc.wantOwner)
			}
			if tc.version >= 3 && (got.TokenRequesterPrincipalType != "User" || got.TokenRequesterPrincipalName != "alice") {
				t.Errorf("requester %s:%s", got.TokenRequesterPrincipalType, got.TokenRequesterPrincipalName)
			}
			now := clock.ms()
			if len(got.TokenID) != 22 || !bytes.Equal(got.HMAC, macOf(got.TokenID)) {
				t.Errorf("id %q, HMAC %x", got.TokenID, got.HMAC)
			}
			if got.IssueTimestamp != now || got.MaxTimestamp != now+tc.wantMax.Milliseconds() ||
				got.ExpiryTimestamp != now+tc.wantExpiry.Milliseconds() {
				t.Errorf("timestamps issue %d max %d expiry %d, want now %d +%v +%v", got.IssueTimestamp,
					got.MaxTimestamp, got.ExpiryTimestamp, now, tc.wantMax, tc.wantExpiry)
			}
			want := znodes.DelegationToken{Version: znodes.DelegationTokenVersion, ID: got.TokenID,
				Owner: tokenPrincipal(tc.wantOwner), Requester: tokenUser("alice"),
				IssueMs: got.IssueTimestamp, MaxMs: got.MaxTimestamp, ExpiryMs: got.ExpiryTimestamp}
			for _, rn := range tc.renewers {
				want.Renewers = append(want.Renewers, tokenPrincipal(rn))
			}
			if len(z.created) != 1 || !sameToken(z.created[0], want) {
				t.Errorf("TokenAdmin given %+v, want %+v", z.created, want)
			}
			if st, ok := z.stored(t, got.TokenID); !ok || !sameToken(st, want) {
				t.Errorf("ZooKeeper holds %+v (%v), want %+v", st, ok, want)
			}
		})
	}
	// Every success stored a token of its own: the ids are fresh each time.
	all, err := z.DelegationTokens(z.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(all); n != 7 {
		t.Errorf("%d tokens stored, want one per success (7)", n)
	}
}

// sameToken compares tokens with nil and empty renewers alike.
func sameToken(a, b znodes.DelegationToken) bool {
	return a.Version == b.Version && a.ID == b.ID && a.Owner == b.Owner && a.Requester == b.Requester &&
		slices.Equal(a.Renewers, b.Renewers) && a.IssueMs == b.IssueMs && a.MaxMs == b.MaxMs && a.ExpiryMs == b.ExpiryMs
}

// TestTokenChangeErrors: what a renew or an expire answers for each
// failure of the TokenAdmin, always with ExpiryTimestamp -1, and that the
// TokenAdmin is given the configured secret and the request's HMAC.
func TestTokenChangeErrors(t *testing.T) {
	ft := newFakeTokens()
	h, _, _ := tokenHandlers(t, ft, tokenCfg(tokenSecret))
	cases := []struct {
		name string
		err  error
		code int16
	}{
		{"not found", tokens.ErrNotFound, kerr.DelegationTokenNotFound.Code},
		{"owner mismatch", fmt.Errorf("change: %w", tokens.ErrOwnerMismatch), kerr.DelegationTokenOwnerMismatch.Code},
		{"expired", tokens.ErrExpired, kerr.DelegationTokenExpired.Code},
		// A token znode that does not decode (zkadmin's malformed()).
		{"malformed znode", &zkadmin.AdminError{Kind: zkadmin.KindMalformed, Code: zkadmin.CodeUnknownServerError,
			Resource: "delegation token x", Message: "cannot change delegation token x"}, kerr.UnknownServerError.Code},
		{"anything else", errors.New("boom"), kerr.UnknownServerError.Code},
	}
	mac := macOf("some-token")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ft.err = tc.err
			for v := int16(0); v <= 2; v++ {
				ft.secret, ft.mac = nil, nil
				_, rn := callAs[*kmsg.RenewDelegationTokenResponse](t, h, sasl("alice"), renewReq(v, mac, 1000))
				if rn.ErrorCode != tc.code || rn.ExpiryTimestamp != -1 {
					t.Errorf("renew v%d: %s, want code %d", v, dump(rn), tc.code)
				}
				if string(ft.secret) != tokenSecret || !bytes.Equal(ft.mac, mac) {
					t.Errorf("renew v%d: TokenAdmin given secret %q, mac %x", v, ft.secret, ft.mac)
				}
				_, ex := callAs[*kmsg.ExpireDelegationTokenResponse](t, h, sasl("alice"), expireReq(v, mac, -1))
				if ex.ErrorCode != tc.code || ex.ExpiryTimestamp != -1 {
					t.Errorf("expire v%d: %s, want code %d", v, dump(ex), tc.code)
				}
			}
		})
	}
	// The describe of a failed read answers the same codes, and no tokens.
	ft.err = errors.New("boom")
	if _, got := callAs[*kmsg.DescribeDelegationTokenResponse](t, h, sasl("alice"), describeReq(3, nil)); got.ErrorCode != kerr.UnknownServerError.Code ||
		len(got.TokenDetails) != 0 {
		t.Errorf("describe failing: %s", dump(got))
	}
	// An empty owner list is answered before any token is read, as Kafka's
	// ownersListEmpty is: the failing TokenAdmin is not reached.
	ft.calls = nil
	if _, got := callAs[*kmsg.DescribeDelegationTokenResponse](t, h, sasl("alice"), describeReq(3, []wire.Principal{})); got.ErrorCode != 0 ||
		len(got.TokenDetails) != 0 || len(ft.calls) != 0 {
		t.Errorf("describe of no owners: %s, TokenAdmin called %v", dump(got), ft.calls)
	}
}

// TestRenewExpireDelegationToken walks one token through renewals and
// expiries over ZooKeeper, the clock moving between steps: who may change
// it, the expiry each period gives (capped by the max timestamp), what
// ZooKeeper then holds, and the immediate removal a negative expiry period
// asks for, which even an expired token gets.
func TestRenewExpireDelegationToken(t *testing.T) {
	z := newZKTokens(t, tokenCfg(tokenSecret))
	h, clock, authz := tokenHandlers(t, z, tokenCfg(tokenSecret))
	t0 := clock.ms()
	_, c := callAs[*kmsg.CreateDelegationTokenResponse](t, h, sasl("alice"), createReq(1, -1, user("bob")))
	if c.ErrorCode != 0 {
		t.Fatalf("create: %s", dump(c))
	}
	id, mac := c.TokenID, c.HMAC
	const renew, expire = "renew", "expire"
	hour := time.Hour.Milliseconds()
	steps := []struct {
		name     string
		advance  time.Duration
		call     string
		by       string
		version  int16
		mac      []byte
		periodMs int64
		code     int16
		expiry   func(now int64) int64 // the answer; nil: -1
		removed  bool
	}{
		{name: "a stranger renews", call: renew, by: "carol", periodMs: hour, code: kerr.DelegationTokenOwnerMismatch.Code},
		{name: "a stranger expires", call: expire, by: "carol", version: 1, periodMs: -1, code: kerr.DelegationTokenOwnerMismatch.Code},
		{name: "unknown HMAC", call: renew, by: "alice", mac: macOf("no-such-token"), periodMs: hour,
			code: kerr.DelegationTokenNotFound.Code},
		{name: "the renewer renews", advance: time.Minute, call: renew, by: "bob", version: 2, periodMs: hour,
			expiry: func(now int64) int64 { return now + hour }},
		{name: "negative period is the configured renew time", advance: time.Minute, call: renew, by: "alice", periodMs: -1,
			expiry: func(now int64) int64 { return now + tokenExpiryTime.Milliseconds() }},
		{name: "renewal capped at the max timestamp", advance: time.Minute, call: renew, by: "alice", version: 1,
			periodMs: 100 * hour, expiry: func(int64) int64 { return t0 + tokenMaxLifetime.Milliseconds() }},
		{name: "the renewer shortens it", advance: time.Minute, call: expire, by: "bob", version: 2, periodMs: hour / 2,
			expiry: func(now int64) int64 { return now + hour/2 }},
		{name: "the owner expires it now", advance: time.Minute, call: expire, by: "alice", periodMs: 0,
			expiry: func(now int64) int64 { return now }},
		{name: "renewing once expired", advance: time.Millisecond, call: renew, by: "alice", periodMs: hour,
			code: kerr.DelegationTokenExpired.Code},
		{name: "expiring later once expired", call: expire, by: "alice", version: 1, periodMs: hour,
			code: kerr.DelegationTokenExpired.Code},
		{name: "a stranger cannot remove it", call: expire, by: "carol", periodMs: -1, code: kerr.DelegationTokenOwnerMismatch.Code},
		{name: "the renewer removes the expired token", advance: time.Minute, call: expire, by: "bob", version: 2, periodMs: -1,
			expiry: func(now int64) int64 { return now }, removed: true},
		{name: "renewing a removed token", call: renew, by: "alice", periodMs: hour, code: kerr.DelegationTokenNotFound.Code},
		{name: "expiring a removed token", call: expire, by: "alice", periodMs: -1, code: kerr.DelegationTokenNotFound.Code},
	}
	for _, s := range steps {
		clock.advance(s.advance)
		m := mac
		if s.mac != nil {
			m = s.mac
		}
		before, _ := z.stored(t, id)
		var code int16
		var expiry int64
		if s.call == renew {
			_, r := callAs[*kmsg.RenewDelegationTokenResponse](t, h, sasl(s.by), renewReq(s.version, m, s.periodMs))
			code, expiry = r.ErrorCode, r.ExpiryTimestamp
		} else {
			_, r := callAs[*kmsg.ExpireDelegationTokenResponse](t, h, sasl(s.by), expireReq(s.version, m, s.periodMs))
			code, expiry = r.ErrorCode, r.ExpiryTimestamp
		}
		want := int64(-1)
		if s.expiry != nil {
			want = s.expiry(clock.ms())
		}
		if code != s.code || expiry != want {
			t.Fatalf("%s: code %d expiry %d, want %d %d", s.name, code, expiry, s.code, want)
		}
		after, ok := z.stored(t, id)
		switch {
		case s.removed && ok:
			t.Fatalf("%s: token still stored: %+v", s.name, after)
		case s.removed:
		case s.code != 0 && !sameToken(before, after):
			t.Fatalf("%s: refused, yet the token changed from %+v to %+v", s.name, before, after)
		case s.code == 0 && (!ok || after.ExpiryMs != want):
			t.Fatalf("%s: ZooKeeper holds %+v (%v), want expiry %d", s.name, after, ok, want)
		}
	}
	if len(authz.asked) != 0 {
		t.Errorf("renew and expire asked the authorizer: %s", authz.questions())
	}

	// Kafka's ZooKeeper-mode manager lets only the owner and the renewers
	// change a token (allowedToRenew), not whoever requested it for the
	// owner.
	authz.reset(mayCreateTokensFor("User:bob"))
	r := createReq(3, -1)
	r.OwnerPrincipalType, r.OwnerPrincipalName = sp("User"), sp("bob")
	_, c = callAs[*kmsg.CreateDelegationTokenResponse](t, h, sasl("alice"), r)
	if c.ErrorCode != 0 {
		t.Fatalf("create for bob: %s", dump(c))
	}
	if _, rn := callAs[*kmsg.RenewDelegationTokenResponse](t, h, sasl("alice"), renewReq(2, c.HMAC, hour)); rn.ErrorCode != kerr.DelegationTokenOwnerMismatch.Code {
		t.Errorf("the requester renews: %s", dump(rn))
	}
	if _, rn := callAs[*kmsg.RenewDelegationTokenResponse](t, h, sasl("bob"), renewReq(2, c.HMAC, hour)); rn.ErrorCode != 0 {
		t.Errorf("the owner renews: %s", dump(rn))
	}
}

// TestTokenChangeMalformedZnode: a token znode that does not decode fails
// a renew or an expire of it with UNKNOWN_SERVER_ERROR and is left in
// place (a deliberate difference: Kafka's cache leaves it out, answering
// DELEGATION_TOKEN_NOT_FOUND), and describe leaves it out.
func TestTokenChangeMalformedZnode(t *testing.T) {
	z := newZKTokens(t, tokenCfg(tokenSecret))
	h, _, _ := tokenHandlers(t, z, tokenCfg(tokenSecret))
	path := znodes.DelegationTokenInfoPath("broken")
	junk := []byte(`{"version":3,"owner":`)
	if _, err := z.zk.CreateRecursive(z.ctx, path, junk, zkadmin.Persistent); err != nil {
		t.Fatal(err)
	}
	if _, rn := callAs[*kmsg.RenewDelegationTokenResponse](t, h, sasl("alice"), renewReq(1, macOf("broken"), 1000)); rn.ErrorCode != kerr.UnknownServerError.Code ||
		rn.ExpiryTimestamp != -1 {
		t.Errorf("renew: %s", dump(rn))
	}
	if _, ex := callAs[*kmsg.ExpireDelegationTokenResponse](t, h, sasl("alice"), expireReq(1, macOf("broken"), -1)); ex.ErrorCode != kerr.UnknownServerError.Code ||
		ex.ExpiryTimestamp != -1 {
		t.Errorf("expire: %s", dump(ex))
	}
	if data, _, err := z.zk.Get(z.ctx, path); err != nil || !bytes.Equal(data, junk) {
		t.Errorf("znode after: %q, %v", data, err)
	}
	if _, d := callAs[*kmsg.DescribeDelegationTokenResponse](t, h, sasl("alice"), describeReq(3, nil)); d.ErrorCode != 0 || len(d.TokenDetails) != 0 {
		t.Errorf("describe: %s", dump(d))
	}
}

// TestDescribeDelegationToken: which tokens each requester sees, Kafka's
// filterToken: those it owns, requested or renews, and the others only
// when it may DESCRIBE the token or DESCRIBE_TOKENS of its owner; an
// owners list keeps the tokens those owners own, requested or renew, and
// an empty one answers nothing.
func TestDescribeDelegationToken(t *testing.T) {
	z := newZKTokens(t, tokenCfg(tokenSecret))
	h, clock, authz := tokenHandlers(t, z, tokenCfg(tokenSecret))
	s := tokens.Settings{Secret: []byte(tokenSecret), MaxLifetimeMs: tokenMaxLifetime.Milliseconds(),
		RenewTimeMs: tokenExpiryTime.Milliseconds()}
	seed := []znodes.DelegationToken{
		tokens.New(s, "tok-a", tokenUser("alice"), tokenUser("alice"), []znodes.TokenPrincipal{tokenUser("bob")}, -1, clock.ms()),
		tokens.New(s, "tok-c", tokenUser("carol"), tokenUser("carol"), nil, time.Hour.Milliseconds(), clock.ms()+1),
		tokens.New(s, "tok-d", tokenUser("dave"), tokenUser("erin"), []znodes.TokenPrincipal{tokenUser("carol")}, -1, clock.ms()+2),
	}
	for _, tok := range seed {
		if err := z.Admin.CreateDelegationToken(z.ctx, tok); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name   string
		by     string
		owners []wire.Principal // nil: every token
		allow  []authQ
		want   string // ids, in order
		asks   bool   // whether the authorizer is asked at all
	}{
		{name: "own tokens", by: "alice", want: "tok-a", asks: true},
		{name: "renewed tokens", by: "bob", want: "tok-a", asks: true},
		{name: "owned and renewed", by: "carol", want: "tok-c tok-d", asks: true},
		// Kafka 3.9's ownerOrRenewer counts the requester of a token made
		// for another owner, though renewing does not.
		{name: "requested tokens", by: "erin", want: "tok-d", asks: true},
		{name: "owner list names a requester", by: "dave", owners: []wire.Principal{user("erin")}, want: "tok-d"},
		{name: "DESCRIBE on a token", by: "alice", allow: []authQ{mayDescribeToken("tok-c")}, want: "tok-a tok-c", asks: true},
		{name: "DESCRIBE_TOKENS of an owner", by: "alice", allow: []authQ{mayDescribeTokensOf("User:dave")}, want: "tok-a tok-d", asks: true},
		// The resource types matter: the token is a DelegationToken, the
		// owner a User, each named in full.
		{name: "DESCRIBE on a topic of the token's name", by: "alice",
			allow: []authQ{{op: OpDescribe, r: TopicResource("tok-c")}}, want: "tok-a", asks: true},
		{name: "DESCRIBE_TOKENS of the bare owner name", by: "alice",
			allow: []authQ{mayDescribeTokensOf("dave")}, want: "tok-a", asks: true},
		{name: "DESCRIBE on the user", by: "alice",
			allow: []authQ{{op: OpDescribe, r: Resource{Type: ResourceUser, Name: "User:dave"}}}, want: "tok-a", asks: true},
		{name: "empty owner list", by: "alice", owners: []wire.Principal{}, allow: []authQ{mayDescribeToken("tok-c")}},
		{name: "owner list keeps owned and renewed", by: "alice", owners: []wire.Principal{user("bob")}, want: "tok-a", asks: false},
		{name: "owner list of others, not allowed", by: "alice", owners: []wire.Principal{user("carol")}, asks: true},
		// tok-d is renewed by carol, so listed; but alice may describe
		// carol's tokens, not dave's.
		{name: "owner list of others, allowed", by: "alice", owners: []wire.Principal{user("carol")},
			allow: []authQ{mayDescribeTokensOf("User:carol")}, want: "tok-c", asks: true},
		{name: "everything allowed", by: "frank", allow: []authQ{mayDescribeToken("tok-a"), mayDescribeToken("tok-c"),
			mayDescribeTokensOf("User:dave")}, want: "tok-a tok-c tok-d", asks: true},
		{name: "nothing of one's own", by: "frank", asks: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			authz.reset(tc.allow...)
			for v := int16(0); v <= 3; v++ {
				_, got := callAs[*kmsg.DescribeDelegationTokenResponse](t, h, sasl(tc.by), describeReq(v, tc.owners))
				var ids []string
				for _, d := range got.TokenDetails {
					ids = append(ids, d.TokenID)
				}
				if got.ErrorCode != 0 || strings.Join(ids, " ") != tc.want {
					t.Errorf("v%d: code %d, tokens %q, want %q", v, got.ErrorCode, ids, tc.want)
				}
			}
			if (len(authz.asked) != 0) != tc.asks {
				t.Errorf("authorizer asked %q", authz.questions())
			}
			for _, q := range authz.asked {
				if q.who != user(tc.by) {
					t.Errorf("authorizer asked for %s", q.who)
				}
			}
		})
	}

	// The details: owner, requester (from v3), timestamps, the HMAC from
	// the configured secret, and the renewers.
	for v := int16(0); v <= 3; v++ {
		authz.reset()
		_, got := callAs[*kmsg.DescribeDelegationTokenResponse](t, h, sasl("carol"), describeReq(v, nil))
		if len(got.TokenDetails) != 2 {
			t.Fatalf("v%d: %s", v, dump(got))
		}
		d, want := got.TokenDetails[1], seed[2]
		wantReq := [2]string{"User", "erin"}
		if v < 3 {
			wantReq = [2]string{}
		}
		if d.TokenID != "tok-d" || d.PrincipalType != "User" || d.PrincipalName != "dave" ||
			[2]string{d.TokenRequesterPrincipalType, d.TokenRequesterPrincipalName} != wantReq ||
			d.IssueTimestamp != want.IssueMs || d.ExpiryTimestamp != want.ExpiryMs || d.MaxTimestamp != want.MaxMs ||
			!bytes.Equal(d.HMAC, macOf("tok-d")) ||
			len(d.Renewers) != 1 || d.Renewers[0].PrincipalType != "User" || d.Renewers[0].PrincipalName != "carol" {
			t.Errorf("v%d details: %+v", v, d)
		}
		if c := got.TokenDetails[0]; c.TokenID != "tok-c" || len(c.Renewers) != 0 || c.MaxTimestamp != seed[1].MaxMs ||
			!bytes.Equal(c.HMAC, macOf("tok-c")) {
			t.Errorf("v%d details: %+v", v, c)
		}
	}
}
