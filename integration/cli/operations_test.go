package cli_test

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/cli"
	"github.com/kzadmin/kzadmin/integration/kafka"
)

// Adding partitions, reassigning (with --wait), a preferred election and
// deletion, each written by kzadmin and carried out by Kafka's controller.
func TestKzadminOperationsUnderKafkasController(t *testing.T) {
	ctx := testCtx(t, 4*time.Minute)
	kzOK(t, ctx, "topics", "create", "--topic", "kz-ops", "--replica-assignment", "1:2,2:3")
	online(t, ctx, "kz-ops", 2, 2)

	kzOK(t, ctx, "topics", "alter", "--topic", "kz-ops", "--partitions", "4")
	md := online(t, ctx, "kz-ops", 4, 2)
	t.Logf("Kafka placed the added partitions as kzadmin wrote them: %v", md.replicas)

	plan := writeFile(t, `{"version":1,"partitions":[{"topic":"kz-ops","partition":0,"replicas":[3,1]},`+
		`{"topic":"kz-ops","partition":1,"replicas":[1,3]}]}`)
	began := time.Now()
	out, errOut, code := kz(t, ctx, "reassign", "execute", "--reassignment-json-file", plan, "--wait", "--poll-interval", "200ms")
	if code != 0 || !strings.Contains(errOut, "2/2 partitions reassigned (100%)") {
		t.Fatalf("execute --wait: exit %d\n%s%s", code, out, errOut)
	}
	t.Logf("Kafka's controller carried out kzadmin's reassignment in %s", time.Since(began).Round(time.Millisecond))
	eventually(t, ctx, "Kafka's metadata showing the new replicas", 30*time.Second, func() error {
		md := online(t, ctx, "kz-ops", 4, 2)
		if !slices.Equal(md.replicas[0], []int32{3, 1}) || !slices.Equal(md.replicas[1], []int32{1, 3}) {
			return fmt.Errorf("replicas %v", md.replicas)
		}
		return nil
	})
	if out := kzOK(t, ctx, "reassign", "verify", "--reassignment-json-file", plan); strings.Count(out, "is completed.") != 2 {
		t.Errorf("verify:\n%s", out)
	}

	kzOK(t, ctx, "elect", "--election-type", "preferred", "--topic", "kz-ops", "--partition", "0")
	eventually(t, ctx, "Kafka's controller consuming the election request", 30*time.Second, func() error {
		_, errOut, code := kz(t, ctx, "elect", "--election-type", "preferred", "--topic", "kz-ops", "--partition", "1", "--dry-run")
		if code != 0 {
			return fmt.Errorf("request still pending: %s", errOut)
		}
		return nil
	})

	kzOK(t, ctx, "topics", "delete", "--topic", "kz-ops")
	eventually(t, ctx, "Kafka deleting the topic", time.Minute, func() error {
		out := kzOK(t, ctx, "topics", "list", "--topic", "kz-ops")
		if strings.Contains(out, "kz-ops") {
			return fmt.Errorf("still listed:\n%s", out)
		}
		return nil
	})
}

// A reassignment started by Kafka's own tool (through the API, throttled so
// it stays in flight) is seen in progress by kzadmin, and kzadmin's cancel
// through /admin/reassign_partitions makes Kafka's controller roll it back.
func TestKzadminCancelsKafkaToolReassignment(t *testing.T) {
	ctx := testCtx(t, 4*time.Minute)
	kzOK(t, ctx, "topics", "create", "--topic", "kz-slow", "--replica-assignment", "1")
	online(t, ctx, "kz-slow", 1, 1)
	cl, err := kgo.NewClient(kgo.SeedBrokers(env.kafka.Addrs()...), kgo.DefaultProduceTopic("kz-slow"))
	if err != nil {
		t.Fatal(err)
	}
	// 50 MB: the throttle (topic and broker configs) reaches the brokers
	// through config change notifications, asynchronously, so the first
	// fetches of the new replica may run unthrottled. With only a few MB
	// the move could finish before kzadmin cancels it.
	recs := make([]*kgo.Record, 200)
	for i := range recs {
		recs[i] = &kgo.Record{Value: make([]byte, 250_000)}
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	cl.Close()

	plan := writeFile(t, `{"version":1,"partitions":[{"topic":"kz-slow","partition":0,"replicas":[2]}]}`)
	tool(t, ctx, kafka.ReassignPartitionsCommand, "--execute", "--reassignment-json-file", plan, "--throttle", "1000")
	d := describe(t, ctx, "kz-slow")
	p := d.Partitions[0]
	if !slices.Equal(p.Adding, []int32{2}) || !slices.Equal(p.Removing, []int32{1}) {
		t.Fatalf("kzadmin does not see the reassignment in flight: %+v", p)
	}
	// kafka-reassign-partitions --list and kzadmin reassign list, over
	// ZooKeeper and over the wire, print the same.
	want := tool(t, ctx, kafka.ReassignPartitionsCommand, "--list")
	if !strings.Contains(want, "kz-slow-0: replicas: 2,1. adding: 2. removing: 1.") {
		t.Errorf("Kafka's --list:\n%s", want)
	}
	if got := kzOK(t, ctx, "reassign", "list"); strings.TrimSpace(got) != strings.TrimSpace(want) {
		t.Errorf("reassign list over ZooKeeper:\n%s\nKafka's tool:\n%s", got, want)
	}
	var wout, werr bytes.Buffer
	if code := cli.Run(ctx, []string{"reassign", "list", "--bootstrap-server", env.kafka.Bootstrap()}, &wout, &werr,
		cli.Options{Terminal: func() bool { return false }}); code != 0 || strings.TrimSpace(wout.String()) != strings.TrimSpace(want) {
		t.Errorf("reassign list over the wire: exit %d\n%s%s\nKafka's tool:\n%s", code, wout.String(), werr.String(), want)
	}
	if out := kzOK(t, ctx, "reassign", "verify", "--reassignment-json-file", plan); !strings.Contains(out, "is still in progress") {
		t.Errorf("verify:\n%s", out)
	}
	out := kzOK(t, ctx, "reassign", "cancel", "--reassignment-json-file", plan)
	if !strings.Contains(out, "Successfully cancelled partition reassignments for: kz-slow-0") {
		t.Fatalf("cancel:\n%s", out)
	}
	eventually(t, ctx, "Kafka's controller rolling the reassignment back", time.Minute, func() error {
		d := describe(t, ctx, "kz-slow")
		p := d.Partitions[0]
		if !slices.Equal(p.Replicas, []int32{1}) || len(p.Adding)+len(p.Removing) > 0 {
			return fmt.Errorf("partition 0: %+v", p)
		}
		_, errOut, code := kz(t, ctx, "reassign", "cancel", "--reassignment-json-file", plan, "--dry-run")
		if code != 0 {
			return fmt.Errorf("request still pending: %s", errOut)
		}
		return nil
	})
	md := online(t, ctx, "kz-slow", 1, 1)
	if !slices.Equal(md.replicas[0], []int32{1}) {
		t.Errorf("Kafka's replicas after the cancel: %v", md.replicas[0])
	}
}
