package acl

import (
	"context"
	"strings"
	"testing"

	"github.com/kzadmin/kzadmin/integration/kafka"
)

// aclCommand runs Kafka 3.9's kafka-acls against the test's ZooKeeper
// chroot (the ZooKeeper-backed AclAuthorizer path).
func aclCommand(t *testing.T, chroot string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), kafka.ToolTimeout)
	defer cancel()
	base := []string{"--authorizer-properties", "zookeeper.connect=" + zookeeper(t).Addr() + chroot}
	out, _, err := kafka.RunTool(ctx, "kafka.admin.AclCommand", append(base, args...)...)
	if err != nil {
		t.Fatalf("kafka-acls %v: %v", args, err)
	}
	return out
}

// TestKafkaAclCommandInterop: ACLs written by Kafka's own tool are read
// and followed (through Kafka's change notifications) by the cache, and
// ACLs written by Store are listed and removed by Kafka's tool.
func TestKafkaAclCommandInterop(t *testing.T) {
	kafka.SkipIfHeavyDisabled(t)
	zk, chroot := connectZK(t)
	ctx := testCtx(t)
	c := runCache(t, zk)
	aclCommand(t, chroot, "--add", "--allow-principal", "User:alice", "--operation", "Read", "--topic", "orders")
	aclCommand(t, chroot, "--add", "--allow-principal", "User:bob", "--operation", "Write",
		"--topic", "fin-", "--resource-pattern-type", "prefixed")
	aclCommand(t, chroot, "--add", "--deny-principal", "User:alice", "--deny-host", "10.0.0.1",
		"--operation", "Describe", "--group", "g1")
	aclCommand(t, chroot, "--add", "--allow-principal", "User:carol", "--operation", "Create", "--cluster")
	aclCommand(t, chroot, "--add", "--allow-principal", "User:carol", "--operation", "IdempotentWrite", "--cluster")

	want := map[string]Binding{
		"orders": {topic("orders"), allow("User:alice", OpRead)},
		"fin-":   {prefix("fin-"), allow("User:bob", OpWrite)},
		"g1":     {Pattern{ResourceGroup, "g1", PatternLiteral}, Entry{"User:alice", "10.0.0.1", OpDescribe, PermissionDeny}},
	}
	got, err := NewStore(zk).List(ctx, MatchAll())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 {
		t.Fatalf("listed %d bindings: %v", len(got), got)
	}
	for _, b := range got {
		if w, ok := want[b.Pattern.Name]; ok && w != b {
			t.Errorf("read %v %v, want %v %v", b.Pattern, b.Entry, w.Pattern, w.Entry)
		}
	}
	cluster := func(p Principal, op Operation) bool {
		return c.Index().Authorize(Request{Principal: p, Operation: op, Type: ResourceCluster, Name: ClusterName}, Options{})
	}
	waitFor(t, "Kafka's ACLs in the cache", func() bool {
		return allowed(c, alice, OpDescribe, "orders") && allowed(c, bob, OpWrite, "fin-ledger") &&
			cluster(Principal{"User", "carol"}, OpCreate) && cluster(Principal{"User", "carol"}, OpIdempotentWrite)
	})

	// Ours, listed and removed by Kafka's tool.
	if err := NewStore(zk).Add(ctx, []Binding{
		{topic("audit"), Entry{"User:dave", "*", OpDescribeConfigs, PermissionAllow}},
		{Pattern{ResourceTransactionalID, "tx-", PatternPrefixed}, Entry{"User:dave", "*", OpWrite, PermissionAllow}},
	}); err != nil {
		t.Fatal(err)
	}
	out := aclCommand(t, chroot, "--list", "--topic", "audit")
	if !strings.Contains(out, "(principal=User:dave, host=*, operation=DESCRIBE_CONFIGS, permissionType=ALLOW)") {
		t.Fatalf("kafka-acls --list --topic audit:\n%s", out)
	}
	out = aclCommand(t, chroot, "--list", "--transactional-id", "tx-", "--resource-pattern-type", "prefixed")
	if !strings.Contains(out, "name=tx-, patternType=PREFIXED") || !strings.Contains(out, "operation=WRITE") {
		t.Fatalf("kafka-acls --list --transactional-id tx-:\n%s", out)
	}
	aclCommand(t, chroot, "--remove", "--force", "--allow-principal", "User:alice", "--operation", "Read", "--topic", "orders")
	waitFor(t, "Kafka's removal in the cache", func() bool { return !allowed(c, alice, OpRead, "orders") })
}
