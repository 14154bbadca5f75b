package handler

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller"
)

// hmetaTopicN is an online topic with n partitions on brokers 1-3.
func hmetaTopicN(name string, id byte, n int) *controller.TopicView {
	asg := make([][]int32, n)
	for p := range asg {
		asg[p] = []int32{int32(p%3 + 1)}
	}
	return onlineTopic(name, id, asg...)
}

// hmetaPagingView: __consumer_offsets 2, a 3, b 1, c 4, d 2 (queued for
// deletion), e 2: twelve partitions to describe.
func hmetaPagingView() *View {
	d := hmetaTopicN("d", 5, 2)
	d.Deleting = true
	return withTopics(baseView(), hmetaTopicN("__consumer_offsets", 1, 2), hmetaTopicN("a", 2, 3),
		hmetaTopicN("b", 3, 1), hmetaTopicN("c", 4, 4), d, hmetaTopicN("e", 6, 2))
}

var hmetaPagingAll = []string{"__consumer_offsets/0", "__consumer_offsets/1", "a/0", "a/1", "a/2", "b/0",
	"c/0", "c/1", "c/2", "c/3", "e/0", "e/1"}

// hmetaWalk follows NextCursor from the first page, as the Java
// AdminClient does, and returns every partition described and every
// error entry, each in order.
func hmetaWalk(t *testing.T, f *fixture, limit int32, names ...string) (parts, errs []string) {
	t.Helper()
	var cur *kmsg.DescribeTopicPartitionsRequestCursor
	for page := 0; ; page++ {
		if page > 100 {
			t.Fatalf("limit %d: no end after %d pages", limit, page)
		}
		got := f.call(dtpReq(limit, cur, names...)).(*kmsg.DescribeTopicPartitionsResponse)
		n := 0
		for _, tp := range got.Topics {
			if tp.ErrorCode != 0 {
				errs = append(errs, fmt.Sprintf("%s:%d", ptr(tp.Topic), tp.ErrorCode))
				continue
			}
			for _, p := range tp.Partitions {
				parts = append(parts, fmt.Sprintf("%s/%d", ptr(tp.Topic), p.Partition))
				n++
			}
		}
		if n > int(limit) {
			t.Errorf("limit %d: page %d has %d partitions", limit, page, n)
		}
		if got.NextCursor == nil {
			return parts, errs
		}
		if n == 0 {
			t.Fatalf("limit %d: page %d made no progress: %q", limit, page, summary(got))
		}
		cur = cursor(got.NextCursor.Topic, got.NextCursor.Partition)
	}
}

// TestDescribeTopicPartitionsPagingCoversAll: walking the cursor with
// any limit describes every partition exactly once, in topic-name and
// partition order; in an explicit list, missing, invalid and deleting
// topics are answered exactly once and cost no budget (apis.md §11).
func TestDescribeTopicPartitionsPagingCoversAll(t *testing.T) {
	f := newFixture(t, hmetaPagingView())
	for limit := int32(1); limit <= 13; limit++ {
		parts, errs := hmetaWalk(t, f, limit)
		if !slices.Equal(parts, hmetaPagingAll) || len(errs) != 0 {
			t.Errorf("all topics, limit %d: %q %q", limit, parts, errs)
		}
		parts, errs = hmetaWalk(t, f, limit, "e", "missing", "a", "d", "c", "bad/x", "b", "__consumer_offsets")
		if !slices.Equal(parts, hmetaPagingAll) {
			t.Errorf("explicit, limit %d: %q", limit, parts)
		}
		slices.Sort(errs)
		if want := []string{"bad/x:17", "d:3", "missing:3"}; !slices.Equal(errs, want) {
			t.Errorf("explicit, limit %d: errors %q, want %q", limit, errs, want)
		}
	}
}

// TestDescribeTopicPartitionsLimitClamp: the budget is
// max(1, min(2000, ResponsePartitionLimit)), kmsg's default being 2000.
func TestDescribeTopicPartitionsLimitClamp(t *testing.T) {
	f := newFixture(t, withTopics(baseView(), hmetaTopicN("big", 1, 2500), hmetaTopicN("small", 2, 1)))
	for _, tc := range []struct {
		limit int32
		n     int
		next  string
	}{{5000, 2000, "big/2000"}, {2000, 2000, "big/2000"}, {1999, 1999, "big/1999"}, {-5, 1, "big/1"}, {0, 1, "big/1"}} {
		got := f.call(dtpReq(tc.limit, nil)).(*kmsg.DescribeTopicPartitionsResponse)
		if len(got.Topics) != 1 || len(got.Topics[0].Partitions) != tc.n || got.NextCursor == nil ||
			fmt.Sprintf("%s/%d", got.NextCursor.Topic, got.NextCursor.Partition) != tc.next {
			t.Errorf("limit %d: %d topics, next %+v; want %d partitions and %s", tc.limit, len(got.Topics),
				got.NextCursor, tc.n, tc.next)
		}
	}
	def := kmsg.NewPtrDescribeTopicPartitionsRequest()
	def.Cursor = cursor("big", 2000)
	got := f.call(def).(*kmsg.DescribeTopicPartitionsResponse)
	if s := summary(got); len(s) != 2 || s[1] != "small:0:[0]" || len(got.Topics[0].Partitions) != 500 {
		t.Errorf("from big/2000 with the default limit: %d topics, next %+v", len(got.Topics), got.NextCursor)
	}
}

// TestDescribeTopicPartitionsBudgetEndsBeforeMissing: when the budget is
// used up exactly at a topic's end, NextCursor names the next topic at
// partition 0 even though it does not exist, and that topic is not in
// the page (apis.md §11 step 3); the next page answers it.
func TestDescribeTopicPartitionsBudgetEndsBeforeMissing(t *testing.T) {
	f := newFixture(t, withTopics(baseView(), hmetaTopicN("a", 1, 2), hmetaTopicN("z", 2, 1)))
	got := f.call(dtpReq(2, nil, "z", "m", "a")).(*kmsg.DescribeTopicPartitionsResponse)
	if s, want := summary(got), []string{"a:0:[0 1]", "next=m/0"}; !reflect.DeepEqual(s, want) {
		t.Errorf("page 1: %q, want %q", s, want)
	}
	got = f.call(dtpReq(2, cursor("m", 0), "z", "m", "a")).(*kmsg.DescribeTopicPartitionsResponse)
	if s, want := summary(got), []string{"m:3:[]", "z:0:[0]"}; !reflect.DeepEqual(s, want) {
		t.Errorf("page 2: %q, want %q", s, want)
	}
}

// TestDescribeTopicPartitionsPartitionFields: error always 0, a missing
// leader only as LeaderID -1 with its epoch kept, replicas and ISR
// unfiltered, offline replicas as the controller sees them, IsInternal,
// topic id and the operations (always computed) (apis.md §11 step 4).
func TestDescribeTopicPartitionsPartitionFields(t *testing.T) {
	v := baseView()
	v.Brokers = v.Brokers[:2] // 3 is dead
	top := onlineTopic("f", 7, []int32{3, 1}, []int32{2, 3})
	top.Partitions[0].Leader, top.Partitions[0].LeaderEpoch, top.Partitions[0].ISR = -1, 6, []int32{3}
	top.Partitions[0].Offline, top.Partitions[1].Offline = []int32{3}, []int32{3}
	top.Partitions[1].LeaderEpoch = 2
	v = withTopics(v, top, hmetaTopicN("__consumer_offsets", 8, 1))
	f := newFixture(t, v, func(o *Options) { o.Authorizer = denyAuthz{deny(OpAlter, "f"): true} })
	got := f.call(dtpReq(100, nil, "f", "__consumer_offsets")).(*kmsg.DescribeTopicPartitionsResponse)
	if len(got.Topics) != 2 || got.NextCursor != nil {
		t.Fatalf("%q", summary(got))
	}
	co, ft := got.Topics[0], got.Topics[1]
	if ptr(co.Topic) != "__consumer_offsets" || !co.IsInternal || co.TopicID != tid(8) || co.AuthorizedOperations != 3576 {
		t.Errorf("__consumer_offsets: %+v", co)
	}
	if ptr(ft.Topic) != "f" || ft.IsInternal || ft.TopicID != tid(7) || ft.ErrorCode != 0 ||
		ft.AuthorizedOperations != 3576&^(1<<OpAlter) || len(ft.Partitions) != 2 {
		t.Fatalf("f: %+v", ft)
	}
	type pf struct {
		err                   int16
		leader, epoch         int32
		replicas, isr, offlin []int32
	}
	want := []pf{{0, -1, 6, []int32{3, 1}, []int32{3}, []int32{3}}, {0, 2, 2, []int32{2, 3}, []int32{2, 3}, []int32{3}}}
	for i, p := range ft.Partitions {
		g := pf{p.ErrorCode, p.LeaderID, p.LeaderEpoch, p.Replicas, p.ISR, p.OfflineReplicas}
		if p.Partition != int32(i) || !reflect.DeepEqual(g, want[i]) {
			t.Errorf("partition %d: %+v, want %+v", i, g, want[i])
		}
	}
}

// TestDescribeTopicPartitionsDeniedEntries: without DESCRIBE, an
// explicit list gets TOPIC_AUTHORIZATION_FAILED whether or not the topic
// exists, with a zero id, IsInternal false, no partitions and no
// operations, after the others; an all-topics request drops the topic. A
// denied cursor topic is still a valid cursor.
func TestDescribeTopicPartitionsDeniedEntries(t *testing.T) {
	v := withTopics(baseView(), hmetaTopicN("a", 1, 1), hmetaTopicN("secret", 2, 2), hmetaTopicN("__consumer_offsets", 3, 1))
	f := newFixture(t, v, func(o *Options) {
		o.Authorizer = denyAuthz{deny(OpDescribe, "secret"): true, deny(OpDescribe, "ghost"): true,
			deny(OpDescribe, "__consumer_offsets"): true}
	})
	got := f.call(dtpReq(100, nil, "secret", "ghost", "a", "__consumer_offsets")).(*kmsg.DescribeTopicPartitionsResponse)
	if len(got.Topics) != 4 || ptr(got.Topics[0].Topic) != "a" || got.NextCursor != nil {
		t.Fatalf("%q", summary(got))
	}
	var denied []string
	for _, tp := range got.Topics[1:] {
		denied = append(denied, ptr(tp.Topic))
		if tp.ErrorCode != 29 || tp.TopicID != [16]byte{} || tp.IsInternal || len(tp.Partitions) != 0 ||
			tp.AuthorizedOperations != authorizedOpsNotRequested {
			t.Errorf("denied %s: %+v", ptr(tp.Topic), tp)
		}
	}
	slices.Sort(denied)
	if !slices.Equal(denied, []string{"__consumer_offsets", "ghost", "secret"}) {
		t.Errorf("denied entries %q", denied)
	}
	if s := summary(f.call(dtpReq(100, nil)).(*kmsg.DescribeTopicPartitionsResponse)); !reflect.DeepEqual(s, []string{"a:0:[0]"}) {
		t.Errorf("all topics: %q", s)
	}
	s := summary(f.call(dtpReq(100, cursor("secret", 1), "a", "secret")).(*kmsg.DescribeTopicPartitionsResponse))
	if !reflect.DeepEqual(s, []string{"secret:29:[]"}) {
		t.Errorf("denied cursor topic: %q", s)
	}
}

// TestDescribeTopicPartitionsWholeRequestErrorShape: an invalid cursor
// answers every request entry, duplicates included, with INVALID_REQUEST
// and nothing else (DescribeTopicPartitionsRequest.getErrorResponse); in
// an all-topics request there is then no topic at all.
func TestDescribeTopicPartitionsWholeRequestErrorShape(t *testing.T) {
	f := newFixture(t, withTopics(baseView(), hmetaTopicN("a", 1, 2), hmetaTopicN("b", 2, 1)))
	got := f.call(dtpReq(100, cursor("zz", 0), "b", "b", "a")).(*kmsg.DescribeTopicPartitionsResponse)
	if s, want := summary(got), []string{"b:42:[]", "b:42:[]", "a:42:[]"}; !reflect.DeepEqual(s, want) {
		t.Fatalf("%q, want %q", s, want)
	}
	for _, tp := range got.Topics {
		if tp.TopicID != [16]byte{} || tp.IsInternal || tp.AuthorizedOperations != authorizedOpsNotRequested {
			t.Errorf("%+v", tp)
		}
	}
	got = f.call(dtpReq(100, cursor("a", -1))).(*kmsg.DescribeTopicPartitionsResponse)
	if len(got.Topics) != 0 || got.NextCursor != nil {
		t.Errorf("all topics, negative cursor partition: %q", summary(got))
	}
}

// TestDescribeTopicPartitionsExplicitDuplicatesAndCursorPastEnd: names
// asked twice are answered once; a cursor after every topic name answers
// nothing and ends the walk.
func TestDescribeTopicPartitionsExplicitDuplicatesAndCursorPastEnd(t *testing.T) {
	f := newFixture(t, withTopics(baseView(), hmetaTopicN("a", 1, 2)))
	s := summary(f.call(dtpReq(100, nil, "a", "missing", "a", "missing")).(*kmsg.DescribeTopicPartitionsResponse))
	if want := []string{"a:0:[0 1]", "missing:3:[]"}; !reflect.DeepEqual(s, want) {
		t.Errorf("duplicates: %q, want %q", s, want)
	}
	got := f.call(dtpReq(100, cursor("zzz", 0))).(*kmsg.DescribeTopicPartitionsResponse)
	if len(got.Topics) != 0 || got.NextCursor != nil {
		t.Errorf("cursor past the end: %q", summary(got))
	}
}
