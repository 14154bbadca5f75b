package wirebackend_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kzadmin/kzadmin/znodes"
)

// partitionCount counts the partitions ZooKeeper holds.
func (c *cluster) partitionCount(t *testing.T) int {
	t.Helper()
	n := 0
	for _, name := range c.children(t, znodes.TopicsPath) {
		if z := c.topicZnode(t, name); z != nil {
			n += len(z.replicas)
		}
	}
	return n
}

// The partition limit, set over the wire, refuses over the wire with the
// server's message, and nothing is written.
func TestPartitionLimitSurfaces(t *testing.T) {
	c := dev
	limit := c.partitionCount(t) + 2
	want(t, c.wire(t, "configs", "alter", "--entity-type", "brokers", "--entity-default",
		"--add-config", fmt.Sprintf("max.partitions=%d", limit)), 0)
	t.Cleanup(func() {
		want(t, c.wire(t, "configs", "alter", "--entity-type", "brokers", "--entity-default",
			"--delete-config", "max.partitions"), 0)
	})
	r := want(t, c.wire(t, "topics", "create", "--topic", "toobig", "--partitions", "3", "--replication-factor", "1"), 1,
		"Error: WILL_EXCEED_PARTITION_LIMITS: ", fmt.Sprintf("max.partitions=%d", limit), "toobig")
	if strings.Count(r.errOut, "\n") != 1 {
		t.Errorf("want one line on stderr:\n%s", r.errOut)
	}
	r = want(t, c.wire(t, "topics", "create", "--topic", "toobig", "--partitions", "3", "--replication-factor", "1", "-o", "json"), 1)
	for _, f := range []string{`"code": 44`, `"name": "POLICY_VIOLATION"`, `"reason": "PartitionLimit"`, `"resource": "toobig"`,
		`"message": "WILL_EXCEED_PARTITION_LIMITS: `} {
		if !strings.Contains(r.out, f) {
			t.Errorf("JSON error lacks %s:\n%s", f, r.out)
		}
	}
	want(t, c.wire(t, "topics", "create", "--topic", "toobig", "--partitions", "3", "--replication-factor", "1", "--dry-run"), 1,
		"WILL_EXCEED_PARTITION_LIMITS")
	if c.topicZnode(t, "toobig") != nil {
		t.Fatal("a refused topic was written")
	}
	want(t, c.wire(t, "topics", "create", "--topic", "fits", "--partitions", "2", "--replication-factor", "1"), 0)
	want(t, c.wire(t, "topics", "alter", "--topic", "fits", "--partitions", "3"), 1, "WILL_EXCEED_PARTITION_LIMITS", "max.partitions")
	if z := c.topicZnode(t, "fits"); z == nil || len(z.replicas) != 2 {
		t.Fatalf("ZooKeeper holds %+v", z)
	}
	// The same refusal, word for word, as the ZooKeeper backend's.
	args := []string{"topics", "create", "--topic", "toobig", "--partitions", "3", "--replication-factor", "1"}
	if w, z := c.wire(t, args...), c.zook(t, args...); w.errOut != z.errOut {
		t.Errorf("--bootstrap-server says\n%s--zookeeper says\n%s", w.errOut, z.errOut)
	}
}
