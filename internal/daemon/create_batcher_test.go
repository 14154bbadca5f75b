package daemon

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/integration/zktest"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// fakeCreator stands in for zkadmin's batch call. A call whose first topic
// starts with "hold-" waits for release (or its ctx); every outcome names
// its topic in Result.Ops[0].Path, so a test can check who got what.
type fakeCreator struct {
	mu      sync.Mutex
	calls   [][]string
	entered chan struct{}
	release chan struct{}
}

func newFakeCreator() *fakeCreator {
	return &fakeCreator{entered: make(chan struct{}, 100), release: make(chan struct{})}
}

func (f *fakeCreator) create(ctx context.Context, reqs []zkadmin.CreateTopicRequest) ([]zkadmin.CreateTopicOutcome, error) {
	names := make([]string, len(reqs))
	for i, r := range reqs {
		names[i] = r.Topic
	}
	f.mu.Lock()
	f.calls = append(f.calls, names)
	f.mu.Unlock()
	f.entered <- struct{}{}
	if strings.HasPrefix(names[0], "hold-") {
		select {
		case <-f.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	out := make([]zkadmin.CreateTopicOutcome, len(reqs))
	for i, n := range names {
		out[i].Result = &zkadmin.CreateTopicResult{Ops: []zkadmin.Op{{Path: n}}}
	}
	return out, nil
}

func (f *fakeCreator) callLog() [][]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

func waitEntered(t *testing.T, f *fakeCreator) {
	t.Helper()
	select {
	case <-f.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("no batch call within 10s")
	}
}

func (b *createBatcher) queued() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.queue)
}

// waitQueued waits until n requests are queued behind the running commit.
func waitQueued(t *testing.T, b *createBatcher, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for b.queued() != n {
		if time.Now().After(deadline) {
			t.Fatalf("want %d queued requests, have %d", n, b.queued())
		}
		time.Sleep(time.Millisecond) // poll interval for a condition with a deadline
	}
}

type callResult struct {
	out []zkadmin.CreateTopicOutcome
	err error
}

// submit starts one CreateTopics call with the named topics.
func submit(ctx context.Context, b *createBatcher, dryRun bool, names ...string) <-chan callResult {
	reqs := make([]zkadmin.CreateTopicRequest, len(names))
	for i, n := range names {
		reqs[i] = zkadmin.CreateTopicRequest{Topic: n, Partitions: 1, ReplicationFactor: 1, DryRun: dryRun}
	}
	ch := make(chan callResult, 1)
	go func() {
		out, err := b.CreateTopics(ctx, reqs)
		ch <- callResult{out, err}
	}()
	return ch
}

// wantOwn checks a call got exactly its own topics' outcomes, in order.
func wantOwn(t *testing.T, ch <-chan callResult, names ...string) {
	t.Helper()
	var r callResult
	select {
	case r = <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("call for %v did not return", names)
	}
	if r.err != nil || len(r.out) != len(names) {
		t.Fatalf("call for %v: %d outcomes, err %v", names, len(r.out), r.err)
	}
	for i, o := range r.out {
		if o.Err != nil || o.Result == nil || o.Result.Ops[0].Path != names[i] {
			t.Fatalf("call for %v: outcome %d is %+v", names, i, o)
		}
	}
}

// TestCreateBatcherGroupsQueuedRequests: requests that arrive while a
// commit runs go into the next commit together, in arrival order, and
// each gets its own outcomes; a request too large for the batch bound
// starts the next batch.
func TestCreateBatcherGroupsQueuedRequests(t *testing.T) {
	ctx := context.Background()
	f := newFakeCreator()
	b := &createBatcher{create: f.create, maxTopics: 4}
	first := submit(ctx, b, false, "hold-a1", "a2")
	waitEntered(t, f)
	queued := []struct {
		names []string
		ch    <-chan callResult
	}{{names: []string{"b1"}}, {names: []string{"c1", "c2"}}, {names: []string{"d1"}}, {names: []string{"e1", "e2"}}}
	for i := range queued {
		queued[i].ch = submit(ctx, b, false, queued[i].names...)
		waitQueued(t, b, i+1)
	}
	f.release <- struct{}{}
	wantOwn(t, first, "hold-a1", "a2")
	for _, q := range queued {
		wantOwn(t, q.ch, q.names...)
	}
	want := [][]string{{"hold-a1", "a2"}, {"b1", "c1", "c2", "d1"}, {"e1", "e2"}}
	if got := f.callLog(); !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("batch calls %v, want %v", got, want)
	}
	if b.queued() != 0 {
		t.Fatalf("%d requests left queued", b.queued())
	}
}

// TestCreateBatcherDryRunsBypass: a validateOnly request is not queued
// behind a running commit nor planned with other requests' topics.
func TestCreateBatcherDryRunsBypass(t *testing.T) {
	ctx := context.Background()
	f := newFakeCreator()
	b := &createBatcher{create: f.create, maxTopics: 100}
	held := submit(ctx, b, false, "hold-x")
	waitEntered(t, f)
	wantOwn(t, submit(ctx, b, true, "dry1", "dry2"), "dry1", "dry2")
	f.release <- struct{}{}
	wantOwn(t, held, "hold-x")
	want := [][]string{{"hold-x"}, {"dry1", "dry2"}}
	if got := f.callLog(); !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("batch calls %v, want %v", got, want)
	}
}

// TestCreateBatcherAbandonedRequest: a request whose ctx ends while it is
// queued returns its ctx error at once, and its topics are left out of the
// next commit; the others are unaffected.
func TestCreateBatcherAbandonedRequest(t *testing.T) {
	ctx := context.Background()
	f := newFakeCreator()
	b := &createBatcher{create: f.create, maxTopics: 100}
	held := submit(ctx, b, false, "hold-y")
	waitEntered(t, f)
	gaveUp, cancel := context.WithCancel(ctx)
	abandoned := submit(gaveUp, b, false, "gone")
	waitQueued(t, b, 1)
	kept := submit(ctx, b, false, "kept")
	waitQueued(t, b, 2)
	cancel()
	select {
	case r := <-abandoned:
		if !errors.Is(r.err, context.Canceled) || len(r.out) != 1 || !errors.Is(r.out[0].Err, context.Canceled) {
			t.Fatalf("abandoned request got %+v", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("abandoned request did not return")
	}
	f.release <- struct{}{}
	wantOwn(t, held, "hold-y")
	wantOwn(t, kept, "kept")
	want := [][]string{{"hold-y"}, {"kept"}}
	if got := f.callLog(); !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("batch calls %v, want %v", got, want)
	}
}

// TestCreateBatcherLimitsAndDuplicates runs many concurrent requests
// through the batcher against a real ZooKeeper with max.partitions set:
// overlapping names are created once (the others get TopicExists), the
// limit is reached exactly and never passed, and every outcome is a
// success, TopicExists or the limit error.
func TestCreateBatcherLimitsAndDuplicates(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	zk := sharedZK.ConnectWith(t, sharedZK.Chroot(t, "daemon"), zktest.Session{TopLevel: true})
	for id := int32(1); id <= 3; id++ {
		reg := znodes.NewBrokerRegistration([]znodes.Endpoint{{Listener: "PLAINTEXT", SecurityProtocol: "PLAINTEXT",
			Host: "127.0.0.1", Port: 9000 + id}}, nil, -1, time.Now())
		data, err := reg.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := zk.Create(ctx, znodes.BrokerIDPath(id), data, zkadmin.Ephemeral); err != nil {
			t.Fatal(err)
		}
	}
	conf := config.Default()
	conf.MaxPartitions = 30
	b := newCreateBatcher(zkadmin.NewAdmin(zk, zkadmin.AdminOptions{Config: &conf}))

	const requests, names = 40, 25 // 25 names of 2 partitions: only 15 fit
	results := make([]callResult, requests)
	var wg sync.WaitGroup
	for i := range requests {
		wg.Go(func() {
			reqs := []zkadmin.CreateTopicRequest{
				{Topic: fmt.Sprintf("t-%02d", i%names), Partitions: 2, ReplicationFactor: 2},
				{Topic: fmt.Sprintf("t-%02d", (i+7)%names), Partitions: 2, ReplicationFactor: 2},
			}
			out, err := b.CreateTopics(ctx, reqs)
			results[i] = callResult{out, err}
		})
	}
	wg.Wait()
	created := map[string]int{}
	for i, r := range results {
		if r.err != nil || len(r.out) != 2 {
			t.Fatalf("request %d: %d outcomes, err %v", i, len(r.out), r.err)
		}
		for k, o := range r.out {
			switch {
			case o.Err == nil:
				created[fmt.Sprintf("t-%02d", (i+7*k)%names)]++
			case errors.Is(o.Err, zkadmin.ErrTopicExists), errors.Is(o.Err, zkadmin.ErrPartitionLimit):
			default:
				t.Fatalf("request %d: unexpected outcome %v", i, o.Err)
			}
		}
	}
	for name, n := range created {
		if n != 1 {
			t.Errorf("%s created %d times", name, n)
		}
	}
	c, err := zkadmin.NewAdmin(zk, zkadmin.AdminOptions{}).ReadCluster(ctx, zkadmin.ReadOptions{AllTopics: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, partitions := c.ReplicaCounts(); partitions != 30 || len(created) != 15 || len(c.Topics) != 15 {
		t.Fatalf("%d partitions in %d topics (%d reported created), want exactly 30 in 15", partitions, len(c.Topics), len(created))
	}
}
