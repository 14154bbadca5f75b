package handler

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/zkadmin"
)

// quotaFixture is the handlers over the real zkadmin.Admin (so the quota
// and SCRAM routes exist) and a real ZooKeeper, with mods applied.
func quotaFixture(t *testing.T, mods ...func(*Options)) (*fixture, *e2e) {
	t.Helper()
	e := newE2E(t)
	cfg := config.Default()
	cfg.NodeID = selfID
	opts := Options{Cluster: e.views, Admin: e.admin, Config: cfg}
	for _, m := range mods {
		m(&opts)
	}
	h, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, views: e.views, h: h}, e
}

func scramAlterReq() *kmsg.AlterUserSCRAMCredentialsRequest {
	r := kmsg.NewPtrAlterUserSCRAMCredentialsRequest()
	for _, user := range []string{"bob", "alice", "bob"} {
		u := kmsg.NewAlterUserSCRAMCredentialsRequestUpsertion()
		u.Name, u.Mechanism, u.Iterations, u.Salt, u.SaltedPassword = user, 1, 4096, []byte("s"), make([]byte, 32)
		r.Upsertions = append(r.Upsertions, u)
	}
	d := kmsg.NewAlterUserSCRAMCredentialsRequestDeletion()
	d.Name, d.Mechanism = "carol", 2
	r.Deletions = append(r.Deletions, d)
	return r
}

// TestQuotaAndScramRoutes: the four APIs are served when the Admin can,
// and not over an Admin that cannot (so ApiVersions does not advertise
// them).
func TestQuotaAndScramRoutes(t *testing.T) {
	keys := func(h *Handlers) map[int16]bool {
		out := map[int16]bool{}
		for _, r := range h.Routes() {
			out[r.Key] = true
		}
		return out
	}
	f, _ := quotaFixture(t)
	for _, k := range []int16{48, 49, 50, 51} {
		if !keys(f.h)[k] {
			t.Errorf("key %d not served over zkadmin.Admin", k)
		}
	}
	fake := newFixture(t, baseView())
	for _, k := range []int16{48, 49, 50, 51} {
		if keys(fake.h)[k] {
			t.Errorf("key %d served over an Admin without quotas", k)
		}
	}
}

// TestQuotaAndScramRefusals: Kafka's authorization and controller checks,
// with its answer shapes.
func TestQuotaAndScramRefusals(t *testing.T) {
	denied, _ := quotaFixture(t, func(o *Options) {
		o.Authorizer = denyAuthz{deny(OpDescribeConfigs, ClusterResourceName): true, deny(OpAlterConfigs, ClusterResourceName): true,
			deny(OpDescribe, ClusterResourceName): true, deny(OpAlter, ClusterResourceName): true}
	})
	dq := denied.call(kmsg.NewPtrDescribeClientQuotasRequest()).(*kmsg.DescribeClientQuotasResponse)
	if dq.ErrorCode != kerr.ClusterAuthorizationFailed.Code || dq.ErrorMessage != nil || dq.Entries != nil {
		t.Errorf("describe quotas denied: %s", dump(dq))
	}
	aq := kmsg.NewPtrAlterClientQuotasRequest()
	entry := kmsg.NewAlterClientQuotasRequestEntry()
	ent := kmsg.NewAlterClientQuotasRequestEntryEntity()
	ent.Type, ent.Name = "user", sp("alice")
	entry.Entity = append(entry.Entity, ent)
	aq.Entries = append(aq.Entries, entry)
	aqr := denied.call(aq).(*kmsg.AlterClientQuotasResponse)
	if len(aqr.Entries) != 1 || aqr.Entries[0].ErrorCode != kerr.ClusterAuthorizationFailed.Code ||
		ptr(aqr.Entries[0].ErrorMessage) != "Cluster authorization failed." || *aqr.Entries[0].Entity[0].Name != "alice" {
		t.Errorf("alter quotas denied: %s", dump(aqr))
	}
	ds := kmsg.NewPtrDescribeUserSCRAMCredentialsRequest()
	ds.Users = []kmsg.DescribeUserSCRAMCredentialsRequestUser{{Name: "a"}, {Name: "b"}}
	dsr := denied.call(ds).(*kmsg.DescribeUserSCRAMCredentialsResponse)
	if dsr.ErrorCode != kerr.ClusterAuthorizationFailed.Code || len(dsr.Results) != 2 || dsr.Results[0].User != "" ||
		dsr.Results[1].ErrorCode != kerr.ClusterAuthorizationFailed.Code {
		t.Errorf("describe SCRAM denied: %s", dump(dsr))
	}
	asr := denied.call(scramAlterReq()).(*kmsg.AlterUserSCRAMCredentialsResponse)
	if got := scramUsers(asr); got != "alice:31 bob:31 carol:31" {
		t.Errorf("alter SCRAM denied: %s", got)
	}

	standby, _ := quotaFixture(t, func(o *Options) { o.Cluster = NewViews(&View{}) })
	if got := scramUsers(standby.call(scramAlterReq()).(*kmsg.AlterUserSCRAMCredentialsResponse)); got != "alice:41 bob:41 carol:41" {
		t.Errorf("alter SCRAM on a standby: %s", got)
	}
	// A standby still answers the quota APIs, as any broker does.
	if r := standby.call(kmsg.NewPtrDescribeClientQuotasRequest()).(*kmsg.DescribeClientQuotasResponse); r.ErrorCode != 0 {
		t.Errorf("describe quotas on a standby: %s", dump(r))
	}
}

// scramUsers renders alter results as "user:code", with the message in
// parentheses when there is one.
func scramUsers(r *kmsg.AlterUserSCRAMCredentialsResponse) string {
	var out []string
	for _, res := range r.Results {
		s := fmt.Sprintf("%s:%d", res.User, res.ErrorCode)
		if res.ErrorMessage != nil {
			s += "(" + *res.ErrorMessage + ")"
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

// TestQuotaMalformedZnodeNamed: a quota value someone wrote badly fails
// the describe with UNKNOWN_SERVER_ERROR, as in Kafka, but the message
// names the znode.
func TestQuotaMalformedZnodeNamed(t *testing.T) {
	f, e := quotaFixture(t)
	if _, err := e.zk.CreateRecursive(e.ctx, "/config/clients/slow", []byte(`{"version":1,"config":{"producer_byte_rate":"fast"}}`), zkadmin.Persistent); err != nil {
		t.Fatal(err)
	}
	r := f.call(kmsg.NewPtrDescribeClientQuotasRequest()).(*kmsg.DescribeClientQuotasResponse)
	if r.ErrorCode != kerr.UnknownServerError.Code || r.ErrorMessage == nil || r.Entries != nil {
		t.Fatalf("%s", dump(r))
	}
	for _, want := range []string{"/config/clients/slow", "producer_byte_rate"} {
		if !strings.Contains(*r.ErrorMessage, want) {
			t.Errorf("message %q lacks %q", *r.ErrorMessage, want)
		}
	}
}

// quotaEcho answers the quota and SCRAM calls from what they were given,
// for the fuzz target: the handlers' conversions run on whatever decodes.
type quotaEcho struct{}

func (quotaEcho) DescribeClientQuotas(_ context.Context, f zkadmin.QuotaFilter) ([]zkadmin.QuotaEntry, error) {
	var e zkadmin.QuotaEntity
	for _, c := range f.Components {
		e = append(e, zkadmin.QuotaEntityPart{Type: c.EntityType, Name: c.Name, Default: c.Match == zkadmin.QuotaMatchDefault})
	}
	return []zkadmin.QuotaEntry{{Entity: e, Values: map[string]float64{"producer_byte_rate": 1}}}, nil
}

func (quotaEcho) AlterClientQuotas(context.Context, zkadmin.QuotaEntity, []zkadmin.QuotaChange, bool) error {
	return nil
}

func (quotaEcho) DescribeUserScramCredentials(_ context.Context, users []string) ([]zkadmin.ScramUserCredentials, error) {
	out := make([]zkadmin.ScramUserCredentials, len(users))
	for i, u := range users {
		out[i] = zkadmin.ScramUserCredentials{User: u, Credentials: []zkadmin.ScramCredentialInfo{{Mechanism: 1, Iterations: 4096}}}
	}
	return out, nil
}

func (quotaEcho) AlterUserScramCredentials(_ context.Context, ups []zkadmin.ScramUpsertion, dels []zkadmin.ScramDeletion) []zkadmin.ScramAlterResult {
	var out []zkadmin.ScramAlterResult
	for _, u := range ups {
		out = append(out, zkadmin.ScramAlterResult{User: u.User})
	}
	for _, d := range dels {
		out = append(out, zkadmin.ScramAlterResult{User: d.User, Err: zkadmin.ErrInvalidRequest})
	}
	return out
}

func quotaDescribeSeed() kmsg.Request {
	r := kmsg.NewPtrDescribeClientQuotasRequest()
	r.Version, r.Strict = 1, true
	c := kmsg.NewDescribeClientQuotasRequestComponent()
	c.EntityType, c.MatchType, c.Match = "user", 0, sp("alice")
	r.Components = append(r.Components, c)
	return r
}

func quotaAlterSeed() kmsg.Request {
	r := kmsg.NewPtrAlterClientQuotasRequest()
	r.Version = 1
	e := kmsg.NewAlterClientQuotasRequestEntry()
	for _, typ := range []string{"user", "client-id"} {
		ent := kmsg.NewAlterClientQuotasRequestEntryEntity()
		ent.Type = typ
		e.Entity = append(e.Entity, ent)
	}
	op := kmsg.NewAlterClientQuotasRequestEntryOp()
	op.Key, op.Value = "producer_byte_rate", 1024
	e.Ops = append(e.Ops, op)
	r.Entries = append(r.Entries, e)
	return r
}

func scramDescribeSeed() kmsg.Request {
	r := kmsg.NewPtrDescribeUserSCRAMCredentialsRequest()
	r.Users = []kmsg.DescribeUserSCRAMCredentialsRequestUser{{Name: "alice"}}
	return r
}
