package zkadmin

import (
	"strings"
	"testing"

	"github.com/kzadmin/kzadmin/security/scram"
	"github.com/kzadmin/kzadmin/znodes"
)

// TestAlterUserConfig: a user's SCRAM credentials and quotas are written
// to /config/users/<sanitized name> with a users/<sanitized name> change
// notification, deleting one mechanism keeps the rest, and what Kafka's
// DynamicConfig.User refuses is refused without a write.
func TestAlterUserConfig(t *testing.T) {
	e := newAdminEnv(t, []string{""}, nil)
	cred, err := scram.NewCredential(scram.SHA256, "pw", 4096)
	if err != nil {
		t.Fatal(err)
	}
	cred512, err := scram.NewCredential(scram.SHA512, "pw", 8192)
	if err != nil {
		t.Fatal(err)
	}
	const user = "CN=alice,O=x*" // sanitized: CN%3Dalice%2CO%3Dx%2A
	if _, err := e.admin.AlterConfigs(e.ctx, ConfigAlteration{EntityType: "users", EntityName: user,
		Set: map[string]string{"SCRAM-SHA-256": cred.String(), "SCRAM-SHA-512": cred512.String(), "producer_byte_rate": "1024"}}); err != nil {
		t.Fatal(err)
	}
	const path = "/config/users/CN%3Dalice%2CO%3Dx%2A"
	cfg, err := znodes.DecodeEntityConfig("users", "x", e.get(path))
	if err != nil || len(cfg.Config) != 3 || cfg.Config["SCRAM-SHA-256"] != cred.String() {
		t.Fatalf("%s: %v %v", path, cfg.Config, err)
	}
	kids, _, _ := e.zk.Children(e.ctx, znodes.ConfigChangesPath)
	if len(kids) != 1 || string(e.get(znodes.ConfigChangePath(kids[0]))) != `{"version":2,"entity_path":"users/CN%3Dalice%2CO%3Dx%2A"}` {
		t.Fatalf("notifications %v", kids)
	}
	res, err := e.admin.AlterConfigs(e.ctx, ConfigAlteration{EntityType: "users", EntityName: user, Delete: []string{"SCRAM-SHA-512"}})
	if err != nil || len(res.After) != 2 || res.After["SCRAM-SHA-512"] != "" {
		t.Fatalf("delete: %+v %v", res, err)
	}
	if _, err := e.admin.AlterConfigs(e.ctx, ConfigAlteration{EntityType: "users", EntityName: "<default>",
		Set: map[string]string{"consumer_byte_rate": "2048", "request_percentage": "12.5"}}); err != nil {
		t.Fatal(err)
	}
	if !e.exists("/config/users/<default>") {
		t.Fatal("/config/users/<default> not written")
	}
	cases := []struct {
		alt ConfigAlteration
		msg string
	}{
		{ConfigAlteration{EntityType: "users", EntityName: "bob", Set: map[string]string{"SCRAM-SHA-256": "password=pw"}}, "want a stored credential"},
		{ConfigAlteration{EntityType: "users", EntityName: "bob", Set: map[string]string{"retention.ms": "1"}}, "Unknown Dynamic Configuration 'retention.ms'"},
		{ConfigAlteration{EntityType: "users", EntityName: "bob", Set: map[string]string{"producer_byte_rate": "fast"}}, "Not a number of type LONG"},
		{ConfigAlteration{EntityType: "users", EntityName: "<default>", Set: map[string]string{"SCRAM-SHA-256": cred.String()}}, "not <default>"},
		{ConfigAlteration{EntityType: "users", EntityName: "bob", Delete: []string{"SCRAM-SHA-256"}}, "Invalid config(s): SCRAM-SHA-256"},
		{ConfigAlteration{EntityType: "users", EntityName: ""}, "must not be empty"},
	}
	for _, tc := range cases {
		before := e.snapshot()
		_, err := e.admin.AlterConfigs(e.ctx, tc.alt)
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%+v: %v, want %q", tc.alt, err, tc.msg)
		}
		sameSnapshot(t, before, e.snapshot())
	}
}
