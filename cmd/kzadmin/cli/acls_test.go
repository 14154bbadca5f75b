package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kzadmin/kzadmin/integration/kafka"
)

// TestACLs: kzadmin acls adds ACLs to Kafka's znodes with a change
// notification per pattern, lists them as kafka-acls prints them, removes
// exactly the entries named, and refuses what kafka-acls refuses.
func TestACLs(t *testing.T) {
	c := newCluster(t)
	c.want(0, []string{"Adding ACLs for resource `ResourcePattern(resourceType=TOPIC, name=orders, patternType=LITERAL)`",
		"(principal=User:alice, host=*, operation=READ, permissionType=ALLOW)",
		"(principal=User:alice, host=*, operation=DESCRIBE, permissionType=ALLOW)"},
		"acls", "--add", "--allow-principal", "User:alice", "--operation", "Read", "--operation", "Describe", "--topic", "orders")
	c.ok("acls", "--add", "--allow-principal", "User:app", "--operation", "Write", "--topic", "fin-", "--resource-pattern-type", "prefixed")
	c.ok("acls", "--add", "--deny-principal", "User:mallory", "--deny-host", "10.0.0.9", "--cluster", "--operation", "Alter")
	if got := c.get("/kafka-acl/Topic/orders"); got != `{"version":1,"acls":[{"principal":"User:alice","permissionType":"Allow","operation":"Read","host":"*"},{"principal":"User:alice","permissionType":"Allow","operation":"Describe","host":"*"}]}` {
		t.Errorf("/kafka-acl/Topic/orders = %s", got)
	}
	if got := c.get("/kafka-acl-extended/prefixed/Topic/fin-"); !strings.Contains(got, `"operation":"Write"`) {
		t.Errorf("prefixed znode = %s", got)
	}
	if got := c.get("/kafka-acl/Cluster/kafka-cluster"); !strings.Contains(got, `"permissionType":"Deny","operation":"Alter","host":"10.0.0.9"`) {
		t.Errorf("cluster znode = %s", got)
	}
	lit, _, _ := c.zk.Children(c.ctx, "/kafka-acl-changes")
	ext, _, _ := c.zk.Children(c.ctx, "/kafka-acl-extended-changes")
	if len(lit) != 2 || len(ext) != 1 {
		t.Errorf("notifications: literal %v, extended %v", lit, ext)
	}

	r := c.ok("acls", "--list", "--topic", "fin-ledger", "--resource-pattern-type", "match")
	if !strings.Contains(r.out, "name=fin-, patternType=PREFIXED") || strings.Contains(r.out, "orders") {
		t.Errorf("--list match fin-ledger:\n%s", r.out)
	}
	r = c.ok("acls", "--list", "--principal", "User:alice", "-o", "json")
	var rows []aclJSON
	if err := json.Unmarshal([]byte(r.out), &rows); err != nil || len(rows) != 2 || rows[0].Operation != "READ" && rows[1].Operation != "READ" {
		t.Errorf("--list --principal User:alice -o json: %s %v", r.out, err)
	}
	r = c.ok("acls", "--list")
	if strings.Count(r.out, "Current ACLs for resource") != 3 {
		t.Errorf("--list:\n%s", r.out)
	}

	c.want(0, []string{"Removed ACLs from resource", "operation=READ"}, "acls", "--remove", "--force",
		"--allow-principal", "User:alice", "--operation", "Read", "--topic", "orders")
	if got := c.get("/kafka-acl/Topic/orders"); strings.Contains(got, `"Read"`) || !strings.Contains(got, `"Describe"`) {
		t.Errorf("after remove: %s", got)
	}
	c.ok("acls", "--remove", "--force", "--topic", "orders")
	if c.exists("/kafka-acl/Topic/orders") {
		t.Error("pattern without entries kept its znode")
	}

	before := c.snapshot()
	c.want(2, []string{"exactly one of --list, --add and --remove"}, "acls", "--add", "--list", "--topic", "x")
	c.want(2, []string{"You must provide at least one resource"}, "acls", "--add", "--allow-principal", "User:a")
	c.want(2, []string{"You must specify one of: --allow-principal, --deny-principal"}, "acls", "--add", "--topic", "x")
	c.want(2, []string{"ResourceType GROUP only supports operations"}, "acls", "--add", "--allow-principal", "User:a",
		"--operation", "Write", "--group", "g")
	c.want(2, []string{"principalType:principalName"}, "acls", "--add", "--allow-principal", "alice", "--topic", "x")
	c.want(2, []string{"not valid when adding acls"}, "acls", "--add", "--allow-principal", "User:a", "--topic", "x",
		"--resource-pattern-type", "match")
	c.want(2, []string{"add --force"}, "acls", "--remove", "--topic", "fin-", "--resource-pattern-type", "prefixed")
	c.want(0, []string{"Dry run: nothing was written"}, "acls", "--add", "--allow-principal", "User:a", "--topic", "x", "--dry-run")
	sameTree(t, before, c.snapshot())
}

// aclCommand runs Kafka 3.9's kafka-acls against the cluster's chroot.
func (c *cluster) aclCommand(args ...string) string {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(c.ctx, kafka.ToolTimeout)
	defer cancel()
	base := []string{"--authorizer-properties", "zookeeper.connect=" + c.connect}
	out, stderr, err := kafka.RunTool(ctx, "kafka.admin.AclCommand", append(base, args...)...)
	if err != nil {
		c.t.Fatalf("kafka-acls %v: %v\n%s", args, err, stderr)
	}
	return out
}

// TestACLsKafkaAclCommandInterop: ACLs written by kzadmin acls are listed
// and removed by Kafka's kafka-acls, and ACLs written by kafka-acls are
// listed and removed by kzadmin acls.
func TestACLsKafkaAclCommandInterop(t *testing.T) {
	kafka.SkipIfHeavyDisabled(t)
	c := newCluster(t)
	c.ok("acls", "--add", "--allow-principal", "User:alice", "--operation", "Read", "--topic", "orders")
	c.ok("acls", "--add", "--allow-principal", "User:app", "--allow-host", "10.1.1.1", "--operation", "Write",
		"--transactional-id", "tx-", "--resource-pattern-type", "prefixed")
	c.ok("acls", "--add", "--allow-principal", "User:broker", "--operation", "ClusterAction", "--cluster")
	out := c.aclCommand("--list")
	for _, want := range []string{
		"ResourcePattern(resourceType=TOPIC, name=orders, patternType=LITERAL)",
		"(principal=User:alice, host=*, operation=READ, permissionType=ALLOW)",
		"ResourcePattern(resourceType=TRANSACTIONAL_ID, name=tx-, patternType=PREFIXED)",
		"(principal=User:app, host=10.1.1.1, operation=WRITE, permissionType=ALLOW)",
		"(principal=User:broker, host=*, operation=CLUSTER_ACTION, permissionType=ALLOW)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("kafka-acls --list lacks %q:\n%s", want, out)
		}
	}
	c.aclCommand("--remove", "--force", "--allow-principal", "User:alice", "--operation", "Read", "--topic", "orders")
	if c.exists("/kafka-acl/Topic/orders") {
		t.Error("kafka-acls --remove of our ACL left its znode")
	}

	c.aclCommand("--add", "--allow-principal", "User:bob", "--operation", "Describe", "--group", "g1")
	c.aclCommand("--add", "--deny-principal", "User:eve", "--operation", "All", "--topic", "secret-", "--resource-pattern-type", "prefixed")
	r := c.ok("acls", "--list", "--group", "g1")
	if !strings.Contains(r.out, "(principal=User:bob, host=*, operation=DESCRIBE, permissionType=ALLOW)") {
		t.Errorf("kzadmin acls --list --group g1:\n%s", r.out)
	}
	r = c.ok("acls", "--list", "--topic", "secret-stuff", "--resource-pattern-type", "match")
	if !strings.Contains(r.out, "(principal=User:eve, host=*, operation=ALL, permissionType=DENY)") {
		t.Errorf("kzadmin acls --list match secret-stuff:\n%s", r.out)
	}
	c.ok("acls", "--remove", "--force", "--group", "g1")
	if out := c.aclCommand("--list", "--group", "g1"); strings.Contains(out, "User:bob") {
		t.Errorf("kafka-acls still lists the ACL kzadmin removed:\n%s", out)
	}
}
