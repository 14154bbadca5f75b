package zkadmin

import (
	"crypto/pbkdf2"
	"crypto/sha256"
	"crypto/sha512"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/kzadmin/kzadmin/security/scram"
	"github.com/kzadmin/kzadmin/znodes"
)

// upsert is an upsertion of password for user, salted as a client does.
func upsert(t *testing.T, user string, m scram.Mechanism, iterations int32, password string) ScramUpsertion {
	t.Helper()
	salt := []byte("salt-" + user)
	h, n := sha256.New, 32
	if m == scram.SHA512 {
		h, n = sha512.New, 64
	}
	salted, err := pbkdf2.Key(h, password, salt, int(iterations), n)
	if err != nil {
		t.Fatal(err)
	}
	return ScramUpsertion{User: user, Mechanism: int8(m), Iterations: iterations, Salt: salt, SaltedPassword: salted}
}

// scramResults renders results as "user:code:message".
func scramResults(rs []ScramAlterResult) []string {
	var out []string
	for _, r := range rs {
		s := r.User + ":0"
		var ae *AdminError
		switch {
		case errors.As(r.Err, &ae):
			s = fmt.Sprintf("%s:%d:%s", r.User, ae.Code, ae.Message)
		case r.Err != nil:
			s = r.User + ":" + r.Err.Error()
		}
		out = append(out, s)
	}
	return out
}

// TestScramCredentials: an upsertion stores the credential the password
// gives (so SASL/SCRAM logins work with it), Kafka's refusals come with
// its codes and messages, describe lists mechanisms and iterations, and
// deleting a user's last credential removes its znode.
func TestScramCredentials(t *testing.T) {
	e := newAdminEnv(t, []string{""}, nil)
	const bob = "CN=bob,O=x*"
	got := scramResults(e.admin.AlterUserScramCredentials(e.ctx, []ScramUpsertion{
		upsert(t, "alice", scram.SHA256, 4096, "alice-secret"),
		upsert(t, bob, scram.SHA256, 8192, "bob-secret"),
	}, nil))
	if strings.Join(got, "|") != bob+":0|alice:0" {
		t.Fatalf("upsert: %q", got)
	}
	stored, err := znodes.DecodeEntityConfig("users", "alice", e.get("/config/users/alice"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := scram.DeriveCredential(scram.SHA256, "alice-secret", []byte("salt-alice"), 4096)
	if err != nil {
		t.Fatal(err)
	}
	if stored.Config["SCRAM-SHA-256"] != want.String() {
		t.Errorf("stored %q, want %q", stored.Config["SCRAM-SHA-256"], want.String())
	}
	if !e.exists("/config/users/CN%3Dbob%2CO%3Dx%2A") {
		t.Error("bob's znode is not under his sanitized name")
	}

	// Refusals, each with Kafka's code and message; valid users of the
	// same request still go ahead.
	if err := e.admin.AlterClientQuotas(e.ctx, QuotaEntity{user("alice")}, []QuotaChange{setQ("producer_byte_rate", 9)}, false); err != nil {
		t.Fatal(err)
	}
	before := e.snapshot()
	got = scramResults(e.admin.AlterUserScramCredentials(e.ctx, []ScramUpsertion{
		{User: "dave", Mechanism: 0, Iterations: 4096},
		{User: "erin", Mechanism: 1, Iterations: 100},
		{User: "frank", Mechanism: 2, Iterations: 20000},
		{User: "gina", Mechanism: 1, Iterations: 4096},
		{User: "gina", Mechanism: 1, Iterations: 8192},
		{User: "", Mechanism: 1, Iterations: 4096},
	}, []ScramDeletion{{User: "carol", Mechanism: 1}, {User: "henry", Mechanism: 9}, {User: "alice", Mechanism: 2}}))
	wantResults := []string{
		":93:Username must not be empty",
		"alice:91:Attempt to delete a user credential that does not exist",
		"carol:91:Attempt to delete a user credential that does not exist",
		"dave:33:Unknown SCRAM mechanism",
		"erin:93:Too few iterations",
		"frank:93:Too many iterations",
		"gina:92:A user credential cannot be altered twice in the same request",
		"henry:33:Unknown SCRAM mechanism",
	}
	if strings.Join(got, "\n") != strings.Join(wantResults, "\n") {
		t.Errorf("refusals:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantResults, "\n"))
	}
	sameSnapshot(t, before, e.snapshot())

	describe := func(users ...string) string {
		t.Helper()
		rs, err := e.admin.DescribeUserScramCredentials(e.ctx, users)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rs {
			s := r.User
			for _, c := range r.Credentials {
				s += fmt.Sprintf(" %d/%d", c.Mechanism, c.Iterations)
			}
			var ae *AdminError
			if errors.As(r.Err, &ae) {
				s += fmt.Sprintf(" %d:%s", ae.Code, ae.Message)
			}
			out = append(out, s)
		}
		return strings.Join(out, "|")
	}
	if got := describe(); got != bob+" 1/8192|alice 1/4096" {
		t.Errorf("describe all: %q", got)
	}
	if got, want := describe("alice", "", "zed", bob, "zed"),
		"alice 1/4096| 91:Username must not be empty|zed 92:Cannot describe SCRAM credentials for the same user twice in a single request: zed|"+
			bob+" 1/8192"; got != want {
		t.Errorf("describe named: %q\nwant %q", got, want)
	}
	if got := describe("nobody"); got != "nobody 91:Attempt to describe a user credential that does not exist: nobody" {
		t.Errorf("describe missing: %q", got)
	}

	// Deleting the last credential: alice keeps her quota, bob's znode goes.
	got = scramResults(e.admin.AlterUserScramCredentials(e.ctx, nil, []ScramDeletion{{User: "alice", Mechanism: 1}, {User: bob, Mechanism: 1}}))
	if strings.Join(got, "|") != bob+":0|alice:0" {
		t.Fatalf("delete: %q", got)
	}
	if e.exists("/config/users/CN%3Dbob%2CO%3Dx%2A") {
		t.Error("bob's empty znode kept")
	}
	if got := string(e.get("/config/users/alice")); got != `{"version":1,"config":{"producer_byte_rate":"9"}}` {
		t.Errorf("alice = %s", got)
	}
	if got := describe(); got != "" {
		t.Errorf("describe after delete: %q", got)
	}

	// A stored credential that does not parse fails its user, named.
	e.put("/config/users/mallory", []byte(`{"version":1,"config":{"SCRAM-SHA-512":"password=oops"}}`))
	if got := describe("mallory"); !strings.Contains(got, "/config/users/mallory") || !strings.Contains(got, "SCRAM-SHA-512") {
		t.Errorf("malformed credential: %q", got)
	}
	if got := describe(); !strings.HasPrefix(got, "mallory -1:") {
		t.Errorf("describe all with a malformed credential: %q", got)
	}
}
