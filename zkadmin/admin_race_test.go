package zkadmin

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/placement"
	"github.com/kzadmin/kzadmin/znodes"
)

// raceOutcome is what one of many concurrent creators got.
type raceOutcome struct {
	size     int // partitions requested
	err      error
	attempts int
}

// raceCreators starts n creators, each with its own ZooKeeper session (a
// separate kzadmin process, as far as ZooKeeper can tell), released at the
// same instant; creator i creates topic race-i with size(i) partitions of
// replication factor rf.
func raceCreators(t *testing.T, e *adminEnv, cfg *config.Config, n int, rf int16, size func(int) int) []raceOutcome {
	t.Helper()
	admins := make([]*Admin, n)
	for i := range admins {
		admins[i] = e.another(cfg)
	}
	out := make([]raceOutcome, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, a := range admins {
		wg.Go(func() {
			<-start
			out[i].size = size(i)
			res, err := a.CreateTopic(e.ctx, CreateTopicRequest{Topic: fmt.Sprintf("race-%02d", i),
				Partitions: int32(out[i].size), ReplicationFactor: rf})
			out[i].err = err
			if res != nil {
				out[i].attempts = res.Attempts
			}
		})
	}
	close(start)
	wg.Wait()
	return out
}

// clusterCounts re-reads the cluster after the race.
func clusterCounts(t *testing.T, e *adminEnv) (map[int32]int, int) {
	t.Helper()
	c, err := e.admin.ReadCluster(e.ctx, ReadOptions{AllTopics: true})
	if err != nil {
		t.Fatal(err)
	}
	return c.ReplicaCounts()
}

// summarise checks every outcome is a success or a limit error and returns
// the counts and the total attempts of the winners.
func summarise(t *testing.T, out []raceOutcome) (ok, refused, attempts int, limitErrs []*placement.LimitError) {
	t.Helper()
	for i, o := range out {
		if o.err == nil {
			ok++
			attempts += o.attempts
			continue
		}
		var le *placement.LimitError
		if !errors.Is(o.err, ErrPartitionLimit) || !errors.As(o.err, &le) {
			t.Fatalf("creator %d: want success or a limit error, got %v", i, o.err)
		}
		refused++
		limitErrs = append(limitErrs, le)
	}
	return ok, refused, attempts, limitErrs
}

func TestLimitRaceClusterLimit(t *testing.T) {
	cfg := limitsConfig(0, 10)
	e := newAdminEnv(t, []string{"", "", ""}, cfg)
	out := raceCreators(t, e, cfg, 20, 1, func(int) int { return 1 })
	ok, refused, attempts, errs := summarise(t, out)
	_, partitions := clusterCounts(t, e)
	t.Logf("20 creators, max.partitions=10: %d created, %d refused, %d attempts by the winners", ok, refused, attempts)
	if ok != 10 || refused != 10 || partitions != 10 {
		t.Fatalf("created %d, refused %d, cluster has %d partitions; want exactly 10 created", ok, refused, partitions)
	}
	for _, le := range errs {
		if le.Scope != placement.ScopeCluster || le.Limit != 10 || le.Current != 10 || le.Requested != 11 {
			t.Errorf("limit error %+v", le)
		}
	}
	if attempts <= ok {
		t.Errorf("no creator ever lost a race (%d attempts for %d topics): the test did not exercise the fence", attempts, ok)
	}
}

func TestLimitRaceBrokerLimitFromDynamicConfig(t *testing.T) {
	e := newAdminEnv(t, []string{"", "", ""}, nil)
	// The limit comes from /config/brokers/<default>, not the file.
	if _, err := e.admin.AlterConfigs(e.ctx, ConfigAlteration{EntityType: znodes.EntityBrokers,
		EntityName: znodes.DefaultEntityName, Set: map[string]string{"max.broker.partitions": "5"}}); err != nil {
		t.Fatal(err)
	}
	out := raceCreators(t, e, nil, 20, 3, func(int) int { return 1 })
	ok, refused, _, errs := summarise(t, out)
	perBroker, _ := clusterCounts(t, e)
	t.Logf("20 creators, max.broker.partitions=5 on 3 brokers, RF 3: %d created, %d refused; per broker %v", ok, refused, perBroker)
	if ok != 5 || refused != 15 {
		t.Fatalf("created %d, refused %d; want 5 and 15", ok, refused)
	}
	for b, n := range perBroker {
		if n != 5 {
			t.Errorf("broker %d hosts %d replicas, want 5", b, n)
		}
	}
	for _, le := range errs {
		if le.Scope != placement.ScopeBroker || le.Limit != 5 || le.Current != 5 || le.Requested != 6 {
			t.Errorf("limit error %+v", le)
		}
	}
}

// With mixed request sizes the winners depend on timing, so the test checks
// the two halves of "exactly the ones that fit": no overshoot, and every
// refused request would not fit even into the final state.
func TestLimitRaceMixedSizes(t *testing.T) {
	cfg := limitsConfig(0, 20)
	e := newAdminEnv(t, []string{"", ""}, cfg)
	out := raceCreators(t, e, cfg, 20, 1, func(i int) int { return i%3 + 1 })
	ok, refused, _, _ := summarise(t, out)
	_, partitions := clusterCounts(t, e)
	t.Logf("20 creators of 1-3 partitions, max.partitions=20: %d created (%d partitions), %d refused", ok, partitions, refused)
	if partitions > 20 {
		t.Fatalf("cluster has %d partitions, above max.partitions=20", partitions)
	}
	want := 0
	for _, o := range out {
		if o.err == nil {
			want += o.size
		} else if partitions+o.size <= 20 {
			t.Errorf("a request for %d partitions was refused although %d of 20 are used", o.size, partitions)
		}
	}
	if want != partitions {
		t.Errorf("winners asked for %d partitions, the cluster has %d", want, partitions)
	}
}

func TestAddPartitionsConcurrentRewritesAreNotLost(t *testing.T) {
	e := newAdminEnv(t, []string{"", ""}, nil)
	e.create("grow", 2, 1)
	other := e.another(nil)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	start := make(chan struct{})
	for i, a := range []*Admin{e.admin, other} {
		wg.Go(func() {
			<-start
			_, errs[i] = a.AddPartitions(e.ctx, AddPartitionsRequest{Topic: "grow", Total: 4})
		})
	}
	close(start)
	wg.Wait()
	failed := 0
	for _, err := range errs {
		if err != nil {
			wantKind(t, err, KindInvalidPartitions, "Topic already has 4 partitions.")
			failed++
		}
	}
	if failed != 1 || len(e.assignment("grow").Partitions) != 4 {
		t.Fatalf("errors %v, partitions %d", errs, len(e.assignment("grow").Partitions))
	}
}

// The fence, step by step: a creator plans against a read, another creator
// commits in between, and the first one's multi then fails on its first op.
// Without that op the same multi would have gone through and overshot.
func TestFenceStopsAnInterleavedCreator(t *testing.T) {
	cfg := limitsConfig(0, 2)
	e := newAdminEnv(t, []string{""}, cfg)
	e.create("x", 1, 1)
	planned, err := e.admin.CreateTopic(e.ctx, CreateTopicRequest{Topic: "a", Partitions: 1, ReplicationFactor: 1, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.another(cfg).CreateTopic(e.ctx, CreateTopicRequest{Topic: "b", Partitions: 1, ReplicationFactor: 1}); err != nil {
		t.Fatal(err)
	}
	_, err = e.zk.Multi(e.ctx, planned.Ops...)
	var me *MultiError
	if !errors.As(err, &me) || me.Index != 0 || !errors.Is(err, ErrBadVersion) {
		t.Fatalf("stale plan applied: %v", err)
	}
	if _, err := e.zk.Multi(e.ctx, planned.Ops[1:]...); err != nil {
		t.Fatal(err)
	}
	if _, n := clusterCounts(t, e); n != 3 {
		t.Fatalf("without the fence op the cluster would hold %d partitions", n)
	}
}
