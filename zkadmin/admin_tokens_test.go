package zkadmin

import (
	"errors"
	"slices"
	"testing"

	"github.com/kzadmin/kzadmin/security/tokens"
	"github.com/kzadmin/kzadmin/znodes"
)

var tokenSecret = []byte("token-secret")

func testToken(id, owner string, renewers ...string) znodes.DelegationToken {
	t := znodes.DelegationToken{Version: znodes.DelegationTokenVersion, ID: id,
		Owner: znodes.TokenPrincipal{Type: "User", Name: owner}, IssueMs: 1000, MaxMs: 9000, ExpiryMs: 5000}
	t.Requester = t.Owner
	for _, r := range renewers {
		t.Renewers = append(t.Renewers, znodes.TokenPrincipal{Type: "User", Name: r})
	}
	return t
}

// tokenChanges is the ids the token change notifications carry, in order.
func (e *adminEnv) tokenChanges() []string {
	e.t.Helper()
	kids, _, err := e.zk.Children(e.ctx, znodes.DelegationTokenChangesPath)
	if errors.Is(err, ErrNoNode) {
		return nil
	}
	if err != nil {
		e.t.Fatal(err)
	}
	slices.Sort(kids)
	var ids []string
	for _, k := range kids {
		ids = append(ids, string(e.get(znodes.DelegationTokenChangesPath+"/"+k)))
	}
	return ids
}

// TestDelegationTokens: a token is stored as Kafka stores it, with a
// notification per write (the paths created on first use); a change finds
// the token by its HMAC, writes what the decision says, and a refusal or a
// miss writes nothing.
func TestDelegationTokens(t *testing.T) {
	e := newAdminEnv(t, nil, nil)
	a, b := testToken("tokenA", "alice", "bob"), testToken("tokenB", "CN=carol,O=x")
	for _, tok := range []znodes.DelegationToken{b, a} {
		if err := e.admin.CreateDelegationToken(e.ctx, tok); err != nil {
			t.Fatal(err)
		}
	}
	stored, err := znodes.DecodeDelegationToken("tokenA", e.get(znodes.DelegationTokenInfoPath("tokenA")))
	if err != nil || !tokenEqual(stored, a) {
		t.Fatalf("stored tokenA: %+v, %v", stored, err)
	}
	if got := e.tokenChanges(); !slices.Equal(got, []string{"tokenB", "tokenA"}) {
		t.Fatalf("notifications: %q", got)
	}
	listed, err := e.admin.DelegationTokens(e.ctx)
	if err != nil || len(listed) != 2 || listed[0].Token.ID != "tokenA" || listed[1].Token.ID != "tokenB" ||
		!tokenEqual(listed[1].Token, b) {
		t.Fatalf("listed: %+v, %v", listed, err)
	}

	// Renew tokenA: found by its HMAC, written back version-checked.
	calls := 0
	got, removed, err := e.admin.ChangeDelegationToken(e.ctx, tokenSecret, tokens.HMAC(tokenSecret, "tokenA"),
		func(t znodes.DelegationToken) (znodes.DelegationToken, bool, error) {
			calls++
			t.ExpiryMs = 7000
			return t, false, nil
		})
	if err != nil || removed || calls != 1 || got.ExpiryMs != 7000 {
		t.Fatalf("renew: %+v removed=%v calls=%d %v", got, removed, calls, err)
	}
	if st, _ := znodes.DecodeDelegationToken("tokenA", e.get(znodes.DelegationTokenInfoPath("tokenA"))); st.ExpiryMs != 7000 {
		t.Fatalf("after renew: %+v", st)
	}

	// A miss, and a refusal, write nothing.
	before := e.snapshot()
	if _, _, err := e.admin.ChangeDelegationToken(e.ctx, tokenSecret, tokens.HMAC([]byte("other secret"), "tokenA"),
		func(t znodes.DelegationToken) (znodes.DelegationToken, bool, error) { return t, true, nil }); !errors.Is(err, tokens.ErrNotFound) {
		t.Fatalf("wrong HMAC: %v", err)
	}
	if _, _, err := e.admin.ChangeDelegationToken(e.ctx, tokenSecret, tokens.HMAC(tokenSecret, "tokenB"),
		func(t znodes.DelegationToken) (znodes.DelegationToken, bool, error) {
			return t, false, tokens.ErrExpired
		}); !errors.Is(err, tokens.ErrExpired) {
		t.Fatalf("refused: %v", err)
	}
	sameSnapshot(t, before, e.snapshot())

	// Remove tokenB.
	if _, removed, err := e.admin.ChangeDelegationToken(e.ctx, tokenSecret, tokens.HMAC(tokenSecret, "tokenB"),
		func(t znodes.DelegationToken) (znodes.DelegationToken, bool, error) { return t, true, nil }); err != nil || !removed {
		t.Fatalf("remove: %v %v", removed, err)
	}
	if e.exists(znodes.DelegationTokenInfoPath("tokenB")) {
		t.Fatal("tokenB still stored")
	}
	if got := e.tokenChanges(); !slices.Equal(got, []string{"tokenB", "tokenA", "tokenA", "tokenB"}) {
		t.Fatalf("notifications: %q", got)
	}
}

// TestDelegationTokenChangeRaces: a token changed by another writer between
// the read and the write is decided again on a fresh read.
func TestDelegationTokenChangeRaces(t *testing.T) {
	e := newAdminEnv(t, nil, nil)
	if err := e.admin.CreateDelegationToken(e.ctx, testToken("raced", "alice")); err != nil {
		t.Fatal(err)
	}
	other := e.another(nil)
	var seen []int64
	got, _, err := e.admin.ChangeDelegationToken(e.ctx, tokenSecret, tokens.HMAC(tokenSecret, "raced"),
		func(t znodes.DelegationToken) (znodes.DelegationToken, bool, error) {
			seen = append(seen, t.ExpiryMs)
			if len(seen) == 1 {
				// Another broker renews it first.
				_, _, err := other.ChangeDelegationToken(e.ctx, tokenSecret, tokens.HMAC(tokenSecret, "raced"),
					func(t znodes.DelegationToken) (znodes.DelegationToken, bool, error) {
						t.ExpiryMs = 6000
						return t, false, nil
					})
				if err != nil {
					return t, false, err
				}
			}
			t.ExpiryMs++
			return t, false, nil
		})
	if err != nil || !slices.Equal(seen, []int64{5000, 6000}) || got.ExpiryMs != 6001 {
		t.Fatalf("decided on %v, got %+v, %v", seen, got, err)
	}
}

// TestDelegationTokensMalformed: a token znode that does not decode is
// left out of listings, and a change of it is refused naming it, writing
// nothing; it is never removed.
func TestDelegationTokensMalformed(t *testing.T) {
	e := newAdminEnv(t, nil, nil)
	if err := e.admin.CreateDelegationToken(e.ctx, testToken("good", "alice")); err != nil {
		t.Fatal(err)
	}
	e.put(znodes.DelegationTokenInfoPath("bad"), []byte(`{"version":9}`))
	listed, err := e.admin.DelegationTokens(e.ctx)
	if err != nil || len(listed) != 1 || listed[0].Token.ID != "good" {
		t.Fatalf("listed: %+v, %v", listed, err)
	}
	_, undecodable, err := ReadDelegationTokens(e.ctx, e.zk)
	if err != nil || len(undecodable) != 1 {
		t.Fatalf("undecodable: %v, %v", undecodable, err)
	}
	before := e.snapshot()
	_, _, err = e.admin.ChangeDelegationToken(e.ctx, tokenSecret, tokens.HMAC(tokenSecret, "bad"),
		func(t znodes.DelegationToken) (znodes.DelegationToken, bool, error) { return t, true, nil })
	wantKind(t, err, KindMalformed, "/delegation_token/tokens/bad")
	sameSnapshot(t, before, e.snapshot())
}

func tokenEqual(a, b znodes.DelegationToken) bool {
	return a.ID == b.ID && a.Owner == b.Owner && a.Requester == b.Requester && slices.Equal(a.Renewers, b.Renewers) &&
		a.IssueMs == b.IssueMs && a.MaxMs == b.MaxMs && a.ExpiryMs == b.ExpiryMs
}
