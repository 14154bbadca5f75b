package wireapi

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/integration/kafka"
	"github.com/kzadmin/kzadmin/integration/waitfor"
	"github.com/kzadmin/kzadmin/internal/daemon"
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
	conf := config.Default()
	conf.Dev = true
	conf.NodeID = config.DevNodeID
	conf.HTTPListen = ""
	conf.Listeners = []config.Listener{{Name: "PLAINTEXT", Host: "127.0.0.1"}}
	d, err := daemon.Start(ctx, conf, daemon.Options{}, zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.WarnLevel))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stopCtx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := d.Stop(stopCtx); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
	if err := waitfor.Until(ctx, time.Minute, 50*time.Millisecond, func() error {
		if st := d.Controller().Snapshot(); st == nil || !st.Active || len(st.Brokers) != 3 {
			return errors.New("the controller is not active with 3 brokers")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	run := func(class string, args ...string) string {
		t.Helper()
		out, _, err := kafka.RunTool(ctx, class, append([]string{"--bootstrap-server", d.KafkaAddr()}, args...)...)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	expect := func(out string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("output lacks %q:\n%s", w, out)
			}
		}
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
