package zkadmin

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/kzadmin/kzadmin/znodes"
)

func TestAddPartitionsContinuesAndKeepsFields(t *testing.T) {
	e := newAdminEnv(t, []string{"", "", ""}, nil)
	// A topic written by someone else, with a field kzadmin does not know.
	id, _ := znodes.ParseUUID("qSVG0ukwQZqMS74sw61E-w")
	e.put(znodes.TopicPath("t"), []byte(`{"version":3,"partitions":{"0":[1,2],"1":[2,3]},"adding_replicas":{},`+
		`"removing_replicas":{},"topic_id":"qSVG0ukwQZqMS74sw61E-w","owner":"team-a"}`))
	res, err := e.admin.AddPartitions(e.ctx, AddPartitionsRequest{Topic: "t", Total: 5})
	if err != nil {
		t.Fatal(err)
	}
	if res.Previous != 2 || len(res.Added) != 3 {
		t.Fatalf("result %+v", res)
	}
	asg := e.assignment("t")
	if asg.TopicID != id || string(asg.Unknown["owner"]) != `"team-a"` || len(asg.Partitions) != 5 {
		t.Fatalf("rewritten topic %+v", asg)
	}
	if !slices.Equal(asg.Partitions[0], []int32{1, 2}) || !slices.Equal(asg.Partitions[1], []int32{2, 3}) {
		t.Errorf("existing partitions changed: %v", asg.Partitions)
	}
	for p := int32(2); p < 5; p++ {
		if len(asg.Partitions[p]) != 2 {
			t.Errorf("partition %d: %v", p, asg.Partitions[p])
		}
	}
	if res.Ops[len(res.Ops)-1].Version != 0 {
		t.Errorf("the rewrite does not expect the version read: %+v", res.Ops[len(res.Ops)-1])
	}
}

func TestAddPartitionsExplicitAndRefusals(t *testing.T) {
	e := newAdminEnv(t, []string{"", "", ""}, nil)
	e.create("t", 2, 2)
	if _, err := e.admin.AddPartitions(e.ctx, AddPartitionsRequest{Topic: "t", Total: 3,
		Assignment: [][]int32{{3, 1}}}); err != nil {
		t.Fatal(err)
	}
	if got := e.assignment("t").Partitions[2]; !slices.Equal(got, []int32{3, 1}) {
		t.Fatalf("partition 2 = %v", got)
	}
	e.put(znodes.TopicPath("moving"), []byte(`{"version":3,"partitions":{"0":[1,2,3]},"adding_replicas":{"0":[3]},"removing_replicas":{}}`))
	e.create("doomed", 1, 1)
	e.admin.MarkTopicForDeletion(e.ctx, "doomed", false)
	e.put(znodes.TopicPath("broken"), []byte(`{"version":3,"partitions":{"0":"1,2"}}`))
	cases := []struct {
		req  AddPartitionsRequest
		kind ErrorKind
		code int16
		msg  string
	}{
		{AddPartitionsRequest{Topic: "nope", Total: 2}, KindUnknownTopic, 3, "The topic 'nope' does not exist."},
		{AddPartitionsRequest{Topic: "t", Total: 3}, KindInvalidPartitions, 37, "Topic already has 3 partitions."},
		{AddPartitionsRequest{Topic: "t", Total: 1}, KindInvalidPartitions, 37, "which is higher than the requested 1"},
		{AddPartitionsRequest{Topic: "t", Total: 5, Assignment: [][]int32{{1, 2}}}, KindInvalidReplicaAssignment, 39, "Increasing the number of partitions by 2 but 1 assignments provided."},
		{AddPartitionsRequest{Topic: "t", Total: 4, Assignment: [][]int32{{1}}}, KindInvalidReplicaAssignment, 39, "partition 0 has 2 while partitions [3] have replication factors [1]"},
		{AddPartitionsRequest{Topic: "t", Total: 4, Assignment: [][]int32{{1, 9}}}, KindInvalidReplicaAssignment, 39, "Unknown broker(s) in replica assignment: 9."},
		{AddPartitionsRequest{Topic: "moving", Total: 2}, KindReassignmentInProgress, 60, "reassignment is in progress"},
		{AddPartitionsRequest{Topic: "doomed", Total: 2}, KindMarkedForDeletion, 17, "queued for deletion"},
		{AddPartitionsRequest{Topic: "broken", Total: 2}, KindMalformed, -1, `field "partitions"."0"`},
	}
	for _, tc := range cases {
		before := e.snapshot()
		_, err := e.admin.AddPartitions(e.ctx, tc.req)
		if ae := wantKind(t, err, tc.kind, tc.msg); ae.Code != tc.code {
			t.Errorf("%s: code %d, want %d", tc.req.Topic, ae.Code, tc.code)
		}
		sameSnapshot(t, before, e.snapshot())
	}
	// Allowed explicitly, the rewrite keeps the reassignment in flight.
	if _, err := e.admin.AddPartitions(e.ctx, AddPartitionsRequest{Topic: "moving", Total: 2,
		AllowDuringReassignment: true}); err != nil {
		t.Fatal(err)
	}
	if asg := e.assignment("moving"); !slices.Equal(asg.AddingReplicas[0], []int32{3}) || len(asg.Partitions) != 2 {
		t.Fatalf("rewrite lost the reassignment: %+v", asg)
	}
}

func TestMarkTopicForDeletion(t *testing.T) {
	e := newAdminEnv(t, []string{""}, nil)
	e.create("gone", 1, 1)
	res, err := e.admin.MarkTopicForDeletion(e.ctx, "gone", false)
	if err != nil || res.AlreadyMarked {
		t.Fatalf("%+v %v", res, err)
	}
	data, _, err := e.zk.Get(e.ctx, znodes.DeleteTopicPath("gone"))
	if err != nil || data != nil {
		t.Fatalf("marker data %q, %v; want null", data, err)
	}
	if res, err := e.admin.MarkTopicForDeletion(e.ctx, "gone", false); err != nil || !res.AlreadyMarked || len(res.Ops) != 0 {
		t.Fatalf("second mark: %+v %v", res, err)
	}
	_, err = e.admin.MarkTopicForDeletion(e.ctx, "never", false)
	wantKind(t, err, KindUnknownTopic, "Topic `never` to delete does not exist")
}

func TestAlterTopicConfigWithNotification(t *testing.T) {
	e := newAdminEnv(t, []string{""}, nil)
	if _, err := e.admin.CreateTopic(e.ctx, CreateTopicRequest{Topic: "c", Partitions: 1, ReplicationFactor: 1,
		Config: map[string]string{"retention.ms": "1000", "segment.ms": "5000"}}); err != nil {
		t.Fatal(err)
	}
	res, err := e.admin.AlterConfigs(e.ctx, ConfigAlteration{EntityType: "topics", EntityName: "c",
		Set: map[string]string{"retention.ms": "2000", "cleanup.policy": "compact,delete"}, Delete: []string{"segment.ms"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Before["segment.ms"] != "5000" || res.After["retention.ms"] != "2000" || len(res.After) != 2 {
		t.Fatalf("before %v after %v", res.Before, res.After)
	}
	if got := string(e.get(znodes.ConfigEntityPath("topics", "c"))); got !=
		`{"version":1,"config":{"cleanup.policy":"compact,delete","retention.ms":"2000"}}` {
		t.Errorf("config %s", got)
	}
	kids, _, _ := e.zk.Children(e.ctx, znodes.ConfigChangesPath)
	if len(kids) != 1 || !strings.HasPrefix(kids[0], "config_change_") {
		t.Fatalf("notifications %v", kids)
	}
	if got := string(e.get(znodes.ConfigChangePath(kids[0]))); got != `{"version":2,"entity_path":"topics/c"}` {
		t.Errorf("notification %s", got)
	}
	cases := []struct {
		alt  ConfigAlteration
		kind ErrorKind
		msg  string
	}{
		{ConfigAlteration{EntityType: "topics", EntityName: "c", Delete: []string{"flush.ms"}}, KindInvalidConfig, "Invalid config(s): flush.ms"},
		{ConfigAlteration{EntityType: "topics", EntityName: "c", Set: map[string]string{"retention.ms": "-5"}}, KindInvalidConfig, "Value must be at least -1"},
		{ConfigAlteration{EntityType: "topics", EntityName: "c", Set: map[string]string{"compression.type": "brotli"}}, KindInvalidConfig, "String must be one of"},
		{ConfigAlteration{EntityType: "topics", EntityName: "c", Set: map[string]string{"preallocate": "yes"}}, KindInvalidConfig, "Expected value to be either true or false"},
		{ConfigAlteration{EntityType: "topics", EntityName: "none", Set: map[string]string{"retention.ms": "1"}}, KindUnknownTopic, "Topic 'none' does not exist."},
		{ConfigAlteration{EntityType: "groups", EntityName: "x"}, KindInvalidRequest, "not supported"},
		{ConfigAlteration{EntityType: "brokers", EntityName: "one"}, KindInvalidRequest, "valid integer broker id"},
		{ConfigAlteration{EntityType: "brokers", EntityName: "<default>", Set: map[string]string{"max.partitions": "-3"}}, KindInvalidConfig, "max.partitions"},
		{ConfigAlteration{EntityType: "brokers", EntityName: "1", Set: map[string]string{"max.partitions": "10"}}, KindInvalidConfig, "cluster-wide"},
		{ConfigAlteration{EntityType: "brokers", EntityName: "1", Set: map[string]string{"listener.name.x.ssl.key.password": "x"}}, KindInvalidConfig, "password config"},
		// kafka-configs --zookeeper refuses what a broker does not take
		// dynamically (DynamicBrokerConfig.validateConfigs).
		{ConfigAlteration{EntityType: "brokers", EntityName: "<default>", Set: map[string]string{"ssl.key.password": "x"}}, KindInvalidConfig,
			"These security configs can be dynamically updated only per-listener using the listener prefix: HashSet(ssl.key.password)"},
		{ConfigAlteration{EntityType: "brokers", EntityName: "<default>", Set: map[string]string{"log.retention.hours": "1", "max.partitions": "5"}},
			KindInvalidConfig, "Cannot update these configs dynamically: Set(log.retention.hours)"},
		{ConfigAlteration{EntityType: "brokers", EntityName: "1", Set: map[string]string{"broker.id": "1", "zookeeper.connect": "x"}},
			KindInvalidConfig, "Cannot update these configs dynamically: Set(zookeeper.connect, broker.id)"},
		{ConfigAlteration{EntityType: "brokers", EntityName: "<default>", Set: map[string]string{"listeners": "PLAINTEXT://:9092"}},
			KindInvalidConfig, "Cannot update these configs at default cluster level, broker id must be specified: Set(listeners)"},
		{ConfigAlteration{EntityType: "brokers", EntityName: "<default>", Set: map[string]string{"log.retention.ms": "x"}}, KindInvalidConfig, "Invalid value x for configuration log.retention.ms"},
		// Every dynamic config's value is checked with its Kafka type and
		// validator (DynamicConfig.Broker), a listener-prefixed one as its
		// base config.
		{ConfigAlteration{EntityType: "brokers", EntityName: "<default>", Set: map[string]string{"log.cleaner.threads": "abc"}}, KindInvalidConfig,
			"Invalid value abc for configuration log.cleaner.threads: Not a number of type INT"},
		{ConfigAlteration{EntityType: "brokers", EntityName: "1", Set: map[string]string{"listener.name.x.max.connections": "-1"}}, KindInvalidConfig,
			"Invalid value -1 for configuration max.connections: Value must be at least 0"},
	}
	for _, tc := range cases {
		before := e.snapshot()
		_, err := e.admin.AlterConfigs(e.ctx, tc.alt)
		wantKind(t, err, tc.kind, tc.msg)
		sameSnapshot(t, before, e.snapshot())
	}
}

func TestAlterBrokerDefaultConfig(t *testing.T) {
	e := newAdminEnv(t, []string{""}, nil)
	for _, set := range []map[string]string{{"max.partitions": "100", "log.retention.ms": "60000"}, {"max.broker.partitions": "7"}} {
		if _, err := e.admin.AlterConfigs(e.ctx, ConfigAlteration{EntityType: "brokers", EntityName: "<default>", Set: set}); err != nil {
			t.Fatal(err)
		}
	}
	var cfg znodes.EntityConfig
	cfg, err := znodes.DecodeEntityConfig("brokers", "<default>", e.get("/config/brokers/<default>"))
	if err != nil || len(cfg.Config) != 3 {
		t.Fatalf("%v %v", cfg.Config, err)
	}
	c, err := e.admin.ReadCluster(e.ctx, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if l := c.Limits(); l.MaxPartitions != 100 || l.MaxBrokerPartitions != 7 {
		t.Fatalf("effective limits %+v", l)
	}
	kids, _, _ := e.zk.Children(e.ctx, znodes.ConfigChangesPath)
	if len(kids) != 2 || string(e.get(znodes.ConfigChangePath(kids[0]))) != `{"version":2,"entity_path":"brokers/<default>"}` {
		t.Fatalf("notifications %v", kids)
	}
	if _, err := e.admin.AlterConfigs(e.ctx, ConfigAlteration{EntityType: "brokers", EntityName: "2",
		Set: map[string]string{"log.cleaner.threads": "2"}}); err != nil {
		t.Fatal(err)
	}
	// Values Kafka's brokers take, which the topic configs' validators
	// refuse.
	if _, err := e.admin.AlterConfigs(e.ctx, ConfigAlteration{EntityType: "brokers", EntityName: "<default>",
		Set: map[string]string{"log.flush.interval.ms": "-1", "log.retention.ms": "-5"}}); err != nil {
		t.Fatal(err)
	}
}

// TestAlterBrokerConfigChecksStoredValues: as Kafka's AdminZkClient, the
// complete set written is checked, so a bad value stored by another tool
// refuses a change until it is deleted; a stored listener-prefixed value
// is not checked (to that check it is a custom config).
func TestAlterBrokerConfigChecksStoredValues(t *testing.T) {
	e := newAdminEnv(t, []string{""}, nil)
	for path, data := range map[string]string{
		"/config/brokers/<default>": `{"version":1,"config":{"log.cleaner.threads":"abc"}}`,
		"/config/brokers/1":         `{"version":1,"config":{"listener.name.x.max.connections":"abc"}}`,
	} {
		if _, err := e.zk.Create(e.ctx, path, []byte(data), Persistent); err != nil {
			t.Fatal(err)
		}
	}
	_, err := e.admin.AlterConfigs(e.ctx, ConfigAlteration{EntityType: "brokers", EntityName: "<default>",
		Set: map[string]string{"max.partitions": "5"}})
	wantKind(t, err, KindInvalidConfig, "Invalid value abc for configuration log.cleaner.threads: Not a number of type INT")
	if _, err := e.admin.AlterConfigs(e.ctx, ConfigAlteration{EntityType: "brokers", EntityName: "<default>",
		Set: map[string]string{"max.partitions": "5"}, Delete: []string{"log.cleaner.threads"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.admin.AlterConfigs(e.ctx, ConfigAlteration{EntityType: "brokers", EntityName: "1",
		Set: map[string]string{"num.io.threads": "4"}}); err != nil {
		t.Fatal(err)
	}
}

func TestAlterConfigRefusesMalformedZnode(t *testing.T) {
	e := newAdminEnv(t, []string{""}, nil)
	e.create("m", 1, 1)
	e.put(znodes.ConfigEntityPath("topics", "m"), []byte(`{"version":1,"config":{"retention.ms":1000}}`))
	before := e.snapshot()
	_, err := e.admin.AlterConfigs(e.ctx, ConfigAlteration{EntityType: "topics", EntityName: "m", Set: map[string]string{"segment.ms": "10"}})
	wantKind(t, err, KindMalformed, `field "config"."retention.ms"`, "does not rewrite")
	sameSnapshot(t, before, e.snapshot())
}

func TestLegacyReassignment(t *testing.T) {
	e := newAdminEnv(t, []string{"", "", "", ""}, limitsConfig(3, 0))
	if _, err := e.admin.CreateTopic(e.ctx, CreateTopicRequest{Topic: "r", Assignment: [][]int32{{1, 2}, {2, 3}}}); err != nil {
		t.Fatal(err)
	}
	entries := []znodes.ReassignmentEntry{{Topic: "r", Partition: 0, Replicas: []int32{3, 4}}}
	res, err := e.admin.StartReassignment(e.ctx, entries, false)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Current[0].Replicas, []int32{1, 2}) || res.Ops[0].Path != znodes.TopicsPath {
		t.Fatalf("result %+v", res)
	}
	if got := string(e.get(znodes.ReassignPartitionsPath)); got != `{"version":1,"partitions":[{"topic":"r","partition":0,"replicas":[3,4]}]}` {
		t.Fatalf("znode %s", got)
	}
	// While it is pending, the replicas it adds count: broker 3 hosts 1 and
	// is about to host 2; two more would exceed max.broker.partitions=3.
	_, err = e.admin.CreateTopic(e.ctx, CreateTopicRequest{Topic: "more", Assignment: [][]int32{{3}, {3}}})
	wantKind(t, err, KindPartitionLimit, "WILL_EXCEED_PARTITION_LIMITS:", "broker 3 would host 4", "(it hosts 2 now)")
	_, err = e.admin.StartReassignment(e.ctx, []znodes.ReassignmentEntry{{Topic: "r", Partition: 1, Replicas: []int32{1, 4}}}, false)
	wantKind(t, err, KindReassignmentInProgress, "There is an existing assignment running", "r-0")
	if err := e.zk.Delete(e.ctx, znodes.ReassignPartitionsPath, AnyVersion); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		entries []znodes.ReassignmentEntry
		kind    ErrorKind
		msg     string
	}{
		{[]znodes.ReassignmentEntry{{Topic: "r", Partition: 0, Replicas: []int32{1, 9}}}, KindInvalidReplicaAssignment, "not alive"},
		{[]znodes.ReassignmentEntry{{Topic: "r", Partition: 0, Replicas: []int32{}}}, KindInvalidReplicaAssignment, "Empty replica list"},
		{[]znodes.ReassignmentEntry{{Topic: "r", Partition: 5, Replicas: []int32{1}}}, KindUnknownTopic, "The partition r-5 does not exist."},
		{[]znodes.ReassignmentEntry{{Topic: "x", Partition: 0, Replicas: []int32{1}}}, KindUnknownTopic, "Topic 'x' does not exist."},
		{[]znodes.ReassignmentEntry{{Topic: "r", Partition: 0, Replicas: []int32{1}}, {Topic: "r", Partition: 0, Replicas: []int32{2}}}, KindInvalidRequest, "duplicate"},
		{[]znodes.ReassignmentEntry{{Topic: "r", Partition: 0, Replicas: []int32{4, 3}}, {Topic: "r", Partition: 1, Replicas: []int32{4, 1}}}, KindPartitionLimit, "broker 4 would host 4 partition replicas, above max.broker.partitions=3 (it hosts 2 now)"},
	}
	if _, err := e.admin.CreateTopic(e.ctx, CreateTopicRequest{Topic: "fill", Assignment: [][]int32{{4}, {4}}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		before := e.snapshot()
		_, err := e.admin.StartReassignment(e.ctx, tc.entries, false)
		wantKind(t, err, tc.kind, tc.msg)
		sameSnapshot(t, before, e.snapshot())
	}
}

func TestCancelReassignment(t *testing.T) {
	e := newAdminEnv(t, []string{"", "", ""}, nil)
	e.put(znodes.TopicPath("m"), []byte(`{"version":3,"partitions":{"0":[3,1,2],"1":[1,2]},"adding_replicas":{"0":[3]},"removing_replicas":{"0":[2]}}`))
	res, err := e.admin.CancelReassignments(e.ctx, []znodes.TopicPartition{{Topic: "m", Partition: 0}, {Topic: "m", Partition: 1}}, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.NotActive) != 1 || res.NotActive[0].Partition != 1 {
		t.Fatalf("not active %v", res.NotActive)
	}
	if got := string(e.get(znodes.ReassignPartitionsPath)); got != `{"version":1,"partitions":[{"topic":"m","partition":0,"replicas":[1,2]}]}` {
		t.Fatalf("cancel wrote %s", got)
	}
}

func TestPreferredElection(t *testing.T) {
	e := newAdminEnv(t, []string{"", ""}, nil)
	e.create("p", 2, 2)
	tps := []znodes.TopicPartition{{Topic: "p", Partition: 1}, {Topic: "p", Partition: 0}, {Topic: "p", Partition: 1}}
	if _, err := e.admin.ElectPreferredLeaders(e.ctx, tps, false); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Version    int
		Partitions []map[string]any
	}
	if err := json.Unmarshal(e.get(znodes.PreferredReplicaElectionPath), &got); err != nil || got.Version != 1 || len(got.Partitions) != 2 {
		t.Fatalf("%+v %v", got, err)
	}
	_, err := e.admin.ElectPreferredLeaders(e.ctx, tps, false)
	wantKind(t, err, KindElectionInProgress, "currently in progress for p-1, p-0")
	e.zk.Delete(e.ctx, znodes.PreferredReplicaElectionPath, AnyVersion)
	_, err = e.admin.ElectPreferredLeaders(e.ctx, []znodes.TopicPartition{{Topic: "p", Partition: 7}}, false)
	wantKind(t, err, KindUnknownTopic, "p-7")
}

// TestReplicaListMessages: Kafka's AdminZkClient texts for new partitions
// of a topic; KRaft's for a new topic (ZooKeeper mode prints a Scala map).
func TestReplicaListMessages(t *testing.T) {
	for _, tc := range []struct {
		replicas []int32
		adding   bool
		want     string
	}{
		{[]int32{1, 1}, true, "Duplicate brokers not allowed in replica assignment: 1, 1 for partition id 3."},
		{[]int32{}, true, "Cannot have replication factor of 0 for partition id 3."},
		{[]int32{}, false, "The manual partition assignment includes an empty replica list (topic 't', partition 3)."},
		{[]int32{2, 1, 2}, false, "Duplicate replica assignment found for partition 3 of topic 't': broker 2 appears twice in [2,1,2]."},
	} {
		err := checkReplicaList("t", 3, tc.replicas, tc.adding)
		var ae *AdminError
		if !errors.As(err, &ae) || ae.Kind != KindInvalidReplicaAssignment || ae.Message != tc.want {
			t.Errorf("%v adding=%v: %v, want %q", tc.replicas, tc.adding, err, tc.want)
		}
	}
	if err := checkReplicaList("t", 3, []int32{1, 2}, true); err != nil {
		t.Errorf("a valid list refused: %v", err)
	}
}
