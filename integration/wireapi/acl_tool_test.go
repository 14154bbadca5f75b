package wireapi

import (
	"strings"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/integration/kafka"
)

// TestJavaACLToolAgainstDevMode runs Kafka 3.9's kafka-acls with
// --bootstrap-server against `kzadmind --dev` with Kafka's ACL authorizer.
// The Java AdminClient sends DescribeAcls, CreateAcls and DeleteAcls to
// any node Metadata lists, kzadmind included: every node answers them
// from the same znodes, so each run works whichever node it picks. The
// ACLs are then read back by kafka-acls through ZooKeeper
// (--authorizer-properties), Kafka's own reader of those znodes.
func TestJavaACLToolAgainstDevMode(t *testing.T) {
	kafka.SkipIfHeavyDisabled(t)
	ctx := testCtx(t, 4*time.Minute)
	d := startDevDaemon(t, ctx, func(c *config.Config) {
		c.Props = map[string]string{
			"authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
			// The tool connects anonymously over PLAINTEXT.
			"super.users": "User:ANONYMOUS",
		}
	})
	const aclTool = "kafka.admin.AclCommand"
	overWire := func(args ...string) string {
		t.Helper()
		return mustRunTool(ctx, t, aclTool, append([]string{"--bootstrap-server", d.KafkaAddr()}, args...)...)
	}
	throughZK := func(args ...string) string {
		t.Helper()
		zk := "zookeeper.connect=" + strings.Join(d.ZooKeeperServers(), ",")
		return mustRunTool(ctx, t, aclTool, append([]string{"--authorizer-properties", zk}, args...)...)
	}
	expect := func(out string, want ...string) {
		t.Helper()
		outputHas(t, out, want...)
	}
	reject := func(out string, unwanted ...string) {
		t.Helper()
		for _, u := range unwanted {
			if strings.Contains(out, u) {
				t.Errorf("output has %q:\n%s", u, out)
			}
		}
	}

	const (
		aliceReads = "(principal=User:alice, host=*, operation=READ, permissionType=ALLOW)"
		bobWrites  = "(principal=User:bob, host=*, operation=WRITE, permissionType=ALLOW)"
		carolDeny  = "(principal=User:carol, host=10.0.0.1, operation=DESCRIBE, permissionType=DENY)"
	)
	expect(overWire("--add", "--allow-principal", "User:alice", "--operation", "Read", "--topic", "orders"), aliceReads)
	expect(overWire("--add", "--allow-principal", "User:bob", "--operation", "Write", "--topic", "fin-",
		"--resource-pattern-type", "prefixed"), bobWrites)
	expect(overWire("--add", "--deny-principal", "User:carol", "--deny-host", "10.0.0.1", "--operation", "Describe",
		"--group", "g1"), carolDeny)

	// Each run picks a node; three runs make a simulated broker's turn,
	// and kzadmind's, all but certain.
	for range 3 {
		expect(overWire("--list"),
			"ResourcePattern(resourceType=TOPIC, name=orders, patternType=LITERAL)", aliceReads,
			"ResourcePattern(resourceType=TOPIC, name=fin-, patternType=PREFIXED)", bobWrites,
			"ResourcePattern(resourceType=GROUP, name=g1, patternType=LITERAL)", carolDeny)
	}
	expect(throughZK("--list"), aliceReads, bobWrites, carolDeny)
	expect(overWire("--list", "--topic", "fin-x", "--resource-pattern-type", "match"), bobWrites)

	overWire("--remove", "--force", "--allow-principal", "User:alice", "--operation", "Read", "--topic", "orders")
	out := throughZK("--list")
	expect(out, bobWrites, carolDeny)
	reject(out, aliceReads)
	overWire("--remove", "--force", "--group", "g1")
	out = overWire("--list")
	expect(out, bobWrites)
	reject(out, aliceReads, carolDeny)
}
