package zkadmin

import (
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/kzadmin/kzadmin/znodes"
)

// readWithMemo runs carry and assemble as readForCreate does, resolving
// the names not carried from znodes (absent: deleted since the listing)
// and marking those in unwatched as read without a watch.
func readWithMemo(memo *topicReadMemo, listing []string, events uint64, znodes map[string]*Topic,
	marked map[string]bool, unwatched map[string]bool) (*Cluster, *topicReadMemo, carriedRead) {
	c := &Cluster{TopicNames: listing, MarkedForDeletion: marked}
	cr := memo.carry(listing, 1, events)
	resolved := make([]*Topic, len(cr.rest))
	watched := make([]bool, len(cr.rest))
	for i, n := range cr.rest {
		if t := znodes[n]; t != nil {
			cp := *t
			cp.MarkedForDeletion = marked[n]
			resolved[i] = &cp
		}
		watched[i] = !unwatched[n]
	}
	next := cr.assemble(c, resolved, watched)
	next.sessionEvents, next.nodeEvents = 1, events
	return c, next, cr
}

// checkRead checks a read against what a read of every znode would give.
func checkRead(t *testing.T, c *Cluster, listing []string, znodes map[string]*Topic, marked map[string]bool) {
	t.Helper()
	var want []*Topic
	for _, n := range listing {
		if znodes[n] != nil {
			want = append(want, znodes[n])
		}
	}
	if len(c.Topics) != len(want) {
		t.Fatalf("read %d topics, want %d", len(c.Topics), len(want))
	}
	for i, tp := range c.Topics {
		if tp.Name != want[i].Name || tp.MarkedForDeletion != marked[tp.Name] {
			t.Fatalf("topic %d is %s (marked %v), want %s (marked %v)", i, tp.Name, tp.MarkedForDeletion, want[i].Name, marked[want[i].Name])
		}
		if c.Topic(tp.Name) != tp {
			t.Fatalf("Topic(%q) does not find it", tp.Name)
		}
	}
	wantPer, wantParts := walkCounts(want)
	if got, parts := c.ReplicaCounts(); !maps.Equal(got, wantPer) || parts != wantParts {
		t.Fatalf("counts %v (%d partitions), want %v (%d)", got, parts, wantPer, wantParts)
	}
}

// TestTopicReadMemoCarriesOnlyWhileNothingFired: with the event counts
// unchanged, the topics of the memo come back as they were (not looked at
// again) and only new names are resolved; a moved count resolves every
// name; and in every case the read holds and counts what a full read
// would.
func TestTopicReadMemoCarriesOnlyWhileNothingFired(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	znodes := map[string]*Topic{}
	for _, n := range []string{"a", "b", "c", "d"} {
		znodes[n] = randomTopic(r, n, true)
	}
	listing := []string{"a", "b", "c", "d"}
	c, memo, cr := readWithMemo(nil, listing, 7, znodes, nil, nil)
	if cr.base != nil || len(cr.rest) != 4 {
		t.Fatalf("first read carried %v, resolved %v", cr.base != nil, cr.rest)
	}
	checkRead(t, c, listing, znodes, nil)

	// b deleted, e created; nothing fired: a, c, d are carried as they were.
	delete(znodes, "b")
	znodes["e"] = randomTopic(r, "e", true)
	listing2 := []string{"a", "c", "d", "e"}
	c2, memo2, cr := readWithMemo(memo, listing2, 7, znodes, nil, nil)
	if cr.base == nil || !slices.Equal(cr.rest, []string{"e"}) || len(cr.removed) != 1 || cr.removed[0].Name != "b" {
		t.Fatalf("carried %v, resolved %v, removed %d", cr.base != nil, cr.rest, len(cr.removed))
	}
	if c2.Topic("a") != c.Topic("a") || c2.Topic("d") != c.Topic("d") {
		t.Fatal("a carried topic was not the memo's")
	}
	checkRead(t, c2, listing2, znodes, nil)

	// A watch fired: everything is resolved again.
	_, _, cr = readWithMemo(memo2, listing2, 8, znodes, nil, nil)
	if cr.base != nil || len(cr.rest) != len(listing2) {
		t.Fatalf("after a firing: carried %v, resolved %v", cr.base != nil, cr.rest)
	}
	// So does a session event.
	if cr := memo2.carry(listing2, 2, 7); cr.base != nil {
		t.Fatal("carried across a session event")
	}
}

// TestTopicReadMemoMarkersAndUnwatched: a carried topic takes this read's
// deletion marker, and a topic read without a watch is never carried.
func TestTopicReadMemoMarkersAndUnwatched(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	znodes := map[string]*Topic{}
	listing := []string{"a", "b", "c"}
	for _, n := range listing {
		znodes[n] = randomTopic(r, n, true)
	}
	c, memo, _ := readWithMemo(nil, listing, 1, znodes, nil, map[string]bool{"b": true})
	checkRead(t, c, listing, znodes, nil)
	if slices.Contains(memo.names, "b") {
		t.Fatal("a topic read without a watch is in the memo")
	}

	marked := map[string]bool{"c": true}
	c, memo, cr := readWithMemo(memo, listing, 1, znodes, marked, nil)
	if cr.base == nil || !slices.Equal(cr.rest, []string{"b"}) {
		t.Fatalf("carried %v, resolved %v; want b resolved again", cr.base != nil, cr.rest)
	}
	checkRead(t, c, listing, znodes, marked)
	if memo.marked != 1 {
		t.Fatalf("memo counts %d marked topics, want 1", memo.marked)
	}

	// The marker goes away (the deletion was cancelled by hand): the
	// carried topic loses it.
	c, _, _ = readWithMemo(memo, listing, 1, znodes, nil, nil)
	checkRead(t, c, listing, znodes, nil)
}

// TestTopicReadMemoRandomRounds: rounds of random creates and deletes,
// with and without firings, always read what a full read would.
func TestTopicReadMemoRandomRounds(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	znodes := map[string]*Topic{}
	var memo *topicReadMemo
	events := uint64(0)
	next := 0
	for round := range 300 {
		for n := range znodes {
			if r.IntN(8) == 0 {
				delete(znodes, n)
			}
		}
		for range r.IntN(4) {
			name := string(rune('a'+next%26)) + strings.Repeat("x", next/26)
			next++
			znodes[name] = randomTopic(r, name, r.IntN(2) == 0)
		}
		if r.IntN(5) == 0 {
			events++
			for n := range znodes { // a firing may come with a change
				if r.IntN(4) == 0 {
					znodes[n] = randomTopic(r, n, true)
				}
			}
		}
		listing := slices.Sorted(maps.Keys(znodes))
		marked, unwatched := map[string]bool{}, map[string]bool{}
		for _, n := range listing {
			if r.IntN(10) == 0 {
				marked[n] = true
			}
			if r.IntN(10) == 0 {
				unwatched[n] = true
			}
		}
		var c *Cluster
		c, memo, _ = readWithMemo(memo, listing, events, znodes, marked, unwatched)
		checkRead(t, c, listing, znodes, marked)
		_ = round
	}
}

// TestReadForCreateMatchesAFullReadUnderForeignWriters: creates of ours
// (which carry the last read) interleaved at random with writers that do
// not follow our fence (topics created, grown, deleted, marked for
// deletion behind our back): after every step, the create path's read
// holds and counts exactly what a full read of every znode finds.
func TestReadForCreateMatchesAFullReadUnderForeignWriters(t *testing.T) {
	e := newAdminEnv(t, []string{"", "", ""}, nil)
	a := prereadAdmin(e, nil)
	foreign := connect(t, Options{Chroot: e.chroot})
	r := rand.New(rand.NewPCG(11, 12))
	var names []string
	next, carried := 0, 0
	newName := func() string {
		next++
		return "t" + strings.Repeat("x", next%3) + string(rune('a'+next%26)) + strings.Repeat("y", next/26)
	}
	for step := range 80 {
		switch k := r.IntN(10); {
		case k < 5: // our creates
			var reqs []CreateTopicRequest
			for range 1 + r.IntN(3) {
				reqs = append(reqs, CreateTopicRequest{Topic: newName(), Partitions: int32(1 + r.IntN(3)), ReplicationFactor: 1})
			}
			for i, o := range e.createBatchWith(a, reqs) {
				if o.Err != nil {
					t.Fatalf("step %d: create %s: %v", step, reqs[i].Topic, o.Err)
				}
				names = append(names, reqs[i].Topic)
			}
		case k < 7 && len(names) > 0: // grown behind our back
			writeForeignTopic(t, e, foreign, names[r.IntN(len(names))], 1+r.IntN(6))
		case k < 8: // created behind our back
			n := newName()
			writeForeignTopic(t, e, foreign, n, 1+r.IntN(4))
			names = append(names, n)
		case k < 9 && len(names) > 0: // deleted behind our back
			i := r.IntN(len(names))
			if err := foreign.Delete(e.ctx, znodes.TopicPath(names[i]), AnyVersion); err != nil {
				t.Fatal(err)
			}
			names = slices.Delete(names, i, i+1)
		case len(names) > 0: // marked for deletion, or unmarked
			path := znodes.DeleteTopicPath(names[r.IntN(len(names))])
			if _, err := foreign.Create(e.ctx, path, nil, Persistent); err != nil {
				if err := foreign.Delete(e.ctx, path, AnyVersion); err != nil {
					t.Fatal(err)
				}
			}
		}
		before := a.readMemo.get()
		got, err := a.readForCreate(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		if after := a.readMemo.get(); before != nil && after.nodeEvents == before.nodeEvents &&
			after.sessionEvents == before.sessionEvents {
			carried++ // the counts matched, so this read carried the last
		}
		want, err := a.ReadCluster(e.ctx, ReadOptions{AllTopics: true})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.TopicNames, want.TopicNames) || len(got.Topics) != len(want.Topics) {
			t.Fatalf("step %d: read %v / %d topics, full read %v / %d", step, got.TopicNames, len(got.Topics),
				want.TopicNames, len(want.Topics))
		}
		for i, w := range want.Topics {
			g := got.Topics[i]
			if g.Name != w.Name || g.Version != w.Version || g.MarkedForDeletion != w.MarkedForDeletion ||
				len(g.Assignment.Partitions) != len(w.Assignment.Partitions) {
				t.Fatalf("step %d: topic %s: read version %d marked %v, %d partitions; full read version %d marked %v, %d partitions",
					step, w.Name, g.Version, g.MarkedForDeletion, len(g.Assignment.Partitions),
					w.Version, w.MarkedForDeletion, len(w.Assignment.Partitions))
			}
		}
		gotPer, gotParts := got.ReplicaCounts()
		wantPer, wantParts := want.ReplicaCounts()
		if !maps.Equal(gotPer, wantPer) || gotParts != wantParts {
			t.Fatalf("step %d: read counts %v (%d partitions), full read %v (%d)", step, gotPer, gotParts, wantPer, wantParts)
		}
	}
	if carried == 0 {
		t.Fatal("no read carried the last one: the test did not exercise the memo")
	}
	t.Logf("%d of 80 reads carried the last read", carried)
}
