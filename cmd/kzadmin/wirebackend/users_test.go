package wirebackend_test

import (
	"strings"
	"testing"

	"github.com/kzadmin/kzadmin/security/scram"
	"github.com/kzadmin/kzadmin/znodes"
)

// TestUsers: `configs --entity-type users` over --bootstrap-server sets
// and removes quotas (AlterClientQuotas) and SCRAM credentials
// (AlterUserScramCredentials, with the password salted here), lists them,
// and refuses what --zookeeper refuses; the znodes are the ones
// --zookeeper writes, and a credential is the one the password gives.
func TestUsers(t *testing.T) {
	c := dev
	const path = "/config/users/CN%3Dalice%2CO%3Dx"
	want(t, c.wire(t, "configs", "alter", "--entity-type", "users", "--entity-name", "CN=alice,O=x",
		"--add-config", "SCRAM-SHA-256=[iterations=8192,password=alice-secret]"), 0, "Completed updating config for user CN=alice,O=x.")
	cfg, err := znodes.DecodeEntityConfig("users", "alice", []byte(c.get(t, path)))
	if err != nil {
		t.Fatal(err)
	}
	stored, err := scram.ParseCredential(cfg.Config["SCRAM-SHA-256"])
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := scram.DeriveCredential(scram.SHA256, "alice-secret", stored.Salt, 8192); again.String() != stored.String() {
		t.Errorf("stored %s, the password gives %s", stored, again)
	}
	want(t, c.wire(t, "configs", "alter", "--entity-type", "users", "--entity-name", "CN=alice,O=x",
		"--add-config", "producer_byte_rate=1024,request_percentage=12.5"), 0)
	want(t, c.wire(t, "configs", "alter", "--entity-type", "users", "--entity-default", "--add-config", "consumer_byte_rate=2048"), 0,
		"Completed updating default config for users in the cluster.")
	if got := c.get(t, "/config/users/<default>"); got != `{"version":1,"config":{"consumer_byte_rate":"2048"}}` {
		t.Errorf("<default> = %s", got)
	}
	want(t, c.wire(t, "configs", "describe", "--entity-type", "users"), 0,
		"users <default>", "consumer_byte_rate", "2048", "user CN=alice,O=x", "SCRAM-SHA-256", "iterations=8192",
		"producer_byte_rate", "1024", "request_percentage", "12.5")
	// The quotas read the same either way; --zookeeper shows the stored
	// credential where the API gives only its iterations.
	for _, args := range [][]string{
		{"configs", "describe", "--entity-type", "users", "--entity-default"},
	} {
		w, z := want(t, c.wire(t, args...), 0), want(t, c.zook(t, args...), 0)
		if w.out != z.out {
			t.Errorf("%s: --bootstrap-server shows\n%s\n--zookeeper shows\n%s", strings.Join(args, " "), w.out, z.out)
		}
	}

	// Refusals, before anything is sent.
	before := c.get(t, path)
	want(t, c.wire(t, "configs", "alter", "--entity-type", "users", "--entity-name", "CN=alice,O=x",
		"--add-config", "SCRAM-SHA-512=[password=x],producer_byte_rate=1"), 2, "cannot alter both quota and SCRAM credential configs")
	want(t, c.wire(t, "configs", "alter", "--entity-type", "users", "--entity-name", "CN=alice,O=x",
		"--add-config", "SCRAM-SHA-512=[password=x]", "--dry-run"), 2, "--dry-run is not available")
	want(t, c.wire(t, "configs", "alter", "--entity-type", "users", "--entity-name", "CN=alice,O=x",
		"--delete-config", "consumer_byte_rate"), 1, "Invalid config(s): consumer_byte_rate")
	want(t, c.wire(t, "configs", "alter", "--entity-type", "users", "--entity-name", "CN=alice,O=x",
		"--add-config", "producer_byte_rate=1.5"), 1, "Configuration producer_byte_rate must be a LONG value")
	want(t, c.wire(t, "configs", "alter", "--entity-type", "users", "--entity-name", "CN=alice,O=x",
		"--add-config", "retention.ms=1"), 1, "Invalid configuration key retention.ms")
	want(t, c.wire(t, "configs", "alter", "--entity-type", "users", "--entity-name", "CN=alice,O=x",
		"--add-config", "producer_byte_rate=5", "--dry-run"), 0, "Dry run: nothing was written.")
	if got := c.get(t, path); got != before {
		t.Errorf("a refusal or dry run wrote %s (was %s)", got, before)
	}

	// Removals.
	want(t, c.wire(t, "configs", "alter", "--entity-type", "users", "--entity-name", "CN=alice,O=x",
		"--delete-config", "SCRAM-SHA-256"), 0)
	want(t, c.wire(t, "configs", "alter", "--entity-type", "users", "--entity-name", "CN=alice,O=x",
		"--delete-config", "producer_byte_rate,request_percentage"), 0)
	if got := c.get(t, path); got != "" {
		t.Errorf("%s kept with nothing in it: %s", path, got)
	}
}

// TestClientAndIPQuotas: client ids and IPs take quotas over either
// backend, into the same znodes, and read back the same.
func TestClientAndIPQuotas(t *testing.T) {
	c := dev
	want(t, c.wire(t, "configs", "alter", "--entity-type", "clients", "--entity-name", "app 1",
		"--add-config", "producer_byte_rate=1024,controller_mutation_rate=10"), 0, "Completed updating config for client app 1.")
	if got := c.get(t, "/config/clients/app%201"); got != `{"version":1,"config":{"controller_mutation_rate":"10.0","producer_byte_rate":"1024"}}` {
		t.Errorf("client znode %s", got)
	}
	want(t, c.zook(t, "configs", "alter", "--entity-type", "clients", "--entity-default",
		"--add-config", "consumer_byte_rate=2048"), 0, "Completed updating default config for clients in the cluster.")
	want(t, c.zook(t, "configs", "alter", "--entity-type", "ips", "--entity-name", "127.0.0.1",
		"--add-config", "connection_creation_rate=5"), 0, "Completed updating config for ip 127.0.0.1.")
	for _, args := range [][]string{
		{"configs", "describe", "--entity-type", "clients"},
		{"configs", "describe", "--entity-type", "ips", "--entity-name", "127.0.0.1"},
		{"configs", "describe", "--entity-type", "clients", "--entity-name", "app 1", "-o", "json"},
	} {
		w, z := want(t, c.wire(t, args...), 0), want(t, c.zook(t, args...), 0)
		if w.out != z.out {
			t.Errorf("%s: --bootstrap-server shows\n%s\n--zookeeper shows\n%s", strings.Join(args, " "), w.out, z.out)
		}
	}
	want(t, c.wire(t, "configs", "describe", "--entity-type", "clients"), 0, "clients <default>", "consumer_byte_rate", "2048",
		"client app 1", "producer_byte_rate", "1024")
	for _, run := range []func(testing.TB, ...string) result{c.wire, c.zook} {
		want(t, run(t, "configs", "alter", "--entity-type", "ips", "--entity-name", "127.0.0.1",
			"--add-config", "producer_byte_rate=1"), 1, "producer_byte_rate")
		want(t, run(t, "configs", "alter", "--entity-type", "clients", "--entity-name", "app 1",
			"--delete-config", "consumer_byte_rate"), 1, "Invalid config(s): consumer_byte_rate")
	}
	want(t, c.wire(t, "configs", "alter", "--entity-type", "clients", "--entity-name", "app 1",
		"--delete-config", "producer_byte_rate,controller_mutation_rate"), 0)
	if got := c.get(t, "/config/clients/app%201"); got != "" {
		t.Errorf("emptied client znode kept: %s", got)
	}
}

// TestUserClientQuotas: --user with --client names a user's quotas for one
// client id, kept in /config/users/<user>/clients/<client id> with both
// names sanitized; both backends write and show them alike, defaults
// included; SCRAM keys are refused for it; and the emptied entity loses
// its znodes, the user's "clients" znode with it.
func TestUserClientQuotas(t *testing.T) {
	c := dev
	want(t, c.wire(t, "configs", "alter", "--user", "CN=uc,O=x", "--client", "app 1",
		"--add-config", "producer_byte_rate=1024"), 0, "Completed updating config for user CN=uc,O=x, client app 1.")
	if got := c.get(t, "/config/users/CN%3Duc%2CO%3Dx/clients/app%201"); got != `{"version":1,"config":{"producer_byte_rate":"1024"}}` {
		t.Errorf("user+client znode %s", got)
	}
	want(t, c.zook(t, "configs", "alter", "--user", "CN=uc,O=x", "--client", "app 1",
		"--add-config", "consumer_byte_rate=4096"), 0)
	// A DOUBLE written through the API is stored as Java prints it, which
	// both backends then show alike ("50" written to ZooKeeper would show
	// as 50.0 through the API).
	want(t, c.wire(t, "configs", "alter", "--user-defaults", "--client-defaults",
		"--add-config", "request_percentage=50"), 0, "Completed updating config for users <default>, clients <default>.")
	want(t, c.wire(t, "configs", "alter", "--user", "CN=uc,O=x", "--client-defaults",
		"--add-config", "consumer_byte_rate=8192"), 0)
	for _, args := range [][]string{
		{"configs", "describe", "--user", "CN=uc,O=x", "--client", "app 1"},
		{"configs", "describe", "--user-defaults", "--client-defaults", "-o", "json"},
		{"configs", "describe", "--user", "CN=uc,O=x", "--client-defaults"},
		{"configs", "describe", "--user", "nobody", "--client", "none"},
	} {
		w, z := want(t, c.wire(t, args...), 0), want(t, c.zook(t, args...), 0)
		if w.out != z.out {
			t.Errorf("%s: --bootstrap-server shows\n%s\n--zookeeper shows\n%s", strings.Join(args, " "), w.out, z.out)
		}
	}
	want(t, c.wire(t, "configs", "describe", "--user", "CN=uc,O=x", "--client", "app 1"), 0,
		"user CN=uc,O=x, client app 1", "consumer_byte_rate", "4096", "producer_byte_rate", "1024")
	// kafka-configs' repeated --entity-type form selects the same entities,
	// its names paired with the types in the order given.
	shorthand := want(t, c.wire(t, "configs", "describe", "--user", "CN=uc,O=x", "--client-defaults"), 0)
	for _, run := range []func(testing.TB, ...string) result{c.wire, c.zook} {
		repeated := want(t, run(t, "configs", "describe", "--entity-type", "clients", "--entity-type", "users",
			"--entity-default", "--entity-name", "CN=uc,O=x"), 0)
		if repeated.out != shorthand.out {
			t.Errorf("the repeated --entity-type form shows\n%s\n--user --client-defaults shows\n%s", repeated.out, shorthand.out)
		}
	}
	want(t, c.zook(t, "configs", "alter", "--entity-type", "users", "--entity-name", "CN=uc,O=x", "--entity-type", "clients",
		"--entity-name", "app 1", "--add-config", "request_percentage=25"), 0, "Completed updating config for user CN=uc,O=x, client app 1.")
	want(t, c.wire(t, "configs", "describe", "--user", "CN=uc,O=x", "--client", "app 1"), 0, "request_percentage", "25")
	want(t, c.wire(t, "configs", "describe", "--user-defaults", "--client-defaults", "-o", "json"), 0,
		`"client": "<default>"`, "request_percentage")
	for _, run := range []func(testing.TB, ...string) result{c.wire, c.zook} {
		want(t, run(t, "configs", "alter", "--user", "u", "--client", "c",
			"--add-config", "SCRAM-SHA-256=[password=x]"), 2, "SCRAM credentials belong to a user")
		want(t, run(t, "configs", "alter", "--user", "u", "--client", "c", "--add-config", "connection_creation_rate=1"), 1,
			"connection_creation_rate")
		want(t, run(t, "configs", "alter", "--entity-type", "users", "--user", "u", "--add-config", "producer_byte_rate=1"), 2,
			"not both")
		want(t, run(t, "configs", "alter", "--user", "u", "--user-defaults", "--add-config", "producer_byte_rate=1"), 2,
			"--user or --user-defaults")
	}
	for _, client := range []string{"app 1", "<default>"} {
		args := []string{"configs", "alter", "--user", "CN=uc,O=x", "--client", client, "--delete-config"}
		if client == "<default>" {
			args = []string{"configs", "alter", "--user", "CN=uc,O=x", "--client-defaults", "--delete-config", "consumer_byte_rate"}
		} else {
			args = append(args, "producer_byte_rate,consumer_byte_rate")
		}
		want(t, c.wire(t, args...), 0)
	}
	if got := c.get(t, "/config/users/CN%3Duc%2CO%3Dx"); got != "" {
		t.Errorf("emptied user+client entities left the user's znode: %s", got)
	}
}
