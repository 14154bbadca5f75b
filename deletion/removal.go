package deletion

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// ErrTopicPresent is the failure of a guarded marker removal: the topic
// znode exists after all (the marker raced ahead of the controller's view
// of the topic), so the marker is kept.
var ErrTopicPresent = errors.New("topic znode exists; deletion marker kept")

// Plan is an ordered removal of znodes. Stages run one after the other;
// the groups of a stage are independent of each other and may be packed
// into shared multis and issued concurrently; the ops of one group must be
// applied atomically, in order, in one multi.
type Plan struct {
	Stages [][]Group
}

// Group is ops that belong to one topic and must be applied atomically.
type Group struct {
	Topic string
	Ops   []zkadmin.Op
}

// String renders the plan one stage per line, for tests and logs.
func (p Plan) String() string {
	var b strings.Builder
	for i, st := range p.Stages {
		fmt.Fprintf(&b, "stage %d:", i+1)
		for _, g := range st {
			if len(g.Ops) > 1 {
				b.WriteString(" {")
			}
			for j, o := range g.Ops {
				if j > 0 || len(g.Ops) == 1 {
					b.WriteString(" ")
				}
				b.WriteString(o.String())
				if j < len(g.Ops)-1 {
					b.WriteString(";")
				}
			}
			if len(g.Ops) > 1 {
				b.WriteString("}")
			}
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	return strings.ReplaceAll(b.String(), ",\n", "\n")
}

// Ops returns every op of the plan in order.
func (p Plan) Ops() []zkadmin.Op {
	var out []zkadmin.Op
	for _, st := range p.Stages {
		for _, g := range st {
			out = append(out, g.Ops...)
		}
	}
	return out
}

// TopicRoots are the znodes a topic's removal reads and deletes: its
// assignment tree, its config, its marker.
func TopicRoots(topic string) []string {
	return []string{
		znodes.TopicPath(topic),
		znodes.ConfigEntityPath(znodes.EntityTopics, topic),
		znodes.DeleteTopicPath(topic),
	}
}

// TopicRemovalPlan turns the trees read for topics (ReadTrees over their
// TopicRoots) into the removal of Kafka's completeDeleteTopic:
// /brokers/topics/<t> recursively, /config/topics/<t>, and
// /admin/delete_topics/<t>. Descendants go first, lowest first (every
// partition's state, then the partition znodes, then "partitions"); the
// last stage removes, per topic in one atomic multi, the assignment, the
// config and the marker. So a removal cut short (crash, lost session)
// always leaves the assignment and its marker together, and the next
// controller starts the deletion again. Absent znodes are skipped.
func TopicRemovalPlan(topics []string, trees map[string]*Tree) Plan {
	var b planBuilder
	for _, t := range topics {
		var last []zkadmin.Op
		for _, root := range TopicRoots(t) {
			tree := trees[root]
			if tree == nil {
				continue
			}
			b.descendants(t, tree)
			last = append(last, zkadmin.DeleteOp(root, zkadmin.AnyVersion))
		}
		b.final(t, last)
	}
	return b.plan()
}

// MarkerRemovalPlan removes the markers of topics (and anything another
// tool left under them), nothing else. With guardAbsent, each marker is
// removed in one multi with a create and delete of /brokers/topics/<t>,
// which fails with NodeExists when the topic exists: the marker of a topic
// the controller has not seen yet is never removed by mistake. The create
// and delete fire the controller's own /brokers/topics child watch once,
// which a re-read absorbs.
func MarkerRemovalPlan(topics []string, trees map[string]*Tree, guardAbsent bool) Plan {
	var b planBuilder
	for _, t := range topics {
		root := znodes.DeleteTopicPath(t)
		tree := trees[root]
		if tree == nil {
			continue
		}
		b.descendants(t, tree)
		var last []zkadmin.Op
		if guardAbsent {
			last = append(last,
				zkadmin.CreateOp(znodes.TopicPath(t), nil, zkadmin.Persistent),
				zkadmin.DeleteOp(znodes.TopicPath(t), zkadmin.AnyVersion))
		}
		b.final(t, append(last, zkadmin.DeleteOp(root, zkadmin.AnyVersion)))
	}
	return b.plan()
}

// planBuilder puts each descendant in the stage of its height and keeps
// the per-topic final groups apart.
type planBuilder struct {
	byHeight [][]Group
	last     []Group
}

// descendants adds every znode under root (not root itself).
func (b *planBuilder) descendants(topic string, root *Tree) {
	for _, c := range root.Children {
		b.add(topic, c)
	}
}

// add adds t's subtree and returns t's height.
func (b *planBuilder) add(topic string, t *Tree) int {
	h := 0
	for _, c := range t.Children {
		h = max(h, b.add(topic, c)+1)
	}
	for len(b.byHeight) <= h {
		b.byHeight = append(b.byHeight, nil)
	}
	b.byHeight[h] = append(b.byHeight[h], Group{Topic: topic, Ops: []zkadmin.Op{zkadmin.DeleteOp(t.Path, zkadmin.AnyVersion)}})
	return h
}

func (b *planBuilder) final(topic string, ops []zkadmin.Op) {
	if len(ops) > 0 {
		b.last = append(b.last, Group{Topic: topic, Ops: ops})
	}
}

func (b *planBuilder) plan() Plan {
	var p Plan
	for _, st := range b.byHeight {
		if len(st) > 0 {
			p.Stages = append(p.Stages, st)
		}
	}
	if len(b.last) > 0 {
		p.Stages = append(p.Stages, slices.Clip(b.last))
	}
	return p
}
