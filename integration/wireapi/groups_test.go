package wireapi

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/integration/kafka"
	"github.com/kzadmin/kzadmin/integration/kafkatest"
)

// TestGroupsWithKzadmindListed: kzadmind appears among the brokers of
// every broker's Metadata (its UpdateMetadata lists it, so that brokers
// can reach the controller), and clients pick "any broker" from that list.
// Before kzadmind served FindCoordinator, ListGroups and DescribeLogDirs,
// a Java consumer of a group failed at random with "The node does not
// support FIND_COORDINATOR", kafka-consumer-groups --list failed every
// time, and kafka-log-dirs --describe, which asks every node, could not
// succeed.
//
// kzadmind's FindCoordinator answers are compared, key by key, with a
// real broker's; then Kafka 3.9's own tools run against the brokers.
func TestGroupsWithKzadmindListed(t *testing.T) {
	c := sharedCluster(t)
	ctx := testCtx(t, 4*time.Minute)
	const topic = "groups-topic"
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.brokers[1]))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if res, err := kadm.NewClient(cl).CreateTopic(ctx, 1, 3, nil, topic); err != nil || res.Err != nil {
		t.Fatalf("create %s: %v %v", topic, err, res.Err)
	}
	if err := kafkatest.ProduceNumbered(ctx, []string{c.brokers[1]}, topic, 0, 0, 5); err != nil {
		t.Fatal(err)
	}
	md, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	listed := false
	for _, b := range md.Brokers {
		listed = listed || b.NodeID == controllerID
	}
	if !listed {
		t.Fatalf("broker 1's Metadata does not list kzadmind (%d): the test would prove nothing", controllerID)
	}

	// The same keys, asked of broker 1 and of kzadmind, until the
	// internal topics exist and every key has a coordinator.
	keys := make([]string, 20)
	for i := range keys {
		keys[i] = fmt.Sprintf("group-%d", i)
	}
	for _, keyType := range []int8{0, 1} {
		err := poll(ctx, time.Minute, func() error {
			answers := map[int32][]string{}
			for _, node := range []int32{1, controllerID} {
				req := kmsg.NewPtrFindCoordinatorRequest()
				req.CoordinatorType, req.CoordinatorKeys = keyType, keys
				resp, err := req.RequestWith(ctx, cl.Broker(int(node)))
				if err != nil {
					return fmt.Errorf("FindCoordinator to %d: %w", node, err)
				}
				for _, co := range resp.Coordinators {
					if co.ErrorCode != 0 {
						return fmt.Errorf("node %d: key %s: error %d", node, co.Key, co.ErrorCode)
					}
					answers[node] = append(answers[node], fmt.Sprintf("%s=%d@%s:%d", co.Key, co.NodeID, co.Host, co.Port))
				}
			}
			if a, b := strings.Join(answers[1], " "), strings.Join(answers[controllerID], " "); a != b {
				t.Fatalf("key type %d: broker 1 answers\n%s\nkzadmind answers\n%s", keyType, a, b)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}

	// A Java consumer of a group, several times: each run picks a node for
	// FindCoordinator, kzadmind among four.
	for i := range 4 {
		out, stderr, err := kafka.RunTool(ctx, "org.apache.kafka.tools.consumer.ConsoleConsumer", "--bootstrap-server", c.brokers[1],
			"--topic", topic, "--group", "groups-g1", "--from-beginning", "--max-messages", "1", "--timeout-ms", "60000")
		if err != nil || strings.TrimSpace(out) != fmt.Sprint(i) {
			t.Fatalf("console consumer run %d: %v, read %q\n%s", i, err, out, stderr)
		}
	}
	groupTool := "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand"
	out, stderr, err := kafka.RunTool(ctx, groupTool, "--bootstrap-server", c.brokers[2], "--list")
	if err != nil || !strings.Contains(out, "groups-g1") {
		t.Fatalf("kafka-consumer-groups --list: %v\n%s\n%s", err, out, stderr)
	}
	out, stderr, err = kafka.RunTool(ctx, groupTool, "--bootstrap-server", c.brokers[2], "--describe", "--group", "groups-g1")
	if err != nil || !strings.Contains(out, topic) {
		t.Fatalf("kafka-consumer-groups --describe: %v\n%s\n%s", err, out, stderr)
	}
	out, stderr, err = kafka.RunTool(ctx, "org.apache.kafka.tools.LogDirsCommand", "--bootstrap-server", c.brokers[3], "--describe")
	if err != nil || !strings.Contains(out, topic) {
		t.Fatalf("kafka-log-dirs --describe: %v\n%s\n%s", err, out, stderr)
	}
}
