package controller

import (
	"context"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/brokerchan"
	"github.com/kzadmin/kzadmin/controller/election"
)

func TestCheckAlterPartition(t *testing.T) {
	cached := &election.LeaderAndIsr{Leader: 1, LeaderEpoch: 5, ISR: []int32{1, 2}, PartitionEpoch: 7}
	recovering := &election.LeaderAndIsr{Leader: 1, LeaderEpoch: 5, ISR: []int32{1}, PartitionEpoch: 7,
		LeaderRecoveryState: election.Recovering}
	live := func(b int32) bool { return b != 9 }
	prop := func(epoch, pe int32, isr ...int32) election.LeaderAndIsr {
		return election.LeaderAndIsr{Leader: 1, LeaderEpoch: epoch, ISR: isr, PartitionEpoch: pe}
	}
	recov := func(l election.LeaderAndIsr) election.LeaderAndIsr {
		l.LeaderRecoveryState = election.Recovering
		return l
	}
	tests := []struct {
		name       string
		cached     *election.LeaderAndIsr
		proposed   election.LeaderAndIsr
		version    int16
		code       int16
		idempotent bool
	}{
		{"no leadership", nil, prop(5, 7, 1), 2, kerr.UnknownTopicOrPartition.Code, false},
		{"newer partition epoch", cached, prop(5, 8, 1), 2, kerr.NotController.Code, false},
		{"newer leader epoch", cached, prop(6, 7, 1), 2, kerr.NotController.Code, false},
		{"older leader epoch", cached, prop(4, 7, 1), 2, kerr.FencedLeaderEpoch.Code, false},
		{"identical retry", cached, prop(5, 7, 1, 2), 2, 0, true},
		{"identical with older partition epoch", cached, prop(5, 6, 1, 2), 2, 0, true},
		{"ISR order matters", cached, prop(5, 6, 2, 1), 2, kerr.InvalidUpdateVersion.Code, false},
		{"older partition epoch", cached, prop(5, 6, 1), 2, kerr.InvalidUpdateVersion.Code, false},
		{"recovering with two in ISR", recovering, recov(prop(5, 7, 1, 2)), 2, kerr.InvalidRequest.Code, false},
		{"back to recovering", cached, recov(prop(5, 7, 1)), 2, kerr.InvalidRequest.Code, false},
		{"recovered from recovering", recovering, prop(5, 7, 1, 2), 2, 0, false},
		{"dead ISR member v2", cached, prop(5, 7, 1, 9), 2, kerr.IneligibleReplica.Code, false},
		{"dead ISR member v1", cached, prop(5, 7, 1, 9), 1, kerr.OperationNotAttempted.Code, false},
		{"shrink", cached, prop(5, 7, 1), 2, 0, false},
		{"expand", cached, prop(5, 7, 1, 2, 3), 3, 0, false},
	}
	for _, tc := range tests {
		code, idem := checkAlterPartition(tc.cached, tc.proposed, live, tc.version)
		if code != tc.code || idem != tc.idempotent {
			t.Errorf("%s: got (%d, %v), want (%d, %v)", tc.name, code, idem, tc.code, tc.idempotent)
		}
	}
}

func TestDiffBrokers(t *testing.T) {
	b := func(id int32, epoch int64) brokerchan.Broker { return brokerchan.Broker{ID: id, Epoch: epoch} }
	known := map[int32]brokerchan.Broker{1: b(1, 10), 2: b(2, 20), 3: b(3, 30)}
	cur := map[int32]brokerchan.Broker{1: b(1, 10), 2: b(2, 25), 4: b(4, 40), 5: b(5, 50)}
	d := diffBrokers(known, cur)
	if !slices.Equal(d.New, []int32{4, 5}) || !slices.Equal(d.Dead, []int32{3}) || !slices.Equal(d.Bounced, []int32{2}) {
		t.Fatalf("%+v", d)
	}
	if d := diffBrokers(known, known); len(d.New)+len(d.Dead)+len(d.Bounced) != 0 {
		t.Fatalf("no change: %+v", d)
	}
	// An older czxid is not a bounce (it cannot happen; ignore it).
	if d := diffBrokers(known, map[int32]brokerchan.Broker{1: b(1, 5), 2: b(2, 20), 3: b(3, 30)}); len(d.Bounced) != 0 {
		t.Fatalf("older epoch: %+v", d)
	}
}

func TestReplaceReplica(t *testing.T) {
	tests := []struct {
		name       string
		replicas   []int32
		candidates []int32
		load       map[int32]int
		want       []int32
		ok         bool
	}{
		{"least loaded", []int32{100, 1}, []int32{1, 2, 3}, map[int32]int{2: 5, 3: 1}, []int32{3, 1}, true},
		{"ties to the lowest id", []int32{1, 100}, []int32{3, 2, 1}, map[int32]int{}, []int32{1, 2}, true},
		{"never a current replica", []int32{100, 2}, []int32{2}, map[int32]int{}, []int32{100, 2}, false},
		{"never itself", []int32{100}, []int32{100}, map[int32]int{}, []int32{100}, false},
	}
	for _, tc := range tests {
		got, ok := replaceReplica(tc.replicas, 100, tc.candidates, tc.load, noRacks)
		if ok != tc.ok || !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v %v, want %v %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
	// The load is updated so that replicas spread.
	load := map[int32]int{}
	a, _ := replaceReplica([]int32{100}, 100, []int32{1, 2}, load, noRacks)
	b, _ := replaceReplica([]int32{100}, 100, []int32{1, 2}, load, noRacks)
	if a[0] == b[0] {
		t.Fatalf("both on %d", a[0])
	}
}

func noRacks(int32) string { return "" }

// TestReplaceReplicaRacks: a broker in a rack the partition does not use
// wins over a less loaded one in a rack it already uses; without such a
// broker, the load decides.
func TestReplaceReplicaRacks(t *testing.T) {
	racks := map[int32]string{1: "r1", 2: "r2", 3: "r3", 4: "r1", 100: "r1"}
	rackOf := func(id int32) string { return racks[id] }
	tests := []struct {
		name       string
		replicas   []int32
		candidates []int32
		load       map[int32]int
		want       []int32
	}{
		{"new rack beats lower load", []int32{100, 1, 2}, []int32{1, 2, 3, 4}, map[int32]int{3: 9, 4: 0}, []int32{3, 1, 2}},
		{"load decides among new racks", []int32{1, 100}, []int32{2, 3, 4}, map[int32]int{2: 4, 3: 1}, []int32{1, 3}},
		{"no new rack left: least loaded", []int32{100, 1, 2, 3}, []int32{1, 2, 3, 4}, map[int32]int{}, []int32{4, 1, 2, 3}},
	}
	for _, tc := range tests {
		got, ok := replaceReplica(tc.replicas, 100, tc.candidates, tc.load, rackOf)
		if !ok || !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v %v, want %v", tc.name, got, ok, tc.want)
		}
	}
}

// TestQueuePreempt: clearing the queue answers waiting requests and keeps
// the event that cleared it; a closed queue refuses events.
func TestQueuePreempt(t *testing.T) {
	q := newEventQueue()
	ap := &alterPartitionEvent{req: kmsg.NewPtrAlterPartitionRequest(), reply: make(chan *kmsg.AlterPartitionResponse, 1)}
	cs := &controlledShutdownEvent{req: kmsg.NewPtrControlledShutdownRequest(), reply: make(chan *kmsg.ControlledShutdownResponse, 1)}
	el := &electLeadersEvent{req: kmsg.NewPtrElectLeadersRequest(), reply: make(chan *kmsg.ElectLeadersResponse, 1)}
	q.push(ap)
	q.push(&startupEvent{})
	q.push(cs)
	q.clearAndPut(&expireEvent{})
	if r := <-ap.reply; r.ErrorCode != kerr.NotController.Code {
		t.Fatalf("AlterPartition preempted with %d", r.ErrorCode)
	}
	if r := <-cs.reply; r.ErrorCode != kerr.StaleControllerEpoch.Code {
		t.Fatalf("ControlledShutdown preempted with %d", r.ErrorCode)
	}
	ev, ok := q.pop(context.Background())
	if _, isExpire := ev.(*expireEvent); !ok || !isExpire || q.len() != 0 {
		t.Fatalf("after clearAndPut: %T, %d left", ev, q.len())
	}
	q.push(el)
	q.close()
	if r := <-el.reply; r.ErrorCode != kerr.NotController.Code {
		t.Fatalf("ElectLeaders on close: %d", r.ErrorCode)
	}
	if q.push(&startupEvent{}) {
		t.Fatal("closed queue took an event")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, ok := q.pop(ctx); ok {
		t.Fatal("pop on an empty queue with a dead ctx")
	}
}
