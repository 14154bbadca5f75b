package wirebackend_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
	"github.com/kzadmin/kzadmin/znodes"
)

// topicZnode is /brokers/topics/<name> decoded: nil when absent.
type topicZnode struct {
	id       string
	replicas [][]int32 // by partition id
}

func (c *cluster) topicZnode(t *testing.T, name string) *topicZnode {
	t.Helper()
	data := c.get(t, znodes.TopicPath(name))
	if data == "" {
		return nil
	}
	ta, err := znodes.DecodeTopicAssignment(name, []byte(data))
	if err != nil {
		t.Fatalf("decode topic %s: %v", name, err)
	}
	z := &topicZnode{id: ta.TopicID.String()}
	for _, p := range ta.PartitionIDs() {
		z.replicas = append(z.replicas, ta.Partitions[p])
	}
	return z
}

func TestTopicsCreateListDescribe(t *testing.T) {
	c := dev
	want(t, c.wire(t, "topics", "create", "--topic", "orders", "--partitions", "3", "--replication-factor", "2",
		"--config", "retention.ms=60000", "--config", "cleanup.policy=compact,delete"), 0, "Created topic orders.")
	ta := c.topicZnode(t, "orders")
	if ta == nil || len(ta.replicas) != 3 || len(ta.replicas[0]) != 2 {
		t.Fatalf("ZooKeeper holds %+v", ta)
	}
	if cfg := c.get(t, znodes.ConfigEntityPath("topics", "orders")); !strings.Contains(cfg, `"retention.ms":"60000"`) ||
		!strings.Contains(cfg, `"cleanup.policy":"compact,delete"`) {
		t.Fatalf("config znode %s", cfg)
	}

	var res backend.CreateTopicResult
	r := want(t, c.wire(t, "topics", "create", "--topic", "pinned", "--replica-assignment", "1:2,2:3,3:1", "-o", "json"), 0)
	if err := json.Unmarshal([]byte(r.out), &res); err != nil {
		t.Fatal(err)
	}
	ta = c.topicZnode(t, "pinned")
	if ta == nil || res.TopicID != ta.id || !slicesEqual(res.Assignment, [][]int32{{1, 2}, {2, 3}, {3, 1}}) ||
		!slicesEqual(ta.replicas, res.Assignment) {
		t.Fatalf("result %+v, ZooKeeper %+v", res, ta)
	}

	// The same answers as the ZooKeeper backend's.
	c.settled(t, "orders", "pinned")
	for _, args := range [][]string{
		{"topics", "list", "--topic", "orders|pinned"},
		{"topics", "list", "--topic", "orders|pinned", "-o", "json"},
		{"topics", "describe", "--topic", "orders|pinned"},
		{"topics", "describe", "--topic", "orders|pinned", "-o", "json"},
		{"topics", "describe", "--topic", "orders", "--topics-with-overrides"},
	} {
		w, z := want(t, c.wire(t, args...), 0), want(t, c.zook(t, args...), 0)
		if w.out != z.out {
			t.Errorf("%s: --bootstrap-server shows\n%s\n--zookeeper shows\n%s", strings.Join(args, " "), w.out, z.out)
		}
	}
	want(t, c.wire(t, "topics", "describe", "--topic", "orders"), 0,
		"Topic: orders\tTopicId: ", "PartitionCount: 3\tReplicationFactor: 2\tConfigs: cleanup.policy=compact,delete,retention.ms=60000")
}

func slicesEqual(a, b [][]int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			if a[i][j] != b[i][j] {
				return false
			}
		}
	}
	return true
}

func TestTopicsRefusals(t *testing.T) {
	c := dev
	want(t, c.wire(t, "topics", "create", "--topic", "dup", "--partitions", "1", "--replication-factor", "1"), 0)
	want(t, c.wire(t, "topics", "create", "--topic", "dup", "--partitions", "1", "--replication-factor", "1"), 1,
		"Error: Topic 'dup' already exists.")
	want(t, c.wire(t, "topics", "create", "--topic", "dup", "--partitions", "1", "--if-not-exists"), 0)
	r := want(t, c.wire(t, "topics", "create", "--topic", "dup", "--partitions", "1", "-o", "json"), 1)
	if !strings.Contains(r.out, `"code": 36`) || !strings.Contains(r.out, `"name": "TOPIC_ALREADY_EXISTS"`) ||
		!strings.Contains(r.out, `"reason": "TopicExists"`) {
		t.Errorf("JSON error:\n%s", r.out)
	}
	want(t, c.wire(t, "topics", "create", "--topic", "bad", "--partitions", "1", "--config", "no.such.config=1"), 1,
		"Unknown topic config name: no.such.config")
	want(t, c.wire(t, "topics", "create", "--topic", "big", "--partitions", "1", "--replication-factor", "4"), 1,
		"Replication factor: 4 larger than available brokers: 3.")
	want(t, c.wire(t, "topics", "create", "--topic", "ghost", "--replica-assignment", "1:9"), 1, "broker 9")
	want(t, c.wire(t, "topics", "create", "--topic", "bad/name", "--partitions", "1"), 1, `Topic name is invalid: 'bad/name' contains`)
	for _, name := range []string{"bad", "big", "ghost"} {
		if c.topicZnode(t, name) != nil {
			t.Errorf("refused topic %s was written", name)
		}
	}
	want(t, c.wire(t, "topics", "alter", "--topic", "dup", "--partitions", "1"), 1, "Topic already has 1 partitions.")
	want(t, c.wire(t, "topics", "alter", "--topic", "nope", "--partitions", "2"), 1, "Topic 'nope' does not exist as expected")
	want(t, c.wire(t, "topics", "delete", "--topic", "nope"), 1, "Topic 'nope' does not exist as expected")
	want(t, c.wire(t, "topics", "create", "--topic", "rack", "--partitions", "1", "--disable-rack-aware"), 2,
		"--disable-rack-aware is not available")
}

func TestTopicsAlterAndDelete(t *testing.T) {
	c := dev
	want(t, c.wire(t, "topics", "create", "--topic", "grow", "--replica-assignment", "1:2,2:3"), 0)
	want(t, c.wire(t, "topics", "alter", "--topic", "grow", "--partitions", "4"), 0,
		"Increased the partition count of topic grow from 2 to 4.")
	if ta := c.topicZnode(t, "grow"); ta == nil || len(ta.replicas) != 4 {
		t.Fatalf("ZooKeeper holds %+v", ta)
	}
	r := want(t, c.wire(t, "topics", "alter", "--topic", "grow", "--partitions", "5", "--replica-assignment", "3:1", "-o", "json"), 0)
	var res []backend.CreatePartitionsResult
	if err := json.Unmarshal([]byte(r.out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Previous != 4 || !slicesEqual(res[0].Added, [][]int32{{3, 1}}) {
		t.Fatalf("result %+v", res)
	}
	if ta := c.topicZnode(t, "grow"); ta == nil || len(ta.replicas) != 5 || !slicesEqual(ta.replicas[4:], [][]int32{{3, 1}}) {
		t.Fatalf("ZooKeeper holds %+v", ta)
	}

	want(t, c.wire(t, "topics", "delete", "--topic", "grow"), 0, "Topic grow is marked for deletion.")
	eventually(t, "topic grow deleted from ZooKeeper", func() bool { return c.topicZnode(t, "grow") == nil })
	want(t, c.wire(t, "topics", "describe", "--topic", "grow"), 1, "Topic 'grow' does not exist as expected")
	want(t, c.wire(t, "topics", "delete", "--topic", "__consumer_offsets"), 1, "does not exist as expected")
}
