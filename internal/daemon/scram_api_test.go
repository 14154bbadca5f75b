package daemon

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// TestKadmSetsSCRAMThenLogsIn: a credential set through kzadmind's
// AlterUserScramCredentials, from a password kadm salted on its side, is
// one SASL/SCRAM logins succeed with, on kzadmind's own SASL listener;
// deleted, it no longer is. kadm's quota calls round-trip too.
func TestKadmSetsSCRAMThenLogsIn(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	conf := devConf("PLAINTEXT", "SASL_PLAINTEXT")
	conf.Props = map[string]string{
		"sasl.enabled.mechanisms":                   "SCRAM-SHA-256",
		"connection.failed.authentication.delay.ms": "0",
	}
	d := startDev(ctx, t, conf)
	client := func(opts ...kgo.Opt) *kadm.Client {
		cl, err := kgo.NewClient(append([]kgo.Opt{kgo.RequestRetries(1)}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(cl.Close)
		return kadm.NewClient(cl)
	}
	plain := client(kgo.SeedBrokers(d.ListenerAddr("PLAINTEXT")))
	loginAs := func(pass string) error {
		cl := client(kgo.SeedBrokers(d.ListenerAddr("SASL_PLAINTEXT")),
			kgo.SASL(scram.Auth{User: "alice", Pass: pass}.AsSha256Mechanism()))
		_, err := cl.BrokerMetadata(ctx)
		return err
	}

	res, err := plain.AlterUserSCRAMs(ctx, nil, []kadm.UpsertSCRAM{
		{User: "alice", Mechanism: kadm.ScramSha256, Iterations: 8192, Password: "alice-secret"}})
	if err != nil || res["alice"].Err != nil {
		t.Fatalf("upsert: %v / %+v", err, res)
	}
	described, err := plain.DescribeUserSCRAMs(ctx, "alice")
	if err != nil || len(described["alice"].CredInfos) != 1 || described["alice"].CredInfos[0].Iterations != 8192 {
		t.Fatalf("describe: %v / %+v", err, described)
	}
	if err := loginAs("alice-secret"); err != nil {
		t.Fatalf("login with the password just set: %v", err)
	}
	if err := loginAs("wrong"); err == nil {
		t.Fatal("a wrong password logged in")
	}

	alice := "alice"
	entity := kadm.ClientQuotaEntity{{Type: "user", Name: &alice}}
	altered, err := plain.AlterClientQuotas(ctx, []kadm.AlterClientQuotaEntry{{Entity: entity,
		Ops: []kadm.AlterClientQuotaOp{{Key: "producer_byte_rate", Value: 1 << 20}}}})
	if err != nil || len(altered) != 1 || altered[0].Err != nil {
		t.Fatalf("alter quotas: %v / %+v", err, altered)
	}
	quotas, err := plain.DescribeClientQuotas(ctx, true, []kadm.DescribeClientQuotaComponent{
		{Type: "user", MatchName: &alice, MatchType: kmsg.QuotasMatchTypeExact}})
	if err != nil || len(quotas) != 1 || len(quotas[0].Values) != 1 || quotas[0].Values[0].Value != 1<<20 {
		t.Fatalf("describe quotas: %v / %+v", err, quotas)
	}

	res, err = plain.AlterUserSCRAMs(ctx, []kadm.DeleteSCRAM{{User: "alice", Mechanism: kadm.ScramSha256}}, nil)
	if err != nil || res["alice"].Err != nil {
		t.Fatalf("delete: %v / %+v", err, res)
	}
	if err := loginAs("alice-secret"); err == nil {
		t.Fatal("logged in with a deleted credential")
	}
}
