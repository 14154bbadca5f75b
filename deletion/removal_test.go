package deletion

import (
	"context"
	"errors"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kzadmin/kzadmin/zkadmin"
)

// memZK is an in-memory znode tree with ZooKeeper's multi semantics, for
// testing plans without a server.
type memZK struct {
	mu     sync.Mutex
	nodes  map[string]bool
	multis int
	lists  int
	// moved makes every multi fail its fencing check.
	moved bool
}

func newMemZK(paths ...string) *memZK {
	z := &memZK{nodes: map[string]bool{"/": true}}
	for _, p := range paths {
		for q := p; q != "/"; q = path.Dir(q) {
			z.nodes[q] = true
		}
	}
	return z
}

func (z *memZK) children(p string) []string {
	var out []string
	for q := range z.nodes {
		if q != "/" && path.Dir(q) == p {
			out = append(out, path.Base(q))
		}
	}
	return out
}

func (z *memZK) ChildrenMany(_ context.Context, paths []string, _ int) []zkadmin.ChildrenResult {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.lists += len(paths)
	out := make([]zkadmin.ChildrenResult, len(paths))
	for i, p := range paths {
		out[i] = zkadmin.ChildrenResult{Path: p, Children: z.children(p)}
		if !z.nodes[p] {
			out[i].Err = &zkadmin.OpError{Op: "children", Path: p, Err: zkadmin.ErrNoNode}
		}
	}
	return out
}

func (z *memZK) multi(_ context.Context, ops []zkadmin.Op) ([]zkadmin.OpResult, error) {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.multis++
	if z.moved {
		return nil, &zkadmin.MultiError{Index: -1, Err: zkadmin.ErrControllerMoved}
	}
	next := maps.Clone(z.nodes)
	for i, o := range ops {
		var err error
		switch {
		case o.Kind == zkadmin.OpCreate && next[o.Path]:
			err = zkadmin.ErrNodeExists
		case o.Kind == zkadmin.OpCreate && !next[path.Dir(o.Path)]:
			err = zkadmin.ErrNoNode
		case o.Kind == zkadmin.OpCreate:
			next[o.Path] = true
		case o.Kind == zkadmin.OpDelete && !next[o.Path]:
			err = zkadmin.ErrNoNode
		case o.Kind == zkadmin.OpDelete && hasChild(next, o.Path):
			err = zkadmin.ErrNotEmpty
		case o.Kind == zkadmin.OpDelete:
			delete(next, o.Path)
		}
		if err != nil {
			res := make([]zkadmin.OpResult, len(ops))
			for j := range res {
				res[j] = zkadmin.OpResult{Path: ops[j].Path, Err: zkadmin.ErrRolledBack}
			}
			res[i].Err = err
			return res, &zkadmin.MultiError{Index: i, Op: o, Err: err}
		}
	}
	z.nodes = next
	return make([]zkadmin.OpResult, len(ops)), nil
}

func hasChild(nodes map[string]bool, p string) bool {
	for q := range nodes {
		if q != "/" && path.Dir(q) == p {
			return true
		}
	}
	return false
}

func (z *memZK) has(p string) bool {
	z.mu.Lock()
	defer z.mu.Unlock()
	return z.nodes[p]
}

// topicZnodes lists the znodes of a topic as Kafka lays them out.
func topicZnodes(topic string, partitions ...string) []string {
	out := []string{"/brokers/topics/" + topic, "/config/topics/" + topic, "/admin/delete_topics/" + topic}
	for _, p := range partitions {
		out = append(out, "/brokers/topics/"+topic+"/partitions/"+p+"/state")
	}
	return out
}

func TestTopicRemovalPlanOrder(t *testing.T) {
	z := newMemZK(append(topicZnodes("t", "0", "10", "2"), "/admin/delete_topics/t/junk")...)
	trees, err := ReadTrees(context.Background(), z, TopicRoots("t"), 0)
	if err != nil {
		t.Fatal(err)
	}
	got := TopicRemovalPlan([]string{"t"}, trees).String()
	want := strings.Join([]string{
		"stage 1: delete /brokers/topics/t/partitions/0/state, delete /brokers/topics/t/partitions/2/state, " +
			"delete /brokers/topics/t/partitions/10/state, delete /admin/delete_topics/t/junk",
		"stage 2: delete /brokers/topics/t/partitions/0, delete /brokers/topics/t/partitions/2, " +
			"delete /brokers/topics/t/partitions/10",
		"stage 3: delete /brokers/topics/t/partitions",
		"stage 4: {delete /brokers/topics/t; delete /config/topics/t; delete /admin/delete_topics/t}",
		"",
	}, "\n")
	if got != want {
		t.Fatalf("plan:\n%s\nwant:\n%s", got, want)
	}
}

func TestDeleteOpsChildrenFirst(t *testing.T) {
	z := newMemZK(topicZnodes("t", "0", "1")...)
	trees, err := ReadTrees(context.Background(), z, []string{"/brokers/topics/t"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range DeleteOps(trees["/brokers/topics/t"]) {
		got = append(got, o.Path)
	}
	want := []string{
		"/brokers/topics/t/partitions/0/state", "/brokers/topics/t/partitions/0",
		"/brokers/topics/t/partitions/1/state", "/brokers/topics/t/partitions/1",
		"/brokers/topics/t/partitions", "/brokers/topics/t",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("DeleteOps = %v\nwant %v", got, want)
	}
	if _, err := z.multi(context.Background(), DeleteOps(trees["/brokers/topics/t"])); err != nil || z.has("/brokers/topics/t") {
		t.Fatalf("one multi of DeleteOps: %v", err)
	}
	if DeleteOps(nil) != nil {
		t.Fatal("DeleteOps(nil) is not empty")
	}
}

func TestMarkerRemovalPlan(t *testing.T) {
	z := newMemZK("/admin/delete_topics/a", "/admin/delete_topics/b/x", "/brokers/topics")
	trees, err := ReadTrees(context.Background(), z, []string{"/admin/delete_topics/a", "/admin/delete_topics/b",
		"/admin/delete_topics/none"}, 0)
	if err != nil || trees["/admin/delete_topics/none"] != nil {
		t.Fatalf("ReadTrees: %v, %v", trees, err)
	}
	plan := MarkerRemovalPlan([]string{"a", "b", "none"}, trees, true)
	want := "stage 1: delete /admin/delete_topics/b/x\n" +
		"stage 2: {create /brokers/topics/a; delete /brokers/topics/a; delete /admin/delete_topics/a}, " +
		"{create /brokers/topics/b; delete /brokers/topics/b; delete /admin/delete_topics/b}\n"
	if got := plan.String(); got != want {
		t.Fatalf("plan:\n%s\nwant:\n%s", got, want)
	}
	unguarded := MarkerRemovalPlan([]string{"a"}, trees, false).String()
	if unguarded != "stage 1: delete /admin/delete_topics/a\n" {
		t.Fatalf("unguarded plan %q", unguarded)
	}
}

func TestApplyRemovesEverythingAndNothingElse(t *testing.T) {
	z := newMemZK(append(append(topicZnodes("a", "0", "1"), topicZnodes("b", "0")...),
		"/brokers/topics/keep/partitions/0/state", "/config/topics/keep")...)
	r := RemoveTopicZnodes(context.Background(), z, z.multi, []string{"a", "b", "gone"}, ApplyOptions{MaxOps: 3})
	if r.Err != nil || len(r.Failed) != 0 || !slices.Equal(r.Removed, []string{"a", "b", "gone"}) {
		t.Fatalf("result %+v", r)
	}
	want := []string{"/", "/admin", "/admin/delete_topics", "/brokers", "/brokers/topics", "/brokers/topics/keep",
		"/brokers/topics/keep/partitions", "/brokers/topics/keep/partitions/0", "/brokers/topics/keep/partitions/0/state",
		"/config", "/config/topics", "/config/topics/keep"}
	if got := slices.Sorted(maps.Keys(z.nodes)); !slices.Equal(got, want) {
		t.Fatalf("left:\n%v\nwant:\n%v", got, want)
	}
	if z.multis < 4 {
		t.Fatalf("%d multis: MaxOps 3 should have split the stages", z.multis)
	}
}

func TestApplyToleratesConcurrentDeletes(t *testing.T) {
	z := newMemZK(topicZnodes("t", "0", "1")...)
	trees, err := ReadTrees(context.Background(), z, TopicRoots("t"), 0)
	if err != nil {
		t.Fatal(err)
	}
	// Another tool removes some znodes between the read and the write.
	delete(z.nodes, "/brokers/topics/t/partitions/1/state")
	delete(z.nodes, "/config/topics/t")
	r := TopicRemovalPlan([]string{"t"}, trees).Apply(context.Background(), z.multi, ApplyOptions{})
	if r.Err != nil || len(r.Failed) != 0 || z.has("/brokers/topics/t") || z.has("/admin/delete_topics/t") {
		t.Fatalf("result %+v, topic left: %v", r, z.has("/brokers/topics/t"))
	}
}

func TestApplyFailuresStayPerTopic(t *testing.T) {
	z := newMemZK(append(topicZnodes("a", "0"), topicZnodes("b", "0")...)...)
	trees, err := ReadTrees(context.Background(), z, append(TopicRoots("a"), TopicRoots("b")...), 0)
	if err != nil {
		t.Fatal(err)
	}
	// A znode appears under a's partition after the read: its delete fails
	// with NotEmpty; b is removed all the same and a keeps its marker.
	z.nodes["/brokers/topics/a/partitions/0/extra"] = true
	r := TopicRemovalPlan([]string{"a", "b"}, trees).Apply(context.Background(), z.multi, ApplyOptions{})
	if !slices.Equal(r.Removed, []string{"b"}) || !errors.Is(r.Failed["a"], zkadmin.ErrNotEmpty) {
		t.Fatalf("result %+v", r)
	}
	if !z.has("/brokers/topics/a") || !z.has("/admin/delete_topics/a") || !z.has("/config/topics/a") || z.has("/brokers/topics/b") {
		t.Fatal("a must keep its assignment, config and marker; b must be gone")
	}
	// The retry re-reads and finishes.
	r = RemoveTopicZnodes(context.Background(), z, z.multi, []string{"a"}, ApplyOptions{})
	if len(r.Failed) != 0 || z.has("/brokers/topics/a") {
		t.Fatalf("retry %+v", r)
	}
}

func TestGuardedMarkerRemovalKeepsMarkerOfExistingTopic(t *testing.T) {
	z := newMemZK("/admin/delete_topics/new", "/admin/delete_topics/ghost", "/brokers/topics/new")
	r := RemoveMarkerZnodes(context.Background(), z, z.multi, []string{"new", "ghost"}, true, ApplyOptions{})
	if !slices.Equal(r.Removed, []string{"ghost"}) || !errors.Is(r.Failed["new"], ErrTopicPresent) {
		t.Fatalf("result %+v", r)
	}
	if !z.has("/admin/delete_topics/new") || z.has("/admin/delete_topics/ghost") || !z.has("/brokers/topics/new") {
		t.Fatal("guard did not hold")
	}
	r = RemoveMarkerZnodes(context.Background(), z, z.multi, []string{"new"}, false, ApplyOptions{})
	if len(r.Failed) != 0 || z.has("/admin/delete_topics/new") || !z.has("/brokers/topics/new") {
		t.Fatalf("unguarded removal (deletion disabled) %+v", r)
	}
}

func TestApplyStopsWhenControllerMoved(t *testing.T) {
	z := newMemZK(topicZnodes("t", "0")...)
	z.moved = true
	r := RemoveTopicZnodes(context.Background(), z, z.multi, []string{"t"}, ApplyOptions{})
	if !errors.Is(r.Err, zkadmin.ErrControllerMoved) || !errors.Is(r.Failed["t"], zkadmin.ErrControllerMoved) ||
		len(r.Removed) != 0 || z.multis != 1 {
		t.Fatalf("result %+v after %d multis", r, z.multis)
	}
}

func TestReadTreesErrors(t *testing.T) {
	boom := errors.New("boom")
	l := listerFunc(func(paths []string) []zkadmin.ChildrenResult {
		out := make([]zkadmin.ChildrenResult, len(paths))
		for i, p := range paths {
			out[i] = zkadmin.ChildrenResult{Path: p, Err: boom}
		}
		return out
	})
	if _, err := ReadTrees(context.Background(), l, []string{"/x"}, 0); !errors.Is(err, boom) {
		t.Fatalf("err %v", err)
	}
	r := RemoveTopicZnodes(context.Background(), l, nil, []string{"t"}, ApplyOptions{})
	if !errors.Is(r.Failed["t"], boom) || r.Err != nil {
		t.Fatalf("result %+v", r)
	}
}

type listerFunc func(paths []string) []zkadmin.ChildrenResult

func (f listerFunc) ChildrenMany(_ context.Context, paths []string, _ int) []zkadmin.ChildrenResult {
	return f(paths)
}

func TestTreeHeightAndSize(t *testing.T) {
	z := newMemZK(topicZnodes("t", "0", "1")...)
	trees, _ := ReadTrees(context.Background(), z, []string{"/brokers/topics/t"}, 0)
	tr := trees["/brokers/topics/t"]
	if tr.Height() != 3 || tr.Size() != 6 {
		t.Fatalf("height %d size %d", tr.Height(), tr.Size())
	}
}

// TestRemoveTopicZnodesLayouts removes topics whose znodes follow Kafka's
// layout with two listings each, and falls back to a full read for those
// that do not, removing everything of theirs and nothing else.
func TestRemoveTopicZnodesLayouts(t *testing.T) {
	keep := []string{"/brokers/topics/keep/partitions/0/state", "/config/topics/keep"}
	tests := []struct {
		name      string
		znodes    []string
		drop      []string // removed after building the layout
		maxLists  int
		wantMulti int
	}{
		{"kafka layout", topicZnodes("t", "0", "1", "2"), nil, 2, 4},
		{"partition without state", topicZnodes("t", "0", "1"), []string{"/brokers/topics/t/partitions/1/state"}, 13, 0},
		{"extra child under a state", append(topicZnodes("t", "0"), "/brokers/topics/t/partitions/0/state/x"), nil, 14, 0},
		{"marker with a child", append(topicZnodes("t", "0"), "/admin/delete_topics/t/junk"), nil, 13, 0},
		{"no config", []string{"/brokers/topics/t/partitions/0/state", "/admin/delete_topics/t"}, nil, 11, 0},
		{"odd child of the topic", append(topicZnodes("t", "0"), "/brokers/topics/t/odd"), nil, 12, 0},
		{"no partitions yet", []string{"/brokers/topics/t", "/config/topics/t", "/admin/delete_topics/t"}, nil, 1, 1},
		{"assignment already gone", []string{"/config/topics/t", "/admin/delete_topics/t"}, nil, 4, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			z := newMemZK(append(tc.znodes, keep...)...)
			for _, p := range tc.drop {
				delete(z.nodes, p)
			}
			r := RemoveTopicZnodes(context.Background(), z, z.multi, []string{"t"}, ApplyOptions{})
			if r.Err != nil || len(r.Failed) > 0 || !slices.Equal(r.Removed, []string{"t"}) {
				t.Fatalf("result %+v", r)
			}
			for _, p := range TopicRoots("t") {
				if z.has(p) {
					t.Fatalf("%s left", p)
				}
			}
			for _, p := range keep {
				if !z.has(p) {
					t.Fatalf("%s removed", p)
				}
			}
			if z.lists > tc.maxLists {
				t.Fatalf("%d listings, want at most %d", z.lists, tc.maxLists)
			}
			if tc.wantMulti > 0 && z.multis != tc.wantMulti {
				t.Fatalf("%d multis, want %d", z.multis, tc.wantMulti)
			}
		})
	}
}
