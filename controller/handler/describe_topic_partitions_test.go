package handler

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

func dtpReq(limit int32, cursor *kmsg.DescribeTopicPartitionsRequestCursor, names ...string) *kmsg.DescribeTopicPartitionsRequest {
	r := kmsg.NewPtrDescribeTopicPartitionsRequest()
	r.ResponsePartitionLimit, r.Cursor = limit, cursor
	for _, n := range names {
		t := kmsg.NewDescribeTopicPartitionsRequestTopic()
		t.Topic = n
		r.Topics = append(r.Topics, t)
	}
	return r
}

func cursor(topic string, p int32) *kmsg.DescribeTopicPartitionsRequestCursor {
	return &kmsg.DescribeTopicPartitionsRequestCursor{Topic: topic, Partition: p}
}

// summary renders a response as "topic:err:partitions" entries and the
// next cursor.
func summary(r *kmsg.DescribeTopicPartitionsResponse) (out []string) {
	for _, t := range r.Topics {
		var ps []int32
		for _, p := range t.Partitions {
			ps = append(ps, p.Partition)
		}
		out = append(out, fmt.Sprintf("%s:%d:%v", ptr(t.Topic), t.ErrorCode, ps))
	}
	if r.NextCursor != nil {
		out = append(out, fmt.Sprintf("next=%s/%d", r.NextCursor.Topic, r.NextCursor.Partition))
	}
	return out
}

func TestDescribeTopicPartitions(t *testing.T) {
	gone := onlineTopic("d", 4, []int32{1})
	gone.Deleting = true
	v := withTopics(baseView(), onlineTopic("a", 1, []int32{1}, []int32{2}, []int32{3}),
		onlineTopic("b", 2, []int32{1}, []int32{2}), onlineTopic("c", 3, []int32{1}), gone,
		onlineTopic("x", 5, []int32{1}))
	f := newFixture(t, v, func(o *Options) { o.Authorizer = denyAuthz{deny(OpDescribe, "x"): true} })
	cases := []struct {
		name string
		req  *kmsg.DescribeTopicPartitionsRequest
		want []string
	}{
		{"all, cut inside a topic", dtpReq(4, nil), []string{"a:0:[0 1 2]", "b:0:[0]", "next=b/1"}},
		{"all from the cursor, ends exactly", dtpReq(2, cursor("b", 1)), []string{"b:0:[1]", "c:0:[0]"}},
		{"budget used up at a topic's end", dtpReq(3, nil), []string{"a:0:[0 1 2]", "next=b/0"}},
		{"limit below 1 is 1", dtpReq(0, nil), []string{"a:0:[0]", "next=a/1"}},
		{"explicit, sorted, missing and denied", dtpReq(100, cursor("b", 1), "c", "nope", "b", "x", "d", "a", "bad/x"),
			[]string{"b:0:[1]", "bad/x:17:[]", "c:0:[0]", "d:3:[]", "nope:3:[]", "x:29:[]"}},
		{"explicit invalid name", dtpReq(100, nil, "bad/x"), []string{"bad/x:17:[]"}},
		{"cursor topic not listed", dtpReq(100, cursor("b", 0), "a", "c"), []string{"a:42:[]", "c:42:[]"}},
		{"negative cursor partition", dtpReq(100, cursor("a", -1), "a"), []string{"a:42:[]"}},
		{"cursor past the end of its topic", dtpReq(1, cursor("a", 7)), []string{"a:0:[]", "b:0:[0]", "next=b/1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := f.call(tc.req).(*kmsg.DescribeTopicPartitionsResponse)
			if s := summary(got); !reflect.DeepEqual(s, tc.want) {
				t.Errorf("got %q\nwant %q", s, tc.want)
			}
		})
	}
	got := f.call(dtpReq(1, nil, "a")).(*kmsg.DescribeTopicPartitionsResponse)
	rt := got.Topics[0]
	p := rt.Partitions[0]
	if rt.AuthorizedOperations != 3576 || rt.TopicID != tid(1) || p.EligibleLeaderReplicas == nil ||
		p.LastKnownELR == nil || p.LeaderID != 1 || p.LeaderEpoch != 0 {
		t.Errorf("fields: %+v", rt)
	}
}
