package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kzadmin/kzadmin/znodes"
)

// TestDescribeShowsELR: ELR columns appear when some partition has an ELR
// or a last-known ELR (KIP-966 fields of the state znode), and not
// otherwise.
func TestDescribeShowsELR(t *testing.T) {
	c := newCluster(t, "", "", "")
	c.ok("topics", "create", "--topic", "e", "--replica-assignment", "1:2:3,2:3:1")
	c.ok("topics", "create", "--topic", "plain", "--replica-assignment", "1:2:3")
	data, err := znodes.PartitionState{Leader: -1, ISR: []int32{1}, ControllerEpoch: 1,
		EligibleLeaderReplicas: []int32{2}, LastKnownELR: []int32{3}}.Encode()
	if err != nil {
		t.Fatal(err)
	}
	c.put(znodes.PartitionStatePath("e", 0), string(data))
	c.setState("e", 1, 2, 2, 3, 1)
	c.setState("plain", 0, 1, 1, 2, 3)

	r := c.ok("topics", "describe", "--topic", "e")
	lines := strings.Split(r.out, "\n")
	if len(lines) < 4 || !strings.Contains(lines[1], "ELR") || !strings.Contains(lines[1], "LAST-KNOWN-ELR") {
		t.Fatalf("describe e:\n%s", r.out)
	}
	if f := strings.Fields(lines[2]); len(f) != 6 || f[0] != "0" || f[1] != "none" || f[4] != "2" || f[5] != "3" {
		t.Fatalf("partition 0 row %q in:\n%s", lines[2], r.out)
	}
	r = c.ok("topics", "describe", "--topic", "plain")
	if strings.Contains(r.out, "ELR") {
		t.Fatalf("ELR columns without ELR:\n%s", r.out)
	}
	r = c.ok("topics", "describe", "--unavailable-partitions")
	if !strings.Contains(r.out, "LAST-KNOWN-ELR") || !strings.Contains(r.out, "e ") {
		t.Fatalf("filtered table:\n%s", r.out)
	}
	r = c.ok("topics", "describe", "--topic", "e", "-o", "json")
	var d struct{ Topics []topicJSON }
	if err := json.Unmarshal([]byte(r.out), &d); err != nil {
		t.Fatal(err)
	}
	if p := d.Topics[0].Partitions[0]; len(p.ELR) != 1 || p.ELR[0] != 2 || len(p.LastKnownELR) != 1 || p.LastKnownELR[0] != 3 {
		t.Fatalf("json partition 0: %+v", p)
	}
}
