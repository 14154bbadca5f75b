package zkadmin

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/kzadmin/kzadmin/znodes"
)

// randomTopic is a topic of 0-4 partitions over brokers that include ids
// outside replicaSum's dense range; counted says whether it carries its
// per-topic counts (decoded topics do, hand-made ones may not).
func randomTopic(r *rand.Rand, name string, counted bool) *Topic {
	brokers := []int32{1, 2, 3, 7, denseBrokerIDs, -5, 1 << 30}
	t := &Topic{Name: name, Assignment: znodes.TopicAssignment{Partitions: map[int32][]int32{}}}
	for p := range r.IntN(5) {
		perm := r.Perm(len(brokers))[:1+r.IntN(3)]
		replicas := make([]int32, len(perm))
		for i, k := range perm {
			replicas[i] = brokers[k]
		}
		t.Assignment.Partitions[int32(p)] = replicas
	}
	if counted {
		t.countReplicas()
	}
	return t
}

// walkCounts is ReplicaCounts done the slow way, per partition.
func walkCounts(topics []*Topic) (map[int32]int, int) {
	per, parts := map[int32]int{}, 0
	for _, t := range topics {
		parts += len(t.Assignment.Partitions)
		for _, rs := range t.Assignment.Partitions {
			for _, b := range rs {
				per[b]++
			}
		}
	}
	return per, parts
}

// TestReplicaTallyCarriedMatchesRecount: a tally carried through many
// random additions and removals always equals a recount of the topics it
// stands for, ids outside the dense range and negative ones included.
func TestReplicaTallyCarriedMatchesRecount(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var topics []*Topic
	tally := tallyOf(nil)
	for step := range 500 {
		var removed, added []*Topic
		for i := 0; i < len(topics); {
			if r.IntN(4) == 0 {
				removed = append(removed, topics[i])
				topics = slices.Delete(topics, i, i+1)
				continue
			}
			i++
		}
		for k := range r.IntN(4) {
			tp := randomTopic(r, fmt.Sprintf("t%d-%d", step, k), r.IntN(2) == 0)
			added = append(added, tp)
			topics = append(topics, tp)
		}
		tally = tally.with(removed, added)
		wantPer, wantParts := walkCounts(topics)
		if got := tally.sum.byBroker(); !maps.Equal(got, wantPer) || tally.partitions != wantParts {
			t.Fatalf("step %d: tally %v (%d partitions), recount %v (%d)", step, got, tally.partitions, wantPer, wantParts)
		}
		if fresh := tallyOf(topics); !maps.Equal(fresh.sum.byBroker(), wantPer) || fresh.partitions != wantParts {
			t.Fatalf("step %d: tallyOf %v, recount %v", step, fresh.sum.byBroker(), wantPer)
		}
	}
}

// TestReplicaTallyWithLeavesTheOriginal: with never changes the tally it
// is called on, which other rounds may still hold.
func TestReplicaTallyWithLeavesTheOriginal(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	base := []*Topic{randomTopic(r, "a", true), randomTopic(r, "b", false)}
	tally := tallyOf(base)
	want, wantParts := tally.sum.byBroker(), tally.partitions
	_ = tally.with(base[:1], []*Topic{randomTopic(r, "c", true)})
	if got := tally.sum.byBroker(); !maps.Equal(got, want) || tally.partitions != wantParts {
		t.Fatalf("tally changed by with: %v (%d), was %v (%d)", got, tally.partitions, want, wantParts)
	}
}

func TestMergeSorted(t *testing.T) {
	for _, c := range []struct{ a, b, want string }{
		{"", "", ""},
		{"a c e", "", "a c e"},
		{"", "b", "b"},
		{"a c e", "b d f", "a b c d e f"},
		{"a b c", "b c d", "a b c d"},
		{"b", "a", "a b"},
	} {
		got := mergeSorted(strings.Fields(c.a), strings.Fields(c.b), strings.Compare)
		if strings.Join(got, " ") != c.want {
			t.Errorf("mergeSorted(%q, %q) = %q, want %q", c.a, c.b, got, c.want)
		}
	}
	// The result is a new slice: the inputs (a kept listing) stay as they were.
	a := []string{"a", "c"}
	_ = mergeSorted(a[:1], []string{"b"}, strings.Compare)
	if a[1] != "c" {
		t.Fatalf("mergeSorted wrote into its input: %v", a)
	}
}

// TestMergeSortedRandom checks mergeSorted against sorting the union, on
// random inputs of every balance, keeping a's item when both hold it.
func TestMergeSortedRandom(t *testing.T) {
	type item struct {
		key  int
		from string
	}
	byKey := func(x, y item) int { return x.key - y.key }
	rng := rand.New(rand.NewPCG(7, 11))
	draw := func(n, span int, from string) []item {
		seen := map[int]bool{}
		var out []item
		for range n {
			if k := rng.IntN(span); !seen[k] {
				seen[k] = true
				out = append(out, item{k, from})
			}
		}
		slices.SortFunc(out, byKey)
		return out
	}
	for range 500 {
		span := 1 + rng.IntN(200)
		a, b := draw(rng.IntN(150), span, "a"), draw(rng.IntN(20), span, "b")
		want := slices.Clone(a)
		for _, y := range b {
			if _, found := slices.BinarySearchFunc(a, y, byKey); !found {
				want = append(want, y)
			}
		}
		slices.SortFunc(want, byKey)
		if got := mergeSorted(a, b, byKey); !slices.Equal(got, want) {
			t.Fatalf("mergeSorted(%v, %v) = %v, want %v", a, b, got, want)
		}
	}
}
