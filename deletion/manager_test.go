package deletion

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/controller/election"
)

// stepOne steps and fails the test unless exactly want (by String) came out.
func stepOne(t *testing.T, m *Manager, c Cluster, ev Event, want ...string) []Effect {
	t.Helper()
	effs := m.Step(c, ev)
	got := make([]string, len(effs))
	for i, e := range effs {
		got[i] = e.String()
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Step(%T):\n got %q\nwant %q", ev, got, want)
	}
	return effs
}

func TestStepEffectsTable(t *testing.T) {
	tp := func(p int32) TopicPartition { return TopicPartition{Topic: "t", Partition: p} }
	tests := []struct {
		name  string
		setup func(c *fakeCluster)
		ev    Event
		want  []string
	}{
		{"unknown marker", func(c *fakeCluster) {}, Markers{Topics: []string{"x"}},
			[]string{"RemoveMarkers [x] (unknown topic)"}},
		{"illegal name", func(c *fakeCluster) {}, Markers{Topics: []string{"a b"}},
			[]string{"RemoveMarkers [a b] (not a legal topic name)"}},
		{"all replicas offline at start", func(c *fakeCluster) { c.Brokers[1], c.Brokers[2] = false, false },
			Markers{Topics: []string{"t"}}, []string{
				"Enqueue [t]",
				"StartTopicDeletion [t] partitions [t-0 t-1]",
				"UpdateMetadata [t-0 t-1]",
				"SetReplicaStates ReplicaDeletionIneligible [t-0@1 t-1@2]",
			}},
		{"shutting-down broker counts as offline", func(c *fakeCluster) { c.Shutdown[2] = true },
			Markers{Topics: []string{"t"}}, []string{
				"Enqueue [t]",
				"StartTopicDeletion [t] partitions [t-0 t-1]",
				"UpdateMetadata [t-0 t-1]",
				"SetReplicaStates ReplicaDeletionIneligible [t-1@2]",
				"StopReplicas [t-0@1]",
				"DeleteReplicas [t-0@1]",
			}},
		{"offline log dir counts as offline", func(c *fakeCluster) { c.Snapshot = c.WithOfflineDir(1, tp(0)) },
			Markers{Topics: []string{"t"}}, []string{
				"Enqueue [t]",
				"StartTopicDeletion [t] partitions [t-0 t-1]",
				"UpdateMetadata [t-0 t-1]",
				"SetReplicaStates ReplicaDeletionIneligible [t-0@1]",
				"StopReplicas [t-1@2]",
				"DeleteReplicas [t-1@2]",
			}},
		{"response for a topic not queued", func(c *fakeCluster) {},
			StopReplicaResponse{Broker: 1, Deleted: []TopicPartition{tp(0)}}, nil},
		{"retry for a topic not queued", func(c *fakeCluster) {}, Retry{Topic: "t", Attempt: 1}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newFakeCluster(1, 2)
			c.addTopic("t", []int32{1}, []int32{2})
			tc.setup(c)
			stepOne(t, New(Options{}), c, tc.ev, tc.want...)
		})
	}
}

func TestEffectValues(t *testing.T) {
	c := newFakeCluster(1, 2)
	c.addTopic("t", []int32{1, 2})
	m := New(Options{})
	got := m.Step(c, Markers{Topics: []string{"t"}})
	tp := TopicPartition{Topic: "t", Partition: 0}
	rs := []Replica{{tp, 1}, {tp, 2}}
	want := []Effect{
		Enqueue{Topics: []string{"t"}},
		StartTopicDeletion{Topics: []string{"t"}, Partitions: []TopicPartition{tp}},
		UpdateMetadata{Partitions: []TopicPartition{tp}},
		StopReplicas{Replicas: rs},
		DeleteReplicas{Replicas: rs},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	if !m.Queued("t") || !m.Started("t") || m.Queued("u") || m.Started("u") {
		t.Fatal("Queued/Started disagree with the step")
	}
	got = m.Step(c, StopReplicaResponse{Broker: 1, Failed: map[TopicPartition]error{tp: errors.New("boom")}})
	retry, ok := got[len(got)-1].(RetryAfter)
	if !ok || retry.Topic != "t" || retry.Attempt != 1 || retry.Delay != time.Second || retry.Cause.Error() != "boom" {
		t.Fatalf("want a RetryAfter, got %v", got)
	}
}

func TestBackoff(t *testing.T) {
	for _, tc := range []struct {
		opts    Options
		attempt int
		want    time.Duration
	}{
		{Options{}, 1, time.Second},
		{Options{}, 2, 2 * time.Second},
		{Options{}, 6, 32 * time.Second},
		{Options{}, 7, time.Minute},
		{Options{}, 1000, time.Minute},
		{Options{RetryBackoff: 100 * time.Millisecond, MaxRetryBackoff: 300 * time.Millisecond}, 3, 300 * time.Millisecond},
	} {
		if got := tc.opts.backoff(tc.attempt); got != tc.want {
			t.Errorf("backoff(%d) with %+v = %s, want %s", tc.attempt, tc.opts, got, tc.want)
		}
	}
}

func TestCheckMarkerName(t *testing.T) {
	for name, ok := range map[string]bool{
		"t": true, "a b": true, "x%y": true, strings.Repeat("a", 300): true,
		"": false, ".": false, "..": false, "a/b": false, "/": false, "a\x00b": false,
	} {
		err := checkMarkerName(name)
		if (err == nil) != ok {
			t.Errorf("checkMarkerName(%q) = %v, want ok=%v", name, err, ok)
		}
		if err != nil && !errors.Is(err, ErrInvalidMarker) {
			t.Errorf("checkMarkerName(%q): %v does not match ErrInvalidMarker", name, err)
		}
	}
}

func TestCreateRefusedMessage(t *testing.T) {
	msg := CreateRefusedMessage("orders")
	if msg != "Topic 'orders' is marked for deletion." {
		t.Fatalf("message %q", msg)
	}
	if !IsCreateRefusedMessage(msg) || IsCreateRefusedMessage("Topic 'orders' already exists.") {
		t.Fatal("IsCreateRefusedMessage misclassifies")
	}
}

// TestBatchOfThousandTopics deletes 1,000 topics of 3 partitions, RF 3, on
// 5 brokers requested at once: one step sends each kind of request once,
// five answers (one per broker) complete them all.
func TestBatchOfThousandTopics(t *testing.T) {
	const topics, brokers = 1000, 5
	c := newFakeCluster(1, 2, 3, 4, 5)
	var names []string
	for i := range topics {
		name := fmt.Sprintf("topic-%04d", i)
		names = append(names, name)
		var asg [][]int32
		for p := range 3 {
			asg = append(asg, []int32{int32((i+p)%brokers + 1), int32((i+p+1)%brokers + 1), int32((i+p+2)%brokers + 1)})
		}
		c.addTopic(name, asg...)
	}
	m := New(Options{})
	start := time.Now()
	effs := m.Step(c, Markers{Topics: names})
	kinds := make([]string, len(effs))
	for i, e := range effs {
		kinds[i] = fmt.Sprintf("%T", e)
	}
	wantKinds := []string{"deletion.Enqueue", "deletion.StartTopicDeletion", "deletion.UpdateMetadata",
		"deletion.StopReplicas", "deletion.DeleteReplicas"}
	if !slices.Equal(kinds, wantKinds) {
		t.Fatalf("effects %v, want %v", kinds, wantKinds)
	}
	sent := effs[4].(DeleteReplicas).Replicas
	if len(sent) != topics*9 || len(effs[2].(UpdateMetadata).Partitions) != topics*3 {
		t.Fatalf("sent %d replicas, want %d", len(sent), topics*9)
	}
	var last []Effect
	for b := int32(1); b <= brokers; b++ {
		var tps []TopicPartition
		for _, r := range sent {
			if r.Broker == b {
				tps = append(tps, r.TopicPartition)
			}
		}
		last = m.Step(c, StopReplicaResponse{Broker: b, Deleted: tps})
	}
	rm, ok := last[len(last)-1].(RemoveTopics)
	if !ok || !slices.Equal(rm.Topics, names) {
		t.Fatalf("last step %v, want RemoveTopics of all %d topics", last, topics)
	}
	stepOne(t, m, c, TopicsRemoved{Removed: names})
	if len(m.Topics()) != 0 {
		t.Fatalf("%d topics still queued", len(m.Topics()))
	}
	t.Logf("1,000 topics / 9,000 replicas: marker step to removal in %s", time.Since(start))
}

// recorder is an Effects that records the calls it gets.
type recorder struct {
	calls []string
	fail  string
}

func (r *recorder) rec(e Effect) error {
	r.calls = append(r.calls, e.String())
	if r.fail != "" && strings.HasPrefix(e.String(), r.fail) {
		return errors.New("refused")
	}
	return nil
}

func (r *recorder) InvalidMarker(_ context.Context, e InvalidMarker) error           { return r.rec(e) }
func (r *recorder) RemoveMarkers(_ context.Context, e RemoveMarkers) error           { return r.rec(e) }
func (r *recorder) Enqueue(_ context.Context, e Enqueue) error                       { return r.rec(e) }
func (r *recorder) StartTopicDeletion(_ context.Context, e StartTopicDeletion) error { return r.rec(e) }
func (r *recorder) UpdateMetadata(_ context.Context, e UpdateMetadata) error         { return r.rec(e) }
func (r *recorder) SetReplicaStates(_ context.Context, e SetReplicaStates) error     { return r.rec(e) }
func (r *recorder) StopReplicas(_ context.Context, e StopReplicas) error             { return r.rec(e) }
func (r *recorder) DeleteReplicas(_ context.Context, e DeleteReplicas) error         { return r.rec(e) }
func (r *recorder) RemoveTopics(_ context.Context, e RemoveTopics) error             { return r.rec(e) }
func (r *recorder) RetryAfter(_ context.Context, e RetryAfter) error                 { return r.rec(e) }

func TestApplyDispatchesInOrderAndStops(t *testing.T) {
	effs := []Effect{
		InvalidMarker{Name: "..", Err: errors.New("x")}, RemoveMarkers{Topics: []string{"a"}, Reason: ReasonUnknownTopic},
		Enqueue{Topics: []string{"t"}}, StartTopicDeletion{}, UpdateMetadata{},
		SetReplicaStates{State: election.ReplicaDeletionIneligible}, StopReplicas{}, DeleteReplicas{},
		RemoveTopics{}, RetryAfter{Topic: "t"},
	}
	r := &recorder{}
	if err := Apply(context.Background(), effs, r); err != nil {
		t.Fatal(err)
	}
	for i, e := range effs {
		if r.calls[i] != e.String() {
			t.Fatalf("call %d = %q, want %q", i, r.calls[i], e.String())
		}
	}
	r = &recorder{fail: "UpdateMetadata"}
	err := Apply(context.Background(), effs, r)
	if err == nil || !strings.Contains(err.Error(), "UpdateMetadata") || len(r.calls) != 5 {
		t.Fatalf("Apply after a failure: err %v, %d calls", err, len(r.calls))
	}
}

func TestStatusAndMetrics(t *testing.T) {
	c := newFakeCluster(1, 2, 3)
	c.addTopic("a", []int32{1, 2})
	c.addTopic("b", []int32{3})
	m := New(Options{})
	c.Brokers[3] = false
	m.Step(c, Markers{Topics: []string{"a", "b"}})
	m.Step(c, StopReplicaResponse{Broker: 1, Deleted: []TopicPartition{{Topic: "a"}}})
	got := m.Metrics(c)
	want := Metrics{TopicsToDeleteCount: 2, ReplicasToDeleteCount: 2, TopicsIneligibleToDeleteCount: 1,
		ReplicasIneligibleToDeleteCount: 1}
	if got != want {
		t.Fatalf("metrics %+v, want %+v", got, want)
	}
	s, ok := m.Status(c, "b")
	if !ok || !s.Ineligible || !slices.Equal(s.OfflineBrokers, []int32{3}) {
		t.Fatalf("status of b: %+v", s)
	}
	if _, ok := m.Status(c, "zzz"); ok {
		t.Fatal("status of an unqueued topic")
	}
}

func TestSyncAndStaleRemoval(t *testing.T) {
	c := newFakeCluster(1)
	c.addTopic("t", []int32{1})
	c.reassigning["t"] = true
	m := New(Options{})
	stepOne(t, m, c, Markers{Topics: []string{"t"}}, "Enqueue [t]")
	if effs := m.Sync(c, "t"); len(effs) != 0 {
		t.Fatalf("Sync during a reassignment: %v", effs)
	}
	c.reassigning["t"] = false
	if effs := m.Sync(c, "t"); len(effs) != 4 {
		t.Fatalf("Sync after the reassignment: %v", effs)
	}
	// A TopicsRemoved for a topic whose removal was never asked for is
	// ignored: the topic stays queued.
	stepOne(t, m, c, TopicsRemoved{Removed: []string{"t"}})
	if !m.Queued("t") || !m.Enabled() {
		t.Fatal("a stale TopicsRemoved dropped the topic")
	}
}
