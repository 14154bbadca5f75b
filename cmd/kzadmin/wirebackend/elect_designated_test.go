package wirebackend_test

import "testing"

// TestElectDesignatedSendsV3 runs designated elections against kzadmind:
// the CLI checks that the controller serves ElectLeaders v3 and sends the
// desired leaders, and the controller (a handler.DesiredElector) elects
// them; the leader lands in ZooKeeper. A desired leader that is not a
// replica is refused per partition.
func TestElectDesignatedSendsV3(t *testing.T) {
	c := dev
	want(t, c.wire(t, "topics", "create", "--topic", "designated", "--replica-assignment", "1:2"), 0)
	c.settled(t, "designated")
	if l := c.leader(t, "designated", 0); l != 1 {
		t.Fatalf("designated-0 led by %d", l)
	}
	want(t, c.wire(t, "elect", "--election-type", "designated", "--topic", "designated", "--partition", "0", "--leader", "2"),
		0, "Successfully completed leader election (DESIGNATED) for partitions designated-0")
	if l := c.leader(t, "designated", 0); l != 2 {
		t.Fatalf("after designating 2, designated-0 is led by %d", l)
	}
	file := writeFile(t, `{"partitions":[{"topic":"designated","partition":0,"leader":1}]}`)
	want(t, c.wire(t, "elect", "--election-type", "designated", "--path-to-json-file", file), 0,
		"Successfully completed leader election (DESIGNATED) for partitions designated-0")
	if l := c.leader(t, "designated", 0); l != 1 {
		t.Fatalf("after designating 1, designated-0 is led by %d", l)
	}
	want(t, c.wire(t, "elect", "--election-type", "designated", "--topic", "designated", "--partition", "0", "--leader", "3"),
		1, "designated-0", "not an assigned replica")
	if l := c.leader(t, "designated", 0); l != 1 {
		t.Fatalf("a refused designation moved the leader to %d", l)
	}
}
