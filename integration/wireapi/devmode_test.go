package wireapi

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/integration/kafka"
)

// TestJavaToolsAgainstDevMode runs Kafka 3.9's kafka-topics and
// kafka-configs against `kzadmind --dev` (its own ZooKeeper and three
// simulated brokers), as the README invites. The Java AdminClient sends
// DescribeConfigs and the alter APIs for a topic to any node it likes,
// and those for a broker to that broker: the simulated brokers answer them
// through kzadmind's handlers, as a real broker answers from the same
// znodes. Without that, kafka-topics --describe failed with "The node does
// not support DESCRIBE_CONFIGS" whenever it picked a simulated broker.
func TestJavaToolsAgainstDevMode(t *testing.T) {
	kafka.SkipIfHeavyDisabled(t)
	ctx := testCtx(t, 3*time.Minute)
	d := startDevDaemon(t, ctx)
	run := func(class string, args ...string) string {
		t.Helper()
		return mustRunTool(ctx, t, class, append([]string{"--bootstrap-server", d.KafkaAddr()}, args...)...)
	}
	expect := func(out string, want ...string) {
		t.Helper()
		outputHas(t, out, want...)
	}

	expect(run(kafka.TopicCommand, "--create", "--topic", "dev-java", "--partitions", "3", "--replication-factor", "3",
		"--config", "retention.ms=60000"), "Created topic dev-java.")
	// The AdminClient picks a node per run; three runs make a simulated
	// broker's turn all but certain (each run had a 3-in-4 chance of one).
	for range 3 {
		expect(run(kafka.TopicCommand, "--describe", "--topic", "dev-java"),
			"PartitionCount: 3", "ReplicationFactor: 3", "Configs: retention.ms=60000")
	}
	expect(run(kafka.ConfigCommand, "--alter", "--entity-type", "brokers", "--entity-name", "2",
		"--add-config", "log.cleaner.threads=2"), "Completed updating config for broker 2.")
	// Every broker of the cluster, each asked directly.
	out := run(kafka.ConfigCommand, "--describe", "--entity-type", "brokers")
	expect(out, "Dynamic configs for broker 2 are:\n  log.cleaner.threads=2",
		fmt.Sprintf("Dynamic configs for broker %d are:", config.DevNodeID))
	for _, id := range []int{1, 3} {
		expect(out, fmt.Sprintf("Dynamic configs for broker %d are:", id))
	}
	expect(run(kafka.ConfigCommand, "--describe", "--entity-type", "topics", "--entity-name", "dev-java"),
		"retention.ms=60000")
}

// mustRunTool runs a Kafka tool and returns its output, failing the test
// if it exits with an error.
func mustRunTool(ctx context.Context, t *testing.T, class string, args ...string) string {
	t.Helper()
	out, _, err := kafka.RunTool(ctx, class, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// outputHas fails the test for each of want that out lacks.
func outputHas(t *testing.T, out string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}
