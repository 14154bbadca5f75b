package handler

import (
	"fmt"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// TestCreatePartitionsKafkaChecksRealAdmin runs Kafka's CreatePartitions
// checks through the real Admin, one topic per request, in the order and
// with the messages of reference apis.md §6 (the test-asserted ones among
// them), and checks that nothing is written for any of them.
func TestCreatePartitionsKafkaChecksRealAdmin(t *testing.T) {
	env := hcrtNewEnv(t)
	env.create(ctTopic{name: "t3", parts: 3, rf: 1}, ctTopic{name: "t2r", parts: 1, rf: 2}, ctTopic{name: "doomed", parts: 1, rf: 1})
	env.markForDeletion("doomed")
	before := map[string]string{"t3": env.partitions("t3"), "t2r": env.partitions("t2r"), "doomed": env.partitions("doomed")}
	env.watched.waits.Store(0) // the setup waited for its topics
	cases := []struct {
		name string
		req  cpTopic
		code int16
		msg  string
	}{
		{"lower count", cpTopic{name: "t3", count: 1}, 37, "Topic currently has 3 partitions, which is higher than the requested 1."},
		{"negative count", cpTopic{name: "t2r", count: -22}, 37, "Topic currently has 1 partitions, which is higher than the requested -22."},
		{"same count", cpTopic{name: "t3", count: 3}, 37, "Topic already has 3 partitions."},
		{"same count with an assignment", cpTopic{name: "t3", count: 3, asg: [][]int32{{1}}}, 37, "Topic already has 3 partitions."},
		{"lower count before unknown brokers", cpTopic{name: "t3", count: 2, asg: [][]int32{{12}}}, 37,
			"Topic currently has 3 partitions, which is higher than the requested 2."},
		{"too few lists", cpTopic{name: "t2r", count: 4, asg: [][]int32{{1, 2}}}, 39,
			"Increasing the number of partitions by 3 but 1 assignments provided."},
		{"empty, non-null assignment", cpTopic{name: "t2r", count: 2, asg: [][]int32{}}, 39,
			"Increasing the number of partitions by 1 but 0 assignments provided."},
		{"unknown brokers before the list count", cpTopic{name: "t2r", count: 2, asg: [][]int32{{12, 1}, {13, 12}}}, 39,
			"Unknown broker(s) in replica assignment: 12, 13."},
		{"inconsistent replication factor", cpTopic{name: "t2r", count: 3, asg: [][]int32{{1, 2}, {3}}}, 39,
			"Inconsistent replication factor between partitions, partition 0 has 2 while partitions [2] have replication factors [1], respectively."},
		{"unknown topic before unknown brokers", cpTopic{name: "missing", count: 2, asg: [][]int32{{12}}}, 3,
			"The topic 'missing' does not exist."},
		{"queued for deletion", cpTopic{name: "doomed", count: 2, asg: [][]int32{{12}}}, 17, "The topic is queued for deletion."},
	}
	for _, tc := range cases {
		for _, version := range []int16{0, 1, 2, 3} {
			for _, validateOnly := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/v%d/validateOnly=%v", tc.name, version, validateOnly), func(t *testing.T) {
					got := env.fx.call(cpReq(version, 60000, validateOnly, tc.req))
					sameWire(t, got, cpResp(cpResult(tc.req.name, tc.code, sp(tc.msg))))
				})
			}
		}
	}
	for name, was := range before {
		if now := env.partitions(name); now != was {
			t.Errorf("%s changed from %s to %s", name, was, now)
		}
	}
	if n := env.watched.waits.Load(); n != 0 {
		t.Errorf("waited %d times with nothing written", n)
	}
}

// TestCreatePartitionsWritesRealAdmin: validateOnly answers NONE and
// writes nothing even with timeout 0; a positive timeout waits for the new
// partitions and answers NONE; a negative one answers REQUEST_TIMED_OUT
// and the partitions are written all the same (reference apis.md §6).
func TestCreatePartitionsWritesRealAdmin(t *testing.T) {
	env := hcrtNewEnv(t)
	env.create(ctTopic{name: "grow", parts: 1, rf: 2})
	first := env.partitions("grow")
	sameWire(t, env.fx.call(cpReq(1, 0, true, cpTopic{name: "grow", count: 4})), cpResp(cpResult("grow", 0, nil)))
	if now := env.partitions("grow"); now != first {
		t.Fatalf("validateOnly wrote %s", now)
	}
	sameWire(t, env.fx.call(cpReq(3, 10000, false, cpTopic{name: "grow", count: 3})), cpResp(cpResult("grow", 0, nil)))
	env.checkTopic("grow", 3, 2)
	sameWire(t, env.fx.call(cpReq(2, -1, false, cpTopic{name: "grow", count: 5, asg: [][]int32{{3, 1}, {2, 3}}})),
		cpResp(cpResult("grow", 7, nil)))
	env.checkTopic("grow", 5, 2)
	if got := env.partitions("grow"); !strings.HasSuffix(got, " [3 1] [2 3]]") {
		t.Errorf("ZooKeeper holds %s, want partitions 3 and 4 as assigned", got)
	}
}

// TestCreatePartitionsReplicationFactorAboveLiveBrokers: automatic
// placement with the topic's replication factor above the live brokers is
// INVALID_REPLICATION_FACTOR, and a manual assignment naming a broker
// that left is INVALID_REPLICA_ASSIGNMENT (reference apis.md §6 steps 8-9).
func TestCreatePartitionsReplicationFactorAboveLiveBrokers(t *testing.T) {
	env := hcrtNewEnv(t)
	env.create(ctTopic{name: "r3", parts: 1, rf: 3})
	if err := env.zk.Delete(env.ctx, znodes.BrokerIDsPath+"/3", -1); err != nil {
		t.Fatal(err)
	}
	env.refresh()
	sameWire(t, env.fx.call(cpReq(3, 0, false, cpTopic{name: "r3", count: 2})),
		cpResp(cpResult("r3", 38, sp("Replication factor: 3 larger than available brokers: 2."))))
	sameWire(t, env.fx.call(cpReq(3, 0, false, cpTopic{name: "r3", count: 2, asg: [][]int32{{1, 2, 3}}})),
		cpResp(cpResult("r3", 39, sp("Unknown broker(s) in replica assignment: 3."))))
	env.checkTopic("r3", 1, 3)
}

// TestCreatePartitionsReassignmentInProgress: a topic with a partition
// being reassigned is REASSIGNMENT_IN_PROGRESS, checked before the counts
// (reference apis.md §6 step 5).
func TestCreatePartitionsReassignmentInProgress(t *testing.T) {
	env := hcrtNewEnv(t)
	env.create(ctTopic{name: "moving", parts: 1, rf: 1})
	if _, err := env.admin.StartReassignment(env.ctx, []znodes.ReassignmentEntry{{Topic: "moving", Partition: 0, Replicas: []int32{2}}}, false); err != nil {
		t.Fatal(err)
	}
	env.refresh()
	for _, count := range []int32{2, 1, 0} {
		got := env.fx.call(cpReq(3, 0, false, cpTopic{name: "moving", count: count})).(*kmsg.CreatePartitionsResponse)
		if r := got.Topics[0]; r.ErrorCode != 60 || r.ErrorMessage == nil {
			t.Errorf("count %d: %+v, want REASSIGNMENT_IN_PROGRESS with a message", count, r)
		}
	}
	// The reassignment comes before the assignment's brokers (Kafka's step
	// 5 before step 8): an unregistered broker is not what is reported.
	got := env.fx.call(cpReq(3, 0, false, cpTopic{name: "moving", count: 2, asg: [][]int32{{12}}})).(*kmsg.CreatePartitionsResponse)
	if r := got.Topics[0]; r.ErrorCode != 60 {
		t.Errorf("unknown broker while moving: %+v, want REASSIGNMENT_IN_PROGRESS", r)
	}
	env.checkTopic("moving", 1, 1)
}

// TestCreatePartitionsPartitionLimits: the partition limits apply to
// CreatePartitions as to CreateTopics, validateOnly included, with
// POLICY_VIOLATION or the configured code (design brief §3-4).
func TestCreatePartitionsPartitionLimits(t *testing.T) {
	for _, code := range []int16{0, 88} {
		env := hcrtNewEnv(t, func(c *config.Config) { c.PartitionLimitsErrorCode = code })
		env.create(ctTopic{name: "base", parts: 3, rf: 1})
		if _, err := env.admin.AlterConfigs(env.ctx, zkadmin.ConfigAlteration{EntityType: znodes.EntityBrokers,
			EntityName: znodes.DefaultEntityName, Set: map[string]string{"max.partitions": "5"}}); err != nil {
			t.Fatal(err)
		}
		want := code
		if want == 0 {
			want = 44
		}
		for _, validateOnly := range []bool{true, false} {
			got := env.fx.call(cpReq(3, 10000, validateOnly, cpTopic{name: "base", count: 6})).(*kmsg.CreatePartitionsResponse)
			r := got.Topics[0]
			if r.ErrorCode != want || r.ErrorMessage == nil || !strings.HasPrefix(*r.ErrorMessage, "WILL_EXCEED_PARTITION_LIMITS:") {
				t.Errorf("code %d, validateOnly %v: %+v", code, validateOnly, r)
			}
		}
		env.checkTopic("base", 3, 1)
		// Up to the limit is fine.
		sameWire(t, env.fx.call(cpReq(3, 10000, false, cpTopic{name: "base", count: 5})), cpResp(cpResult("base", 0, nil)))
		env.checkTopic("base", 5, 1)
	}
}

// TestCreatePartitionsAnswersAtOnceWithoutWrites: validateOnly and a
// request whose topics all failed never wait, whatever the timeout.
func TestCreatePartitionsAnswersAtOnceWithoutWrites(t *testing.T) {
	var watched *hcrtWatchedViews
	f := newFixture(t, withTopics(baseView(), onlineTopic("foo", 1, []int32{1})), func(o *Options) {
		watched = &hcrtWatchedViews{Views: o.Cluster.(*Views)}
		o.Cluster = watched
	})
	sameWire(t, f.call(cpReq(3, 60000, true, cpTopic{name: "foo", count: 3})), cpResp(cpResult("foo", 0, nil)))
	got := f.call(cpReq(3, 60000, false, cpTopic{name: "foo", count: 2}, cpTopic{name: "missing", count: 2},
		cpTopic{name: "foo", count: 3}))
	sameWire(t, got, cpResp(cpResult("foo", 42, sp("Duplicate topic in request.")),
		cpResult("missing", 3, sp("The topic 'missing' does not exist."))))
	if n := watched.waits.Load(); n != 0 {
		t.Errorf("waited %d times", n)
	}
}
