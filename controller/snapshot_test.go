package controller

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// smFrozen is a deep copy of a view's topics, to compare a published view
// with itself later.
func smFrozen(v *MetadataView) map[string]TopicView {
	out := map[string]TopicView{}
	for name, tv := range v.Topics.All() {
		c := *tv
		c.Partitions = nil
		for _, pv := range tv.Partitions {
			for _, s := range []*[]int32{&pv.Replicas, &pv.ISR, &pv.Offline, &pv.Adding, &pv.Removing, &pv.ELR, &pv.LastKnownELR} {
				*s = slices.Clone(*s)
			}
			c.Partitions = append(c.Partitions, pv)
		}
		out[name] = c
	}
	return out
}

// TestSnapshotContents pins what a published view holds for an active
// controller: its id and epoch; registered brokers ascending with their
// epochs, racks and shutting-down flags; itself with the rack of the
// lowest broker (all brokers have racks); every topic with its id,
// deletion flag and partitions in id order, where a partition without
// leadership reads leader -1 and leader epoch -1, and Offline lists the
// replicas that are dead, shutting down or on a failed log directory.
func TestSnapshotContents(t *testing.T) {
	b := smNewBare(t)
	ls := b.lead(t, 7)
	cc := ls.cc
	smBroker(cc, 3, "r1")
	smBroker(cc, 1, "r2")
	smBroker(cc, 2, "r1")
	cc.shuttingDown[2] = true
	cc.offlineDirs[3] = map[TopicPartition]bool{smTP("a", 0): true}
	cc.putTopic("a", znodes.TopicAssignment{TopicID: smID(1),
		Partitions:     map[int32][]int32{10: {1, 2}, 0: {1, 2, 3}, 1: {3, 4}},
		AddingReplicas: map[int32][]int32{1: {4}}, RemovingReplicas: map[int32][]int32{1: {3}}})
	cc.partition(smTP("a", 0)).lead = &election.LeaderAndIsr{Leader: 1, LeaderEpoch: 2, PartitionEpoch: 5,
		ISR: []int32{1, 2, 3}, ELR: []int32{2}, LastKnownELR: []int32{3}}
	cc.putTopic("b", znodes.TopicAssignment{Partitions: map[int32][]int32{0: {1}}})
	cc.deleting["b"] = true
	b.c.markAllDirty(ls)
	b.c.afterEvent()
	v := b.c.Snapshot()

	if !v.Active || v.Epoch != 7 || v.ControllerID != 100 {
		t.Fatalf("view active %v epoch %d controller %d, want active, epoch 7, controller 100", v.Active, v.Epoch, v.ControllerID)
	}
	var brokers []string
	for _, bv := range v.Brokers {
		brokers = append(brokers, smFormatBroker(bv))
	}
	if want := []string{"1 e1001 r2 live", "2 e1002 r1 shutting-down", "3 e1003 r1 live"}; !slices.Equal(brokers, want) {
		t.Fatalf("brokers %v, want %v", brokers, want)
	}
	if v.Self.ID != 100 || v.Self.Epoch != -1 || v.Self.Rack == nil || *v.Self.Rack != "r2" || len(v.Self.Endpoints) != 1 {
		t.Fatalf("self %+v, want id 100, epoch -1, rack r2 (broker 1's) and its endpoint", v.Self)
	}
	if v.Topics.Len() != 2 {
		t.Fatalf("%d topics, want 2", v.Topics.Len())
	}
	a := v.Topics.Get("a")
	if a == nil || a.ID != smID(1) || a.Deleting {
		t.Fatalf("topic a %+v", a)
	}
	want := []PartitionView{
		{Partition: 0, Leader: 1, LeaderEpoch: 2, PartitionEpoch: 5, Replicas: []int32{1, 2, 3}, ISR: []int32{1, 2, 3},
			Offline: []int32{2, 3}, ELR: []int32{2}, LastKnownELR: []int32{3}},
		{Partition: 1, Leader: -1, LeaderEpoch: -1, Replicas: []int32{3, 4}, Offline: []int32{4},
			Adding: []int32{4}, Removing: []int32{3}},
		{Partition: 10, Leader: -1, LeaderEpoch: -1, Replicas: []int32{1, 2}, Offline: []int32{2}},
	}
	if !reflect.DeepEqual(a.Partitions, want) {
		t.Fatalf("topic a partitions\n got %+v\nwant %+v", a.Partitions, want)
	}
	if bt := v.Topics.Get("b"); bt == nil || !bt.Deleting || bt.ID != (znodes.UUID{}) {
		t.Fatalf("topic b %+v, want queued for deletion, no id", bt)
	}
}

func smFormatBroker(b BrokerView) string {
	rack, state := "-", "live"
	if b.Rack != nil {
		rack = *b.Rack
	}
	if b.ShuttingDown {
		state = "shutting-down"
	}
	return fmt.Sprintf("%d e%d %s %s", b.ID, b.Epoch, rack, state)
}

// TestSnapshotImmutableAndShared: a published view never changes, whatever
// happens to the context afterwards (lists are copied out, not aliased);
// the next view shares every topic the event did not mark, pointer for
// pointer, so that callers can cache per topic view; and an event that
// changed nothing publishes nothing.
func TestSnapshotImmutableAndShared(t *testing.T) {
	b := smNewBare(t)
	ls := b.lead(t, 1)
	smBroker(ls.cc, 1, "")
	smBroker(ls.cc, 2, "")
	for _, name := range []string{"x", "y", "z"} {
		ls.cc.putTopic(name, znodes.TopicAssignment{Partitions: map[int32][]int32{0: {1, 2}}})
		ls.cc.partition(smTP(name, 0)).lead = &election.LeaderAndIsr{Leader: 1, ISR: []int32{1, 2}}
	}
	b.c.markAllDirty(ls)
	b.c.afterEvent()
	v1 := b.c.Snapshot()
	frozen := smFrozen(v1)

	// An event changes x in place, re-elects y, removes z, adds w and
	// loses broker 2.
	px := ls.cc.partition(smTP("x", 0))
	px.assign.Replicas[0], px.lead.ISR[0] = 42, 42
	b.c.markDirty(smTP("x", 0))
	b.c.setLeadership(ls, smTP("y", 0), election.LeaderAndIsr{Leader: 2, LeaderEpoch: 1, ISR: []int32{2}})
	ls.cc.removeTopic("z")
	b.c.markDirty(smTP("z", 0))
	ls.cc.putTopic("w", znodes.TopicAssignment{Partitions: map[int32][]int32{0: {2}}})
	b.c.markDirty(smTP("w", 0))
	delete(ls.cc.brokers, 2)
	b.c.afterEvent()
	v2 := b.c.Snapshot()

	if v2 == v1 {
		t.Fatal("no new view after a change")
	}
	if got := smFrozen(v1); !reflect.DeepEqual(got, frozen) {
		t.Fatalf("the earlier view changed:\n got %+v\nwant %+v", got, frozen)
	}
	if len(v1.Brokers) != 2 || len(v2.Brokers) != 1 {
		t.Fatalf("brokers: earlier view %d, later %d; want 2 and 1", len(v1.Brokers), len(v2.Brokers))
	}
	if x := v2.Topics.Get("x").Partitions[0]; x.Replicas[0] != 42 || x.ISR[0] != 42 {
		t.Fatalf("later view of x %+v, want the changed lists", x)
	}
	if y := v2.Topics.Get("y").Partitions[0]; y.Leader != 2 {
		t.Fatalf("later view of y %+v, want leader 2", y)
	}
	if v2.Topics.Get("z") != nil || v2.Topics.Get("w") == nil || v1.Topics.Get("w") != nil || v1.Topics.Get("z") == nil {
		t.Fatal("z and w: want z only in the earlier view and w only in the later one")
	}
	// The next event marks x only: y and w are shared, x is rebuilt.
	b.c.markDirty(smTP("x", 0))
	b.c.afterEvent()
	v3 := b.c.Snapshot()
	if v3.Topics.Get("y") != v2.Topics.Get("y") || v3.Topics.Get("w") != v2.Topics.Get("w") {
		t.Fatal("unmarked topics were rebuilt instead of shared")
	}
	if v3.Topics.Get("x") == v2.Topics.Get("x") {
		t.Fatal("the marked topic was not rebuilt")
	}
	b.c.afterEvent() // nothing changed
	if b.c.Snapshot() != v3 {
		t.Fatal("an event that changed nothing published a new view")
	}
}

// TestSnapshotAcrossLeaderships: after resigning, the view is a standby's
// (inactive, no brokers, no topics, no epoch); the first view of the next
// leadership lists every topic even though the event marked none, since
// nothing of the earlier leadership may be shared.
func TestSnapshotAcrossLeaderships(t *testing.T) {
	b := smNewBare(t)
	ls := b.lead(t, 1)
	smBroker(ls.cc, 1, "r")
	ls.cc.putTopic("t", znodes.TopicAssignment{Partitions: map[int32][]int32{0: {1}}})
	b.c.markAllDirty(ls)
	b.c.afterEvent()
	first := b.c.Snapshot()

	b.c.resign("test")
	b.c.activeID = -1
	b.c.afterEvent()
	v := b.c.Snapshot()
	if v.Active || v.Epoch != 0 || v.ControllerID != -1 || len(v.Brokers) != 0 || v.Topics.Len() != 0 {
		t.Fatalf("standby view %+v, want inactive with nothing", v)
	}
	if v.Self.ID != 100 || v.Self.Rack != nil {
		t.Fatalf("standby self %+v, want id 100 without rack", v.Self)
	}
	if first.Topics.Get("t") == nil || !first.Active {
		t.Fatal("resigning changed the earlier view")
	}

	ls2 := b.lead(t, 2)
	smBroker(ls2.cc, 1, "r")
	ls2.cc.putTopic("t", znodes.TopicAssignment{Partitions: map[int32][]int32{0: {1}}})
	ls2.cc.putTopic("u", znodes.TopicAssignment{Partitions: map[int32][]int32{0: {1}}})
	b.c.viewDirty = true // no topic marked
	b.c.afterEvent()
	v = b.c.Snapshot()
	if !v.Active || v.Epoch != 2 || v.Topics.Len() != 2 {
		t.Fatalf("first view of the new leadership: active %v epoch %d with %d topics, want active, 2, 2",
			v.Active, v.Epoch, v.Topics.Len())
	}
	if v.Topics.Get("t") == first.Topics.Get("t") {
		t.Fatal("a topic view of the earlier leadership was reused")
	}
}

// TestSnapshotWait pins WaitSnapshot: a condition that already holds
// returns at once (even with the context done); otherwise it returns the
// first published view that satisfies it; and when the context ends first
// it returns the latest view with the context's error.
func TestSnapshotWait(t *testing.T) {
	b := smNewBare(t)
	ls := b.lead(t, 1)
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if v, err := b.c.WaitSnapshot(done, func(*MetadataView) bool { return true }); err != nil || v != b.c.Snapshot() {
		t.Fatalf("condition already true: %v, %v; want the current view and no error", v, err)
	}

	type result struct {
		v   *MetadataView
		err error
	}
	got := make(chan result, 1)
	go func() {
		v, err := b.c.WaitSnapshot(testCtx(t), func(v *MetadataView) bool { return v.Topics.Get("late") != nil })
		got <- result{v, err}
	}()
	ls.cc.putTopic("early", znodes.TopicAssignment{Partitions: map[int32][]int32{0: {1}}})
	b.c.markDirty(smTP("early", 0))
	b.c.afterEvent()
	ls.cc.putTopic("late", znodes.TopicAssignment{Partitions: map[int32][]int32{0: {1}}})
	b.c.markDirty(smTP("late", 0))
	b.c.afterEvent()
	r := <-got
	if r.err != nil || r.v != b.c.Snapshot() {
		t.Fatalf("wait for late: %v, %v; want the view that added it", r.v, r.err)
	}

	ctx, stop := context.WithCancel(context.Background())
	go func() {
		v, err := b.c.WaitSnapshot(ctx, func(*MetadataView) bool { return false })
		got <- result{v, err}
	}()
	stop()
	r = <-got
	if !errors.Is(r.err, context.Canceled) || r.v != b.c.Snapshot() {
		t.Fatalf("cancelled wait: %v, %v; want the latest view and context.Canceled", r.v, r.err)
	}
}

// TestSnapshotLiveTopicChanges runs the real loop: creating a topic or
// adding partitions rebuilds only that topic's view (the others are
// shared with the previous view), an earlier view keeps what it showed,
// and a topic marked for deletion is shown with Deleting set while its
// deletion cannot proceed (its broker does not answer).
func TestSnapshotLiveTopicChanges(t *testing.T) {
	chroot := testChroot(t)
	obs := connectZK(t, chroot, "", 0)
	registerBroker(t, obs, 1, "127.0.0.1", 1)
	registerBroker(t, obs, 2, "127.0.0.1", 1)
	n := startNode(t, chroot, nodeOpts{id: 100})
	createTopic(t, obs, "x", map[int32][]int32{0: {1, 2}})
	createTopic(t, obs, "y", map[int32][]int32{0: {2, 1}})
	v1, err := n.c.WaitSnapshot(testCtx(t), func(v *MetadataView) bool {
		x, y := v.Topics.Get("x"), v.Topics.Get("y")
		return x != nil && y != nil && x.Partitions[0].Leader == 1 && y.Partitions[0].Leader == 2
	})
	if err != nil {
		t.Fatalf("x and y never came online: %v", err)
	}
	frozen := smFrozen(v1)

	id := v1.Topics.Get("x").ID
	data, _ := znodes.TopicAssignment{TopicID: id, Partitions: map[int32][]int32{0: {1, 2}, 1: {2, 1}}}.Encode()
	if _, err := obs.Set(testCtx(t), znodes.TopicPath("x"), data, zkadmin.AnyVersion); err != nil {
		t.Fatal(err)
	}
	v2, err := n.c.WaitSnapshot(testCtx(t), func(v *MetadataView) bool {
		x := v.Topics.Get("x")
		return len(x.Partitions) == 2 && x.Partitions[1].Leader == 2
	})
	if err != nil {
		t.Fatalf("x-1 never came online: %v", err)
	}
	if v2.Topics.Get("y") != v1.Topics.Get("y") {
		t.Error("adding a partition to x rebuilt y's view")
	}
	if got := smFrozen(v1); !reflect.DeepEqual(got, frozen) {
		t.Errorf("an earlier view changed:\n got %+v\nwant %+v", got, frozen)
	}

	markForDeletion(t, obs, "y")
	v3, err := n.c.WaitSnapshot(testCtx(t), func(v *MetadataView) bool {
		y := v.Topics.Get("y")
		return y != nil && y.Deleting
	})
	if err != nil {
		t.Fatalf("y never shown as queued for deletion: %v", err)
	}
	if v1.Topics.Get("y").Deleting || v3.Topics.Get("x").Deleting {
		t.Error("the deletion flag leaked into another view or topic")
	}
}
