package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kzadmin/kzadmin/znodes"
)

func TestTopicsCreateListDescribe(t *testing.T) {
	c := newCluster(t, "r1", "r2", "r3")
	c.want(0, []string{"Created topic orders."}, "topics", "create", "--topic", "orders", "--partitions", "3",
		"--replication-factor", "2", "--config", "retention.ms=60000", "--config", "cleanup.policy=compact,delete")
	c.want(0, []string{"Created topic pinned."}, "topics", "create", "--topic", "pinned", "--replica-assignment", "1:2,2:3")
	if got := c.get(znodes.ConfigEntityPath("topics", "orders")); got !=
		`{"version":1,"config":{"cleanup.policy":"compact,delete","retention.ms":"60000"}}` {
		t.Errorf("config znode %s", got)
	}
	if got := c.get(znodes.TopicPath("pinned")); !strings.Contains(got, `"partitions":{"0":[1,2],"1":[2,3]}`) {
		t.Errorf("pinned %s", got)
	}

	r := c.ok("topics", "list")
	for _, want := range []string{"TOPIC", "orders", "pinned", "PARTITIONS"} {
		if !strings.Contains(r.out, want) {
			t.Errorf("list lacks %q:\n%s", want, r.out)
		}
	}
	r = c.ok("topics", "list", "-o", "json", "--topic", "ord.*")
	var listed []topicListJSON
	if err := json.Unmarshal([]byte(r.out), &listed); err != nil || len(listed) != 1 || listed[0].Partitions != 3 ||
		listed[0].ReplicationFactor != 2 {
		t.Fatalf("list json %s (%v)", r.out, err)
	}

	c.setState("orders", 0, 1, 1, 2)
	r = c.ok("topics", "describe", "--topic", "orders")
	for _, want := range []string{"Topic: orders", "PartitionCount: 3", "ReplicationFactor: 2",
		"Configs: cleanup.policy=compact,delete,retention.ms=60000", "no state yet"} {
		if !strings.Contains(r.out, want) {
			t.Errorf("describe lacks %q:\n%s", want, r.out)
		}
	}
	r = c.ok("topics", "describe", "--topic", "orders", "-o", "json")
	var desc struct{ Topics []topicJSON }
	if err := json.Unmarshal([]byte(r.out), &desc); err != nil || len(desc.Topics) != 1 {
		t.Fatalf("describe json %s (%v)", r.out, err)
	}
	d := desc.Topics[0]
	if d.ID == "" || len(d.Partitions) != 3 || d.Partitions[0].Leader != 1 || d.Partitions[1].Leader != -1 ||
		d.Partitions[1].Error == "" || d.Configs["retention.ms"] != "60000" {
		t.Errorf("describe json %+v", d)
	}
}

func TestTopicsCreateRefusalsAndExitCodes(t *testing.T) {
	c := newCluster(t, "", "")
	c.ok("topics", "create", "--topic", "t", "--partitions", "1", "--replication-factor", "1")
	c.want(1, []string{"Error: Topic 't' already exists."}, "topics", "create", "--topic", "t", "--partitions", "1", "--replication-factor", "1")
	c.want(0, nil, "topics", "create", "--topic", "t", "--partitions", "1", "--replication-factor", "1", "--if-not-exists")
	c.ok("topics", "delete", "--topic", "t")
	// A topic being deleted is not "existing" for --if-not-exists: the user
	// would end up without it.
	c.want(1, []string{"Topic 't' is marked for deletion."}, "topics", "create", "--topic", "t", "--partitions", "1",
		"--replication-factor", "1", "--if-not-exists")
	c.want(1, []string{"t.x: Unknown topic config name: retention"}, "topics", "create", "--topic", "t.x",
		"--partitions", "1", "--replication-factor", "1", "--config", "retention=1")
	c.want(1, []string{"Replication factor: 3 larger than available brokers: 2."}, "topics", "create", "--topic", "big",
		"--partitions", "1", "--replication-factor", "3")
	c.want(1, []string{"broker 9, but no such broker is registered"}, "topics", "create", "--topic", "m", "--replica-assignment", "1:9")
	c.ok("topics", "create", "--topic", "a.b", "--partitions", "1", "--replication-factor", "1")
	c.want(1, []string{"Topic 'a_b' collides with existing topics: a.b"}, "topics", "create", "--topic", "a_b", "--partitions", "1", "--replication-factor", "1")
	// Usage errors exit 2 and write nothing.
	before := c.snapshot()
	c.want(2, []string{"--topic is required"}, "topics", "create", "--partitions", "1")
	c.want(2, []string{"can't be used with --partitions"}, "topics", "create", "--topic", "u", "--partitions", "1", "--replica-assignment", "1")
	c.want(2, []string{"is not a broker id"}, "topics", "create", "--topic", "u", "--replica-assignment", "1:x")
	c.want(2, []string{"unknown flag"}, "topics", "create", "--topic", "u", "--partitons", "1")
	c.want(2, []string{"want name=value"}, "topics", "create", "--topic", "u", "--config", "retention.ms")
	c.want(2, []string{"unknown command"}, "topics", "frobnicate")
	c.want(2, []string{"--output must be table or json"}, "topics", "list", "-o", "yaml")
	c.want(2, []string{"not both"}, "topics", "list", "--bootstrap-server", "b:9092")
	var out, errOut strings.Builder
	if code := Run(c.ctx, []string{"topics", "list", "--bootstrap-server", "127.0.0.1:1"}, &out, &errOut, Options{}); code != 1 ||
		!strings.Contains(errOut.String(), "cannot reach the cluster at --bootstrap-server 127.0.0.1:1") {
		t.Errorf("bootstrap-server: exit %d: %s", code, errOut.String())
	}
	errOut.Reset()
	if code := Run(c.ctx, []string{"topics", "list", "--bootstrap-server", "nocolon"}, &out, &errOut, Options{}); code != 2 ||
		!strings.Contains(errOut.String(), `"nocolon" is not host:port`) {
		t.Errorf("bootstrap-server: exit %d: %s", code, errOut.String())
	}
	errOut.Reset()
	if code := Run(c.ctx, []string{"topics", "list"}, &out, &errOut, Options{}); code != 2 ||
		!strings.Contains(errOut.String(), "--zookeeper host:port[/chroot] or --bootstrap-server host:port is required") {
		t.Errorf("no --zookeeper: exit %d: %s", code, errOut.String())
	}
	errOut.Reset()
	if code := Run(c.ctx, []string{"topics", "list", "--zookeeper", sharedZK.Addr(t) + "/nonexistent-chroot"}, &out, &errOut, Options{}); code != 1 ||
		!strings.Contains(errOut.String(), "chroot /nonexistent-chroot does not exist") {
		t.Errorf("missing chroot: exit %d: %s", code, errOut.String())
	}
	sameTree(t, before, c.snapshot())
	r := c.want(1, nil, "topics", "create", "--topic", "t", "--partitions", "1", "--replication-factor", "1", "-o", "json")
	var je jsonError
	if err := json.Unmarshal([]byte(r.out), &je); err != nil || je.Error.Code != 36 || je.Error.Name != "TOPIC_ALREADY_EXISTS" ||
		je.Error.Reason != "MarkedForDeletion" {
		t.Errorf("json error %s (%v)", r.out, err)
	}
}

func TestTopicsLimitErrorNamesTheNumbers(t *testing.T) {
	c := newCluster(t, "", "", "")
	cfg := writeFile(t, "max.broker.partitions=4\nmax.partitions=100\n")
	c.ok("topics", "create", "--topic", "a", "--partitions", "3", "--replication-factor", "3", "--config-file", cfg)
	r := c.want(1, []string{"WILL_EXCEED_PARTITION_LIMITS:", "creating topic 'b' with 2 partitions of replication factor 3",
		"above max.broker.partitions=4", "would host 5", "(it hosts 3 now)"},
		"topics", "create", "--topic", "b", "--partitions", "2", "--replication-factor", "3", "--config-file", cfg)
	if !strings.HasPrefix(r.errOut, "Error: WILL_EXCEED_PARTITION_LIMITS:") {
		t.Errorf("stderr %q", r.errOut)
	}
	// The cluster-wide dynamic default overrides the file.
	c.ok("configs", "alter", "--entity-type", "brokers", "--entity-default", "--add-config", "max.broker.partitions=10")
	c.ok("topics", "create", "--topic", "b", "--partitions", "2", "--replication-factor", "3", "--config-file", cfg)
	c.want(1, []string{"max.partitions=100"}, "topics", "alter", "--topic", "b", "--partitions", "200", "--config-file", cfg)
	c.want(2, []string{"max.partitions"}, "topics", "list", "--config-file", writeFile(t, "max.partitions=-5\n"))
}

func TestTopicsAlterAndDelete(t *testing.T) {
	c := newCluster(t, "", "", "")
	c.ok("topics", "create", "--topic", "grow", "--replica-assignment", "1:2,2:3")
	c.want(0, []string{"Increased the partition count of topic grow from 2 to 4."}, "topics", "alter", "--topic", "grow", "--partitions", "4")
	c.ok("topics", "alter", "--topic", "grow", "--partitions", "6", "--replica-assignment", "1:2,2:3,3:1,1:3,2:1,3:2")
	asg, err := znodes.DecodeTopicAssignment("grow", []byte(c.get(znodes.TopicPath("grow"))))
	if err != nil || len(asg.Partitions) != 6 || asg.Partitions[5][0] != 3 || asg.Partitions[0][0] != 1 {
		t.Fatalf("grow %+v %v", asg, err)
	}
	c.want(1, []string{"Topic already has 6 partitions."}, "topics", "alter", "--topic", "grow", "--partitions", "6")
	c.want(1, []string{"Topic 'nope' does not exist as expected"}, "topics", "alter", "--topic", "nope", "--partitions", "6")
	c.ok("topics", "alter", "--topic", "nope", "--partitions", "6", "--if-exists")
	c.want(2, []string{"--partitions are required"}, "topics", "alter", "--topic", "grow")

	c.want(0, []string{"Topic grow is marked for deletion."}, "topics", "delete", "--topic", "grow")
	if !c.exists(znodes.DeleteTopicPath("grow")) {
		t.Fatal("no deletion marker")
	}
	c.want(0, []string{"Topic grow is already marked for deletion."}, "topics", "delete", "--topic", "grow")
	c.ok("topics", "create", "--topic", "__consumer_offsets", "--partitions", "1", "--replication-factor", "1")
	c.want(1, []string{"is a kafka internal topic"}, "topics", "delete", "--topic", "__consumer_offsets")
	c.ok("topics", "delete", "--topic", "nope", "--if-exists")
	r := c.ok("topics", "list", "--exclude-internal")
	if strings.Contains(r.out, "__consumer_offsets") || !strings.Contains(r.out, "marked for deletion") {
		t.Errorf("list:\n%s", r.out)
	}
}

func TestDescribeFilters(t *testing.T) {
	c := newCluster(t, "", "", "")
	c.ok("topics", "create", "--topic", "f", "--replica-assignment", "1:2:3,2:3:1,3:1:2,1:3:2",
		"--config", "min.insync.replicas=2")
	c.setState("f", 0, 1, 1, 2, 3) // healthy
	c.setState("f", 1, 2, 2, 3)    // under-replicated, at min ISR
	c.setState("f", 2, -1, 3)      // no leader
	c.setState("f", 3, 1, 1)       // under min ISR
	cases := map[string][]int{
		"--under-replicated-partitions": {1, 2, 3},
		"--unavailable-partitions":      {2},
		"--at-min-isr-partitions":       {1},
		"--under-min-isr-partitions":    {2, 3},
	}
	for flag, want := range cases {
		r := c.ok("topics", "describe", flag, "-o", "json")
		var d struct{ Topics []topicJSON }
		if err := json.Unmarshal([]byte(r.out), &d); err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, tj := range d.Topics {
			for _, p := range tj.Partitions {
				got = append(got, int(p.Partition))
			}
		}
		if len(got) != len(want) {
			t.Errorf("%s: partitions %v, want %v", flag, got, want)
			continue
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s: partitions %v, want %v", flag, got, want)
			}
		}
		r = c.ok("topics", "describe", flag)
		if !strings.Contains(r.out, "TOPIC") || strings.Contains(r.out, "PartitionCount") {
			t.Errorf("%s table:\n%s", flag, r.out)
		}
	}
	// A broker going away makes its replicas offline and its partitions unavailable.
	r := c.ok("topics", "describe", "--topic", "f")
	if !strings.Contains(r.out, "none") {
		t.Errorf("describe:\n%s", r.out)
	}
}

// Znodes written by other tools may be malformed: list and describe show
// the error on that topic, show every other topic, and rewrite nothing.
func TestMalformedZnodesInListAndDescribe(t *testing.T) {
	c := newCluster(t, "", "")
	c.ok("topics", "create", "--topic", "fine", "--partitions", "2", "--replication-factor", "2")
	c.put(znodes.TopicPath("badjson"), `{"version":3,"partitions":{`)
	c.put(znodes.TopicPath("wrongtype"), `{"version":3,"partitions":{"0":"1,2"}}`)
	c.put(znodes.TopicPath("missing"), `{"version":3}`)
	c.ok("topics", "create", "--topic", "badstate", "--partitions", "1", "--replication-factor", "1")
	c.put(znodes.PartitionStatePath("badstate", 0), `{"leader":1}`)
	c.put(znodes.ConfigEntityPath("topics", "fine"), `{"version":1,"config":{"retention.ms":7}}`)
	c.put(znodes.BrokerIDPath(9), `{"version":5}`)
	before := c.snapshot()

	r := c.ok("topics", "list")
	for _, want := range []string{"fine", "badstate", "missing",
		"error: znode /brokers/topics/badjson:",
		`error: znode /brokers/topics/wrongtype: field "partitions"."0": want array`} {
		if !strings.Contains(r.out, want) {
			t.Errorf("list lacks %q:\n%s", want, r.out)
		}
	}
	r = c.want(1, []string{"Topic: badjson\tError: znode /brokers/topics/badjson", "Topic: wrongtype\tError:",
		"Topic: fine", "Topic: missing", `ConfigError: znode /config/topics/fine: field "config"."retention.ms"`,
		"state unreadable: znode /brokers/topics/badstate/partitions/0/state", "Warning: broker registration 9:",
		"2 topics could not be read: badjson, wrongtype"}, "topics", "describe")
	if strings.Count(r.out, "Topic: ") != 5 {
		t.Errorf("describe shows %d topics:\n%s", strings.Count(r.out, "Topic: "), r.out)
	}
	r = c.want(1, nil, "topics", "describe", "-o", "json")
	var d struct {
		Topics   []topicJSON
		Warnings []string
	}
	if err := json.Unmarshal([]byte(r.out), &d); err != nil || len(d.Topics) != 5 || len(d.Warnings) != 1 {
		t.Fatalf("json %s (%v)", r.out, err)
	}
	// Writes that need a malformed znode are refused; others go ahead.
	c.want(1, []string{"cannot add partitions to topic 'wrongtype'", "does not rewrite"}, "topics", "alter", "--topic", "wrongtype", "--partitions", "3")
	c.want(1, []string{"cannot alter the configs of topic 'fine'"}, "configs", "alter", "--entity-type", "topics",
		"--entity-name", "fine", "--add-config", "segment.ms=1000")
	sameTree(t, before, c.snapshot())
	c.ok("topics", "create", "--topic", "another", "--partitions", "1", "--replication-factor", "1")
	for name, data := range map[string]string{"badjson": `{"version":3,"partitions":{`, "missing": `{"version":3}`} {
		if got := c.get(znodes.TopicPath(name)); got != data {
			t.Errorf("%s rewritten: %s", name, got)
		}
	}
}
