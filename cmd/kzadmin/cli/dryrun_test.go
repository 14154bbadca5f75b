package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
)

// Every mutating command with --dry-run writes nothing and prints the
// writes it would make.
func TestDryRunWritesNothing(t *testing.T) {
	c := newCluster(t, "", "", "")
	c.ok("topics", "create", "--topic", "d", "--replica-assignment", "1:2,2:3")
	c.setState("d", 0, -1, 1)
	plan := writeFile(t, `{"version":1,"partitions":[{"topic":"d","partition":0,"replicas":[3,1]}]}`)
	commands := map[string][]string{
		"create":        {"topics", "create", "--topic", "new", "--partitions", "2", "--replication-factor", "2", "--config", "retention.ms=5"},
		"alter":         {"topics", "alter", "--topic", "d", "--partitions", "4"},
		"delete":        {"topics", "delete", "--topic", "d"},
		"configs":       {"configs", "alter", "--entity-type", "topics", "--entity-name", "d", "--add-config", "retention.ms=5"},
		"broker config": {"configs", "alter", "--entity-type", "brokers", "--entity-default", "--add-config", "max.partitions=9"},
		"execute":       {"reassign", "execute", "--reassignment-json-file", plan, "--wait"},
		"preferred":     {"elect", "--election-type", "preferred", "--topic", "d", "--partition", "1"},
		"unclean":       {"elect", "--election-type", "unclean", "--all-topic-partitions"},
	}
	for name, args := range commands {
		t.Run(name, func(t *testing.T) {
			before := c.snapshot()
			r := c.ok(append(args, "--dry-run")...)
			sameTree(t, before, c.snapshot())
			if !strings.Contains(r.out, "Dry run: nothing was written") {
				t.Errorf("output:\n%s", r.out)
			}
		})
	}
}

// The writes a dry run prints are the writes the real run makes.
func TestDryRunShowsTheRealWrites(t *testing.T) {
	c := newCluster(t, "", "")
	args := []string{"topics", "create", "--topic", "x", "--replica-assignment", "1:2", "--config", "retention.ms=5", "-o", "json"}
	var dry, real backend.CreateTopicResult
	if err := json.Unmarshal([]byte(c.ok(append(args, "--dry-run")...).out), &dry); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(c.ok(args...).out), &real); err != nil {
		t.Fatal(err)
	}
	if !dry.DryRun || real.DryRun || len(dry.Ops) != 3 || len(dry.Ops) != len(real.Ops) {
		t.Fatalf("dry %+v\nreal %+v", dry, real)
	}
	for i := range dry.Ops {
		d, r := dry.Ops[i], real.Ops[i]
		// The topic id is drawn afresh by each run; everything else matches.
		dd := strings.ReplaceAll(deref(d.Data), dry.TopicID, "ID")
		rd := strings.ReplaceAll(deref(r.Data), real.TopicID, "ID")
		if d.Op != r.Op || d.Path != r.Path || d.Version != r.Version || dd != rd {
			t.Errorf("op %d: dry %+v, real %+v", i, d, r)
		}
	}
	if got := c.get("/brokers/topics/x"); !strings.Contains(got, real.TopicID) {
		t.Errorf("topic znode %s", got)
	}
	r := c.ok("topics", "create", "--topic", "y", "--replica-assignment", "1", "--dry-run")
	for _, want := range []string{"set", "/brokers/topics", "expect version 1", "data null",
		"create", "/config/topics/y", `persistent  data {"version":1,"config":{}}`, "/brokers/topics/y"} {
		if !strings.Contains(r.out, want) {
			t.Errorf("dry-run table lacks %q:\n%s", want, r.out)
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return "<null>"
	}
	return *s
}
