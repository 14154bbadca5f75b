package deletion

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// TestDeletionWithZooKeeper runs a deletion through to the end against a
// real ZooKeeper, with fake brokers that answer StopReplica (one refuses
// once), a marker another tool left for a topic that does not exist (with
// garbage data and a child), and a topic that must not be touched.
// Afterwards ZooKeeper holds neither the topic, its config nor either
// marker, and the topic can be created again at once.
func TestDeletionWithZooKeeper(t *testing.T) {
	ctx := testCtx(t)
	zk, epochVer := connectZK(t)
	registerBrokers(t, zk, 1, 2, 3)
	admin := zkadmin.NewAdmin(zk, zkadmin.AdminOptions{})
	orders := [][]int32{{1, 2}, {2, 3}, {3, 1}}
	created, err := admin.CreateTopic(ctx, zkadmin.CreateTopicRequest{Topic: "orders", Assignment: orders,
		Config: map[string]string{"retention.ms": "1000"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.CreateTopic(ctx, zkadmin.CreateTopicRequest{Topic: "logs", Assignment: [][]int32{{1}}}); err != nil {
		t.Fatal(err)
	}
	ops := append(partitionStateOps(t, "orders", orders), partitionStateOps(t, "logs", [][]int32{{1}})...)
	if _, err := zk.Multi(ctx, ops...); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.MarkTopicForDeletion(ctx, "orders", false); err != nil {
		t.Fatal(err)
	}
	if _, err := zk.Multi(ctx,
		zkadmin.CreateOp(znodes.DeleteTopicPath("ghost"), []byte("{not json"), zkadmin.Persistent),
		zkadmin.CreateOp(znodes.DeleteTopicPath("ghost")+"/junk", []byte("x"), zkadmin.Persistent)); err != nil {
		t.Fatal(err)
	}

	h := newHarness(t, zk, epochVer, Options{RetryBackoff: 5 * time.Millisecond})
	refused := false
	h.refuse = func(r Replica) error {
		if r.Broker == 2 && r.Partition == 1 && !refused {
			refused = true // read and written only by the one goroutine answering for broker 2
			return errors.New("KAFKA_STORAGE_ERROR")
		}
		return nil
	}
	h.pushMarkers(ctx)
	h.run(ctx, func() bool { return len(h.m.Topics()) == 0 && h.sent.Load() > 0 })

	for _, p := range []string{znodes.TopicPath("orders"), znodes.ConfigEntityPath(znodes.EntityTopics, "orders"),
		znodes.DeleteTopicPath("orders"), znodes.DeleteTopicPath("ghost")} {
		if exists(t, zk, p) {
			t.Errorf("%s still exists", p)
		}
	}
	for _, p := range []string{znodes.PartitionStatePath("logs", 0), znodes.ConfigEntityPath(znodes.EntityTopics, "logs")} {
		if !exists(t, zk, p) {
			t.Errorf("%s of the untouched topic is gone", p)
		}
	}
	if got := h.sent.Load(); got != 7 {
		t.Errorf("%d StopReplica(delete) sent, want 6 replicas + 1 retry", got)
	}
	again, err := admin.CreateTopic(ctx, zkadmin.CreateTopicRequest{Topic: "orders", Assignment: orders})
	if err != nil {
		t.Fatalf("re-creating the deleted topic: %v", err)
	}
	if again.TopicID == created.TopicID || !exists(t, zk, znodes.TopicPath("orders")) {
		t.Fatal("the re-created topic is not a new topic")
	}
}

// TestFailoverMidRemovalWithZooKeeper cuts a removal short after its first
// stage (as a crash would), then: the old controller, fenced, can remove
// nothing more; a new controller resumes from the marker ZooKeeper still
// holds and finishes.
func TestFailoverMidRemovalWithZooKeeper(t *testing.T) {
	ctx := testCtx(t)
	zk, epochVer := connectZK(t)
	registerBrokers(t, zk, 1, 2)
	admin := zkadmin.NewAdmin(zk, zkadmin.AdminOptions{})
	asg := [][]int32{{1, 2}, {2, 1}}
	if _, err := admin.CreateTopic(ctx, zkadmin.CreateTopicRequest{Topic: "t", Assignment: asg}); err != nil {
		t.Fatal(err)
	}
	if _, err := zk.Multi(ctx, partitionStateOps(t, "t", asg)...); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.MarkTopicForDeletion(ctx, "t", false); err != nil {
		t.Fatal(err)
	}

	old := newHarness(t, zk, epochVer, Options{})
	crashed := false
	old.onRemove = func(ctx context.Context, topics []string) Result {
		trees, err := ReadTrees(ctx, zk, TopicRoots("t"), 0)
		if err != nil {
			t.Fatal(err)
		}
		plan := TopicRemovalPlan(topics, trees)
		Plan{Stages: plan.Stages[:1]}.Apply(ctx, old.write, ApplyOptions{})
		crashed = true
		return Result{Err: errors.New("controller crashed")}
	}
	old.pushMarkers(ctx)
	for !crashed {
		ev, err := old.q.next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		_ = Apply(ctx, old.m.Step(old.c, ev), old) // the crash surfaces as an error here
	}
	if exists(t, zk, znodes.PartitionStatePath("t", 0)) || !exists(t, zk, znodes.TopicPath("t")) ||
		!exists(t, zk, znodes.DeleteTopicPath("t")) {
		t.Fatal("the cut-short removal should have removed the states only")
	}

	// A new controller is elected: the epoch znode's version moves on.
	st, err := zk.Set(ctx, znodes.ControllerEpochPath, []byte("2"), zkadmin.AnyVersion)
	if err != nil {
		t.Fatal(err)
	}
	r := RemoveTopicZnodes(ctx, zk, old.write, []string{"t"}, ApplyOptions{})
	if !errors.Is(r.Err, zkadmin.ErrControllerMoved) || !exists(t, zk, znodes.TopicPath("t")) {
		t.Fatalf("the fenced old controller removed something: %+v", r)
	}

	h := newHarness(t, zk, st.Version, Options{})
	h.pushMarkers(ctx)
	h.run(ctx, func() bool { return len(h.m.Topics()) == 0 && h.sent.Load() > 0 })
	for _, p := range TopicRoots("t") {
		if exists(t, zk, p) {
			t.Errorf("%s still exists after the new controller finished", p)
		}
	}
}

// TestDeletionDisabledWithZooKeeper: with delete.topic.enable=false the
// marker goes and the topic stays, znode for znode.
func TestDeletionDisabledWithZooKeeper(t *testing.T) {
	ctx := testCtx(t)
	zk, epochVer := connectZK(t)
	registerBrokers(t, zk, 1)
	admin := zkadmin.NewAdmin(zk, zkadmin.AdminOptions{})
	if _, err := admin.CreateTopic(ctx, zkadmin.CreateTopicRequest{Topic: "keep", Assignment: [][]int32{{1}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.MarkTopicForDeletion(ctx, "keep", false); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, zk, epochVer, Options{DisableDeletion: true})
	h.pushMarkers(ctx)
	h.run(ctx, func() bool { return !exists(t, zk, znodes.DeleteTopicPath("keep")) })
	if !exists(t, zk, znodes.TopicPath("keep")) || !exists(t, zk, znodes.ConfigEntityPath(znodes.EntityTopics, "keep")) {
		t.Fatal("the topic must stay when deletion is disabled")
	}
	if h.sent.Load() != 0 || h.m.Queued("keep") {
		t.Fatal("nothing may be sent or queued when deletion is disabled")
	}
}

// TestBatchDeletionWithZooKeeper deletes 1,000 topics of 10 partitions
// (10,000 partitions, RF 3, 5 brokers) marked at once, and reports the time
// from the markers event to the last znode removed.
func TestBatchDeletionWithZooKeeper(t *testing.T) {
	if testing.Short() {
		t.Skip("bulk test")
	}
	const topics, parts, brokers = 1000, 10, 5
	ctx := testCtx(t)
	zk, epochVer := connectZK(t)
	registerBrokers(t, zk, 1, 2, 3, 4, 5)
	var ops []zkadmin.Op
	for i := range topics {
		name := fmt.Sprintf("bulk-%04d", i)
		a := znodes.TopicAssignment{Partitions: map[int32][]int32{}}
		var asg [][]int32
		for p := range parts {
			rs := []int32{int32((i+p)%brokers + 1), int32((i+p+1)%brokers + 1), int32((i+p+2)%brokers + 1)}
			a.Partitions[int32(p)] = rs
			asg = append(asg, rs)
		}
		data, err := a.Encode()
		if err != nil {
			t.Fatal(err)
		}
		cfg, _ := znodes.EntityConfig{}.Encode()
		ops = append(ops, zkadmin.CreateOp(znodes.TopicPath(name), data, zkadmin.Persistent),
			zkadmin.CreateOp(znodes.ConfigEntityPath(znodes.EntityTopics, name), cfg, zkadmin.Persistent))
		ops = append(ops, partitionStateOps(t, name, asg)...)
		ops = append(ops, zkadmin.CreateOp(znodes.DeleteTopicPath(name), nil, zkadmin.Persistent))
	}
	setup := time.Now()
	if _, err := zk.MultiBatched(ctx, ops, zkadmin.BatchOptions{MaxInFlight: 1}); err != nil {
		t.Fatal(err)
	}
	t.Logf("setup: %d znodes written in %s", len(ops), time.Since(setup))

	h := newHarness(t, zk, epochVer, Options{})
	var removal time.Duration
	h.onRemove = func(ctx context.Context, names []string) Result {
		start := time.Now()
		r := RemoveTopicZnodes(ctx, zk, h.write, names, ApplyOptions{})
		removal += time.Since(start)
		return r
	}
	start := time.Now()
	h.pushMarkers(ctx)
	h.run(ctx, func() bool { return len(h.m.Topics()) == 0 && h.sent.Load() > 0 })
	total := time.Since(start)
	left, _, err := zk.Children(ctx, znodes.TopicsPath)
	if err != nil || len(left) != 0 {
		t.Fatalf("%d topics left (%v)", len(left), err)
	}
	if markers, _, _ := zk.Children(ctx, znodes.DeleteTopicsPath); len(markers) != 0 {
		t.Fatalf("%d markers left", len(markers))
	}
	t.Logf("deleted %d topics / %d partitions / %d replicas in %s, of which removing the %d znodes %s",
		topics, topics*parts, h.sent.Load(), total, len(ops), removal)
}
