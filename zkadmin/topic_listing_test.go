package zkadmin

import (
	"maps"
	"slices"
	"sync"
	"testing"

	"github.com/kzadmin/kzadmin/znodes"
)

// TestCreateKeepsTheListingItsMultisLeave: after a create, the Admin holds
// the listing its multi left, and the next round takes it from a stat read
// instead of listing the children (a kept listing with a planted name
// comes back as it is while the children version matches).
func TestCreateKeepsTheListingItsMultisLeave(t *testing.T) {
	e := newAdminEnv(t, []string{"", "", ""}, nil)
	mustCreateTopic(t, e.admin, e, "a", 1)
	out := e.createBatch(batchReqs("b", 3, one, func(int) int16 { return 1 }))
	for _, o := range out {
		if o.Err != nil {
			t.Fatal(o.Err)
		}
	}
	kept := e.admin.listing.get()
	if kept == nil {
		t.Fatal("no listing kept after a create")
	}
	names, st, err := e.zk.Children(e.ctx, znodes.TopicsPath)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(names)
	if !slices.Equal(kept.sorted(), names) || kept.cversion != st.Cversion {
		t.Fatalf("kept listing %v at children version %d, znode has %v at %d", kept.sorted(), kept.cversion, names, st.Cversion)
	}

	planted := &topicListing{names: []string{"planted"}, cversion: st.Cversion}
	got, _, err := e.admin.listTopics(e.ctx, planted, false)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, planted.sorted()) {
		t.Errorf("children version unchanged: got %v, want the kept listing %v", got, planted.sorted())
	}
	stale := &topicListing{names: []string{"planted"}, cversion: st.Cversion - 1}
	if got, _, _ := e.admin.listTopics(e.ctx, stale, false); !slices.Equal(got, names) {
		t.Errorf("children version moved: got %v, want the znode's children %v", got, names)
	}
}

// TestCreateCountsForeignTopicsAfterOwnCreates: a topic created behind the
// Admin's back, by a writer that does not bump the fence (Kafka's tools, a
// broker's auto-create), between two of its creates is counted by the
// second one: it moved the children version, so the kept listing is not
// used.
func TestCreateCountsForeignTopicsAfterOwnCreates(t *testing.T) {
	e := newAdminEnv(t, []string{"", "", ""}, limitsConfig(0, 12))
	foreign := connect(t, Options{Chroot: e.chroot})
	mustCreateTopic(t, e.admin, e, "a", 5)
	writeForeignTopic(t, e, foreign, "foreign", 5) // 10 of 12
	_, err := e.admin.CreateTopic(e.ctx, CreateTopicRequest{Topic: "b", Partitions: 3, ReplicationFactor: 1})
	wantKind(t, err, KindPartitionLimit)
	mustCreateTopic(t, e.admin, e, "b", 2) // 12 of 12

	// A foreign delete moves the children version too: a's 5 are free.
	if err := foreign.Delete(e.ctx, znodes.TopicPath("a"), AnyVersion); err != nil {
		t.Fatal(err)
	}
	mustCreateTopic(t, e.admin, e, "c", 5)
}

// TestReplicaCountsKeptPerTopicMatchTheWalk: a topic's counts kept at
// decode time sum to what walking its partitions counts, for topics with
// and without them.
func TestReplicaCountsKeptPerTopicMatchTheWalk(t *testing.T) {
	asg := func(parts ...[]int32) znodes.TopicAssignment {
		a := znodes.TopicAssignment{Partitions: map[int32][]int32{}}
		for i, p := range parts {
			a.Partitions[int32(i)] = p
		}
		return a
	}
	topics := []*Topic{
		{Name: "a", Assignment: asg([]int32{1, 2, 3}, []int32{2, 3, 1}, []int32{3})},
		{Name: "b", Assignment: asg([]int32{7})},
		{Name: "empty", Assignment: asg()},
		{Name: "c", Assignment: asg([]int32{1, 1}, []int32{})}, // odd, but counted as written
	}
	walk := &Cluster{Topics: topics}
	wantBrokers, wantParts := walk.ReplicaCounts()
	kept := make([]*Topic, len(topics))
	for i, tp := range topics {
		cp := *tp
		cp.countReplicas()
		kept[i] = &cp
	}
	gotBrokers, gotParts := (&Cluster{Topics: kept}).ReplicaCounts()
	if gotParts != wantParts || !maps.Equal(gotBrokers, wantBrokers) {
		t.Fatalf("kept counts %v (%d partitions), walk %v (%d)", gotBrokers, gotParts, wantBrokers, wantParts)
	}
	if wantParts != 6 || wantBrokers[1] != 4 || wantBrokers[7] != 1 {
		t.Fatalf("walk counted %v (%d partitions)", wantBrokers, wantParts)
	}
}

// TestListingMergesOnFirstUse: a listing a round leaves merges its added
// names on first use, once, for readers at once, and leaves the names it
// was made from as they were (they are the cluster's, shared).
func TestListingMergesOnFirstUse(t *testing.T) {
	base := []string{"a", "c", "e"}
	l := &topicListing{names: base, added: []string{"b", "d"}}
	var wg sync.WaitGroup
	got := make([][]string, 8)
	for i := range got {
		wg.Go(func() { got[i] = l.sorted() })
	}
	wg.Wait()
	for _, g := range got {
		if !slices.Equal(g, []string{"a", "b", "c", "d", "e"}) {
			t.Fatalf("sorted() = %v", g)
		}
	}
	if !slices.Equal(base, []string{"a", "c", "e"}) {
		t.Errorf("base changed to %v", base)
	}
}
