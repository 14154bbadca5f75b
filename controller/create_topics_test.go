package controller

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// createThrough creates topics with an Admin whose creates the controller
// commits (as kzadmind wires them) and fails the test on any error.
func createThrough(t *testing.T, sc *simCluster, reqs ...zkadmin.CreateTopicRequest) []zkadmin.CreateTopicOutcome {
	t.Helper()
	admin := zkadmin.NewAdmin(sc.obs, zkadmin.AdminOptions{Committer: sc.ctl.c})
	out, err := admin.CreateTopics(testCtx(t), reqs)
	if err != nil {
		t.Fatalf("create topics: %v", err)
	}
	for i, o := range out {
		if o.Err != nil {
			t.Fatalf("create %s: %v", reqs[i].Topic, o.Err)
		}
	}
	return out
}

// sameTransaction reports whether tp's state znode was created by the
// multi that created its topic (every op of a multi has its zxid).
func sameTransaction(t *testing.T, sc *simCluster, topic string, p int32) bool {
	t.Helper()
	_, ts, err := sc.obs.Get(testCtx(t), znodes.TopicPath(topic))
	if err != nil {
		t.Fatal(err)
	}
	_, ss, err := sc.obs.Get(testCtx(t), znodes.PartitionStatePath(topic, p))
	if err != nil {
		t.Fatal(err)
	}
	return ts.Czxid == ss.Czxid
}

// TestCommitCreatesWritesStatesWithTheTopic: through the controller, a new
// topic's partition states land in the multi that creates it, the first
// replica leads with every replica in the ISR, and the brokers are told,
// as on the ordinary path (TestNewTopic).
func TestCommitCreatesWritesStatesWithTheTopic(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3)
	out := createThrough(t, sc,
		zkadmin.CreateTopicRequest{Topic: "foo", Assignment: [][]int32{{1, 2, 3}, {2, 3, 1}, {3, 1, 2}}},
		zkadmin.CreateTopicRequest{Topic: "bar", Partitions: 4, ReplicationFactor: 2})
	for i, name := range []string{"foo", "bar"} {
		for p, replicas := range out[i].Result.Assignment {
			p := int32(p)
			if !sameTransaction(t, sc, name, p) {
				t.Fatalf("%s-%d: state not written with the topic", name, p)
			}
			sc.waitLeader(t, name, p, replicas[0], replicas...)
			st := readState(t, sc.obs, name, p)
			if st.LeaderEpoch != 0 || st.PartitionEpoch != 0 || st.ControllerEpoch != 1 {
				t.Fatalf("%s-%d initial state %v", name, p, st)
			}
			for _, r := range replicas {
				sc.waitBrokerRole(t, r, name, p, replicas[0])
			}
		}
	}
	// The topic's data watch is armed: added partitions come online.
	admin := zkadmin.NewAdmin(sc.obs, zkadmin.AdminOptions{})
	if _, err := admin.AddPartitions(testCtx(t), zkadmin.AddPartitionsRequest{Topic: "foo", Total: 4}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "foo-3 online", func() bool {
		pv, ok := partitionView(sc.ctl.c, "foo", 3)
		return ok && pv.Leader >= 0
	})
}

// TestCommitCreatesOverAStaleConfig: a config znode left by a deletion cut
// short fails the first attempt's multi, which assumed none, without the
// controller taking anything of it; the second attempt overwrites it and
// the topic comes online with its states written in its multi.
func TestCommitCreatesOverAStaleConfig(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3)
	stale, err := znodes.EntityConfig{Config: map[string]string{"retention.ms": "1"}}.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sc.obs.CreateRecursive(testCtx(t), znodes.ConfigEntityPath(znodes.EntityTopics, "left"), stale, zkadmin.Persistent); err != nil {
		t.Fatal(err)
	}
	out := createThrough(t, sc, zkadmin.CreateTopicRequest{Topic: "left", Assignment: [][]int32{{1, 2}, {2, 3}},
		Config: map[string]string{"cleanup.policy": "compact"}})
	if out[0].Result.Attempts != 2 {
		t.Errorf("created in %d attempts, want 2", out[0].Result.Attempts)
	}
	data, _, err := sc.obs.Get(testCtx(t), znodes.ConfigEntityPath(znodes.EntityTopics, "left"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := znodes.DecodeEntityConfig(znodes.EntityTopics, "left", data)
	if err != nil || len(cfg.Config) != 1 || cfg.Config["cleanup.policy"] != "compact" {
		t.Fatalf("config %v, %v; want only the request's", cfg.Config, err)
	}
	for p, replicas := range out[0].Result.Assignment {
		if !sameTransaction(t, sc, "left", int32(p)) {
			t.Fatalf("left-%d: state not written with the topic", p)
		}
		sc.waitLeader(t, "left", int32(p), replicas[0], replicas...)
	}
}

// TestCommitCreatesTooLargeTakesTheOrdinaryPath: when the states would make
// the multi too large, the topic is created alone and its partitions come
// online the ordinary way, through the watch.
func TestCommitCreatesTooLargeTakesTheOrdinaryPath(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3)
	const parts = 3000 // their states make well over DefaultBatchBytes
	createThrough(t, sc, zkadmin.CreateTopicRequest{Topic: "big", Partitions: parts, ReplicationFactor: 1})
	waitFor(t, fmt.Sprintf("%d partitions online", parts), func() bool {
		v := sc.ctl.c.Snapshot()
		tv := v.Topics.Get("big")
		if tv == nil || len(tv.Partitions) != parts {
			return false
		}
		for _, p := range tv.Partitions {
			if p.Leader < 0 {
				return false
			}
		}
		return true
	})
	if sameTransaction(t, sc, "big", 0) {
		t.Fatal("a state too large for the create's multi was written in it")
	}
}

// TestCommitCreatesRefusedByStandby: a node that is not the active
// controller writes nothing and says so with ErrControllerMoved, which the
// handlers answer NOT_CONTROLLER.
func TestCommitCreatesRefusedByStandby(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3)
	standby := startNode(t, sc.chroot, nodeOpts{id: 101})
	admin := zkadmin.NewAdmin(sc.obs, zkadmin.AdminOptions{Committer: standby.c})
	out, err := admin.CreateTopics(testCtx(t), []zkadmin.CreateTopicRequest{{Topic: "foo", Partitions: 1, ReplicationFactor: 1}})
	if err == nil || !errors.Is(out[0].Err, zkadmin.ErrControllerMoved) {
		t.Fatalf("standby committed a create: %v, %v", out[0].Err, err)
	}
	if ok, _, err := sc.obs.Exists(testCtx(t), znodes.TopicPath("foo")); err != nil || ok {
		t.Fatalf("topic written by a standby: %v %v", ok, err)
	}
}

// TestNewTopicWithItsStatesWritten: a topic whose partition states were
// written with it, as by a create whose reply was lost, comes online from
// those states (leader 2, not the first replica the controller would have
// chosen) instead of staying offline on the state znodes that exist.
func TestNewTopicWithItsStatesWritten(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3)
	asg, err := znodes.TopicAssignment{Partitions: map[int32][]int32{0: {1, 2, 3}}}.Encode()
	if err != nil {
		t.Fatal(err)
	}
	st, err := znodes.PartitionState{Leader: 2, ISR: []int32{2, 3}, ControllerEpoch: 1}.Encode()
	if err != nil {
		t.Fatal(err)
	}
	_, err = sc.obs.Multi(testCtx(t),
		zkadmin.CreateOp(znodes.TopicPath("lost"), asg, zkadmin.Persistent),
		zkadmin.CreateOp(znodes.PartitionsPath("lost"), nil, zkadmin.Persistent),
		zkadmin.CreateOp(znodes.PartitionPath("lost", 0), nil, zkadmin.Persistent),
		zkadmin.CreateOp(znodes.PartitionStatePath("lost", 0), st, zkadmin.Persistent))
	if err != nil {
		t.Fatal(err)
	}
	// Leader 2 then takes 1 back into the ISR, as a leader does.
	sc.waitLeader(t, "lost", 0, 2)
	sc.waitBrokerRole(t, 3, "lost", 0, 2)
}

// TestCommitCreatesLimitsHoldAgainstOtherCreators: creates committed by the
// controller and creates of another process (a CLI, with its own session
// and no committer) race under max.partitions=40; together they never
// exceed it, every topic refused is refused for the limit, and the
// controller's creates still bring their partitions online.
func TestCommitCreatesLimitsHoldAgainstOtherCreators(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3)
	conf := config.Default()
	conf.MaxPartitions = 40
	viaController := zkadmin.NewAdmin(sc.obs, zkadmin.AdminOptions{Config: &conf, Committer: sc.ctl.c})
	cli := zkadmin.NewAdmin(connectZK(t, sc.chroot, "", 0), zkadmin.AdminOptions{Config: &conf})
	type result struct {
		name string
		err  error
	}
	var mu sync.Mutex
	var results []result
	var wg sync.WaitGroup
	start := make(chan struct{})
	for k, a := range []*zkadmin.Admin{viaController, cli} {
		wg.Go(func() {
			<-start
			for i := range 15 {
				name := fmt.Sprintf("race-%d-%02d", k, i)
				out, err := a.CreateTopics(testCtx(t), []zkadmin.CreateTopicRequest{{Topic: name, Partitions: 2, ReplicationFactor: 2}})
				if err == nil {
					err = out[0].Err
				}
				mu.Lock()
				results = append(results, result{name, err})
				mu.Unlock()
			}
		})
	}
	close(start)
	wg.Wait()
	created := 0
	for _, r := range results {
		var ae *zkadmin.AdminError
		switch {
		case r.err == nil:
			created++
		case errors.As(r.err, &ae) && ae.Kind == zkadmin.KindPartitionLimit:
		default:
			t.Fatalf("%s: %v", r.name, r.err)
		}
	}
	if created != 20 {
		t.Fatalf("%d topics of 2 partitions created under max.partitions=40, want 20", created)
	}
	c, err := cli.ReadCluster(testCtx(t), zkadmin.ReadOptions{AllTopics: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, partitions := c.ReplicaCounts(); partitions != 40 {
		t.Fatalf("%d partitions in the cluster, limit 40", partitions)
	}
	waitFor(t, "every created partition led", func() bool {
		v := sc.ctl.c.Snapshot()
		for _, r := range results {
			tv := v.Topics.Get(r.name)
			if r.err != nil {
				continue
			}
			if tv == nil || len(tv.Partitions) != 2 || tv.Partitions[0].Leader < 0 || tv.Partitions[1].Leader < 0 {
				return false
			}
		}
		return true
	})
}

// TestCommitCreatesPipelinesARound: a round too large for one multi goes
// as several, pipelined and chained; each topic's states are still written
// in its topic's multi, every partition comes online, and no chain marker
// is left.
func TestCommitCreatesPipelinesARound(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3)
	var reqs []zkadmin.CreateTopicRequest
	for i := range 40 {
		reqs = append(reqs, zkadmin.CreateTopicRequest{Topic: fmt.Sprintf("round-%02d", i), Partitions: 10, ReplicationFactor: 2})
	}
	out := createThrough(t, sc, reqs...)
	multis := map[int64]bool{}
	for i, o := range out {
		name := reqs[i].Topic
		if o.Result.Attempts != 1 {
			t.Errorf("%s created in %d attempts", name, o.Result.Attempts)
		}
		_, st, err := sc.obs.Get(testCtx(t), znodes.TopicPath(name))
		if err != nil {
			t.Fatal(err)
		}
		multis[st.Czxid] = true
		if !sameTransaction(t, sc, name, 9) {
			t.Errorf("%s: states not written with the topic", name)
		}
		for p, replicas := range o.Result.Assignment {
			sc.waitLeader(t, name, int32(p), replicas[0], replicas...)
		}
	}
	if len(multis) < 4 {
		t.Errorf("40 topics of 10 partitions in %d multis, want at least 4 to pipeline", len(multis))
	}
	left, _, err := sc.obs.Children(testCtx(t), "/kzadmin/create-rounds")
	if err != nil || len(left) != 0 {
		t.Fatalf("chain markers left: %v %v", left, err)
	}
}

// TestPipelinedRoundsHoldTheLimitAgainstOtherCreators: rounds of several
// chained multis through the controller race single creates of another
// process under max.partitions; the cluster never ends over the limit,
// every refusal is the limit's, and no chain marker is left.
func TestPipelinedRoundsHoldTheLimitAgainstOtherCreators(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3)
	conf := config.Default()
	conf.MaxPartitions = 1000
	viaController := zkadmin.NewAdmin(sc.obs, zkadmin.AdminOptions{Config: &conf, Committer: sc.ctl.c})
	cli := zkadmin.NewAdmin(connectZK(t, sc.chroot, "", 0), zkadmin.AdminOptions{Config: &conf})
	var mu sync.Mutex
	created, refused := 0, 0
	tally := func(name string, err error, partitions int) {
		mu.Lock()
		defer mu.Unlock()
		var ae *zkadmin.AdminError
		switch {
		case err == nil:
			created += partitions
		case errors.As(err, &ae) && ae.Kind == zkadmin.KindPartitionLimit:
			refused++
		default:
			t.Errorf("%s: %v", name, err)
		}
	}
	var wg sync.WaitGroup
	start := make(chan struct{})
	wg.Go(func() {
		<-start
		for r := range 6 {
			var reqs []zkadmin.CreateTopicRequest
			for i := range 30 {
				reqs = append(reqs, zkadmin.CreateTopicRequest{Topic: fmt.Sprintf("round-%d-%02d", r, i), Partitions: 10, ReplicationFactor: 2})
			}
			out, err := viaController.CreateTopics(testCtx(t), reqs)
			if err != nil {
				t.Errorf("round %d: %v", r, err)
				return
			}
			for i, o := range out {
				tally(reqs[i].Topic, o.Err, 10)
			}
		}
	})
	wg.Go(func() {
		<-start
		for i := range 60 {
			name := fmt.Sprintf("single-%02d", i)
			out, err := cli.CreateTopics(testCtx(t), []zkadmin.CreateTopicRequest{{Topic: name, Partitions: 5, ReplicationFactor: 2}})
			if err == nil {
				err = out[0].Err
			}
			tally(name, err, 5)
		}
	})
	close(start)
	wg.Wait()
	c, err := cli.ReadCluster(testCtx(t), zkadmin.ReadOptions{AllTopics: true})
	if err != nil {
		t.Fatal(err)
	}
	_, partitions := c.ReplicaCounts()
	if partitions != created || partitions > int(conf.MaxPartitions) || refused == 0 {
		t.Fatalf("%d partitions in the cluster, %d answered created, %d topics refused; limit %d",
			partitions, created, refused, conf.MaxPartitions)
	}
	left, _, err := sc.obs.Children(testCtx(t), "/kzadmin/create-rounds")
	if err != nil || len(left) != 0 {
		t.Fatalf("chain markers left: %v %v", left, err)
	}
}
