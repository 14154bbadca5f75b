package interbroker

import (
	"context"
	"encoding/base64"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/kzadmin/kzadmin/integration/kafka"
)

const tokenSecret = "shared-token-secret"

// TestDelegationTokensWithRealBroker: kzadmind and a real Kafka 3.9
// broker share delegation.token.secret.key and ZooKeeper. A token
// kzadmind creates logs in on the broker (which learns of it from the
// notification kzadmind writes); a token the broker creates logs in on
// kzadmind, which shows it with the broker's HMAC; kzadmind expiring the
// broker's token stops it logging in on the broker; the broker renews
// kzadmind's token. Then, with the broker stopped so that kzadmind is the
// only node listed, Kafka's own kafka-delegation-tokens tool (the Java
// AdminClient) creates, describes, renews and expires a token through
// kzadmind.
func TestDelegationTokensWithRealBroker(t *testing.T) {
	kafka.SkipIfHeavyDisabled(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cl := startZooKeeper(ctx, t)
	putSCRAM(ctx, t, cl.zk, brokerUser, brokerPass)
	putSCRAM(ctx, t, cl.zk, aliceUser, alicePass)
	conf := saslDaemonConfig(cl.zks.Addr())
	conf.Props["delegation.token.secret.key"] = tokenSecret
	if err := conf.Validate(); err != nil {
		t.Fatalf("config refused: %v", err)
	}
	d := runDaemon(ctx, t, conf)
	b, brokerAddr := startSASLBroker(ctx, t, cl.zks.Addr(), map[string]string{"delegation.token.secret.key": tokenSecret})
	waitBrokers(ctx, t, d, 1)
	kzAddr := d.ListenerAddr("SASL_PLAINTEXT")
	alice := scramSHA512(aliceUser, alicePass)
	aliceAt := func(addr string) *kgo.Client { return kgoClient(t, addr, alice) }
	tokenLogin := func(addr, id string, mac []byte) error {
		auth := scram.Auth{User: id, Pass: base64.StdEncoding.EncodeToString(mac), IsToken: true}
		_, err := kadmClient(t, addr, kgo.SASL(auth.AsSha512Mechanism()), kgo.RequestRetries(0)).BrokerMetadata(ctx)
		return err
	}

	fromKz := createToken(ctx, t, aliceAt(kzAddr))
	waitFor(ctx, t, "the broker to accept kzadmind's token", func() error { return tokenLogin(brokerAddr, fromKz.TokenID, fromKz.HMAC) })

	fromBroker := createToken(ctx, t, aliceAt(brokerAddr))
	if err := tokenLogin(kzAddr, fromBroker.TokenID, fromBroker.HMAC); err != nil {
		t.Fatalf("kzadmind refused the broker's token: %v", err)
	}
	described := describeTokens(ctx, t, aliceAt(kzAddr))
	if len(described) != 2 {
		t.Fatalf("kzadmind describes %d tokens, want 2: %+v", len(described), described)
	}
	for _, tok := range []*kmsg.CreateDelegationTokenResponse{fromKz, fromBroker} {
		d, ok := described[tok.TokenID]
		if !ok || string(d.HMAC) != string(tok.HMAC) || d.PrincipalName != aliceUser || d.ExpiryTimestamp != tok.ExpiryTimestamp ||
			d.MaxTimestamp != tok.MaxTimestamp || d.IssueTimestamp != tok.IssueTimestamp {
			t.Fatalf("kzadmind's describe of %s: %+v, want what was created: %+v", tok.TokenID, d, tok)
		}
	}

	expire := kmsg.NewPtrExpireDelegationTokenRequest()
	expire.HMAC, expire.ExpiryPeriodMillis = fromBroker.HMAC, -1
	if resp, err := expire.RequestWith(ctx, aliceAt(kzAddr)); err != nil || resp.ErrorCode != 0 {
		t.Fatalf("expire the broker's token at kzadmind: %+v, %v", resp, err)
	}
	waitFor(ctx, t, "the broker to refuse the expired token", func() error {
		if tokenLogin(brokerAddr, fromBroker.TokenID, fromBroker.HMAC) == nil {
			return errors.New("the broker still accepts it")
		}
		return nil
	})
	renew := kmsg.NewPtrRenewDelegationTokenRequest()
	renew.HMAC, renew.RenewTimeMillis = fromKz.HMAC, 3600*1000
	if resp, err := renew.RequestWith(ctx, aliceAt(brokerAddr)); err != nil || resp.ErrorCode != 0 {
		t.Fatalf("renew kzadmind's token at the broker: %+v, %v", resp, err)
	}

	if err := b.Close(); err != nil {
		t.Logf("stop the broker: %v", err)
	}
	waitBrokers(ctx, t, d, 0)
	javaTokenTool(ctx, t, kzAddr, fromKz.TokenID)
}

// javaTokenTool runs kafka-delegation-tokens against kzadmind alone:
// create with a renewer, describe (finding the new token and the earlier
// one), renew and expire by HMAC.
func javaTokenTool(ctx context.Context, t *testing.T, kzAddr, earlierID string) {
	t.Helper()
	cc := aliceCommandConfig(t, "SASL_PLAINTEXT")
	run := func(args ...string) string {
		t.Helper()
		stdout, stderr, err := kafka.RunTool(ctx, "org.apache.kafka.tools.DelegationTokenCommand",
			append([]string{"--bootstrap-server", kzAddr, "--command-config", cc}, args...)...)
		if err != nil {
			t.Fatalf("kafka-delegation-tokens %s: %v\n%s%s", strings.Join(args, " "), err, stdout, stderr)
		}
		return stdout
	}
	created := run("--create", "--max-life-time-period", "-1", "--renewer-principal", "User:bob")
	// The tool prints a table: TOKENID HMAC OWNER REQUESTER RENEWERS ISSUEDATE EXPIRYDATE MAXDATE.
	row := regexp.MustCompile(`(?m)^([A-Za-z0-9_-]{22})\s+(\S+)\s+User:alice\s+User:alice\s+\[User:bob\]`).FindStringSubmatch(created)
	if row == nil {
		t.Fatalf("kafka-delegation-tokens --create printed no token row:\n%s", created)
	}
	id, hmac := row[1], row[2]
	// Without --owner-principal the 3.9 tool sends an empty owner list,
	// which Kafka (and kzadmind) answer with no tokens: name the owner.
	if out := run("--describe"); !strings.Contains(out, "Total number of tokens : 0") {
		t.Fatalf("kafka-delegation-tokens --describe with no owner, as Kafka answers it:\n%s", out)
	}
	described := run("--describe", "--owner-principal", "User:alice")
	if !strings.Contains(described, id) || !strings.Contains(described, earlierID) {
		t.Fatalf("kafka-delegation-tokens --describe lacks %s or %s:\n%s", id, earlierID, described)
	}
	if out := run("--renew", "--renew-time-period", "-1", "--hmac", hmac); !strings.Contains(out, "Completed renew operation") {
		t.Fatalf("kafka-delegation-tokens --renew:\n%s", out)
	}
	if out := run("--expire", "--expiry-time-period", "-1", "--hmac", hmac); !strings.Contains(out, "Completed expire operation") {
		t.Fatalf("kafka-delegation-tokens --expire:\n%s", out)
	}
	if out := run("--describe", "--owner-principal", "User:alice"); strings.Contains(out, id) || !strings.Contains(out, earlierID) {
		t.Fatalf("the expired token is still described:\n%s", out)
	}
}

// kgoClient is a client of addr with opts, closed with the test.
func kgoClient(t *testing.T, addr string, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(addr)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// createToken creates a token owned by the client's principal at the node
// the client is seeded with.
func createToken(ctx context.Context, t *testing.T, cl *kgo.Client) *kmsg.CreateDelegationTokenResponse {
	t.Helper()
	req := kmsg.NewPtrCreateDelegationTokenRequest()
	req.MaxLifetimeMillis = -1
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		t.Fatalf("create a delegation token: %v", err)
	}
	return resp
}

// describeTokens describes every token the client may see, by id.
func describeTokens(ctx context.Context, t *testing.T, cl *kgo.Client) map[string]kmsg.DescribeDelegationTokenResponseTokenDetail {
	t.Helper()
	resp, err := kmsg.NewPtrDescribeDelegationTokenRequest().RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		t.Fatalf("describe delegation tokens: %v", err)
	}
	out := map[string]kmsg.DescribeDelegationTokenResponseTokenDetail{}
	for _, d := range resp.TokenDetails {
		out[d.TokenID] = d
	}
	return out
}
