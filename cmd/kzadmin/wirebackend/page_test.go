package wirebackend

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
)

// fakeDTP serves DescribeTopicPartitions as kzadmind does (partition
// budget and cursor), plus, when topicLimit > 0, seed 003's per-request
// topic limit: topics past it are answered REQUEST_LIMIT_REACHED.
type fakeDTP struct {
	partitions map[string]int // topic -> partition count
	topicLimit int
	requests   []*kmsg.DescribeTopicPartitionsRequest
}

func (f *fakeDTP) send(_ context.Context, req kmsg.Request) (kmsg.Response, error) {
	r := req.(*kmsg.DescribeTopicPartitionsRequest)
	f.requests = append(f.requests, r)
	resp := r.ResponseKind().(*kmsg.DescribeTopicPartitionsResponse)
	from := ""
	if r.Cursor != nil {
		from = r.Cursor.Topic
	}
	var names []string
	if len(r.Topics) == 0 {
		for n := range f.partitions {
			names = append(names, n)
		}
	} else {
		for _, t := range r.Topics {
			names = append(names, t.Topic)
		}
	}
	sort.Strings(names)
	budget := int(r.ResponsePartitionLimit)
	served := 0
	for _, n := range names {
		if n < from {
			continue
		}
		rt := kmsg.NewDescribeTopicPartitionsResponseTopic()
		rt.Topic = kmsg.StringPtr(n)
		if f.topicLimit > 0 && served == f.topicLimit {
			rt.ErrorCode = limitReached
			resp.Topics = append(resp.Topics, rt)
			continue
		}
		count, ok := f.partitions[n]
		if !ok {
			rt.ErrorCode = kerr.UnknownTopicOrPartition.Code
			resp.Topics = append(resp.Topics, rt)
			continue
		}
		if budget == 0 {
			resp.NextCursor = &kmsg.DescribeTopicPartitionsResponseNextCursor{Topic: n}
			break
		}
		served++
		start := 0
		if r.Cursor != nil && n == r.Cursor.Topic {
			start = int(r.Cursor.Partition)
		}
		end := min(count, start+budget)
		for p := start; p < end; p++ {
			rp := kmsg.NewDescribeTopicPartitionsResponseTopicPartition()
			rp.Partition, rp.LeaderID, rp.Replicas = int32(p), 1, []int32{1}
			rt.Partitions = append(rt.Partitions, rp)
		}
		budget -= end - start
		resp.Topics = append(resp.Topics, rt)
		if end < count {
			resp.NextCursor = &kmsg.DescribeTopicPartitionsResponseNextCursor{Topic: n, Partition: int32(end)}
			break
		}
	}
	return resp, nil
}

func newFake(topics, maxPartitions int) *fakeDTP {
	f := &fakeDTP{partitions: map[string]int{}}
	for i := range topics {
		f.partitions[fmt.Sprintf("t%02d", i)] = 1 + i%maxPartitions
	}
	return f
}

// check says whether d holds every partition of every topic of f, once.
func (f *fakeDTP) check(t *testing.T, d *described, want []string) {
	t.Helper()
	if len(d.topics) != len(want) {
		t.Fatalf("%d topics described, want %d", len(d.topics), len(want))
	}
	for _, n := range want {
		got := d.topics[n]
		if got == nil {
			t.Fatalf("topic %s missing", n)
		}
		if len(got.Partitions) != f.partitions[n] {
			t.Fatalf("topic %s: %d partitions, want %d", n, len(got.Partitions), f.partitions[n])
		}
		for i, p := range got.Partitions {
			if p.ID != int32(i) {
				t.Fatalf("topic %s: partition %d at %d", n, p.ID, i)
			}
		}
	}
}

func TestPagerPagesAllTopics(t *testing.T) {
	f := newFake(30, 7)
	d, err := pager{send: f.send, perRequest: 10, pageSize: 5}.all(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	f.check(t, d, slices.Sorted(func(yield func(string) bool) {
		for n := range f.partitions {
			if !yield(n) {
				return
			}
		}
	}))
	total := 0
	for _, c := range f.partitions {
		total += c
	}
	if want := (total + 4) / 5; len(f.requests) < want {
		t.Fatalf("%d requests for %d partitions at 5 a page", len(f.requests), total)
	}
	for _, r := range f.requests {
		if len(r.Topics) != 0 || r.ResponsePartitionLimit != 5 {
			t.Fatalf("request %+v", r)
		}
	}
}

func TestPagerSplitsNamedTopics(t *testing.T) {
	f := newFake(30, 7)
	names := []string{"t05", "t01", "t29", "t05", "nope", "t17", "t02", "t03", "t04", "t10", "t11"}
	d, err := pager{send: f.send, perRequest: 4, pageSize: 3}.named(context.Background(), names)
	if err != nil {
		t.Fatal(err)
	}
	f.check(t, d, []string{"t01", "t02", "t03", "t04", "t05", "t10", "t11", "t17", "t29"})
	if !slices.Equal(d.missing, []string{"nope"}) {
		t.Fatalf("missing %v", d.missing)
	}
	for _, r := range f.requests {
		if len(r.Topics) > 4 {
			t.Fatalf("a request named %d topics", len(r.Topics))
		}
		if r.Cursor != nil && r.Topics[0].Topic != r.Cursor.Topic {
			t.Fatalf("continued request starts at %s, cursor at %s", r.Topics[0].Topic, r.Cursor.Topic)
		}
	}
}

// A server with the seed's topic limit answers the rest
// REQUEST_LIMIT_REACHED; they are asked for again.
func TestPagerRetriesTopicsOverTheLimit(t *testing.T) {
	f := newFake(12, 3)
	f.topicLimit = 2
	var names []string
	for n := range f.partitions {
		names = append(names, n)
	}
	d, err := pager{send: f.send, perRequest: 5, pageSize: 2000}.named(context.Background(), names)
	if err != nil {
		t.Fatal(err)
	}
	f.check(t, d, slices.Sorted(slices.Values(names)))
	if len(f.requests) != 6 {
		t.Fatalf("%d requests, want 6 (two topics each)", len(f.requests))
	}
}

// Every topic INVALID_REQUEST is the request refused, not a limit.
func TestPagerWholeRequestRefused(t *testing.T) {
	send := func(_ context.Context, req kmsg.Request) (kmsg.Response, error) {
		r := req.(*kmsg.DescribeTopicPartitionsRequest)
		resp := r.ResponseKind().(*kmsg.DescribeTopicPartitionsResponse)
		for _, t := range r.Topics {
			rt := kmsg.NewDescribeTopicPartitionsResponseTopic()
			rt.Topic, rt.ErrorCode = kmsg.StringPtr(t.Topic), kerr.InvalidRequest.Code
			resp.Topics = append(resp.Topics, rt)
		}
		return resp, nil
	}
	_, err := pager{send: send, perRequest: 5, pageSize: 10}.named(context.Background(), []string{"a", "b"})
	var be *backend.Error
	if !errors.As(err, &be) || be.Code != kerr.InvalidRequest.Code || kerr.IsRetriable(err) {
		t.Fatalf("err %v", err)
	}
}

// A server whose cursor does not move is an error, not a loop.
func TestPagerNoProgress(t *testing.T) {
	send := func(_ context.Context, req kmsg.Request) (kmsg.Response, error) {
		resp := req.ResponseKind().(*kmsg.DescribeTopicPartitionsResponse)
		resp.NextCursor = &kmsg.DescribeTopicPartitionsResponseNextCursor{Topic: "a", Partition: 1}
		return resp, nil
	}
	if _, err := (pager{send: send, perRequest: 5, pageSize: 10}).all(context.Background()); err == nil {
		t.Fatal("no error")
	}
}
