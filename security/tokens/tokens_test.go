package tokens_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/kzadmin/kzadmin/security/tokens"
	"github.com/kzadmin/kzadmin/znodes"
)

func user(name string) znodes.TokenPrincipal { return znodes.TokenPrincipal{Type: "User", Name: name} }

// The cast of the lifecycle tests: alice owns the token, carol asked for
// it on alice's behalf (KIP-373), bob may renew it, eve has nothing to do
// with it, and Group:alice shares the owner's name but not its type.
var (
	alice      = user("alice")
	carol      = user("carol")
	bob        = user("bob")
	eve        = user("eve")
	groupAlice = znodes.TokenPrincipal{Type: "Group", Name: "alice"}
)

// role is a principal's relation to the token sample() makes.
type role struct {
	name string
	p    znodes.TokenPrincipal
	// mayRenew: Kafka's DelegationTokenManagerZk.allowedToRenew (owner or
	// renewer). involved: TokenInformation.ownerOrRenewer, which filterToken
	// uses and which counts the requester too.
	mayRenew, involved bool
}

var roles = []role{
	{"owner", alice, true, true},
	{"renewer", bob, true, true},
	{"requester", carol, false, true},
	{"stranger", eve, false, false},
	{"owner's name, other type", groupAlice, false, false},
}

func sample() znodes.DelegationToken {
	return znodes.DelegationToken{Version: 3, ID: "tokA", Owner: alice, Requester: carol,
		Renewers: []znodes.TokenPrincipal{bob}, IssueMs: 0, MaxMs: 20_000, ExpiryMs: 10_500}
}

// TestHMACVectors: the HMAC is HmacSHA512 keyed with the secret's bytes
// over the id's UTF-8 bytes, as Kafka's createHmac. The expected values
// were computed with Python's hmac module, e.g.
// base64.b64encode(hmac.new(b'secret', b'tokenid', hashlib.sha512).digest()).
func TestHMACVectors(t *testing.T) {
	cases := []struct {
		name, secret, id, want string
	}{
		{"ascii", "secret", "tokenid",
			"ruEIJamjEQsAtxNf4aMj/H003j0BJ7Kr8kS4xNJigwoEEpg98/JUxFugV/1oCBP8VM8ftcNJKuPxqbzlchmshA=="},
		{"non-ASCII secret and id are UTF-8", "sécret", "tøken",
			"SUF7gAssY/7gpE1M3lLy/nWTdUK2iOYsJ1cnNfvOGOIhme9LhZrxugPdgxMI0vH8StBMaLaGR7YOUvt8wJS1vw=="},
		{"empty secret and id", "", "",
			"uTbO6Gyfh6pdPG8uhMtaQjml/lBICm7Ga3CrWx9KxnMMbFFUIbMn7B1pQC5T37Sa1zgesGezOP17DLIiRyJdRw=="},
		// A key longer than SHA-512's 128-byte block is hashed first.
		{"secret longer than a block", strings.Repeat("k", 200), "AAECAwQFBgcICQoLDA0ODw",
			"OBr0vO+rlTkNsobD0jQJkHg0fL2q2BYxlObYsFQJYCTTWBbK6HnqLOqa7hSontYEi8LnPZkGtm9Lj/QMxj4JWA=="},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mac := tokens.HMAC([]byte(c.secret), c.id)
			if len(mac) != 64 {
				t.Fatalf("HMAC is %d bytes, want 64", len(mac))
			}
			if got := base64.StdEncoding.EncodeToString(mac); got != c.want {
				t.Fatalf("HMAC(%q, %q)\n got %s\nwant %s", c.secret, c.id, got, c.want)
			}
			if !tokens.Matches([]byte(c.secret), c.id, mac) {
				t.Fatal("Matches refuses the HMAC it computed")
			}
		})
	}
}

func TestMatches(t *testing.T) {
	secret, id := []byte("secret"), "tokenid"
	good := tokens.HMAC(secret, id)
	flip := func(i int) []byte {
		b := bytes.Clone(good)
		b[i] ^= 0x01
		return b
	}
	cases := []struct {
		name   string
		secret []byte
		id     string
		mac    []byte
		want   bool
	}{
		{"the token's own HMAC", secret, id, good, true},
		{"first bit flipped", secret, id, flip(0), false},
		{"last bit flipped", secret, id, flip(63), false},
		{"truncated", secret, id, good[:63], false},
		{"extended", secret, id, append(bytes.Clone(good), 0), false},
		{"nil", secret, id, nil, false},
		{"empty", secret, id, []byte{}, false},
		{"another secret", []byte("secreT"), id, good, false},
		{"another id", secret, "tokenie", good, false},
		{"no secret", nil, id, good, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := tokens.Matches(c.secret, c.id, c.mac); got != c.want {
				t.Fatalf("Matches = %v, want %v", got, c.want)
			}
		})
	}
}

// TestNewID: Kafka's CoreUtils.generateUuidAsBase64, a random UUID's 16
// bytes in URL-safe base64 without padding.
func TestNewID(t *testing.T) {
	const n = 2000
	seen := make(map[string]bool, n)
	for range n {
		id, err := tokens.NewID()
		if err != nil {
			t.Fatal(err)
		}
		if len(id) != 22 {
			t.Fatalf("id %q has %d characters, want 22", id, len(id))
		}
		if strings.ContainsAny(id, "+/=") {
			t.Fatalf("id %q is not unpadded URL-safe base64", id)
		}
		b, err := base64.RawURLEncoding.DecodeString(id)
		if err != nil || len(b) != 16 {
			t.Fatalf("id %q decodes to %d bytes, %v", id, len(b), err)
		}
		if v := b[6] >> 4; v != 4 {
			t.Fatalf("id %q: UUID version %d, want 4", id, v)
		}
		if b[8]&0xc0 != 0x80 {
			t.Fatalf("id %q: UUID variant bits %02b, want 10 (RFC 4122)", id, b[8]>>6)
		}
		// The canonical encoding: decoding and re-encoding is the identity
		// (no stray low bits in the last character).
		if back := base64.RawURLEncoding.EncodeToString(b); back != id {
			t.Fatalf("id %q re-encodes as %q", id, back)
		}
		if seen[id] {
			t.Fatalf("id %q made twice in %d calls", id, n)
		}
		seen[id] = true
	}
}

// TestNew follows DelegationTokenManagerZk.createToken: the request's
// maximum lifetime when positive, capped by delegation.token.max.lifetime.ms,
// the setting's otherwise; expiry at the renew time unless the maximum is
// sooner.
func TestNew(t *testing.T) {
	const now = 5_000
	std := tokens.Settings{Secret: []byte("s"), MaxLifetimeMs: 1_000, RenewTimeMs: 100}
	cases := []struct {
		name          string
		s             tokens.Settings
		maxLifetimeMs int64
		wantMax       int64
		wantExpiry    int64
	}{
		{"no request (0) takes the setting", std, 0, 6_000, 5_100},
		{"negative request takes the setting", std, -1, 6_000, 5_100},
		{"very negative request takes the setting", std, -9223372036854775808, 6_000, 5_100},
		{"shorter request kept", std, 500, 5_500, 5_100},
		{"request equal to the setting", std, 1_000, 6_000, 5_100},
		{"longer request capped", std, 2_000, 6_000, 5_100},
		{"huge request capped", std, 9223372036854775807, 6_000, 5_100},
		{"request shorter than the renew time: expiry is the max", std, 50, 5_050, 5_050},
		{"request of 1 ms", std, 1, 5_001, 5_001},
		{"renew time longer than the max lifetime", tokens.Settings{MaxLifetimeMs: 100, RenewTimeMs: 1_000}, 0, 5_100, 5_100},
		{"Kafka's defaults", tokens.Settings{MaxLifetimeMs: tokens.DefaultMaxLifetimeMs, RenewTimeMs: tokens.DefaultRenewTimeMs},
			0, now + 604_800_000, now + 86_400_000},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			renewers := []znodes.TokenPrincipal{bob, eve}
			got := tokens.New(c.s, "tokA", alice, carol, renewers, c.maxLifetimeMs, now)
			want := znodes.DelegationToken{Version: znodes.DelegationTokenVersion, ID: "tokA", Owner: alice,
				Requester: carol, Renewers: []znodes.TokenPrincipal{bob, eve}, IssueMs: now,
				MaxMs: c.wantMax, ExpiryMs: c.wantExpiry}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("New\n got %#v\nwant %#v", got, want)
			}
		})
	}
}

// TestNewCopiesRenewers: the token must not alias the request's slice, or
// a caller reusing it would rewrite a stored token's renewers.
func TestNewCopiesRenewers(t *testing.T) {
	s := tokens.Settings{MaxLifetimeMs: 1_000, RenewTimeMs: 100}
	in := []znodes.TokenPrincipal{bob, eve}
	tok := tokens.New(s, "tokA", alice, alice, in, 0, 0)
	in[0] = groupAlice
	_ = append(in[:1], carol) // writes into in's backing array, as a reused buffer would
	if want := []znodes.TokenPrincipal{bob, eve}; !slices.Equal(tok.Renewers, want) {
		t.Fatalf("mutating the input changed the token's renewers: %v", tok.Renewers)
	}

	// Nor the other way round: editing the token leaves the request alone.
	in = []znodes.TokenPrincipal{bob, eve}
	tok = tokens.New(s, "tokA", alice, alice, in, 0, 0)
	tok.Renewers[0] = carol
	if in[0] != bob {
		t.Fatalf("mutating the token changed the input: %v", in)
	}

	for _, renewers := range [][]znodes.TokenPrincipal{nil, {}} {
		if tok := tokens.New(s, "t", alice, alice, renewers, 0, 0); len(tok.Renewers) != 0 {
			t.Fatalf("renewers %#v became %#v", renewers, tok.Renewers)
		}
	}
}

// TestExpired: Kafka's "maxTimestamp < now || expiryTimestamp < now"; a
// token is still good at the very millisecond it expires.
func TestExpired(t *testing.T) {
	const now = 10_000
	cases := []struct {
		name        string
		expiry, max int64
		want        bool
	}{
		{"both ahead", 10_500, 20_000, false},
		{"expiry exactly now", now, 20_000, false},
		{"max exactly now", now, now, false},
		{"expiry 1 ms ago", now - 1, 20_000, true},
		{"max 1 ms ago", 10_500, now - 1, true},
		{"both past", 1, 2, true},
		{"extremes ahead", 9223372036854775807, 9223372036854775807, false},
		{"extremes past", -9223372036854775808, -9223372036854775808, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tok := znodes.DelegationToken{ExpiryMs: c.expiry, MaxMs: c.max}
			if got := tokens.Expired(tok, now); got != c.want {
				t.Fatalf("Expired(expiry %d, max %d, now %d) = %v, want %v", c.expiry, c.max, now, got, c.want)
			}
		})
	}
}

func TestOwnerOrRenewer(t *testing.T) {
	tok := sample()
	for _, r := range roles {
		if got := tokens.OwnerOrRenewer(tok, r.p); got != r.mayRenew {
			t.Errorf("%s %v: OwnerOrRenewer = %v, want %v", r.name, r.p, got, r.mayRenew)
		}
	}
	tok.Renewers = []znodes.TokenPrincipal{eve, bob, eve}
	if !tokens.OwnerOrRenewer(tok, bob) {
		t.Error("a renewer that is not first in the list must count")
	}
	tok.Renewers = nil
	if tokens.OwnerOrRenewer(tok, bob) || !tokens.OwnerOrRenewer(tok, alice) {
		t.Error("without renewers only the owner may renew")
	}
	if tokens.OwnerOrRenewer(tok, znodes.TokenPrincipal{}) {
		t.Error("the zero principal is nobody")
	}
}

// expiryState is a token's life at now = 10_000 in the lifecycle tests.
type expiryState struct {
	name        string
	expiry, max int64
	expired     bool
}

var expiryStates = []expiryState{
	{"live", 10_500, 20_000, false},
	{"expiring this very ms", 10_000, 20_000, false},
	{"at its max this very ms", 10_000, 10_000, false},
	{"expiry passed", 9_999, 20_000, true},
	// Kafka never writes expiry > max, but checks both; so do we.
	{"max passed, expiry not", 10_500, 9_999, true},
	{"both passed", 5_000, 9_000, true},
}

var periods = []int64{-9223372036854775808, -100, -1, 0, 1, 100, 5_000, 1_000_000}

// TestRenewExamples pins concrete results of DelegationTokenManagerZk.renewToken.
func TestRenewExamples(t *testing.T) {
	s := tokens.Settings{MaxLifetimeMs: 100_000, RenewTimeMs: 1_000}
	const now = 10_000
	cases := []struct {
		name       string
		p          znodes.TokenPrincipal
		expiry     int64
		period     int64
		wantExpiry int64
		wantErr    error
	}{
		{"owner, default period", alice, 10_500, -1, 11_000, nil},
		{"renewer, default period", bob, 10_500, -1, 11_000, nil},
		{"any negative period is the default", alice, 10_500, -12345, 11_000, nil},
		{"explicit period", bob, 10_500, 2_500, 12_500, nil},
		{"period 0 expires it now", alice, 10_500, 0, 10_000, nil},
		{"renewal may shorten the life", alice, 19_000, 10, 10_010, nil},
		{"capped by max", alice, 10_500, 50_000, 20_000, nil},
		{"renewed at the last ms", alice, 10_000, 1, 10_001, nil},
		{"stranger", eve, 10_500, -1, 0, tokens.ErrOwnerMismatch},
		{"requester is no renewer", carol, 10_500, -1, 0, tokens.ErrOwnerMismatch},
		{"other type, same name", groupAlice, 10_500, -1, 0, tokens.ErrOwnerMismatch},
		{"expired", alice, 9_999, -1, 0, tokens.ErrExpired},
		{"ownership is checked before expiry", eve, 9_999, -1, 0, tokens.ErrOwnerMismatch},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tok := sample()
			tok.ExpiryMs = c.expiry
			got, err := tokens.Renew(s, tok, c.p, c.period, now)
			if !errors.Is(err, c.wantErr) || (err == nil) != (c.wantErr == nil) {
				t.Fatalf("Renew error %v, want %v", err, c.wantErr)
			}
			if err != nil {
				return
			}
			want := tok
			want.ExpiryMs = c.wantExpiry
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("Renew\n got %#v\nwant %#v", got, want)
			}
		})
	}
}

// TestRenewExhaustive runs every role against every expiry state and
// period: refusals come in Kafka's order (ownership, then expiry), a
// refused token comes back unchanged, and a renewed one changes only its
// expiry, which never passes its maximum.
func TestRenewExhaustive(t *testing.T) {
	s := tokens.Settings{MaxLifetimeMs: 100_000, RenewTimeMs: 1_000}
	const now = 10_000
	for _, r := range roles {
		for _, st := range expiryStates {
			for _, period := range periods {
				name := fmt.Sprintf("%s/%s/period %d", r.name, st.name, period)
				tok := sample()
				tok.ExpiryMs, tok.MaxMs = st.expiry, st.max
				orig := sample()
				orig.ExpiryMs, orig.MaxMs = st.expiry, st.max

				got, err := tokens.Renew(s, tok, r.p, period, now)
				if !reflect.DeepEqual(tok, orig) {
					t.Fatalf("%s: Renew modified its argument", name)
				}
				switch {
				case !r.mayRenew:
					if !errors.Is(err, tokens.ErrOwnerMismatch) {
						t.Fatalf("%s: error %v, want ErrOwnerMismatch", name, err)
					}
				case st.expired:
					if !errors.Is(err, tokens.ErrExpired) {
						t.Fatalf("%s: error %v, want ErrExpired", name, err)
					}
				default:
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					life := period
					if life < 0 {
						life = s.RenewTimeMs
					}
					want := orig
					want.ExpiryMs = min(st.max, now+life)
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("%s:\n got %#v\nwant %#v", name, got, want)
					}
					if got.ExpiryMs > got.MaxMs || got.ExpiryMs < now {
						t.Fatalf("%s: expiry %d outside [now %d, max %d]", name, got.ExpiryMs, now, got.MaxMs)
					}
					continue
				}
				if !reflect.DeepEqual(got, orig) {
					t.Fatalf("%s: a refused renewal returned a changed token %#v", name, got)
				}
			}
		}
	}
}

// TestExpireExamples pins concrete results of DelegationTokenManagerZk.expireToken.
func TestExpireExamples(t *testing.T) {
	const now = 10_000
	cases := []struct {
		name       string
		p          znodes.TokenPrincipal
		expiry     int64
		period     int64
		wantExpiry int64
		wantRemove bool
		wantErr    error
	}{
		{"owner, negative period removes", alice, 10_500, -1, 10_500, true, nil},
		{"renewer, negative period removes", bob, 10_500, -1, 10_500, true, nil},
		{"an expired token is removed too", alice, 1, -1, 1, true, nil},
		{"period 0 sets expiry to now", alice, 10_500, 0, now, false, nil},
		{"period moves expiry", bob, 10_500, 300, 10_300, false, nil},
		{"period may lengthen the life", alice, 10_500, 5_000, 15_000, false, nil},
		{"capped by max", alice, 10_500, 50_000, 20_000, false, nil},
		{"expired, non-negative period", alice, 9_999, 0, 0, false, tokens.ErrExpired},
		{"stranger", eve, 10_500, 0, 0, false, tokens.ErrOwnerMismatch},
		{"stranger cannot remove", eve, 10_500, -1, 0, false, tokens.ErrOwnerMismatch},
		{"requester is no renewer", carol, 10_500, -1, 0, false, tokens.ErrOwnerMismatch},
		{"ownership is checked before expiry", eve, 9_999, 0, 0, false, tokens.ErrOwnerMismatch},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tok := sample()
			tok.ExpiryMs = c.expiry
			got, remove, err := tokens.Expire(tok, c.p, c.period, now)
			if !errors.Is(err, c.wantErr) || (err == nil) != (c.wantErr == nil) {
				t.Fatalf("Expire error %v, want %v", err, c.wantErr)
			}
			if remove != c.wantRemove {
				t.Fatalf("remove = %v, want %v", remove, c.wantRemove)
			}
			if err != nil {
				return
			}
			want := tok
			want.ExpiryMs = c.wantExpiry
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("Expire\n got %#v\nwant %#v", got, want)
			}
		})
	}
}

// TestExpireExhaustive: every role, expiry state and period. Ownership is
// checked first; a negative period then removes the token whatever its
// state; otherwise an expired token is refused and a live one gets
// min(max, now+period).
func TestExpireExhaustive(t *testing.T) {
	const now = 10_000
	for _, r := range roles {
		for _, st := range expiryStates {
			for _, period := range periods {
				name := fmt.Sprintf("%s/%s/period %d", r.name, st.name, period)
				tok := sample()
				tok.ExpiryMs, tok.MaxMs = st.expiry, st.max
				orig := tok
				orig.Renewers = slices.Clone(tok.Renewers)

				got, remove, err := tokens.Expire(tok, r.p, period, now)
				if !reflect.DeepEqual(tok, orig) {
					t.Fatalf("%s: Expire modified its argument", name)
				}
				want, wantRemove := orig, false
				var wantErr error
				switch {
				case !r.mayRenew:
					wantErr = tokens.ErrOwnerMismatch
				case period < 0:
					wantRemove = true
				case st.expired:
					wantErr = tokens.ErrExpired
				default:
					want.ExpiryMs = min(st.max, now+period)
				}
				if !errors.Is(err, wantErr) || (err == nil) != (wantErr == nil) {
					t.Fatalf("%s: error %v, want %v", name, err, wantErr)
				}
				if remove != wantRemove {
					t.Fatalf("%s: remove = %v, want %v", name, remove, wantRemove)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s:\n got %#v\nwant %#v", name, got, want)
				}
				if err == nil && !remove && (got.ExpiryMs > got.MaxMs || got.ExpiryMs < now) {
					t.Fatalf("%s: expiry %d outside [now %d, max %d]", name, got.ExpiryMs, now, got.MaxMs)
				}
			}
		}
	}
}

// authCalls records the authorization checks a Filter makes.
type authCalls struct {
	tokenIDs []string
	owners   []znodes.TokenPrincipal
}

func (a *authCalls) filter(requester znodes.TokenPrincipal, owners []znodes.TokenPrincipal, allowToken, allowOwner bool) tokens.Filter {
	return tokens.Filter{
		Requester: requester,
		Owners:    owners,
		MayDescribeToken: func(id string) bool {
			a.tokenIDs = append(a.tokenIDs, id)
			return allowToken
		},
		MayDescribeOwner: func(o znodes.TokenPrincipal) bool {
			a.owners = append(a.owners, o)
			return allowOwner
		},
	}
}

// TestFilterShowsExamples follows DelegationTokenManager.filterToken of
// Kafka 3.9, with sample()'s token: owner alice, requester carol, renewer
// bob.
func TestFilterShowsExamples(t *testing.T) {
	ps := func(p ...znodes.TokenPrincipal) []znodes.TokenPrincipal { return p }
	cases := []struct {
		name                   string
		requester              znodes.TokenPrincipal
		owners                 []znodes.TokenPrincipal
		allowToken, allowOwner bool
		want                   bool
		// wantAuth: the authorization checks are consulted (only for a
		// token that passes the owners filter and does not involve the
		// requester).
		wantAuth bool
	}{
		{name: "owner sees its token", requester: alice, want: true},
		{name: "renewer sees it", requester: bob, want: true},
		{name: "requester sees it (KIP-373 ownerOrRenewer)", requester: carol, want: true},
		{name: "stranger without rights does not", requester: eve, wantAuth: true},
		{name: "other type, same name as owner", requester: groupAlice, wantAuth: true},
		{name: "stranger with DESCRIBE on the token", requester: eve, allowToken: true, want: true, wantAuth: true},
		{name: "stranger with DESCRIBE_TOKENS on the owner", requester: eve, allowOwner: true, want: true, wantAuth: true},
		{name: "stranger with both", requester: eve, allowToken: true, allowOwner: true, want: true, wantAuth: true},

		{name: "empty owner list keeps nothing", requester: alice, owners: []znodes.TokenPrincipal{}},
		{name: "empty owner list beats rights", requester: eve, owners: []znodes.TokenPrincipal{}, allowToken: true, allowOwner: true},
		{name: "owner filter on the owner", requester: alice, owners: ps(alice), want: true},
		{name: "owner filter on a renewer keeps it", requester: alice, owners: ps(bob), want: true},
		{name: "owner filter on the requester keeps it", requester: alice, owners: ps(carol), want: true},
		{name: "owner filter on someone else drops own token", requester: alice, owners: ps(eve)},
		{name: "owner filter on someone else beats rights", requester: eve, owners: ps(eve), allowToken: true, allowOwner: true},
		{name: "owner filter: type matters", requester: alice, owners: ps(groupAlice)},
		{name: "any owner of the list suffices", requester: alice, owners: ps(eve, groupAlice, bob), want: true},
		{name: "kept by the filter, stranger needs rights", requester: eve, owners: ps(alice), wantAuth: true},
		{name: "kept by the filter, stranger with rights", requester: eve, owners: ps(alice), allowOwner: true, want: true, wantAuth: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var calls authCalls
			f := calls.filter(c.requester, c.owners, c.allowToken, c.allowOwner)
			if got := f.Shows(sample()); got != c.want {
				t.Fatalf("Shows = %v, want %v", got, c.want)
			}
			consulted := len(calls.tokenIDs)+len(calls.owners) > 0
			if consulted != c.wantAuth {
				t.Fatalf("authorization consulted = %v (%+v), want %v", consulted, calls, c.wantAuth)
			}
			// The checks are asked about this token's id and its owner,
			// never about a renewer or the requester.
			for _, id := range calls.tokenIDs {
				if id != "tokA" {
					t.Fatalf("MayDescribeToken asked about %q", id)
				}
			}
			for _, o := range calls.owners {
				if o != alice {
					t.Fatalf("MayDescribeOwner asked about %v", o)
				}
			}
		})
	}
}

// TestFilterShowsExhaustive: every requester role, owner filter and pair
// of authorization answers. Owners nil keeps every token; a non-nil list
// keeps those one of its principals is involved in; the requester then
// sees what it is involved in, and the rest only with a right.
func TestFilterShowsExhaustive(t *testing.T) {
	type ownerFilter struct {
		name   string
		owners []znodes.TokenPrincipal
		keeps  bool
	}
	filters := []ownerFilter{{"nil", nil, true}, {"empty", []znodes.TokenPrincipal{}, false}}
	for _, r := range roles {
		filters = append(filters, ownerFilter{"[" + r.name + "]", []znodes.TokenPrincipal{r.p}, r.involved})
	}
	filters = append(filters, ownerFilter{"[stranger, renewer]", []znodes.TokenPrincipal{eve, bob}, true})
	for _, req := range roles {
		for _, of := range filters {
			for _, allowToken := range []bool{false, true} {
				for _, allowOwner := range []bool{false, true} {
					var calls authCalls
					f := calls.filter(req.p, of.owners, allowToken, allowOwner)
					want := of.keeps && (req.involved || allowToken || allowOwner)
					if got := f.Shows(sample()); got != want {
						t.Errorf("requester %s, owners %s, token right %v, owner right %v: Shows = %v, want %v",
							req.name, of.name, allowToken, allowOwner, got, want)
					}
				}
			}
		}
	}
}

// TestFilterNilChecksDeny: a Filter without authorization functions shows a
// stranger nothing, and does not panic.
func TestFilterNilChecksDeny(t *testing.T) {
	cases := []struct {
		name string
		f    tokens.Filter
		want bool
	}{
		{"both nil, stranger", tokens.Filter{Requester: eve}, false},
		{"both nil, owner", tokens.Filter{Requester: alice}, true},
		{"only token check, allowing", tokens.Filter{Requester: eve, MayDescribeToken: func(string) bool { return true }}, true},
		{"only owner check, allowing", tokens.Filter{Requester: eve,
			MayDescribeOwner: func(znodes.TokenPrincipal) bool { return true }}, true},
		{"only token check, denying", tokens.Filter{Requester: eve, MayDescribeToken: func(string) bool { return false }}, false},
		{"zero Filter", tokens.Filter{}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.f.Shows(sample()); got != c.want {
				t.Fatalf("Shows = %v, want %v", got, c.want)
			}
		})
	}
}

func TestSettingsEnabled(t *testing.T) {
	for _, c := range []struct {
		secret []byte
		want   bool
	}{{nil, false}, {[]byte{}, false}, {[]byte("k"), true}, {[]byte{0}, true}} {
		if got := (tokens.Settings{Secret: c.secret}).Enabled(); got != c.want {
			t.Errorf("Enabled with secret %q = %v, want %v", c.secret, got, c.want)
		}
	}
}

// TestHugePeriodsReachTheMaximum: a renew or expire period near the
// largest long takes the token to its maximum rather than wrapping into
// the past (Kafka's sum wraps, and the token expires at once).
func TestHugePeriodsReachTheMaximum(t *testing.T) {
	owner := znodes.TokenPrincipal{Type: "User", Name: "alice"}
	tok := znodes.DelegationToken{ID: "t", Owner: owner, Requester: owner, IssueMs: 1000, MaxMs: 9000, ExpiryMs: 2000}
	for _, period := range []int64{math.MaxInt64, math.MaxInt64 - 1000, math.MaxInt64 - 1500} {
		renewed, err := tokens.Renew(tokens.Settings{RenewTimeMs: 100}, tok, owner, period, 1500)
		if err != nil || renewed.ExpiryMs != 9000 {
			t.Errorf("renew for %d: expiry %d, %v; want the maximum 9000", period, renewed.ExpiryMs, err)
		}
		moved, remove, err := tokens.Expire(tok, owner, period, 1500)
		if err != nil || remove || moved.ExpiryMs != 9000 {
			t.Errorf("expire in %d: expiry %d, remove %v, %v; want the maximum 9000", period, moved.ExpiryMs, remove, err)
		}
	}
}
