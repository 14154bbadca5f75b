package sasl

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	fscram "github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/kzadmin/kzadmin/security/tokens"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// TestTokenLoginsFromZooKeeper: a delegation token stored as Kafka stores
// it logs in with its HMAC (base64) as the password, as its owner; an
// expired token, an unreadable one, another secret's HMAC and a missing
// token do not.
func TestTokenLoginsFromZooKeeper(t *testing.T) {
	zk, _ := connectZK(t)
	ctx := testCtx(t)
	secret := []byte("shared-secret")
	now := time.Now().UnixMilli()
	put := func(id string, data []byte) {
		t.Helper()
		if _, err := zk.CreateRecursive(ctx, znodes.DelegationTokenInfoPath(id), data, zkadmin.Persistent); err != nil {
			t.Fatal(err)
		}
	}
	token := func(id string, expiry int64) []byte {
		t.Helper()
		owner := znodes.TokenPrincipal{Type: "User", Name: "CN=alice,O=Acme"}
		data, err := znodes.DelegationToken{ID: id, Owner: owner, Requester: owner, IssueMs: now - 1000,
			MaxMs: now + 3_600_000, ExpiryMs: expiry}.Encode()
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	put("live", token("live", now+3_600_000))
	put("expired", token("expired", now-1))
	put("unreadable", []byte(`{"version":3}`))

	addr, seen := serveSASL(t, Config{Mechanisms: []string{"SCRAM-SHA-512", "SCRAM-SHA-256"},
		SCRAM: ZKCredentials{ZK: zk}.Lookup, Tokens: ZKTokens{ZK: zk, Secret: secret}.Lookup, FailedAuthenticationDelay: -1})
	login := func(id string, mac []byte, sha512 bool) error {
		a := fscram.Auth{User: id, Pass: base64.StdEncoding.EncodeToString(mac), IsToken: true}
		if sha512 {
			return metadataAs(t, addr, a.AsSha512Mechanism())
		}
		return metadataAs(t, addr, a.AsSha256Mechanism())
	}
	for _, sha512 := range []bool{false, true} {
		if err := login("live", tokens.HMAC(secret, "live"), sha512); err != nil {
			t.Fatalf("live token (SHA-512 %v): %v", sha512, err)
		}
		if p := <-seen; p.String() != "User:CN=alice,O=Acme" {
			t.Fatalf("principal %v, want the owner", p)
		}
	}
	for name, err := range map[string]error{
		"expired":      login("expired", tokens.HMAC(secret, "expired"), true),
		"unreadable":   login("unreadable", tokens.HMAC(secret, "unreadable"), true),
		"other secret": login("live", tokens.HMAC([]byte("other"), "live"), true),
		"missing":      login("missing", tokens.HMAC(secret, "missing"), true),
		"a path":       login("../x", tokens.HMAC(secret, "../x"), true),
	} {
		if !errors.Is(err, kerr.SaslAuthenticationFailed) || !strings.Contains(err.Error(), "SCRAM-SHA-512") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
