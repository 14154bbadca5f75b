package wirebackend_test

import (
	"strings"
	"testing"

	"github.com/kzadmin/kzadmin/znodes"
)

func TestConfigs(t *testing.T) {
	c := dev
	want(t, c.wire(t, "topics", "create", "--topic", "cfg", "--partitions", "1", "--replication-factor", "1",
		"--config", "segment.ms=100000"), 0)
	changes := len(c.children(t, znodes.ConfigChangesPath))
	want(t, c.wire(t, "configs", "alter", "--entity-type", "topics", "--entity-name", "cfg",
		"--add-config", "retention.ms=3600000,cleanup.policy=[compact,delete]", "--delete-config", "segment.ms"), 0,
		"Completed updating config for topic cfg.")
	if got := c.get(t, znodes.ConfigEntityPath("topics", "cfg")); got != `{"version":1,"config":{"cleanup.policy":"compact,delete","retention.ms":"3600000"}}` {
		t.Fatalf("config znode %s", got)
	}
	if n := len(c.children(t, znodes.ConfigChangesPath)); n <= changes {
		t.Errorf("no config change notification (%d before, %d after)", changes, n)
	}
	for _, args := range [][]string{
		{"configs", "describe", "--entity-type", "topics", "--entity-name", "cfg"},
		{"configs", "describe", "--entity-type", "topics", "--entity-name", "cfg", "--all"},
		{"configs", "describe", "--entity-type", "topics", "--entity-name", "cfg", "-o", "json"},
	} {
		w, z := want(t, c.wire(t, args...), 0), want(t, c.zook(t, args...), 0)
		if w.out != z.out {
			t.Errorf("%s: --bootstrap-server shows\n%s\n--zookeeper shows\n%s", strings.Join(args, " "), w.out, z.out)
		}
	}
	want(t, c.wire(t, "configs", "describe", "--entity-type", "topics", "--entity-name", "cfg"), 0,
		"topic cfg  cleanup.policy  compact,delete  override")

	// The cluster-wide broker defaults live with the controller.
	want(t, c.wire(t, "configs", "alter", "--entity-type", "brokers", "--entity-default",
		"--add-config", "min.insync.replicas=1,log.retention.ms=7200000"), 0, "Completed updating default config for brokers in the cluster.")
	if got := c.get(t, znodes.ConfigEntityPath("brokers", znodes.DefaultEntityName)); !strings.Contains(got, `"log.retention.ms":"7200000"`) {
		t.Fatalf("broker defaults znode %s", got)
	}
	want(t, c.wire(t, "configs", "describe", "--entity-type", "brokers", "--entity-default"), 0,
		"brokers <default>  log.retention.ms     7200000  override")
	want(t, c.wire(t, "configs", "describe", "--entity-type", "topics", "--entity-name", "cfg", "--all"), 0,
		"min.insync.replicas                      1                    cluster default (min.insync.replicas)")
	want(t, c.wire(t, "configs", "alter", "--entity-type", "brokers", "--entity-default",
		"--delete-config", "min.insync.replicas,log.retention.ms"), 0)
	if got := c.get(t, znodes.ConfigEntityPath("brokers", znodes.DefaultEntityName)); strings.Contains(got, "log.retention.ms") {
		t.Fatalf("broker defaults znode %s", got)
	}

	// Refusals.
	want(t, c.wire(t, "configs", "describe", "--entity-type", "topics", "--entity-name", "nope"), 1, "Topic 'nope' does not exist.")
	want(t, c.wire(t, "configs", "alter", "--entity-type", "topics", "--entity-name", "nope", "--add-config", "retention.ms=1"), 1,
		"nope")
	want(t, c.wire(t, "configs", "alter", "--entity-type", "topics", "--entity-name", "cfg", "--add-config", "retention.ms=abc"), 1,
		"retention.ms")
	// A broker's own configs are its to serve, so they go to that broker:
	// the simulated brokers of --dev answer through kzadmind's handlers.
	want(t, c.wire(t, "configs", "describe", "--entity-type", "brokers", "--entity-name", "1"), 0,
		"broker 1  (no overrides)")
	want(t, c.wire(t, "configs", "alter", "--entity-type", "brokers", "--entity-name", "2", "--add-config", "log.retention.ms=1"), 0,
		"Completed updating config for broker 2.")
	if got := c.get(t, znodes.ConfigEntityPath("brokers", "2")); !strings.Contains(got, `"log.retention.ms":"1"`) {
		t.Fatalf("broker 2's config znode %s", got)
	}
	want(t, c.wire(t, "configs", "describe", "--entity-type", "brokers", "--entity-name", "2"), 0,
		"broker 2  log.retention.ms  1      override")
}
