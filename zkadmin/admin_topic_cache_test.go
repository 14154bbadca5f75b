package zkadmin

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/integration/netcut"
	"github.com/kzadmin/kzadmin/znodes"
)

// writeForeignTopic writes a topic znode the way a writer that ignores our
// fence does (Kafka's tools, a script): a plain SetData or create, with no
// bump of /brokers/topics.
func writeForeignTopic(t *testing.T, e *adminEnv, zk *Client, name string, partitions int) {
	t.Helper()
	asg := znodes.TopicAssignment{Partitions: map[int32][]int32{}}
	for p := range partitions {
		asg.Partitions[int32(p)] = []int32{int32(p%3 + 1)}
	}
	data, err := asg.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zk.Set(e.ctx, znodes.TopicPath(name), data, AnyVersion); err == nil {
		return
	}
	if _, err := zk.Create(e.ctx, znodes.TopicPath(name), data, Persistent); err != nil {
		t.Fatal(err)
	}
}

func mustCreateTopic(t *testing.T, a *Admin, e *adminEnv, name string, partitions int32) {
	t.Helper()
	if _, err := a.CreateTopic(e.ctx, CreateTopicRequest{Topic: name, Partitions: partitions, ReplicationFactor: 1}); err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
}

// TestReadForCreateReusesCurrentTopics: unchanged topics are not read
// again (the same decoded *Topic comes back), and the result counts what a
// full ReadCluster counts.
func TestReadForCreateReusesCurrentTopics(t *testing.T) {
	e := newAdminEnv(t, []string{"", "", ""}, nil)
	for _, n := range []string{"a", "b", "c"} {
		mustCreateTopic(t, e.admin, e, n, 2)
	}
	first, err := e.admin.readForCreate(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	second, err := e.admin.readForCreate(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a", "b", "c"} {
		if first.Topic(n) == nil || first.Topic(n) != second.Topic(n) {
			t.Errorf("topic %s read again: %p then %p", n, first.Topic(n), second.Topic(n))
		}
	}
	if got := e.admin.topics.len(); got != 3 {
		t.Errorf("cache holds %d topics, want 3", got)
	}
	full, err := e.admin.ReadCluster(e.ctx, ReadOptions{AllTopics: true})
	if err != nil {
		t.Fatal(err)
	}
	wantBrokers, wantParts := full.ReplicaCounts()
	gotBrokers, gotParts := second.ReplicaCounts()
	if gotParts != wantParts || len(gotBrokers) != len(wantBrokers) || second.TopicsVersion != full.TopicsVersion {
		t.Fatalf("cached read counts %d partitions %v (fence %d), full read %d %v (fence %d)",
			gotParts, gotBrokers, second.TopicsVersion, wantParts, wantBrokers, full.TopicsVersion)
	}
	for b, n := range wantBrokers {
		if gotBrokers[b] != n {
			t.Errorf("broker %d: cached read counts %d replicas, full read %d", b, gotBrokers[b], n)
		}
	}
}

// TestCreateCountsForeignChanges: writers that do not bump the fence
// (partitions added by Kafka's tools, a topic deleted and re-created by a
// script) are seen by the next create at once: the cache entries' watches
// fired before the fence read answered, so the limits count the new sizes.
func TestCreateCountsForeignChanges(t *testing.T) {
	e := newAdminEnv(t, []string{"", "", ""}, limitsConfig(0, 12))
	foreign := connect(t, Options{Chroot: e.chroot})
	mustCreateTopic(t, e.admin, e, "a", 3)
	mustCreateTopic(t, e.admin, e, "b", 3)
	mustCreateTopic(t, e.admin, e, "c", 1) // caches a and b
	if e.admin.topics.len() < 2 {
		t.Fatalf("cache holds %d topics after three creates", e.admin.topics.len())
	}

	// a grows from 3 to 7 partitions behind our back: 7+3+1 = 11 of 12.
	writeForeignTopic(t, e, foreign, "a", 7)
	_, err := e.admin.CreateTopic(e.ctx, CreateTopicRequest{Topic: "d", Partitions: 2, ReplicationFactor: 1})
	wantKind(t, err, KindPartitionLimit)
	mustCreateTopic(t, e.admin, e, "d", 1) // 12 of 12

	// b is deleted and re-created smaller behind our back: 7+1+1+1 = 10.
	if err := foreign.Delete(e.ctx, znodes.TopicPath("b"), AnyVersion); err != nil {
		t.Fatal(err)
	}
	writeForeignTopic(t, e, foreign, "b", 1)
	mustCreateTopic(t, e.admin, e, "e", 2) // 12 of 12
	_, err = e.admin.CreateTopic(e.ctx, CreateTopicRequest{Topic: "f", Partitions: 1, ReplicationFactor: 1})
	wantKind(t, err, KindPartitionLimit)
}

// TestTopicCacheDroppedAfterReconnect: after the connection drops (the
// session survives), no entry is trusted, because go-zookeeper re-arms
// watches asynchronously and a read may overtake that.
func TestTopicCacheDroppedAfterReconnect(t *testing.T) {
	proxy := netcut.New(t, env.server.Addr())
	e := newAdminEnv(t, []string{"", "", ""}, nil)
	zk := connect(t, Options{Servers: []string{proxy.Addr()}, Chroot: e.chroot, SessionTimeout: 10 * time.Second})
	a := NewAdmin(zk, AdminOptions{})
	mustCreateTopic(t, a, e, "a", 1)
	before, err := a.readForCreate(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	proxy.Cut()
	waitFor(t, "client disconnected", waitTimeout, func() bool { return zk.State() != StateConnected })
	proxy.Heal()
	if err := zk.WaitConnected(e.ctx); err != nil {
		t.Fatal(err)
	}
	after, err := a.readForCreate(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if before.Topic("a") == nil || before.Topic("a") == after.Topic("a") {
		t.Fatalf("topic a trusted across a reconnect: %p then %p", before.Topic("a"), after.Topic("a"))
	}
	again, err := a.readForCreate(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if again.Topic("a") != after.Topic("a") {
		t.Fatal("topic a not cached again after the reconnect")
	}
}

// TestWrittenTopicMatchesDecoded checks that a topic the Admin just wrote,
// read back unchanged, is cached as the decoder would have made it, and
// that data changed by someone else is decoded.
func TestWrittenTopicMatchesDecoded(t *testing.T) {
	id := znodes.UUID{1, 2, 3}
	for _, asg := range [][][]int32{
		{{1}},
		{{1, 2, 3}, {2, 3, 1}, {3, 1, 2}, {1, 3, 2}},
		{{5, 6}, {6, 5}, {5, 6}, {6, 5}, {5, 6}, {6, 5}, {5, 6}, {6, 5}, {5, 6}, {6, 5}, {5, 6}},
	} {
		p := &pendingTopic{req: CreateTopicRequest{Topic: "t"}, id: id, asg: asg}
		if err := topicOps([]*pendingTopic{p}, map[string]GetResult{"t": {Err: ErrNoNode}}); err != nil {
			t.Fatal(err)
		}
		w := writtenTopic{name: "t", id: id, asg: asg, data: p.written}
		read := GetResult{Data: p.written, Stat: Stat{Version: 0}}
		got, err := w.topic(read)
		if err != nil {
			t.Fatal(err)
		}
		want, err := newTopic("t", read, false)
		if err != nil {
			t.Fatal(err)
		}
		assertSameTopic(t, got, want)
		asg[0][0] = 99 // the plan's slices are not shared with the cache
		if got.Assignment.Partitions[0][0] == 99 {
			t.Fatal("the cached topic shares the plan's replica lists")
		}
	}
	other := GetResult{Data: []byte(`{"version":1,"partitions":{"0":[7]}}`), Stat: Stat{Version: 2}}
	got, err := writtenTopic{name: "t", id: id, asg: [][]int32{{1}}, data: []byte(`{}`)}.topic(other)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := newTopic("t", other, false)
	assertSameTopic(t, got, want)
}

// assertSameTopic compares two Topics, their replica counts in any order.
func assertSameTopic(t *testing.T, got, want *Topic) {
	t.Helper()
	sortCounts := func(tp *Topic) []brokerReplicas {
		c := slices.Clone(tp.replicaCounts)
		slices.SortFunc(c, func(x, y brokerReplicas) int { return int(x.broker) - int(y.broker) })
		return c
	}
	gc, wc := sortCounts(got), sortCounts(want)
	g, w := *got, *want
	g.replicaCounts, w.replicaCounts = nil, nil
	if !reflect.DeepEqual(g, w) || !slices.Equal(gc, wc) {
		t.Fatalf("topic = %+v %v\nwant   %+v %v", g, gc, w, wc)
	}
}
