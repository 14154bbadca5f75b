package wireapi

import (
	"strings"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/integration/kafka"
	"github.com/kzadmin/kzadmin/security/scram"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// TestJavaQuotaAndScramToolAgainstDevMode runs Kafka 3.9's kafka-configs
// with --bootstrap-server against dev mode for users, clients and IPs.
// The Java AdminClient sends AlterUserScramCredentials to the controller,
// kzadmind, and the quota APIs and DescribeUserScramCredentials to any
// node: before kzadmind served them, every SCRAM change failed, and the
// rest failed whenever the tool picked kzadmind. The credential the tool
// salted on its side must be the one the password gives, or SASL/SCRAM
// logins with it would fail; the test derives it again and compares.
func TestJavaQuotaAndScramToolAgainstDevMode(t *testing.T) {
	kafka.SkipIfHeavyDisabled(t)
	ctx := testCtx(t, 4*time.Minute)
	d := startDevDaemon(t, ctx)
	run := func(args ...string) string {
		t.Helper()
		return mustRunTool(ctx, t, kafka.ConfigCommand, append([]string{"--bootstrap-server", d.KafkaAddr()}, args...)...)
	}
	expect := func(out string, want ...string) {
		t.Helper()
		outputHas(t, out, want...)
	}

	expect(run("--alter", "--entity-type", "users", "--entity-name", "alice",
		"--add-config", "SCRAM-SHA-256=[iterations=8192,password=alice-secret],SCRAM-SHA-512=[password=alice-secret]"),
		"Completed updating config for user alice.")
	expect(run("--alter", "--entity-type", "users", "--entity-name", "alice",
		"--add-config", "producer_byte_rate=1024,request_percentage=12.5"),
		"Completed updating config for user alice.")
	expect(run("--alter", "--entity-type", "clients", "--entity-name", "app-1",
		"--add-config", "consumer_byte_rate=2048"), "Completed updating config for client app-1.")
	expect(run("--alter", "--entity-type", "users", "--entity-name", "alice", "--entity-type", "clients",
		"--entity-name", "app-1", "--add-config", "controller_mutation_rate=10"), "Completed updating config for user alice.")
	expect(run("--alter", "--entity-type", "users", "--entity-default", "--add-config", "producer_byte_rate=100"),
		"Completed updating default config for users in the cluster.")
	expect(run("--alter", "--entity-type", "ips", "--entity-name", "127.0.0.1",
		"--add-config", "connection_creation_rate=5"), "Completed updating config for ip 127.0.0.1.")

	// Each run picks a node for the describes; three runs make both a
	// simulated broker's turn and kzadmind's all but certain.
	for range 3 {
		expect(run("--describe", "--entity-type", "users", "--entity-name", "alice"),
			"Quota configs for user-principal 'alice' are ", "producer_byte_rate=1024.0", "request_percentage=12.5",
			"SCRAM credential configs for user-principal 'alice' are SCRAM-SHA-256=iterations=8192, SCRAM-SHA-512=iterations=4096")
	}
	expect(run("--describe", "--entity-type", "clients", "--entity-name", "app-1"),
		"Quota configs for client-id 'app-1' are consumer_byte_rate=2048.0")
	expect(run("--describe", "--entity-type", "users", "--entity-name", "alice", "--entity-type", "clients", "--entity-name", "app-1"),
		"Quota configs for user-principal 'alice', client-id 'app-1' are controller_mutation_rate=10.0")
	expect(run("--describe", "--entity-type", "users", "--entity-default"),
		"Quota configs for the default user-principal are producer_byte_rate=100.0")
	expect(run("--describe", "--entity-type", "ips", "--entity-name", "127.0.0.1"),
		"Quota configs for ip '127.0.0.1' are connection_creation_rate=5.0")

	// What the tool wrote is where Kafka's brokers read it.
	zkc, err := zkadmin.Connect(ctx, zkadmin.Options{Servers: d.ZooKeeperServers()})
	if err != nil {
		t.Fatal(err)
	}
	defer zkc.Close()
	data, _, err := zkc.Get(ctx, "/config/users/alice")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := znodes.DecodeEntityConfig(znodes.EntityUsers, "alice", data)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range scram.Mechanisms() {
		stored, err := scram.ParseCredential(cfg.Config[m.Name()])
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		again, err := scram.DeriveCredential(m, "alice-secret", stored.Salt, stored.Iterations)
		if err != nil {
			t.Fatal(err)
		}
		if again.String() != stored.String() {
			t.Errorf("%s stored %s, but the password gives %s", m, stored, again)
		}
	}
	if cfg.Config["producer_byte_rate"] != "1024" || cfg.Config["request_percentage"] != "12.5" {
		t.Errorf("alice's quotas: %v", cfg.Config)
	}

	// Deletions: a credential, then the user+client quota, whose znodes go.
	expect(run("--alter", "--entity-type", "users", "--entity-name", "alice", "--delete-config", "SCRAM-SHA-512"),
		"Completed updating config for user alice.")
	out := run("--describe", "--entity-type", "users", "--entity-name", "alice")
	expect(out, "SCRAM credential configs for user-principal 'alice' are SCRAM-SHA-256=iterations=8192")
	if strings.Contains(out, "SCRAM-SHA-512") {
		t.Errorf("SCRAM-SHA-512 still listed:\n%s", out)
	}
	run("--alter", "--entity-type", "users", "--entity-name", "alice", "--entity-type", "clients",
		"--entity-name", "app-1", "--delete-config", "controller_mutation_rate")
	if ok, _, err := zkc.Exists(ctx, "/config/users/alice/clients"); err != nil || ok {
		t.Errorf("/config/users/alice/clients still there (%v)", err)
	}
}
