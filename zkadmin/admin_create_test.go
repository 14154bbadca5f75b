package zkadmin

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/kzadmin/kzadmin/placement"
	"github.com/kzadmin/kzadmin/znodes"
)

func TestCreateTopicWritesConfigAndAssignmentTogether(t *testing.T) {
	e := newAdminEnv(t, []string{"a", "b", "c"}, nil)
	before := e.get(znodes.TopicsPath)
	res, err := e.admin.CreateTopic(e.ctx, CreateTopicRequest{Topic: "orders", Partitions: 6, ReplicationFactor: 3,
		Config: map[string]string{"retention.ms": "86400000", "cleanup.policy": "compact"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Attempts != 1 || res.TopicID.IsZero() || len(res.Assignment) != 6 {
		t.Fatalf("result %+v", res)
	}
	// One multi: the fence, the config, the assignment.
	kinds := []string{}
	for _, op := range res.Ops {
		kinds = append(kinds, op.Kind.String()+" "+op.Path)
	}
	want := []string{"set /brokers/topics", "create /config/topics/orders", "create /brokers/topics/orders"}
	if !slices.Equal(kinds, want) {
		t.Fatalf("ops %v, want %v", kinds, want)
	}
	if got := string(e.get(znodes.ConfigEntityPath("topics", "orders"))); got !=
		`{"version":1,"config":{"cleanup.policy":"compact","retention.ms":"86400000"}}` {
		t.Errorf("config znode %s", got)
	}
	asg := e.assignment("orders")
	if asg.Version != 3 || asg.TopicID != res.TopicID || len(asg.Partitions) != 6 {
		t.Fatalf("assignment %+v", asg)
	}
	for p, replicas := range asg.Partitions {
		if !slices.Equal(replicas, res.Assignment[p]) || len(replicas) != 3 {
			t.Errorf("partition %d: %v, result says %v", p, replicas, res.Assignment[p])
		}
	}
	// The fence keeps /brokers/topics' null data, and no partition state
	// is pre-created (Kafka's controller must create it).
	if after := e.get(znodes.TopicsPath); before != nil || after != nil {
		t.Errorf("/brokers/topics data %q -> %q, want null", before, after)
	}
	if e.exists(znodes.PartitionsPath("orders")) {
		t.Error("partitions znode created")
	}
	// No config change notification for a new topic.
	if kids, _, _ := e.zk.Children(e.ctx, znodes.ConfigChangesPath); len(kids) != 0 {
		t.Errorf("notifications %v", kids)
	}
}

func TestCreateTopicRackAware(t *testing.T) {
	e := newAdminEnv(t, []string{"r1", "r1", "r2", "r2", "r3", "r3"}, nil)
	res := e.create("spread", 12, 3)
	rack := map[int32]string{1: "r1", 2: "r1", 3: "r2", 4: "r2", 5: "r3", 6: "r3"}
	for p, replicas := range res.Assignment {
		seen := map[string]bool{}
		for _, b := range replicas {
			seen[rack[b]] = true
		}
		if len(seen) != 3 {
			t.Errorf("partition %d %v spans racks %v", p, replicas, seen)
		}
	}
}

func TestCreateTopicMixedRacks(t *testing.T) {
	e := newAdminEnv(t, []string{"r1", "", "r2"}, nil)
	_, err := e.admin.CreateTopic(e.ctx, CreateTopicRequest{Topic: "t", Partitions: 3, ReplicationFactor: 2})
	wantKind(t, err, KindAdminOperation, "Not all brokers have rack information")
	res, err := e.admin.CreateTopic(e.ctx, CreateTopicRequest{Topic: "t", Partitions: 3, ReplicationFactor: 2,
		RackMode: placement.RackDisabled})
	if err != nil || len(res.Assignment) != 3 {
		t.Fatalf("rack-disabled create: %v %v", res, err)
	}
}

func TestCreateTopicExplicitAssignment(t *testing.T) {
	e := newAdminEnv(t, []string{"", "", ""}, nil)
	asg := [][]int32{{1, 2}, {2, 3}, {3, 1}}
	res, err := e.admin.CreateTopic(e.ctx, CreateTopicRequest{Topic: "manual", Assignment: asg})
	if err != nil {
		t.Fatal(err)
	}
	got := e.assignment("manual")
	for p, replicas := range asg {
		if !slices.Equal(got.Partitions[int32(p)], replicas) {
			t.Errorf("partition %d = %v, want %v", p, got.Partitions[int32(p)], replicas)
		}
	}
	if !slices.EqualFunc(res.Assignment, asg, slices.Equal[[]int32]) {
		t.Errorf("result %v", res.Assignment)
	}
}

func TestCreateTopicRefusals(t *testing.T) {
	e := newAdminEnv(t, []string{"", "", ""}, nil)
	e.create("exists", 1, 1)
	e.create("a.b", 1, 1)
	e.create("doomed", 1, 1)
	if _, err := e.admin.MarkTopicForDeletion(e.ctx, "doomed", false); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		req  CreateTopicRequest
		kind ErrorKind
		code int16
		msg  string
	}{
		{"bad name", CreateTopicRequest{Topic: "bad/name", Partitions: 1, ReplicationFactor: 1}, KindInvalidTopic, 17, "is invalid"},
		{"empty name", CreateTopicRequest{Topic: "", Partitions: 1, ReplicationFactor: 1}, KindInvalidTopic, 17, "empty"},
		{"exists", CreateTopicRequest{Topic: "exists", Partitions: 1, ReplicationFactor: 1}, KindTopicExists, 36, "Topic 'exists' already exists."},
		{"marked", CreateTopicRequest{Topic: "doomed", Partitions: 1, ReplicationFactor: 1}, KindMarkedForDeletion, 36, "Topic 'doomed' is marked for deletion."},
		{"collision", CreateTopicRequest{Topic: "a_b", Partitions: 1, ReplicationFactor: 1}, KindInvalidTopic, 17, "Topic 'a_b' collides with existing topics: a.b"},
		{"metadata topic", CreateTopicRequest{Topic: "__cluster_metadata", Partitions: 1, ReplicationFactor: 1}, KindInvalidRequest, 42, "prohibited"},
		{"both", CreateTopicRequest{Topic: "t", Partitions: 1, Assignment: [][]int32{{1}}}, KindInvalidRequest, 42, "Both numPartitions"},
		{"zero partitions", CreateTopicRequest{Topic: "t", ReplicationFactor: 1}, KindInvalidPartitions, 37, "Number of partitions must be larger than 0."},
		{"zero rf", CreateTopicRequest{Topic: "t", Partitions: 1}, KindInvalidReplicationFactor, 38, "Replication factor must be larger than 0."},
		{"rf too big", CreateTopicRequest{Topic: "t", Partitions: 1, ReplicationFactor: 4}, KindInvalidReplicationFactor, 38, "Replication factor: 4 larger than available brokers: 3."},
		{"unknown config", CreateTopicRequest{Topic: "t", Partitions: 1, ReplicationFactor: 1, Config: map[string]string{"retention.hours": "1"}}, KindInvalidConfig, 40, "Unknown topic config name: retention.hours"},
		{"bad type", CreateTopicRequest{Topic: "t", Partitions: 1, ReplicationFactor: 1, Config: map[string]string{"retention.ms": "soon"}}, KindInvalidConfig, 40, "Invalid value soon for configuration retention.ms: Not a number of type LONG"},
		{"range", CreateTopicRequest{Topic: "t", Partitions: 1, ReplicationFactor: 1, Config: map[string]string{"min.insync.replicas": "0"}}, KindInvalidConfig, 40, "Value must be at least 1"},
		{"enum", CreateTopicRequest{Topic: "t", Partitions: 1, ReplicationFactor: 1, Config: map[string]string{"cleanup.policy": "compact,shred"}}, KindInvalidConfig, 40, "String must be one of: compact, delete"},
		{"lag conflict", CreateTopicRequest{Topic: "t", Partitions: 1, ReplicationFactor: 1, Config: map[string]string{"min.compaction.lag.ms": "10", "max.compaction.lag.ms": "5"}}, KindInvalidConfig, 40, "conflict topic config setting"},
		{"empty list", CreateTopicRequest{Topic: "t", Assignment: [][]int32{{1}, {}}}, KindInvalidReplicaAssignment, 39, "empty replica list"},
		{"duplicate", CreateTopicRequest{Topic: "t", Assignment: [][]int32{{1, 1}}}, KindInvalidReplicaAssignment, 39, "broker 1 appears twice"},
		{"rf differs", CreateTopicRequest{Topic: "t", Assignment: [][]int32{{1, 2}, {3}}}, KindInvalidReplicaAssignment, 39, "same number of replicas"},
		{"unknown broker", CreateTopicRequest{Topic: "t", Assignment: [][]int32{{1, 7}}}, KindInvalidReplicaAssignment, 39, "includes broker 7, but no such broker is registered"},
		{"no partitions", CreateTopicRequest{Topic: "t", Assignment: [][]int32{}}, KindInvalidReplicaAssignment, 39, "lists no partitions"},
		// Partition ids as a wire request numbers them: checked after the
		// topic's state and the lists, where Kafka checks them; messages
		// name the ids given.
		{"ids gap", CreateTopicRequest{Topic: "t", Assignment: [][]int32{{1}, {2}}, AssignmentIDs: []int32{0, 2}},
			KindInvalidReplicaAssignment, 39, "partitions should be a consecutive 0-based integer sequence"},
		{"ids negative", CreateTopicRequest{Topic: "t", Assignment: [][]int32{{1}, {2}}, AssignmentIDs: []int32{-1, 0}},
			KindInvalidReplicaAssignment, 39, "partitions should be a consecutive 0-based integer sequence"},
		{"ids gap, marked", CreateTopicRequest{Topic: "doomed", Assignment: [][]int32{{1}}, AssignmentIDs: []int32{3}},
			KindMarkedForDeletion, 36, "Topic 'doomed' is marked for deletion."},
		{"ids gap, collision", CreateTopicRequest{Topic: "a_b", Assignment: [][]int32{{1}}, AssignmentIDs: []int32{3}},
			KindInvalidTopic, 17, "collides with existing topics"},
		{"ids gap, duplicate", CreateTopicRequest{Topic: "t", Assignment: [][]int32{{1}, {2, 2}}, AssignmentIDs: []int32{0, 5}},
			KindInvalidReplicaAssignment, 39, "Duplicate replica assignment found for partition 5 of topic 't'"},
		{"ids gap, empty list", CreateTopicRequest{Topic: "t", Assignment: [][]int32{{}}, AssignmentIDs: []int32{4}},
			KindInvalidReplicaAssignment, 39, "(topic 't', partition 4)"},
		{"ids gap, bad config", CreateTopicRequest{Topic: "t", Assignment: [][]int32{{1}}, AssignmentIDs: []int32{1},
			Config: map[string]string{"retention.ms": "soon"}}, KindInvalidReplicaAssignment, 39, "consecutive 0-based"},
		{"ids count", CreateTopicRequest{Topic: "t", Assignment: [][]int32{{1}}, AssignmentIDs: []int32{0, 1}},
			KindInvalidRequest, 42, "2 partition ids for 1 replica lists"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := e.snapshot()
			_, err := e.admin.CreateTopic(e.ctx, tc.req)
			ae := wantKind(t, err, tc.kind, tc.msg)
			if ae.Code != tc.code {
				t.Errorf("code %d, want %d", ae.Code, tc.code)
			}
			sameSnapshot(t, before, e.snapshot())
		})
	}
}

func TestCreateTopicDefaultsFromConfig(t *testing.T) {
	cfg := limitsConfig(0, 0)
	cfg.NumPartitions, cfg.DefaultReplicationFactor = 4, 2
	e := newAdminEnv(t, []string{"", "", ""}, cfg)
	res := e.create("defaults", -1, -1)
	if len(res.Assignment) != 4 || len(res.Assignment[0]) != 2 {
		t.Fatalf("assignment %v", res.Assignment)
	}
}

// TestCreateTopicOverwritesStaleConfig: a config znode left by a deletion
// cut short is overwritten, as Kafka does. A first attempt assumes there
// is none and loses on it; the second reads it.
func TestCreateTopicOverwritesStaleConfig(t *testing.T) {
	e := newAdminEnv(t, []string{""}, nil)
	e.put(znodes.ConfigEntityPath("topics", "again"), []byte(`{"version":1,"config":{"retention.ms":"1"}}`))
	res := e.create("again", 1, 1)
	if got := string(e.get(znodes.ConfigEntityPath("topics", "again"))); got != `{"version":1,"config":{}}` {
		t.Errorf("config %s", got)
	}
	if res.Attempts != 2 {
		t.Errorf("created in %d attempts, want 2 (the first assumes no config znode)", res.Attempts)
	}
}

// TestCreateTopicSingleAttemptReadsStaleConfig: an Admin allowed a single
// attempt reads the config znodes first, so that a stale one does not
// fail the create.
func TestCreateTopicSingleAttemptReadsStaleConfig(t *testing.T) {
	e := newAdminEnv(t, []string{""}, nil)
	e.admin = NewAdmin(e.zk, AdminOptions{MaxAttempts: 1})
	e.put(znodes.ConfigEntityPath("topics", "again"), []byte(`{"version":1,"config":{"retention.ms":"1"}}`))
	res := e.create("again", 1, 1)
	if res.Attempts != 1 {
		t.Errorf("created in %d attempts, want 1", res.Attempts)
	}
	if got := string(e.get(znodes.ConfigEntityPath("topics", "again"))); got != `{"version":1,"config":{}}` {
		t.Errorf("config %s", got)
	}
}

// TestCreateTopicDryRunReadsStaleConfig: a dry run shows the ops the
// create would apply, so it reads the config znode it would overwrite.
func TestCreateTopicDryRunReadsStaleConfig(t *testing.T) {
	e := newAdminEnv(t, []string{""}, nil)
	path := znodes.ConfigEntityPath("topics", "again")
	e.put(path, []byte(`{"version":1,"config":{"retention.ms":"1"}}`))
	res, err := e.admin.CreateTopic(e.ctx, CreateTopicRequest{Topic: "again", Partitions: 1, ReplicationFactor: 1, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(res.Ops, func(o Op) bool { return o.Path == path })
	if i < 0 || res.Ops[i].Kind != OpSet {
		t.Fatalf("dry-run ops %v: want a set of %s", res.Ops, path)
	}
}

func TestCreateTopicDryRunWritesNothing(t *testing.T) {
	e := newAdminEnv(t, []string{"", ""}, nil)
	before := e.snapshot()
	res, err := e.admin.CreateTopic(e.ctx, CreateTopicRequest{Topic: "dry", Partitions: 2, ReplicationFactor: 2,
		Config: map[string]string{"retention.ms": "1000"}, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	sameSnapshot(t, before, e.snapshot())
	if len(res.Ops) != 3 || res.Ops[2].Path != "/brokers/topics/dry" || !strings.Contains(string(res.Ops[2].Data), res.TopicID.String()) {
		t.Fatalf("dry-run ops %v", res.Ops)
	}
	// Applying exactly those ops creates the topic.
	if _, err := e.zk.Multi(e.ctx, res.Ops...); err != nil {
		t.Fatal(err)
	}
	if asg := e.assignment("dry"); asg.TopicID != res.TopicID {
		t.Errorf("topic id %v", asg.TopicID)
	}
}

func TestCreateTopicOnEmptyZooKeeper(t *testing.T) {
	// No broker has ever started here: /brokers/topics and /config are
	// missing, and the multi creates them.
	zk := connect(t, Options{Chroot: testChroot(t)})
	e := &adminEnv{t: t, ctx: testCtx(t), zk: zk, admin: NewAdmin(zk, AdminOptions{})}
	if err := zk.EnsurePath(e.ctx, znodes.BrokerIDsPath); err != nil {
		t.Fatal(err)
	}
	e.registerBroker(0, "")
	res, err := e.admin.CreateTopic(e.ctx, CreateTopicRequest{Topic: "first", Partitions: 1, ReplicationFactor: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ops[0].Kind != OpCreate || res.Ops[0].Path != znodes.TopicsPath {
		t.Errorf("ops %v", res.Ops)
	}
	if asg := e.assignment("first"); len(asg.Partitions) != 1 {
		t.Fatalf("assignment %+v", asg)
	}
	if !e.exists(znodes.ConfigEntityPath("topics", "first")) {
		t.Error("config znode missing")
	}
}

func TestErrorsIsKind(t *testing.T) {
	err := error(adminErr(KindTopicExists, "t", "Topic 't' already exists."))
	if !errors.Is(err, ErrTopicExists) || errors.Is(err, ErrInvalidTopic) {
		t.Fatal("errors.Is by kind")
	}
	wrapped := errors.Join(errors.New("x"), err)
	if !errors.Is(wrapped, ErrTopicExists) {
		t.Fatal("wrapped")
	}
}

// TestCreateTopicCheckOrder: a topic that fails several checks gets the
// error of the first in Kafka's order (the placement of the counts, the
// name, the cluster's state, the configs), and the partition limits,
// Kafka's own checks passed, last.
func TestCreateTopicCheckOrder(t *testing.T) {
	e := newAdminEnv(t, []string{"", "", ""}, nil)
	a := NewAdmin(e.zk, AdminOptions{Config: limitsConfig(0, 4)})
	mustCreateTopic(t, a, e, "taken", 1)
	badConfig := map[string]string{"retention.ms": "soon"}
	cases := []struct {
		name string
		req  CreateTopicRequest
		want ErrorKind
	}{
		{"bad name, replication factor over the brokers", CreateTopicRequest{Topic: "bad/name", Partitions: 1, ReplicationFactor: 4},
			KindInvalidReplicationFactor},
		{"bad name, bad config", CreateTopicRequest{Topic: "bad/name", Partitions: 1, ReplicationFactor: 1, Config: badConfig},
			KindInvalidTopic},
		{"bad name, over the limit", CreateTopicRequest{Topic: "bad/name", Partitions: 9, ReplicationFactor: 1},
			KindInvalidTopic},
		{"taken, bad config", CreateTopicRequest{Topic: "taken", Partitions: 1, ReplicationFactor: 1, Config: badConfig},
			KindTopicExists},
		{"bad config, over the limit", CreateTopicRequest{Topic: "fresh", Partitions: 9, ReplicationFactor: 1, Config: badConfig},
			KindInvalidConfig},
		{"bad assignment, bad config", CreateTopicRequest{Topic: "fresh", Assignment: [][]int32{{1, 1}}, Config: badConfig},
			KindInvalidReplicaAssignment},
		{"over the limit", CreateTopicRequest{Topic: "fresh", Partitions: 9, ReplicationFactor: 1}, KindPartitionLimit},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := a.CreateTopic(e.ctx, c.req)
			wantKind(t, err, c.want)
		})
	}
}

// TestCreateTopicNumberedAssignment: lists numbered 0..n-1 by
// AssignmentIDs are created as if unnumbered.
func TestCreateTopicNumberedAssignment(t *testing.T) {
	e := newAdminEnv(t, []string{"", "", ""}, nil)
	res, err := e.admin.CreateTopic(e.ctx, CreateTopicRequest{Topic: "numbered",
		Assignment: [][]int32{{2, 1}, {3, 2}}, AssignmentIDs: []int32{0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Assignment) != 2 || res.Assignment[1][0] != 3 {
		t.Errorf("assignment %v", res.Assignment)
	}
}
