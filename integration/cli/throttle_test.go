package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/cli"
	"github.com/kzadmin/kzadmin/integration/kafka"
)

// TestReassignThrottleMatchesKafka: kzadmin's reassign execute --throttle
// sets what Kafka 3.9's kafka-reassign-partitions --throttle sets, for the
// same moves of two topics placed alike: the same throttled leader and
// follower replicas on the topic, and the rate on the same brokers. Once
// the moves are done (by Kafka's controller), Kafka's --verify removes the
// throttles kzadmin's plan left behind as well as its own, and kzadmin's
// verify (here over --bootstrap-server) removes its own. kzadmin sets the
// same over --bootstrap-server too.
func TestReassignThrottleMatchesKafka(t *testing.T) {
	ctx := testCtx(t, 4*time.Minute)
	const assignment = "1:2,2:3"
	targets := map[int32][]int32{0: {2, 3}, 1: {3, 1}}
	planFor := func(topic string) string {
		var parts []string
		for _, p := range []int32{0, 1} {
			parts = append(parts, fmt.Sprintf(`{"topic":%q,"partition":%d,"replicas":%s}`, topic, p, ids(targets[p])))
		}
		return writeFile(t, `{"version":1,"partitions":[`+strings.Join(parts, ",")+`]}`)
	}
	moved := func(topic string) {
		t.Helper()
		eventually(t, ctx, "the moves of "+topic, time.Minute, func() error {
			for _, p := range describe(t, ctx, topic).Partitions {
				if !slices.Equal(p.Replicas, targets[p.Partition]) || len(p.Adding)+len(p.Removing) > 0 {
					return fmt.Errorf("partition %d: %+v", p.Partition, p)
				}
			}
			return nil
		})
	}
	for _, topic := range []string{"th-kafka", "th-kzadmin", "th-kzadmin-wire"} {
		kzOK(t, ctx, "topics", "create", "--topic", topic, "--replica-assignment", assignment)
		online(t, ctx, topic, 2, 2)
	}

	// Kafka's tool, at 5000 B/s.
	tool(t, ctx, kafka.ReassignPartitionsCommand, "--execute", "--reassignment-json-file", planFor("th-kafka"), "--throttle", "5000")
	kafkaTopic := throttleConfigs(t, ctx, "topics", "th-kafka")
	kafkaBrokers := brokersAtRate(t, ctx, "5000")
	moved("th-kafka")
	tool(t, ctx, kafka.ReassignPartitionsCommand, "--verify", "--reassignment-json-file", planFor("th-kafka"))
	if left := brokersAtRate(t, ctx, "5000"); len(left) > 0 {
		t.Fatalf("Kafka's verify left the rate on brokers %v", left)
	}

	// kzadmin's, at 6000 B/s, over ZooKeeper.
	out := kzOK(t, ctx, "reassign", "execute", "--reassignment-json-file", planFor("th-kzadmin"), "--throttle", "6000")
	if !strings.Contains(out, "The inter-broker throttle limit was set to 6000 B/s") {
		t.Errorf("execute:\n%s", out)
	}
	ours := throttleConfigs(t, ctx, "topics", "th-kzadmin")
	if len(kafkaTopic) != 2 || !maps.Equal(ours, kafkaTopic) {
		t.Errorf("topic throttles: kzadmin %v, Kafka's tool %v", ours, kafkaTopic)
	}
	if got := brokersAtRate(t, ctx, "6000"); !slices.Equal(got, kafkaBrokers) || len(got) == 0 {
		t.Errorf("throttled brokers: kzadmin %v, Kafka's tool %v", got, kafkaBrokers)
	}
	t.Logf("both set %v on the topic and the rate on brokers %v", ours, kafkaBrokers)
	moved("th-kzadmin")
	var vout, verr bytes.Buffer
	code := cli.Run(ctx, []string{"reassign", "verify", "--reassignment-json-file", planFor("th-kzadmin"),
		"--bootstrap-server", env.kafka.Bootstrap()}, &vout, &verr, cli.Options{Terminal: func() bool { return false }})
	if code != 0 || !strings.Contains(vout.String(), "Clearing topic-level throttles on topic th-kzadmin") {
		t.Fatalf("verify over --bootstrap-server: exit %d\n%s%s", code, vout.String(), verr.String())
	}
	if left := brokersAtRate(t, ctx, "6000"); len(left) > 0 {
		t.Errorf("kzadmin's verify left the rate on brokers %v", left)
	}
	if left := throttleConfigs(t, ctx, "topics", "th-kzadmin"); len(left) > 0 {
		t.Errorf("kzadmin's verify left topic throttles %v", left)
	}

	// kzadmin's over --bootstrap-server (IncrementalAlterConfigs to the
	// topics and to each broker), at 7000 B/s.
	vout.Reset()
	verr.Reset()
	code = cli.Run(ctx, []string{"reassign", "execute", "--reassignment-json-file", planFor("th-kzadmin-wire"), "--throttle", "7000",
		"--bootstrap-server", env.kafka.Bootstrap()}, &vout, &verr, cli.Options{Terminal: func() bool { return false }})
	if code != 0 {
		t.Fatalf("execute --throttle over --bootstrap-server: exit %d\n%s%s", code, vout.String(), verr.String())
	}
	if wire := throttleConfigs(t, ctx, "topics", "th-kzadmin-wire"); !maps.Equal(wire, kafkaTopic) {
		t.Errorf("topic throttles over the wire: %v, Kafka's tool %v", wire, kafkaTopic)
	}
	if got := brokersAtRate(t, ctx, "7000"); !slices.Equal(got, kafkaBrokers) {
		t.Errorf("throttled brokers over the wire: %v, Kafka's tool %v", got, kafkaBrokers)
	}
	moved("th-kzadmin-wire")
	vout.Reset()
	verr.Reset()
	code = cli.Run(ctx, []string{"reassign", "verify", "--reassignment-json-file", planFor("th-kzadmin-wire"),
		"--bootstrap-server", env.kafka.Bootstrap()}, &vout, &verr, cli.Options{Terminal: func() bool { return false }})
	if code != 0 || len(brokersAtRate(t, ctx, "7000")) > 0 || len(throttleConfigs(t, ctx, "topics", "th-kzadmin-wire")) > 0 {
		t.Fatalf("verify over --bootstrap-server left throttles: exit %d\n%s%s", code, vout.String(), verr.String())
	}
}

// throttleConfigs is an entity's *.throttled.* overrides, read with
// kzadmin configs describe over ZooKeeper.
func throttleConfigs(t *testing.T, ctx context.Context, entityType, name string) map[string]string {
	t.Helper()
	var entities []struct {
		Configs []struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"configs"`
	}
	out := kzOK(t, ctx, "configs", "describe", "--entity-type", entityType, "--entity-name", name, "-o", "json")
	if err := json.Unmarshal([]byte(out), &entities); err != nil || len(entities) != 1 {
		t.Fatalf("configs describe %s %s: %v\n%s", entityType, name, err, out)
	}
	got := map[string]string{}
	for _, c := range entities[0].Configs {
		if strings.Contains(c.Name, "throttled") {
			got[c.Name] = c.Value
		}
	}
	return got
}

// brokersAtRate are the brokers whose leader and follower replication
// throttle rates are both rate.
func brokersAtRate(t *testing.T, ctx context.Context, rate string) []int32 {
	t.Helper()
	var out []int32
	for id := int32(1); id <= 3; id++ {
		c := throttleConfigs(t, ctx, "brokers", fmt.Sprint(id))
		if c["leader.replication.throttled.rate"] == rate && c["follower.replication.throttled.rate"] == rate {
			out = append(out, id)
		}
	}
	return out
}

func ids(replicas []int32) string {
	parts := make([]string, len(replicas))
	for i, r := range replicas {
		parts[i] = fmt.Sprint(r)
	}
	return "[" + strings.Join(parts, ",") + "]"
}
