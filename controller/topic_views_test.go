package controller

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"
)

// TestTopicViewsMatchAMap applies random sets and removals, edit by edit,
// to TopicViews and to a plain map, and checks after each edit that the
// new value matches the map and that every earlier value is unchanged.
func TestTopicViewsMatchAMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var history []TopicViews
	var want []map[string]*TopicView
	cur, ref := TopicViews{}, map[string]*TopicView{}
	for round := range 200 {
		e := cur.edit()
		next := maps.Clone(ref)
		for range rng.IntN(20) {
			name := fmt.Sprintf("t%d", rng.IntN(300))
			if rng.IntN(3) == 0 {
				e.remove(name)
				delete(next, name)
				continue
			}
			v := &TopicView{Name: name, Partitions: make([]PartitionView, round)}
			e.set(name, v)
			next[name] = v
		}
		cur, ref = e.done(), next
		history, want = append(history, cur), append(want, ref)
		for i, h := range history {
			sameViews(t, fmt.Sprintf("round %d, value of round %d", round, i), h, want[i])
		}
	}
}

func sameViews(t *testing.T, what string, got TopicViews, want map[string]*TopicView) {
	t.Helper()
	if got.Len() != len(want) {
		t.Fatalf("%s: Len %d, want %d", what, got.Len(), len(want))
	}
	seen := map[string]*TopicView{}
	for name, v := range got.All() {
		seen[name] = v
	}
	if !maps.Equal(seen, want) {
		t.Fatalf("%s: All yields %d topics, not those set", what, len(seen))
	}
	for name, v := range want {
		if got.Get(name) != v {
			t.Fatalf("%s: Get(%q) is not the view set", what, name)
		}
	}
	if got.Get("never-set") != nil {
		t.Fatalf("%s: Get of an unknown topic is not nil", what)
	}
}

func TestTopicViewsWithAndWithout(t *testing.T) {
	a, b := &TopicView{Name: "a"}, &TopicView{Name: "b"}
	base := NewTopicViews(map[string]*TopicView{"a": a})
	both := base.With(b)
	sameViews(t, "base", base, map[string]*TopicView{"a": a})
	sameViews(t, "with b", both, map[string]*TopicView{"a": a, "b": b})
	sameViews(t, "without a", both.Without("a", "missing"), map[string]*TopicView{"b": b})
	sameViews(t, "zero value", TopicViews{}, map[string]*TopicView{})
	sameViews(t, "zero value without", TopicViews{}.Without("a"), map[string]*TopicView{})
}

// TestTopicViewsEditCopiesOnlyChangedShards: an edit shares every shard it
// did not change with the value it started from, and removing a topic
// that is not there copies nothing.
func TestTopicViewsEditCopiesOnlyChangedShards(t *testing.T) {
	m := map[string]*TopicView{}
	for i := range 5000 {
		name := fmt.Sprintf("topic-%d", i)
		m[name] = &TopicView{Name: name}
	}
	base := NewTopicViews(m)
	next := base.With(&TopicView{Name: "new"}).Without("topic-7", "not-there")
	changed := map[uint32]bool{shardOf("new"): true, shardOf("topic-7"): true}
	for i := range uint32(topicViewShards) {
		shared := fmt.Sprintf("%p", base.shards[i]) == fmt.Sprintf("%p", next.shards[i])
		if shared == changed[i] {
			t.Errorf("shard %d: shared %v, changed %v", i, shared, changed[i])
		}
	}
	if same := base.Without("not-there"); same.shards != base.shards {
		t.Error("removing a missing topic copied the shards")
	}
}
