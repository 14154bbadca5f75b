package cli

import (
	"strings"
	"testing"

	"github.com/kzadmin/kzadmin/security/scram"
	"github.com/kzadmin/kzadmin/znodes"
)

// TestConfigsUsers: --entity-type users writes SCRAM credentials derived
// from the password (never the password) and quotas to
// /config/users/<user> with a change notification, describes them,
// deletes one mechanism, and refuses bad specs.
func TestConfigsUsers(t *testing.T) {
	c := newCluster(t)
	c.want(0, []string{"Completed updating config for user alice."}, "configs", "alter", "--entity-type", "users",
		"--entity-name", "alice", "--add-config",
		"SCRAM-SHA-256=[iterations=8192,password=alice,secret],SCRAM-SHA-512=[password=alice,secret],producer_byte_rate=1024")
	data := c.get("/config/users/alice")
	if strings.Contains(data, "password") || strings.Contains(data, "alice,secret") {
		t.Fatalf("the password reached ZooKeeper: %s", data)
	}
	cfg, err := znodes.DecodeEntityConfig("users", "alice", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	creds, err := scram.FromUserConfig(cfg.Config)
	if err != nil || len(creds) != 2 || cfg.Config["producer_byte_rate"] != "1024" {
		t.Fatalf("%s: %v", data, err)
	}
	for m, cr := range creds {
		want, err := scram.DeriveCredential(m, "alice,secret", cr.Salt, cr.Iterations)
		if err != nil || want.String() != cr.String() {
			t.Errorf("%s: stored %s, derived %s", m, cr, want)
		}
	}
	if creds[scram.SHA256].Iterations != 8192 || creds[scram.SHA512].Iterations != 4096 {
		t.Errorf("iterations %d/%d", creds[scram.SHA256].Iterations, creds[scram.SHA512].Iterations)
	}
	kids, _, err := c.zk.Children(c.ctx, znodes.ConfigChangesPath)
	if err != nil || len(kids) != 1 || c.get(znodes.ConfigChangePath(kids[0])) != `{"version":2,"entity_path":"users/alice"}` {
		t.Fatalf("notifications %v %v", kids, err)
	}
	r := c.ok("configs", "describe", "--entity-type", "users")
	for _, want := range []string{"user alice", "SCRAM-SHA-256", "salt=", "producer_byte_rate"} {
		if !strings.Contains(r.out, want) {
			t.Errorf("describe lacks %q:\n%s", want, r.out)
		}
	}
	c.ok("configs", "alter", "--entity-type", "users", "--entity-name", "alice", "--delete-config", "SCRAM-SHA-512")
	if got := c.get("/config/users/alice"); strings.Contains(got, "SCRAM-SHA-512") || !strings.Contains(got, "SCRAM-SHA-256") {
		t.Fatalf("after delete: %s", got)
	}
	c.want(0, []string{"Completed updating default config for users in the cluster."}, "configs", "alter",
		"--entity-type", "users", "--entity-default", "--add-config", "consumer_byte_rate=2048")
	c.want(0, []string{"users <default>", "consumer_byte_rate"}, "configs", "describe", "--entity-type", "users", "--entity-default")

	before := c.snapshot()
	c.want(2, []string{"iterations 100 is less than the minimum 4096"}, "configs", "alter", "--entity-type", "users",
		"--entity-name", "bob", "--add-config", "SCRAM-SHA-256=[iterations=100,password=x]")
	c.want(2, []string{"want [iterations=<n>,]password=<password>"}, "configs", "alter", "--entity-type", "users",
		"--entity-name", "bob", "--add-config", "SCRAM-SHA-256=[secret]")
	c.want(1, []string{"Unknown Dynamic Configuration 'retention.ms'"}, "configs", "alter", "--entity-type", "users",
		"--entity-name", "bob", "--add-config", "retention.ms=1")
	c.want(1, []string{"Invalid config(s): SCRAM-SHA-512"}, "configs", "alter", "--entity-type", "users",
		"--entity-name", "alice", "--delete-config", "SCRAM-SHA-512")
	sameTree(t, before, c.snapshot())
}
