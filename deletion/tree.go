package deletion

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// Tree is a znode and its descendants as read from ZooKeeper. Children
// are sorted (numerically where both names are numbers, so partition 10
// comes after partition 9).
type Tree struct {
	Path     string
	Children []*Tree
}

// Height is 0 for a leaf, else one more than the highest child: a znode
// can be deleted once every znode of lower height in its subtree is gone.
func (t *Tree) Height() int {
	h := 0
	for _, c := range t.Children {
		h = max(h, c.Height()+1)
	}
	return h
}

// Size counts the znodes of the tree.
func (t *Tree) Size() int {
	n := 1
	for _, c := range t.Children {
		n += c.Size()
	}
	return n
}

// DeleteOps returns the deletes that remove the tree, children before
// their parent (depth first, post-order), each at any version. Applied in
// order, in one multi or in several issued one after the other, they never
// hit a znode that still has children.
func DeleteOps(t *Tree) []zkadmin.Op {
	if t == nil {
		return nil
	}
	var out []zkadmin.Op
	for _, c := range t.Children {
		out = append(out, DeleteOps(c)...)
	}
	return append(out, zkadmin.DeleteOp(t.Path, zkadmin.AnyVersion))
}

// ChildLister lists children of many znodes in one pipelined call;
// *zkadmin.Client implements it.
type ChildLister interface {
	ChildrenMany(ctx context.Context, paths []string, maxInFlight int) []zkadmin.ChildrenResult
}

// ReadTrees reads the subtrees under roots, one pipelined ChildrenMany per
// level (a topic's tree is four levels deep, so reading a thousand topics
// takes four round-trip batches, not one round trip per znode). An absent
// root maps to nil; a znode that vanishes during the read is left out.
// maxInFlight 0 means zkadmin.DefaultMaxInFlight.
func ReadTrees(ctx context.Context, l ChildLister, roots []string, maxInFlight int) (map[string]*Tree, error) {
	out := make(map[string]*Tree, len(roots))
	var level []*Tree
	for _, r := range roots {
		if _, dup := out[r]; !dup {
			t := &Tree{Path: r}
			out[r] = t
			level = append(level, t)
		}
	}
	for len(level) > 0 {
		paths := make([]string, len(level))
		for i, t := range level {
			paths[i] = t.Path
		}
		res := l.ChildrenMany(ctx, paths, maxInFlight)
		var next []*Tree
		for i, t := range level {
			switch err := res[i].Err; {
			case errors.Is(err, zkadmin.ErrNoNode):
				t.Path = "" // marks a vanished znode, pruned below
				continue
			case err != nil:
				return nil, fmt.Errorf("read tree %s: %w", t.Path, err)
			}
			names := slices.Clone(res[i].Children)
			slices.SortFunc(names, compareNames)
			for _, n := range names {
				c := &Tree{Path: znodes.JoinPath(t.Path, n)}
				t.Children = append(t.Children, c)
				next = append(next, c)
			}
		}
		level = next
	}
	for r, t := range out {
		out[r] = prune(t)
	}
	return out, nil
}

// prune drops vanished znodes (empty Path) from the tree.
func prune(t *Tree) *Tree {
	if t.Path == "" {
		return nil
	}
	kept := t.Children[:0]
	for _, c := range t.Children {
		if c = prune(c); c != nil {
			kept = append(kept, c)
		}
	}
	t.Children = kept
	return t
}

// compareNames orders znode names numerically when both are decimal
// numbers, else as strings.
func compareNames(a, b string) int {
	x, errA := strconv.ParseInt(a, 10, 64)
	y, errB := strconv.ParseInt(b, 10, 64)
	if errA == nil && errB == nil {
		return cmp.Compare(x, y)
	}
	return cmp.Compare(a, b)
}
