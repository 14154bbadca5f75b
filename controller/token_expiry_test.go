package controller

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// TestTokenExpirySweep: with tokens on, the active controller removes the
// tokens past their expiry or their maximum, each with a notification,
// and leaves live tokens and token znodes it cannot read; a removal behind
// a stale epoch fence removes nothing.
func TestTokenExpirySweep(t *testing.T) {
	chroot := testChroot(t)
	obs := connectZK(t, chroot, "", 0)
	ctx := testCtx(t)
	if err := obs.EnsureTopLevelPaths(ctx); err != nil {
		t.Fatal(err)
	}
	admin := zkadmin.NewAdmin(obs, zkadmin.AdminOptions{})
	now := time.Now().UnixMilli()
	put := func(id string, expiry, maxMs int64) {
		t.Helper()
		tok := znodes.DelegationToken{ID: id, Owner: znodes.TokenPrincipal{Type: "User", Name: "alice"},
			IssueMs: now - 10_000, ExpiryMs: expiry, MaxMs: maxMs}
		tok.Requester = tok.Owner
		if err := admin.CreateDelegationToken(ctx, tok); err != nil {
			t.Fatal(err)
		}
	}
	put("expired", now-1000, now+3_600_000)
	put("pastMax", now+3_600_000, now-1000)
	put("live", now+3_600_000, now+7_200_000)
	if _, err := obs.Create(ctx, znodes.DelegationTokenInfoPath("unreadable"), []byte("{not json"), zkadmin.Persistent); err != nil {
		t.Fatal(err)
	}
	exists := func(id string) bool {
		ok, _, err := obs.Exists(ctx, znodes.DelegationTokenInfoPath(id))
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}

	n := startNode(t, chroot, nodeOpts{id: 100, configure: func(c *config.Config) {
		c.Props = map[string]string{config.DelegationTokenSecretKey: "secret"}
		c.DelegationTokenExpiryCheckInterval = 50 * time.Millisecond
	}})
	waitFor(t, "the expired tokens' removal", func() bool { return !exists("expired") && !exists("pastMax") })
	if !exists("live") || !exists("unreadable") {
		t.Fatal("the sweep removed a live or an unreadable token")
	}
	kids, _, err := obs.Children(ctx, znodes.DelegationTokenChangesPath)
	if err != nil || len(kids) != 3+2 { // three creates, two removals
		t.Fatalf("notifications: %v, %v", kids, err)
	}

	// A day later every token has expired; behind a fence that is not
	// the controller's, none is removed. (The node's own sweep, on today's
	// clock, leaves them too.)
	err = n.c.expireTokens(ctx, 12345, time.Now().Add(24*time.Hour))
	if !errors.Is(err, zkadmin.ErrControllerMoved) || !exists("live") {
		t.Fatalf("a sweep behind a stale fence: %v, live token still there: %v", err, exists("live"))
	}
}

// TestTokensWithoutSecretWarn: a controller without the secret, in a
// cluster that holds tokens, says that it cannot remove them, and leaves
// them.
func TestTokensWithoutSecretWarn(t *testing.T) {
	chroot := testChroot(t)
	obs := connectZK(t, chroot, "", 0)
	ctx := testCtx(t)
	if err := obs.EnsureTopLevelPaths(ctx); err != nil {
		t.Fatal(err)
	}
	owner := znodes.TokenPrincipal{Type: "User", Name: "alice"}
	expired := znodes.DelegationToken{ID: "old", Owner: owner, Requester: owner, IssueMs: 1, ExpiryMs: 2, MaxMs: 3}
	if err := zkadmin.NewAdmin(obs, zkadmin.AdminOptions{}).CreateDelegationToken(ctx, expired); err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	n := startNode(t, chroot, nodeOpts{id: 100, logTo: logs})
	waitFor(t, "the warning", func() bool {
		return strings.Contains(logs.String(), "delegation.token.secret.key is not set")
	})
	if !n.c.Status().Ready {
		waitFor(t, "readiness", func() bool { return n.c.Status().Ready })
	}
	if ok, _, err := obs.Exists(ctx, znodes.DelegationTokenInfoPath("old")); err != nil || !ok {
		t.Fatalf("the token was removed without the secret: %v %v", ok, err)
	}
}
