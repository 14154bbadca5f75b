package wirebackend_test

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestACLs runs kzadmin acls over the wire against kzadmind (dev mode)
// with Kafka's ACL authorizer, and compares every listing with the one
// --zookeeper reads from the znodes; without an authorizer the cluster
// answers SECURITY_DISABLED, as Kafka's brokers do.
func TestACLs(t *testing.T) {
	want(t, dev.wire(t, "acls", "--list"), 1, "ACLs: No Authorizer is configured on the broker")

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conf := devConfig()
	conf.HTTPListen = ""
	conf.Props = map[string]string{
		"authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
		"super.users":           "User:ANONYMOUS", // the CLI connects anonymously
	}
	d := startDaemon(ctx, t, conf)
	c, err := newCluster(ctx, d, "", 3)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.zk.Close)

	same := func(args ...string) string {
		t.Helper()
		w, z := want(t, c.wire(t, args...), 0), want(t, c.zook(t, args...), 0)
		if w.out != z.out {
			t.Errorf("acls %v: --bootstrap-server shows\n%s\n--zookeeper shows\n%s", args, w.out, z.out)
		}
		return w.out
	}
	want(t, c.wire(t, "acls", "--add", "--allow-principal", "User:alice", "--operation", "Read", "--operation", "Describe",
		"--topic", "orders"), 0, "Adding ACLs for resource `ResourcePattern(resourceType=TOPIC, name=orders, patternType=LITERAL)`")
	want(t, c.wire(t, "acls", "--add", "--allow-principal", "User:bob", "--operation", "Write", "--topic", "fin-",
		"--resource-pattern-type", "prefixed"), 0)
	if got := c.get(t, "/kafka-acl-extended/prefixed/Topic/fin-"); got !=
		`{"version":1,"acls":[{"principal":"User:bob","permissionType":"Allow","operation":"Write","host":"*"}]}` {
		t.Fatalf("prefixed ACL znode %s", got)
	}
	same("acls", "--list")
	same("acls", "--list", "--topic", "fin-x", "--resource-pattern-type", "match")
	same("acls", "--list", "--principal", "User:alice", "-o", "json")

	want(t, c.wire(t, "acls", "--remove", "--force", "--allow-principal", "User:alice", "--operation", "Read",
		"--topic", "orders"), 0, "Removed ACLs from resource", "operation=READ")
	if out := same("acls", "--list"); !strings.Contains(out, "operation=DESCRIBE") || strings.Contains(out, "operation=READ") {
		t.Fatalf("after removing alice's Read:\n%s", out)
	}
	want(t, c.wire(t, "acls", "--remove", "--force", "--allow-principal", "User:carol", "--operation", "Read",
		"--topic", "orders"), 0, "No matching ACLs: nothing removed.")
}
