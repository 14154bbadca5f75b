package handler

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// hcfgMovingView: foo-1 is moving from [2] to [3] (adding 3, removing 2),
// bar-0 is shrinking from [1, 2] to [1] (removing 2 only), and gone-0,
// of a topic queued for deletion, is still moving (adding 3).
func hcfgMovingView() *View {
	foo := onlineTopic("foo", 1, []int32{1}, []int32{2, 3})
	foo.Partitions[1].Adding, foo.Partitions[1].Removing = []int32{3}, []int32{2}
	bar := onlineTopic("bar", 2, []int32{1, 2}, []int32{2})
	bar.Partitions[0].Removing = []int32{2}
	gone := onlineTopic("gone", 3, []int32{1, 3})
	gone.Partitions[0].Adding = []int32{3}
	gone.Deleting = true
	return withTopics(baseView(), foo, bar, gone)
}

func hcfgLprReq(topics map[string][]int32, order ...string) *kmsg.ListPartitionReassignmentsRequest {
	r := kmsg.NewPtrListPartitionReassignmentsRequest()
	if topics != nil {
		r.Topics = []kmsg.ListPartitionReassignmentsRequestTopic{}
	}
	for _, name := range order {
		t := kmsg.NewListPartitionReassignmentsRequestTopic()
		t.Topic, t.Partitions = name, topics[name]
		r.Topics = append(r.Topics, t)
	}
	return r
}

func hcfgLprResp(parts ...kmsg.ListPartitionReassignmentsResponseTopic) *kmsg.ListPartitionReassignmentsResponse {
	r := kmsg.NewPtrListPartitionReassignmentsResponse()
	r.Topics = parts
	r.ErrorMessage = sp("") // Kafka's default, kept when nothing failed
	return r
}

func hcfgLprTopic(name string, p int32, replicas, adding, removing []int32) kmsg.ListPartitionReassignmentsResponseTopic {
	t := kmsg.NewListPartitionReassignmentsResponseTopic()
	t.Topic = name
	rp := kmsg.NewListPartitionReassignmentsResponseTopicPartition()
	rp.Partition, rp.Replicas, rp.AddingReplicas, rp.RemovingReplicas = p, replicas, adding, removing
	t.Partitions = append(t.Partitions, rp)
	return t
}

// TestListPartitionReassignmentsSelection: a null topic list lists every
// partition being reassigned, including one that only removes replicas and
// one of a topic queued for deletion (the controller still holds its
// reassignment); an empty list lists nothing; a listed partition appears
// once however often it is named; unknown topics and partitions, and
// partitions not moving, are silently left out (apis.md §8.2).
func TestListPartitionReassignmentsSelection(t *testing.T) {
	f := newFixture(t, hcfgMovingView())
	bar := hcfgLprTopic("bar", 0, []int32{1, 2}, []int32{}, []int32{2})
	foo := hcfgLprTopic("foo", 1, []int32{2, 3}, []int32{3}, []int32{2})
	gone := hcfgLprTopic("gone", 0, []int32{1, 3}, []int32{3}, []int32{})

	sameWire(t, f.call(hcfgLprReq(nil)), hcfgLprResp(bar, foo, gone))
	sameWire(t, f.call(hcfgLprReq(map[string][]int32{})), hcfgLprResp())
	sameWire(t, f.call(hcfgLprReq(map[string][]int32{
		"foo": {1, 1, 0, 9}, "nope": {0}, "bar": {0}, "gone": {}},
		"foo", "nope", "bar", "gone", "foo")), hcfgLprResp(bar, foo))
	sameWire(t, f.call(hcfgLprReq(map[string][]int32{"gone": {0, 1}, "foo": {0}}, "gone", "foo")), hcfgLprResp(gone))
	if len(f.admin.moves) != 0 || len(f.admin.cancels) != 0 {
		t.Errorf("listing wrote: %+v %+v", f.admin.moves, f.admin.cancels)
	}
}

// TestElectLeadersHandlerListsAndTypes: what the handler hands the
// controller and what it answers around it.
//   - An empty (non-null) topic list elects nothing: an empty answer, top
//     level 0, and the controller is not asked.
//   - A null list reaches the controller as null (all partitions), at v0,
//     v1 and v2, with the request's election type (v0 is always
//     PREFERRED).
//   - A denied or misdirected request answers each listed partition once,
//     however often it is listed, with a null message.
//   - An elected partition the view never shows with its new leader is
//     REQUEST_TIMED_OUT with a null message (apis.md §7.4).
func TestElectLeadersHandlerListsAndTypes(t *testing.T) {
	for _, version := range []int16{1, 2} {
		f, fe := electFixture(t, electView(), false)
		got := f.call(elReq(version, 1, 5000, map[string][]int32{})).(*kmsg.ElectLeadersResponse)
		if s := elSummary(got); !reflect.DeepEqual(s, []string{"top=0"}) || len(fe.requests) != 0 {
			t.Errorf("v%d empty list: %v, elector asked %d times", version, s, len(fe.requests))
		}
	}

	for _, tc := range []struct {
		version int16
		typ     int8
	}{{0, 0}, {1, 1}, {2, 0}, {2, 1}} {
		f, fe := electFixture(t, electView(), false)
		got := f.call(elReq(tc.version, tc.typ, 5000, nil)).(*kmsg.ElectLeadersResponse)
		if len(fe.requests) != 1 || fe.requests[0].Topics != nil || fe.requests[0].ElectionType != tc.typ {
			t.Fatalf("v%d type %d: elector got %+v", tc.version, tc.typ, fe.requests)
		}
		if got.ErrorCode != 0 || len(got.Topics) != 0 {
			t.Errorf("v%d type %d: %v", tc.version, tc.typ, elSummary(got))
		}
	}

	dups := map[string][]int32{"foo": {1, 0, 1, 0}, "nope": {3, 3}}
	inactive := electView()
	inactive.Active = false
	for _, tc := range []struct {
		name  string
		view  *View
		authz Authorizer
		req   *kmsg.ElectLeadersRequest
		want  []string
	}{
		{"v2 denied", electView(), denyAuthz{deny(OpAlter, ClusterResourceName): true}, elReq(2, 0, 5000, dups),
			[]string{"top=31", "foo-0:31", "foo-1:31", "nope-3:31"}},
		{"v0 denied", electView(), denyAuthz{deny(OpAlter, ClusterResourceName): true}, elReq(0, 0, 5000, dups),
			[]string{"top=0", "foo-0:31", "foo-1:31", "nope-3:31"}},
		{"v1 not controller", inactive, nil, elReq(1, 0, 5000, dups),
			[]string{"top=0", "foo-0:41", "foo-1:41", "nope-3:41"}},
	} {
		f, fe := electFixture(t, tc.view, false, func(o *Options) { o.Authorizer = tc.authz })
		got := f.call(tc.req).(*kmsg.ElectLeadersResponse)
		if s := elSummary(got); !reflect.DeepEqual(s, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, s, tc.want)
		}
		for _, rt := range got.Topics {
			for _, p := range rt.Partitions {
				if p.ErrorMessage != nil {
					t.Errorf("%s: %s-%d message %q, want null", tc.name, rt.Topic, p.Partition, *p.ErrorMessage)
				}
			}
		}
		if len(fe.requests) != 0 {
			t.Errorf("%s: the elector was asked: %+v", tc.name, fe.requests)
		}
	}

	f, fe := electFixture(t, electView(), false)
	fe.publish = false
	got := f.call(elReq(1, 0, 20, map[string][]int32{"foo": {1}})).(*kmsg.ElectLeadersResponse)
	if s := elSummary(got); !reflect.DeepEqual(s, []string{"top=0", "foo-1:7"}) || got.Topics[0].Partitions[0].ErrorMessage != nil {
		t.Errorf("timed out: %v %+v", s, got.Topics)
	}
}

// syncingCluster is a Cluster whose view lags the controller: Sync
// publishes caughtUp (the view after the event in flight) and returns nil,
// or returns err, or, with block, waits for ctx.
type syncingCluster struct {
	*Views
	caughtUp *View
	err      error
	block    bool
	calls    int
}

func (c *syncingCluster) Sync(ctx context.Context) error {
	c.calls++
	switch {
	case c.block:
		<-ctx.Done()
		return ctx.Err()
	case c.err != nil:
		return c.err
	}
	c.Publish(c.caughtUp)
	return nil
}

// TestListPartitionReassignmentsSyncs: the answer is read after the
// controller has caught up with its own writes, so a reassignment that
// finished just before the request is not listed; catching up past the
// request's timeout answers REQUEST_TIMED_OUT, losing the controller
// NOT_CONTROLLER, and a timeout of 0 answers from the current view
// without waiting.
func TestListPartitionReassignmentsSyncs(t *testing.T) {
	finished := withTopics(hcfgMovingView(), onlineTopic("foo", 1, []int32{1}, []int32{3}))
	bar := hcfgLprTopic("bar", 0, []int32{1, 2}, []int32{}, []int32{2})
	gone := hcfgLprTopic("gone", 0, []int32{1, 3}, []int32{3}, []int32{})
	fooMoving := hcfgLprTopic("foo", 1, []int32{2, 3}, []int32{3}, []int32{2})

	for _, tc := range []struct {
		name      string
		cluster   syncingCluster
		timeoutMs int32
		wantCode  int16
		want      []kmsg.ListPartitionReassignmentsResponseTopic
		wantCalls int
	}{
		{"caught up", syncingCluster{caughtUp: finished}, 60000, 0, []kmsg.ListPartitionReassignmentsResponseTopic{bar, gone}, 1},
		{"timed out", syncingCluster{block: true}, 20, 7, nil, 1},
		{"preempted", syncingCluster{err: errors.New("preempted")}, 60000, 41, nil, 1},
		{"no wait", syncingCluster{caughtUp: finished}, 0, 0, []kmsg.ListPartitionReassignmentsResponseTopic{bar, fooMoving, gone}, 0},
	} {
		cl := tc.cluster
		cl.Views = NewViews(hcfgMovingView())
		f := newFixture(t, nil, func(o *Options) { o.Cluster = &cl })
		req := hcfgLprReq(nil)
		req.TimeoutMillis = tc.timeoutMs
		got := f.call(req).(*kmsg.ListPartitionReassignmentsResponse)
		if got.ErrorCode != tc.wantCode || cl.calls != tc.wantCalls {
			t.Errorf("%s: error %d after %d syncs, want %d after %d", tc.name, got.ErrorCode, cl.calls, tc.wantCode, tc.wantCalls)
		}
		if tc.wantCode == 0 {
			sameWire(t, got, hcfgLprResp(tc.want...))
		} else if len(got.Topics) != 0 {
			t.Errorf("%s: topics listed with an error: %+v", tc.name, got.Topics)
		}
	}
}
