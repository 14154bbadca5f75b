package zkadmin

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/placement"
	"github.com/kzadmin/kzadmin/znodes"
)

// batchReqs returns n requests for topics prefix-000, ... of size(i)
// partitions of replication factor rf(i).
func batchReqs(prefix string, n int, size func(int) int32, rf func(int) int16) []CreateTopicRequest {
	reqs := make([]CreateTopicRequest, n)
	for i := range reqs {
		reqs[i] = CreateTopicRequest{Topic: fmt.Sprintf("%s-%03d", prefix, i), Partitions: size(i), ReplicationFactor: rf(i)}
	}
	return reqs
}

func one(int) int32 { return 1 }

// createBatch runs CreateTopics and fails the test on a ZooKeeper error.
func (e *adminEnv) createBatch(reqs []CreateTopicRequest) []CreateTopicOutcome {
	e.t.Helper()
	return e.createBatchWith(e.admin, reqs)
}

// createBatchWith is createBatch through a.
func (e *adminEnv) createBatchWith(a *Admin, reqs []CreateTopicRequest) []CreateTopicOutcome {
	e.t.Helper()
	out, err := a.CreateTopics(e.ctx, reqs)
	if err != nil {
		e.t.Fatal(err)
	}
	if len(out) != len(reqs) {
		e.t.Fatalf("%d outcomes for %d requests", len(out), len(reqs))
	}
	return out
}

func TestCreateTopicsBatchWritesWhatSingleCreatesWrite(t *testing.T) {
	e := newAdminEnv(t, []string{"a", "b", "c"}, nil)
	e.create("single", 2, 2) // the reference: what one CreateTopic writes
	before := e.snapshot()
	reqs := batchReqs("batch", 200, func(i int) int32 { return int32(i%4 + 1) }, func(i int) int16 { return int16(i%3 + 1) })
	for i := range reqs {
		if i%2 == 0 {
			reqs[i].Config = map[string]string{"retention.ms": fmt.Sprint(1000 + i)}
		}
	}
	out := e.createBatch(reqs)
	after := e.snapshot()
	want := map[string]bool{}
	for i, o := range out {
		if o.Err != nil {
			t.Fatalf("%s: %v", reqs[i].Topic, o.Err)
		}
		name := reqs[i].Topic
		want[znodes.TopicPath(name)], want[znodes.ConfigEntityPath("topics", name)] = true, true
		cfg, _ := znodes.EntityConfig{Config: reqs[i].Config}.Encode()
		if got := e.get(znodes.ConfigEntityPath("topics", name)); string(got) != string(cfg) {
			t.Errorf("%s config %s, want %s", name, got, cfg)
		}
		asg := e.assignment(name)
		if asg.Version != 3 || asg.TopicID != o.Result.TopicID || len(asg.Partitions) != int(reqs[i].Partitions) {
			t.Fatalf("%s assignment %+v, result %+v", name, asg, o.Result)
		}
		for p, replicas := range o.Result.Assignment {
			if len(replicas) != int(reqs[i].ReplicationFactor) || !slices.Equal(asg.Partitions[int32(p)], replicas) {
				t.Errorf("%s partition %d: %v, result %v", name, p, asg.Partitions[int32(p)], replicas)
			}
		}
	}
	// Exactly the config and assignment znodes are new, but for the
	// parent of the markers that chain a round's multis (createChain),
	// and no marker is left; the only znode changed is the fence, as with
	// single creates (same for "single").
	markerParents := map[string]bool{"/kzadmin": true, createRoundsPath: true}
	for p, v := range after {
		old, had := before[p]
		switch {
		case !had && markerParents[p]:
		case !had && !want[p]:
			t.Errorf("unexpected znode %s", p)
		case had && old != v && p != znodes.TopicsPath && p != "/config/topics" && p != "/": // the fence; parents' cversion
			t.Errorf("znode %s changed: %s -> %s", p, old, v)
		}
		delete(want, p)
	}
	if len(want) > 0 {
		t.Errorf("%d znodes missing", len(want))
	}
	if !e.exists(znodes.ConfigEntityPath("topics", "single")) || e.exists(znodes.PartitionsPath("batch-000")) {
		t.Error("znodes differ from a single create's")
	}
}

func TestCreateTopicsManyMultisMoveTheFence(t *testing.T) {
	e := newAdminEnv(t, []string{"", ""}, nil)
	_, st, err := e.zk.Exists(e.ctx, znodes.TopicsPath)
	if err != nil {
		t.Fatal(err)
	}
	out := e.createBatch(batchReqs("many", 600, one, func(int) int16 { return 2 }))
	multis := map[*Op]bool{}
	for _, o := range out {
		if o.Err != nil || o.Result.Attempts != 1 {
			t.Fatalf("outcome %+v", o)
		}
		multis[&o.Result.Ops[0]] = true
		if o.Result.Ops[0].Kind != OpSet || o.Result.Ops[0].Path != znodes.TopicsPath || len(o.Result.Ops) > DefaultBatchOps {
			t.Fatalf("multi starts with %v and has %d ops", o.Result.Ops[0], len(o.Result.Ops))
		}
	}
	_, st2, _ := e.zk.Exists(e.ctx, znodes.TopicsPath)
	if len(multis) < 3 || st2.Version != st.Version+int32(len(multis)) {
		t.Fatalf("%d multis moved the fence from %d to %d", len(multis), st.Version, st2.Version)
	}
	if _, n := clusterCounts(t, e); n != 600 {
		t.Fatalf("%d partitions", n)
	}
}

func TestCreateTopicsLimitFitsPartOfTheBatch(t *testing.T) {
	cfg := limitsConfig(0, 10)
	e := newAdminEnv(t, []string{"", "", ""}, cfg)
	e.create("old", 3, 1)
	// 3 used: 2 and 2 fit (7), 4 would make 11, 3 fits (10), 1 does not.
	sizes := []int32{2, 2, 4, 3, 1}
	current := map[int]int{2: 7, 4: 10}
	out := e.createBatch(batchReqs("t", 5, func(i int) int32 { return sizes[i] }, func(int) int16 { return 1 }))
	for i, o := range out {
		if i == 2 || i == 4 {
			var le *placement.LimitError
			if !errors.Is(o.Err, ErrPartitionLimit) || !errors.As(o.Err, &le) {
				t.Fatalf("topic %d: want the limit error, got %+v", i, o)
			}
			if le.Scope != placement.ScopeCluster || le.Limit != 10 || le.Current != current[i] ||
				le.Requested != current[i]+int(sizes[i]) {
				t.Errorf("topic %d limit error %+v", i, le)
			}
			continue
		}
		if o.Err != nil {
			t.Fatalf("topic %d: %v", i, o.Err)
		}
	}
	if _, n := clusterCounts(t, e); n != 10 {
		t.Fatalf("cluster holds %d partitions, want exactly 10", n)
	}
}

func TestCreateTopicsBrokerLimitAcrossTheBatch(t *testing.T) {
	cfg := limitsConfig(4, 0)
	e := newAdminEnv(t, []string{"", "", ""}, cfg)
	out := e.createBatch(batchReqs("rf3", 6, one, func(int) int16 { return 3 }))
	for i, o := range out {
		if (i < 4) != (o.Err == nil) || (i >= 4 && !errors.Is(o.Err, ErrPartitionLimit)) {
			t.Fatalf("topic %d: %v", i, o.Err)
		}
	}
	perBroker, _ := clusterCounts(t, e)
	for b, n := range perBroker {
		if n != 4 {
			t.Errorf("broker %d hosts %d replicas, want 4", b, n)
		}
	}
}

func TestCreateTopicsDuplicates(t *testing.T) {
	e := newAdminEnv(t, []string{""}, nil)
	e.create("exists", 1, 1)
	e.create("doomed", 1, 1)
	if _, err := e.admin.MarkTopicForDeletion(e.ctx, "doomed", false); err != nil {
		t.Fatal(err)
	}
	names := []string{"a", "exists", "a", "x.y", "x_y", "doomed", "b", "bad/name"}
	reqs := make([]CreateTopicRequest, len(names))
	for i, n := range names {
		reqs[i] = CreateTopicRequest{Topic: n, Partitions: 1, ReplicationFactor: 1}
	}
	out := e.createBatch(reqs)
	want := []ErrorKind{0, KindTopicExists, KindTopicExists, 0, KindInvalidTopic, KindMarkedForDeletion, 0, KindInvalidTopic}
	for i, o := range out {
		if want[i] == 0 {
			if o.Err != nil {
				t.Errorf("%s: %v", names[i], o.Err)
			}
			continue
		}
		wantKind(t, o.Err, want[i], names[i])
	}
	if !strings.Contains(out[4].Err.Error(), "collides with existing topics: x.y") {
		t.Errorf("collision message %v", out[4].Err)
	}
	if id := e.assignment("a").TopicID; id != out[0].Result.TopicID {
		t.Errorf("topic a has id %v, the first entry created %v", id, out[0].Result.TopicID)
	}
}

func TestCreateTopicsDryRunWritesNothing(t *testing.T) {
	cfg := limitsConfig(0, 3)
	e := newAdminEnv(t, []string{"", ""}, cfg)
	before := e.snapshot()
	reqs := batchReqs("dry", 4, one, func(int) int16 { return 2 })
	for i := range reqs {
		reqs[i].DryRun = true
	}
	out := e.createBatch(reqs)
	sameSnapshot(t, before, e.snapshot())
	for i, o := range out {
		if (i < 3) != (o.Err == nil) {
			t.Fatalf("dry run %d: %+v (the batch as a whole must respect the limit)", i, o)
		}
	}
	if ops := out[0].Result.Ops; len(ops) != 3 || ops[2].Path != znodes.TopicPath("dry-000") {
		t.Errorf("dry-run ops %v", ops)
	}
}

// Three batch creators race over overlapping names (800 in all) under a
// cluster limit of 700: no name is created twice, the limit holds exactly,
// and every refusal is an existing topic or the limit.
func TestCreateTopicsConcurrentBatches(t *testing.T) {
	cfg := limitsConfig(0, 700)
	e := newAdminEnv(t, []string{"", ""}, cfg)
	admins := []*Admin{e.another(cfg), e.another(cfg), e.another(cfg)}
	outs := make([][]CreateTopicOutcome, len(admins))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, a := range admins {
		wg.Go(func() {
			<-start
			reqs := batchReqs("race", 800, one, func(int) int16 { return 1 })[i*200 : i*200+400]
			if i == 1 {
				slices.Reverse(reqs)
			}
			var err error
			if outs[i], err = a.CreateTopics(e.ctx, reqs); err != nil {
				t.Error(err)
			}
		})
	}
	close(start)
	wg.Wait()
	created, retried := 0, 0
	ids := map[znodes.UUID]bool{}
	for _, out := range outs {
		for _, o := range out {
			switch {
			case o.Err == nil:
				created++
				ids[o.Result.TopicID] = true
				if o.Result.Attempts > 1 {
					retried++
				}
			case !errors.Is(o.Err, ErrTopicExists) && !errors.Is(o.Err, ErrPartitionLimit):
				t.Fatalf("unexpected refusal %v", o.Err)
			}
		}
	}
	_, n := clusterCounts(t, e)
	t.Logf("3 batches of 400 over 800 names, max.partitions=700: %d created, %d partitions, %d after a lost race",
		created, n, retried)
	if created != 700 || n != 700 || len(ids) != 700 {
		t.Fatalf("created %d (%d ids), cluster holds %d; want 700", created, len(ids), n)
	}
}

// BenchmarkCreateTopicsBatch creates 1000 one-partition topics (RF 1-3)
// in a cluster of 1000 topics, through CreateTopics in calls of 100 (and
// of 1000), and as a baseline writes the same znodes raw with
// MultiBatched. Each call reads every topic znode once, so with calls of
// 100 the reads (1000-1900 znodes per call) dominate.
//
//	go test -bench CreateTopicsBatch -run '^$' -benchtime 3x ./zkadmin/
func BenchmarkCreateTopicsBatch(b *testing.B) {
	const n = 1000
	for _, mode := range []string{"calls-of-100", "calls-of-1000", "raw"} {
		perCall := map[string]int{"calls-of-100": 100, "calls-of-1000": 1000}[mode]
		b.Run(mode, func(b *testing.B) {
			var elapsed time.Duration
			for b.Loop() {
				b.StopTimer()
				e := benchAdminEnv(b, 1000)
				reqs := batchReqs("new", n, one, func(i int) int16 { return int16(i%3 + 1) })
				b.StartTimer()
				t0 := time.Now()
				if mode == "raw" {
					rawCreates(b, e, reqs)
				} else {
					for i := 0; i < n; i += perCall {
						out, err := e.admin.CreateTopics(e.ctx, reqs[i:i+perCall])
						if err != nil || out[0].Err != nil {
							b.Fatal(err, out[0].Err)
						}
					}
				}
				elapsed += time.Since(t0)
			}
			b.ReportMetric(float64(n*b.N)/elapsed.Seconds(), "partitions/s")
		})
	}
}

// benchAdminEnv is a fresh chroot with 6 brokers and existing topics of 3
// partitions (RF 3), and an Admin with limits on.
func benchAdminEnv(b *testing.B, existing int) *adminEnv {
	e := &adminEnv{ctx: testCtx(b)}
	e.zk = connect(b, Options{SessionTimeout: 10e9})
	if err := e.zk.EnsureTopLevelPaths(e.ctx); err != nil {
		b.Fatal(err)
	}
	for id := int32(1); id <= 6; id++ {
		data, _ := znodes.NewBrokerRegistration([]znodes.Endpoint{{Listener: "PLAINTEXT", SecurityProtocol: "PLAINTEXT",
			Host: "h", Port: 9092}}, nil, -1, time.Unix(0, 0)).Encode()
		if _, err := e.zk.Create(e.ctx, znodes.BrokerIDPath(id), data, Ephemeral); err != nil {
			b.Fatal(err)
		}
	}
	asg, _ := znodes.TopicAssignment{Partitions: map[int32][]int32{0: {1, 2, 3}, 1: {2, 3, 4}, 2: {3, 4, 5}}}.Encode()
	ops := make([]Op, existing)
	for i := range ops {
		ops[i] = CreateOp(znodes.TopicPath(fmt.Sprintf("existing-%04d", i)), asg, Persistent)
	}
	if _, err := e.zk.MultiBatched(e.ctx, ops, BatchOptions{}); err != nil {
		b.Fatal(err)
	}
	e.admin = NewAdmin(e.zk, AdminOptions{Config: limitsConfig(100000, 1000000)})
	return e
}

// rawCreates writes the znodes CreateTopics would (config and assignment,
// with a fixed placement), unchecked, with MultiBatched's defaults.
func rawCreates(b *testing.B, e *adminEnv, reqs []CreateTopicRequest) {
	cfg, _ := znodes.EntityConfig{}.Encode()
	if _, err := e.zk.CreateRecursive(e.ctx, znodes.ConfigEntityPath("topics", "x"), cfg, Persistent); err != nil {
		b.Fatal(err)
	}
	ops := make([]Op, 0, 2*len(reqs))
	for _, r := range reqs {
		replicas := []int32{1, 2, 3}[:r.ReplicationFactor]
		asg, _ := znodes.TopicAssignment{Partitions: map[int32][]int32{0: replicas}, TopicID: znodes.UUID{1}}.Encode()
		ops = append(ops, CreateOp(znodes.ConfigEntityPath("topics", r.Topic), cfg, Persistent),
			CreateOp(znodes.TopicPath(r.Topic), asg, Persistent))
	}
	if _, err := e.zk.MultiBatched(e.ctx, ops, BatchOptions{}); err != nil {
		b.Fatal(err)
	}
}

// TestOnCreateRoundTimesEachRound: the hook hears every round with its
// phases; a round that only refuses has no commit.
func TestOnCreateRoundTimesEachRound(t *testing.T) {
	e := newAdminEnv(t, []string{"", "", ""}, limitsConfig(0, 4))
	var rounds []CreateRoundTiming
	a := NewAdmin(e.zk, AdminOptions{Config: limitsConfig(0, 4), OnCreateRound: func(r CreateRoundTiming) { rounds = append(rounds, r) }})
	out := e.createBatchWith(a, []CreateTopicRequest{
		{Topic: "a", Partitions: 2, ReplicationFactor: 1},
		{Topic: "b", Partitions: 2, ReplicationFactor: 1},
	})
	for _, o := range out {
		if o.Err != nil {
			t.Fatal(o.Err)
		}
	}
	if len(rounds) != 1 || rounds[0].Topics != 2 || rounds[0].Read <= 0 || rounds[0].Plan <= 0 || rounds[0].Commit <= 0 {
		t.Fatalf("rounds %+v, want one of 2 topics with every phase timed", rounds)
	}
	_, err := a.CreateTopic(e.ctx, CreateTopicRequest{Topic: "c", Partitions: 1, ReplicationFactor: 1})
	wantKind(t, err, KindPartitionLimit)
	if len(rounds) != 2 || rounds[1].Commit != 0 {
		t.Fatalf("rounds %+v, want a second one without a commit", rounds)
	}
}
