package wirebackend_test

import "testing"

// TestElectDesignatedSendsV3 runs a designated election against kzadmind:
// the CLI checks that the controller serves ElectLeaders v3 and sends the
// desired leader. kzadmind's controller does not implement the handler's
// DesiredElector yet, so the handler, having decoded v3 and its
// DesiredLeaders, refuses the partition with INVALID_REQUEST; that
// refusal is only given to a v3 request with desired leaders.
func TestElectDesignatedSendsV3(t *testing.T) {
	c := dev
	want(t, c.wire(t, "topics", "create", "--topic", "designated", "--replica-assignment", "1:2"), 0)
	c.settled(t, "designated")
	want(t, c.wire(t, "elect", "--election-type", "designated", "--topic", "designated", "--partition", "0", "--leader", "2"),
		1, "designated-0", "cannot elect desired leaders")
	file := writeFile(t, `{"partitions":[{"topic":"designated","partition":0,"leader":2}]}`)
	want(t, c.wire(t, "elect", "--election-type", "designated", "--path-to-json-file", file), 1, "cannot elect desired leaders")
}
