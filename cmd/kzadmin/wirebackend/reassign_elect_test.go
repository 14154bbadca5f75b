package wirebackend_test

import (
	"strings"
	"testing"

	"github.com/kzadmin/kzadmin/znodes"
)

// leader reads a partition's leader from its state znode.
func (c *cluster) leader(t *testing.T, topic string, p int32) int32 {
	t.Helper()
	data := c.get(t, znodes.PartitionStatePath(topic, p))
	if data == "" {
		return -1
	}
	s, err := znodes.DecodePartitionState(topic, p, []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	return s.Leader
}

func TestReassignThenPreferredElection(t *testing.T) {
	c := dev
	want(t, c.wire(t, "topics", "create", "--topic", "mv", "--replica-assignment", "1:2,2:3"), 0)
	c.settled(t, "mv")
	moveFile := writeFile(t, `{"topics":[{"topic":"mv"}],"version":1}`)
	args := []string{"reassign", "generate", "--topics-to-move-json-file", moveFile, "--broker-list", "1,2,3"}
	if w, z := want(t, c.wire(t, args...), 0), want(t, c.zook(t, args...), 0); w.out != z.out {
		t.Errorf("generate:\n%s\n--zookeeper:\n%s", w.out, z.out)
	}

	// mv-0 keeps its replicas in another order; mv-1 moves off broker 2.
	plan := writeFile(t, `{"version":1,"partitions":[{"topic":"mv","partition":0,"replicas":[2,1]},`+
		`{"topic":"mv","partition":1,"replicas":[3,1]}]}`)
	want(t, c.wire(t, "reassign", "execute", "--reassignment-json-file", plan, "--wait", "--poll-interval", "20ms"), 0,
		`{"version":1,"partitions":[{"topic":"mv","partition":0,"replicas":[1,2],"log_dirs":["any","any"]},`+
			`{"topic":"mv","partition":1,"replicas":[2,3],"log_dirs":["any","any"]}]}`,
		"Successfully started partition reassignments for mv-0,mv-1", "2/2 partitions reassigned")
	if z := c.topicZnode(t, "mv"); z == nil || !slicesEqual(z.replicas, [][]int32{{2, 1}, {3, 1}}) {
		t.Fatalf("ZooKeeper holds %+v", z)
	}
	c.settled(t, "mv")
	args = []string{"reassign", "verify", "--reassignment-json-file", plan}
	if w, z := want(t, c.wire(t, args...), 0, "Reassignment of partition mv-0 is completed."), c.zook(t, args...); w.out != z.out {
		t.Errorf("verify:\n%s\n--zookeeper:\n%s", w.out, z.out)
	}
	want(t, c.wire(t, "reassign", "cancel", "--reassignment-json-file", plan), 0,
		"None of the specified partition reassignments are active.")
	bad := writeFile(t, `{"version":1,"partitions":[{"topic":"mv","partition":0,"replicas":[1,9]}]}`)
	want(t, c.wire(t, "reassign", "execute", "--reassignment-json-file", bad), 1, "mv-0", "9")

	// Broker 1 still leads mv-0, whose preferred replica is now 2.
	if l := c.leader(t, "mv", 0); l != 1 {
		t.Fatalf("mv-0 led by %d", l)
	}
	want(t, c.wire(t, "elect", "--election-type", "preferred", "--topic", "mv", "--partition", "0"), 0,
		"Successfully completed leader election (PREFERRED) for partitions mv-0")
	if l := c.leader(t, "mv", 0); l != 2 {
		t.Fatalf("after the election mv-0 is led by %d", l)
	}
	want(t, c.wire(t, "elect", "--election-type", "preferred", "--topic", "mv", "--partition", "0"), 0,
		"Valid replica already elected for partitions mv-0")
	want(t, c.wire(t, "elect", "--election-type", "unclean", "--topic", "mv", "--partition", "1"), 0,
		"Valid replica already elected for partitions mv-1")
	r := want(t, c.wire(t, "elect", "--election-type", "preferred", "--all-topic-partitions"), 0)
	if !strings.Contains(r.out, "nothing to elect") && !strings.Contains(r.out, "Successfully completed leader election") {
		t.Errorf("all partitions:\n%s", r.out)
	}
	want(t, c.wire(t, "elect", "--election-type", "preferred", "--topic", "mv", "--partition", "9"), 1,
		"Error: mv-9: The partition does not exist.")
}
