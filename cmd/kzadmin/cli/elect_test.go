package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

func TestElectPreferred(t *testing.T) {
	c := newCluster(t, "", "")
	c.ok("topics", "create", "--topic", "p", "--replica-assignment", "1:2,2:1,1:2")
	c.want(0, []string{"Requested a preferred leader election for partitions p-1."}, "elect", "--election-type", "preferred",
		"--topic", "p", "--partition", "1")
	if got := c.get(znodes.PreferredReplicaElectionPath); got != `{"version":1,"partitions":[{"topic":"p","partition":1}]}` {
		t.Fatalf("znode %s", got)
	}
	c.want(1, []string{"Preferred replica leader election currently in progress for p-1"}, "elect", "--election-type", "PREFERRED",
		"--topic", "p", "--partition", "0")
	c.zk.Delete(c.ctx, znodes.PreferredReplicaElectionPath, zkadmin.AnyVersion)

	c.setState("p", 0, 2, 1, 2) // led by a non-preferred replica
	c.setState("p", 1, 2, 1, 2)
	c.setState("p", 2, 1, 1, 2)
	c.want(0, []string{"for partitions p-0."}, "elect", "--election-type", "preferred", "--all-topic-partitions")
	c.zk.Delete(c.ctx, znodes.PreferredReplicaElectionPath, zkadmin.AnyVersion)
	c.setState("p", 0, 1, 1, 2)
	c.want(0, []string{"nothing to elect"}, "elect", "--election-type", "preferred", "--all-topic-partitions")
	if c.exists(znodes.PreferredReplicaElectionPath) {
		t.Fatal("wrote a request with nothing to elect")
	}
	file := writeFile(t, `{"partitions":[{"topic":"p","partition":2},{"topic":"p","partition":0}]}`)
	c.want(0, []string{"p-2,p-0"}, "elect", "--election-type", "preferred", "--path-to-json-file", file)
	c.zk.Delete(c.ctx, znodes.PreferredReplicaElectionPath, zkadmin.AnyVersion)
	c.want(1, []string{"The partition p-9 does not exist."}, "elect", "--election-type", "preferred", "--topic", "p", "--partition", "9")

	c.want(2, []string{"--election-type must be"}, "elect", "--topic", "p", "--partition", "0")
	c.want(2, []string{"give exactly one of"}, "elect", "--election-type", "preferred", "--topic", "p", "--partition", "0", "--all-topic-partitions")
	c.want(2, []string{"--topic needs --partition"}, "elect", "--election-type", "preferred", "--topic", "p")
	c.want(2, []string{"--partition needs --topic"}, "elect", "--election-type", "preferred", "--partition", "1", "--all-topic-partitions")
	c.want(2, []string{`needs "topic" and "partition"`}, "elect", "--election-type", "preferred", "--path-to-json-file",
		writeFile(t, `{"partitions":[{"topic":"p"}]}`))
}

// waitConfig waits until the topic's config znode holds want.
func (c *cluster) waitConfig(topic, want string) {
	c.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(c.get(znodes.ConfigEntityPath("topics", topic)), want) {
		if time.Now().After(deadline) {
			c.t.Fatalf("config of %s never held %s: %s", topic, want, c.get(znodes.ConfigEntityPath("topics", topic)))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestElectUncleanThroughTopicConfig(t *testing.T) {
	c := newCluster(t, "", "", "")
	c.ok("topics", "create", "--topic", "u", "--replica-assignment", "1:2,2:3", "--config", "unclean.leader.election.enable=false")
	c.setState("u", 0, -1, 1) // offline: its only in-sync replica died
	c.setState("u", 1, 2, 2, 3)
	done := make(chan result, 1)
	go func() { done <- c.run("elect", "--election-type", "unclean", "--all-topic-partitions") }()
	// Play Kafka's controller: on the config change, elect replica 2.
	c.waitConfig("u", `"unclean.leader.election.enable":"true"`)
	c.setState("u", 0, 2, 2)
	select {
	case r := <-done:
		if r.code != 0 || !strings.Contains(r.out, "Successfully completed leader election (UNCLEAN) for partitions u-0") ||
			!strings.Contains(r.errOut, "Restored unclean.leader.election.enable on topic u.") {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.out, r.errOut)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("elect did not return")
	}
	if got := c.get(znodes.ConfigEntityPath("topics", "u")); got != `{"version":1,"config":{"unclean.leader.election.enable":"false"}}` {
		t.Errorf("config not restored: %s", got)
	}
	kids, _, _ := c.zk.Children(c.ctx, znodes.ConfigChangesPath)
	if len(kids) != 2 {
		t.Errorf("%d config change notifications, want 2 (enable, restore)", len(kids))
	}

	c.want(0, []string{"No offline partition; nothing to elect."}, "elect", "--election-type", "unclean", "--all-topic-partitions")
	c.want(0, []string{"u-1: has leader 2; no election needed"}, "elect", "--election-type", "unclean", "--topic", "u", "--partition", "1")

	// Nobody elects: the command gives up, and still restores the config.
	c.ok("topics", "create", "--topic", "v", "--replica-assignment", "3")
	c.setState("v", 0, -1, 3)
	c.want(1, []string{"1 of 1 partitions still have no leader", "Restored unclean.leader.election.enable on topic v."},
		"elect", "--election-type", "unclean", "--topic", "v", "--partition", "0", "--wait-timeout", "500ms")
	if got := c.get(znodes.ConfigEntityPath("topics", "v")); got != `{"version":1,"config":{}}` {
		t.Errorf("config not restored: %s", got)
	}
}
