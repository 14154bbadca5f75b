package cli

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// proposedPlan picks the proposal out of 'reassign generate' output.
func proposedPlan(t *testing.T, out string) (string, planFile) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	last := lines[len(lines)-1]
	var p planFile
	if err := json.Unmarshal([]byte(last), &p); err != nil {
		t.Fatalf("proposal %q: %v\n%s", last, err, out)
	}
	return last, p
}

// completeReassignment does what the controller does when a reassignment
// finishes: the topic gets the target replicas and the request goes.
func (c *cluster) completeReassignment(topic string, target map[int32][]int32) {
	c.t.Helper()
	asg, err := znodes.DecodeTopicAssignment(topic, []byte(c.get(znodes.TopicPath(topic))))
	if err != nil {
		c.t.Fatal(err)
	}
	for p, r := range target {
		asg.Partitions[p] = r
	}
	asg.AddingReplicas, asg.RemovingReplicas = nil, nil
	data, _ := asg.Encode()
	c.put(znodes.TopicPath(topic), string(data))
	if err := c.zk.Delete(c.ctx, znodes.ReassignPartitionsPath, zkadmin.AnyVersion); err != nil {
		c.t.Fatal(err)
	}
}

func TestReassignGenerateExecuteVerify(t *testing.T) {
	c := newCluster(t, "", "", "", "")
	c.ok("topics", "create", "--topic", "r", "--replica-assignment", "1:2,2:1")
	topics := writeFile(t, `{"topics":[{"topic":"r"}],"version":1}`)
	r := c.want(0, []string{"Current partition replica assignment", `{"topic":"r","partition":0,"replicas":[1,2],"log_dirs":["any","any"]}`,
		"Proposed partition reassignment configuration", "The proposal moves 4 replicas"},
		"reassign", "generate", "--topics-to-move-json-file", topics, "--broker-list", "3,4")
	line, proposal := proposedPlan(t, r.out)
	for _, p := range proposal.Partitions {
		if len(p.Replicas) != 2 || !slices.Contains([]int32{3, 4}, p.Replicas[0]) || !slices.Contains([]int32{3, 4}, p.Replicas[1]) {
			t.Fatalf("proposal %+v", proposal)
		}
	}
	plan := writeFile(t, line)
	c.want(0, []string{"Save this to use as the --reassignment-json-file option during rollback",
		`{"version":1,"partitions":[{"topic":"r","partition":0,"replicas":[1,2],"log_dirs":["any","any"]}`,
		"Successfully started partition reassignments for r-0,r-1"}, "reassign", "execute", "--reassignment-json-file", plan)
	var req struct {
		Version    int
		Partitions []map[string]any
	}
	if err := json.Unmarshal([]byte(c.get(znodes.ReassignPartitionsPath)), &req); err != nil || len(req.Partitions) != 2 ||
		strings.Contains(c.get(znodes.ReassignPartitionsPath), "log_dirs") {
		t.Fatalf("request znode %s (%v)", c.get(znodes.ReassignPartitionsPath), err)
	}
	c.want(0, []string{"Reassignment of partition r-0 is still in progress.", "Reassignment of partition r-1 is still in progress."},
		"reassign", "verify", "--reassignment-json-file", plan)
	c.want(0, []string{"No partition reassignments found.\nRequested in /admin/reassign_partitions, not begun by the controller: r-0,r-1"},
		"reassign", "list")
	// As Kafka's tool: not while another reassignment is in progress, but
	// with --additional; the request znode still in flight refuses that.
	c.want(1, []string{"cannot execute because there is an existing partition assignment (2 partitions in progress: r-0, r-1). Use --additional"},
		"reassign", "execute", "--reassignment-json-file", plan)
	c.want(1, []string{"There is an existing assignment running", "r-0, r-1"}, "reassign", "execute", "--reassignment-json-file", plan, "--additional")
	target := map[int32][]int32{}
	for _, p := range proposal.Partitions {
		target[p.Partition] = p.Replicas
	}
	c.completeReassignment("r", target)
	c.want(0, []string{"Reassignment of partition r-0 is completed.", "Reassignment of partition r-1 is completed."},
		"reassign", "verify", "--reassignment-json-file", plan)
	back := writeFile(t, `{"version":1,"partitions":[{"topic":"r","partition":0,"replicas":[1,2]},{"topic":"r","partition":1,"replicas":[2,1]}]}`)
	c.want(0, []string{"There is no active reassignment of partition r-0, but replica set is"}, "reassign", "verify", "--reassignment-json-file", back)
}

func TestReassignExecuteWaitShowsProgress(t *testing.T) {
	c := newCluster(t, "", "", "")
	c.ok("topics", "create", "--topic", "w", "--replica-assignment", "1:2,2:3")
	plan := writeFile(t, `{"version":1,"partitions":[{"topic":"w","partition":0,"replicas":[3,1]},{"topic":"w","partition":1,"replicas":[3,2]}]}`)
	done := make(chan result, 1)
	go func() {
		done <- c.run("reassign", "execute", "--reassignment-json-file", plan, "--wait", "--poll-interval", "50ms")
	}()
	// Play the controller: wait for the request, then finish one partition,
	// then the other.
	deadline := time.Now().Add(20 * time.Second)
	for !c.exists(znodes.ReassignPartitionsPath) {
		if time.Now().After(deadline) {
			t.Fatal("no reassignment request appeared")
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.put(znodes.TopicPath("w"), `{"version":3,"partitions":{"0":[3,1],"1":[3,2,3]},"adding_replicas":{"1":[3]},"removing_replicas":{"1":[3]}}`)
	c.put(znodes.TopicPath("w"), `{"version":3,"partitions":{"0":[3,1],"1":[3,2]},"adding_replicas":{},"removing_replicas":{}}`)
	if err := c.zk.Delete(c.ctx, znodes.ReassignPartitionsPath, zkadmin.AnyVersion); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		if r.code != 0 || !strings.Contains(r.errOut, "2/2 partitions reassigned (100%)") {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.out, r.errOut)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("execute --wait did not return")
	}
}

func TestReassignCancelAndInputErrors(t *testing.T) {
	c := newCluster(t, "", "", "")
	c.put(znodes.TopicPath("m"), `{"version":3,"partitions":{"0":[3,1,2],"1":[1,2]},"adding_replicas":{"0":[3]},"removing_replicas":{"0":[2]}}`)
	plan := writeFile(t, `{"version":1,"partitions":[{"topic":"m","partition":0,"replicas":[3,1]},{"topic":"m","partition":1,"replicas":[1,3]}]}`)
	c.want(0, []string{"Successfully cancelled partition reassignments for: m-0", "Not active: m-1"},
		"reassign", "cancel", "--reassignment-json-file", plan)
	if got := c.get(znodes.ReassignPartitionsPath); got != `{"version":1,"partitions":[{"topic":"m","partition":0,"replicas":[1,2]}]}` {
		t.Fatalf("cancel wrote %s", got)
	}
	c.want(1, []string{"There is an existing assignment running"}, "reassign", "cancel", "--reassignment-json-file", plan)

	before := c.snapshot()
	c.want(2, []string{"not valid JSON"}, "reassign", "execute", "--reassignment-json-file", writeFile(t, `{"version":1,`))
	c.want(2, []string{"version 2 is not supported"}, "reassign", "verify", "--reassignment-json-file", writeFile(t, `{"version":2,"partitions":[]}`))
	c.want(2, []string{"moving replicas between log directories is asked of the brokers, so it needs --bootstrap-server"}, "reassign", "execute", "--reassignment-json-file",
		writeFile(t, `{"version":1,"partitions":[{"topic":"m","partition":0,"replicas":[1],"log_dirs":["/data/a"]}]}`))
	c.want(2, []string{"log-dirs describe asks the brokers: it needs --bootstrap-server"}, "log-dirs", "describe")
	c.want(2, []string{"--broker-list", "is not a broker id"}, "log-dirs", "describe", "--broker-list", "1,x")
	// A throttle is not set for moves that cannot start.
	c.want(1, []string{"There is an existing assignment running"}, "reassign", "execute", "--reassignment-json-file", plan, "--throttle", "1000",
		"--additional")
	c.want(2, []string{"--reassignment-json-file is required"}, "reassign", "verify")
	c.want(2, []string{"not a broker id"}, "reassign", "generate", "--topics-to-move-json-file",
		writeFile(t, `{"topics":[{"topic":"m"}],"version":1}`), "--broker-list", "1,x")
	c.want(1, []string{"broker 7 in --broker-list is not registered"}, "reassign", "generate", "--topics-to-move-json-file",
		writeFile(t, `{"topics":[{"topic":"m"}],"version":1}`), "--broker-list", "1,7")
	sameTree(t, before, c.snapshot())
}

// TestReassignThrottle: execute --throttle sets, before the moves start,
// what kafka-reassign-partitions --throttle sets: each moving partition's
// current replicas as throttled leaders and its new ones as throttled
// followers on the topic, and the rate on every broker involved; --verify
// leaves them while the plan is in progress and clears them, with the
// other brokers' throttles, once it is complete (not with
// --preserve-throttles). A dry run writes nothing.
func TestReassignThrottle(t *testing.T) {
	c := newCluster(t, "", "", "", "")
	c.ok("topics", "create", "--topic", "th", "--replica-assignment", "1:2,2:1,1:2")
	c.ok("configs", "alter", "--entity-type", "brokers", "--entity-name", "4", "--add-config", "follower.replication.throttled.rate=7")
	plan := writeFile(t, `{"version":1,"partitions":[{"topic":"th","partition":0,"replicas":[3,2]},`+
		`{"topic":"th","partition":1,"replicas":[2,1]}]}`)

	before := c.snapshot()
	c.want(0, []string{"/config/topics/th", "leader.replication.throttled.replicas", "/config/brokers/3", "/admin/reassign_partitions"},
		"reassign", "execute", "--reassignment-json-file", plan, "--throttle", "1000", "--dry-run")
	sameTree(t, before, c.snapshot())

	c.want(0, []string{"Warning: You must run --verify periodically", "The inter-broker throttle limit was set to 1000 B/s",
		"Successfully started partition reassignments for th-0,th-1"},
		"reassign", "execute", "--reassignment-json-file", plan, "--throttle", "1000")
	topic := c.configOf("topics", "th")
	if topic["leader.replication.throttled.replicas"] != "0:1,0:2,1:1,1:2" || topic["follower.replication.throttled.replicas"] != "0:3" {
		t.Fatalf("topic throttles %v", topic)
	}
	for _, id := range []string{"1", "2", "3"} {
		b := c.configOf("brokers", id)
		if b["leader.replication.throttled.rate"] != "1000" || b["follower.replication.throttled.rate"] != "1000" {
			t.Fatalf("broker %s throttles %v", id, b)
		}
	}
	if b := c.configOf("brokers", "4"); b["leader.replication.throttled.rate"] != "" {
		t.Fatalf("broker 4, not involved, throttled: %v", b)
	}

	// In progress: the throttles stay.
	c.want(0, []string{"is still in progress"}, "reassign", "verify", "--reassignment-json-file", plan)
	if c.configOf("brokers", "1")["leader.replication.throttled.rate"] != "1000" {
		t.Fatal("verify cleared the throttles of a plan in progress")
	}
	// The controller's part: the request consumed, the replicas moved.
	c.completeReassignment("th", map[int32][]int32{0: {3, 2}, 1: {2, 1}, 2: {1, 2}})
	r := c.want(0, []string{"Reassignment of partition th-0 is completed."}, "reassign", "verify", "--reassignment-json-file", plan,
		"--preserve-throttles")
	if strings.Contains(r.out, "Clearing") {
		t.Fatalf("--preserve-throttles cleared:\n%s", r.out)
	}
	if c.configOf("topics", "th")["leader.replication.throttled.replicas"] == "" {
		t.Fatal("--preserve-throttles cleared the throttles")
	}
	c.want(0, []string{"Clearing broker-level throttles on brokers 1,2,3,4", "Clearing topic-level throttles on topic th"},
		"reassign", "verify", "--reassignment-json-file", plan)
	for _, e := range []struct{ typ, name string }{{"topics", "th"}, {"brokers", "1"}, {"brokers", "3"}, {"brokers", "4"}} {
		for k := range c.configOf(e.typ, e.name) {
			if strings.Contains(k, "throttled") {
				t.Errorf("%s %s keeps %s after verify", e.typ, e.name, k)
			}
		}
	}
	// Nothing left to clear: verify says so and writes nothing.
	before = c.snapshot()
	c.ok("reassign", "verify", "--reassignment-json-file", plan)
	sameTree(t, before, c.snapshot())
}

// configOf is an entity's config znode as a map (empty when absent).
func (c *cluster) configOf(entityType, name string) map[string]string {
	c.t.Helper()
	data, _, err := c.zk.Get(c.ctx, znodes.ConfigEntityPath(entityType, name))
	if errors.Is(err, zkadmin.ErrNoNode) {
		return map[string]string{}
	}
	if err != nil {
		c.t.Fatal(err)
	}
	cfg, err := znodes.DecodeEntityConfig(entityType, name, data)
	if err != nil {
		c.t.Fatal(err)
	}
	return cfg.Config
}
