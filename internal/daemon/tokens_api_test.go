package daemon

import (
	"context"
	"encoding/base64"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// TestDelegationTokensOverSASL: over kzadmind's SASL listener, a user
// creates a delegation token, logs in with it, its renewer renews it, its
// owner expires it and it no longer logs in; the refusals come where
// Kafka puts them; and the active controller removes a token that
// expires on its own.
func TestDelegationTokensOverSASL(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	conf := devConf("PLAINTEXT", "SASL_PLAINTEXT")
	conf.Props = map[string]string{
		"sasl.enabled.mechanisms":                   "SCRAM-SHA-256,SCRAM-SHA-512",
		"connection.failed.authentication.delay.ms": "0",
		"delegation.token.secret.key":               "token-secret",
	}
	conf.DelegationTokenExpiryCheckInterval = 100 * time.Millisecond
	d := startDev(ctx, t, conf)
	newClient := func(opts ...kgo.Opt) *kgo.Client {
		cl, err := kgo.NewClient(append([]kgo.Opt{kgo.RequestRetries(1)}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(cl.Close)
		return cl
	}
	plain := newClient(kgo.SeedBrokers(d.ListenerAddr("PLAINTEXT")))
	res, err := kadm.NewClient(plain).AlterUserSCRAMs(ctx, nil, []kadm.UpsertSCRAM{
		{User: "alice", Mechanism: kadm.ScramSha256, Iterations: 4096, Password: "alice-pw"},
		{User: "bob", Mechanism: kadm.ScramSha256, Iterations: 4096, Password: "bob-pw"},
		{User: "carol", Mechanism: kadm.ScramSha256, Iterations: 4096, Password: "carol-pw"},
	})
	if err != nil || res["alice"].Err != nil || res["bob"].Err != nil || res["carol"].Err != nil {
		t.Fatalf("set credentials: %v / %+v", err, res)
	}
	saslAs := func(user string) *kgo.Client {
		return newClient(kgo.SeedBrokers(d.ListenerAddr("SASL_PLAINTEXT")),
			kgo.SASL(scram.Auth{User: user, Pass: user + "-pw"}.AsSha256Mechanism()))
	}
	alice, bob, carol := saslAs("alice"), saslAs("bob"), saslAs("carol")
	zk, err := zkadmin.Connect(ctx, zkadmin.Options{Servers: d.ZooKeeperServers(), Chroot: d.conf.ZooKeeper.Connect.Chroot})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(zk.Close)

	create := func(cl *kgo.Client, maxLifetime int64, renewers ...string) *kmsg.CreateDelegationTokenResponse {
		t.Helper()
		req := kmsg.NewPtrCreateDelegationTokenRequest()
		req.MaxLifetimeMillis = maxLifetime
		for _, r := range renewers {
			req.Renewers = append(req.Renewers, kmsg.CreateDelegationTokenRequestRenewer{PrincipalType: "User", PrincipalName: r})
		}
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	if resp := create(plain, -1); resp.ErrorCode != kerr.DelegationTokenRequestNotAllowed.Code || resp.ExpiryTimestamp != -1 {
		t.Fatalf("create over PLAINTEXT: %+v", resp)
	}

	before := time.Now().UnixMilli()
	tok := create(alice, -1, "bob")
	if tok.ErrorCode != 0 || tok.PrincipalName != "alice" || tok.TokenRequesterPrincipalName != "alice" || len(tok.TokenID) != 22 ||
		len(tok.HMAC) != 64 || tok.IssueTimestamp < before || tok.ExpiryTimestamp != tok.IssueTimestamp+24*3600*1000 ||
		tok.MaxTimestamp != tok.IssueTimestamp+7*24*3600*1000 {
		t.Fatalf("create: %+v", tok)
	}
	data, _, err := zk.Get(ctx, znodes.DelegationTokenInfoPath(tok.TokenID))
	if err != nil {
		t.Fatal(err)
	}
	stored, err := znodes.DecodeDelegationToken(tok.TokenID, data)
	if err != nil || stored.Owner.String() != "User:alice" || len(stored.Renewers) != 1 || stored.Renewers[0].Name != "bob" ||
		stored.ExpiryMs != tok.ExpiryTimestamp {
		t.Fatalf("stored token %s: %+v, %v", data, stored, err)
	}
	if changes, _, err := zk.Children(ctx, znodes.DelegationTokenChangesPath); err != nil || len(changes) != 1 {
		t.Fatalf("notifications after the create: %v, %v", changes, err)
	}

	// The token logs in, as its owner, and may not ask for tokens itself.
	tokenAuth := scram.Auth{User: tok.TokenID, Pass: base64.StdEncoding.EncodeToString(tok.HMAC), IsToken: true}
	viaToken := newClient(kgo.SeedBrokers(d.ListenerAddr("SASL_PLAINTEXT")), kgo.SASL(tokenAuth.AsSha512Mechanism()))
	if _, err := kadm.NewClient(viaToken).BrokerMetadata(ctx); err != nil {
		t.Fatalf("log in with the token: %v", err)
	}
	if resp := create(viaToken, -1); resp.ErrorCode != kerr.DelegationTokenRequestNotAllowed.Code {
		t.Fatalf("create over a token-authenticated connection: %+v", resp)
	}
	wrong := tokenAuth
	wrong.Pass = base64.StdEncoding.EncodeToString(make([]byte, 64))
	if _, err := kadm.NewClient(newClient(kgo.SeedBrokers(d.ListenerAddr("SASL_PLAINTEXT")),
		kgo.SASL(wrong.AsSha256Mechanism()))).BrokerMetadata(ctx); err == nil {
		t.Fatal("a wrong HMAC logged in")
	}

	describe := func(cl *kgo.Client, owners ...string) *kmsg.DescribeDelegationTokenResponse {
		t.Helper()
		req := kmsg.NewPtrDescribeDelegationTokenRequest()
		for _, o := range owners {
			req.Owners = append(req.Owners, kmsg.DescribeDelegationTokenRequestOwner{PrincipalType: "User", PrincipalName: o})
		}
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	if resp := describe(bob); resp.ErrorCode != 0 || len(resp.TokenDetails) != 1 || resp.TokenDetails[0].TokenID != tok.TokenID ||
		string(resp.TokenDetails[0].HMAC) != string(tok.HMAC) || len(resp.TokenDetails[0].Renewers) != 1 {
		t.Fatalf("describe as the renewer: %+v", resp)
	}
	if resp := describe(alice, "carol"); resp.ErrorCode != 0 || len(resp.TokenDetails) != 0 {
		t.Fatalf("describe carol's tokens: %+v", resp)
	}

	renew := func(cl *kgo.Client, mac []byte, period int64) *kmsg.RenewDelegationTokenResponse {
		t.Helper()
		req := kmsg.NewPtrRenewDelegationTokenRequest()
		req.HMAC, req.RenewTimeMillis = mac, period
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	if resp := renew(carol, tok.HMAC, 1000); resp.ErrorCode != kerr.DelegationTokenOwnerMismatch.Code || resp.ExpiryTimestamp != -1 {
		t.Fatalf("renew by a stranger: %+v", resp)
	}
	if resp := renew(bob, make([]byte, 64), 1000); resp.ErrorCode != kerr.DelegationTokenNotFound.Code {
		t.Fatalf("renew of no token: %+v", resp)
	}
	now := time.Now().UnixMilli()
	renewed := renew(bob, tok.HMAC, 3600*1000)
	if renewed.ErrorCode != 0 || renewed.ExpiryTimestamp < now+3600*1000 || renewed.ExpiryTimestamp > time.Now().UnixMilli()+3600*1000 {
		t.Fatalf("renew by the renewer: %+v", renewed)
	}

	expire := kmsg.NewPtrExpireDelegationTokenRequest()
	expire.HMAC, expire.ExpiryPeriodMillis = tok.HMAC, -1
	expired, err := expire.RequestWith(ctx, alice)
	if err != nil || expired.ErrorCode != 0 {
		t.Fatalf("expire: %+v, %v", expired, err)
	}
	if ok, _, _ := zk.Exists(ctx, znodes.DelegationTokenInfoPath(tok.TokenID)); ok {
		t.Fatal("the expired token's znode is still there")
	}
	if _, err := kadm.NewClient(newClient(kgo.SeedBrokers(d.ListenerAddr("SASL_PLAINTEXT")),
		kgo.SASL(tokenAuth.AsSha512Mechanism()))).BrokerMetadata(ctx); err == nil {
		t.Fatal("an expired token logged in")
	}

	// A token whose life ends at once is removed by the controller's sweep.
	short := create(alice, 1)
	if short.ErrorCode != 0 || short.MaxTimestamp != short.IssueTimestamp+1 {
		t.Fatalf("create a short-lived token: %+v", short)
	}
	sweepCtx, cancelSweep := context.WithTimeout(ctx, 30*time.Second)
	defer cancelSweep()
	waitFor(sweepCtx, t, "the controller's removal of an expired token", func() bool {
		ok, _, err := zk.Exists(sweepCtx, znodes.DelegationTokenInfoPath(short.TokenID))
		return err == nil && !ok
	})
}
