package wirebackend_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
	"github.com/kzadmin/kzadmin/znodes"
)

// snapshot lists the znodes a command could write, with their data.
func (c *cluster) snapshot(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, dir := range []string{znodes.TopicsPath, "/config/topics", "/config/brokers", "/config/changes",
		"/admin/delete_topics", "/admin"} {
		for _, k := range c.children(t, dir) {
			out[dir+"/"+k] = c.get(t, dir+"/"+k)
		}
	}
	return out
}

func sameSnapshot(t *testing.T, before, after map[string]string) {
	t.Helper()
	if len(before) != len(after) {
		t.Errorf("%d znodes before, %d after", len(before), len(after))
	}
	for p, v := range after {
		if before[p] != v {
			t.Errorf("znode %s changed: %q -> %q", p, before[p], v)
		}
	}
}

// --dry-run is validateOnly where the API has it: the cluster validates,
// limits included, and writes nothing.
func TestDryRunIsValidateOnly(t *testing.T) {
	c := dev
	want(t, c.wire(t, "topics", "create", "--topic", "dry", "--replica-assignment", "1:2,2:3"), 0)
	c.settled(t, "dry")
	before := c.snapshot(t)
	for _, args := range [][]string{
		{"topics", "create", "--topic", "dry2", "--partitions", "3", "--replication-factor", "2", "--config", "retention.ms=5"},
		{"topics", "alter", "--topic", "dry", "--partitions", "4"},
		{"configs", "alter", "--entity-type", "topics", "--entity-name", "dry", "--add-config", "retention.ms=5"},
		{"configs", "alter", "--entity-type", "brokers", "--entity-default", "--add-config", "max.partitions=100000"},
	} {
		want(t, c.wire(t, append(args, "--dry-run")...), 0, "Dry run: nothing was written.", "validateOnly")
	}
	var res backend.CreateTopicResult
	r := want(t, c.wire(t, "topics", "create", "--topic", "dry3", "--partitions", "1", "--dry-run", "-o", "json"), 0)
	if err := json.Unmarshal([]byte(r.out), &res); err != nil || !res.DryRun || len(res.Ops) != 0 {
		t.Fatalf("%v: %s", err, r.out)
	}
	// Validation still refuses.
	want(t, c.wire(t, "topics", "create", "--topic", "dry", "--partitions", "1", "--dry-run"), 1, "Topic 'dry' already exists.")
	want(t, c.wire(t, "topics", "create", "--topic", "dry4", "--partitions", "1", "--config", "retention.ms=x", "--dry-run"), 1,
		"retention.ms")
	want(t, c.wire(t, "topics", "alter", "--topic", "dry", "--partitions", "1", "--dry-run"), 1, "higher than the requested 1")
	want(t, c.wire(t, "configs", "alter", "--entity-type", "topics", "--entity-name", "dry", "--add-config", "nope=1", "--dry-run"), 1,
		"nope")
	// APIs without validateOnly refuse --dry-run: a usage error.
	plan := writeFile(t, `{"version":1,"partitions":[{"topic":"dry","partition":0,"replicas":[2,1]}]}`)
	elect := writeFile(t, `{"partitions":[{"topic":"dry","partition":0}]}`)
	for _, args := range [][]string{
		{"topics", "delete", "--topic", "dry"},
		{"reassign", "execute", "--reassignment-json-file", plan},
		{"reassign", "cancel", "--reassignment-json-file", plan},
		{"elect", "--election-type", "preferred", "--path-to-json-file", elect},
	} {
		r := want(t, c.wire(t, append(args, "--dry-run")...), 2, "--dry-run is not available", "has no validateOnly")
		if !strings.Contains(r.errOut, "Run 'kzadmin --help' for usage.") {
			t.Errorf("%v: not reported as a usage error:\n%s", args, r.errOut)
		}
	}
	sameSnapshot(t, before, c.snapshot(t))
}
