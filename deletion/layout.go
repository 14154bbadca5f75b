package deletion

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// readLayout reads a topic's znodes the cheap way: it lists
// /brokers/topics/<t> and /brokers/topics/<t>/partitions (two pipelined
// batches for all topics) and assumes the rest of the layout Kafka writes:
// each partition znode holds exactly "state", and the config and the
// marker exist without children. Reading every znode costs one round trip
// per znode, and at 10,000 partitions that was three times the cost of
// deleting them. The assumption is checked by the strict removal (a multi
// that meets an unexpected child or a missing znode is rolled back whole).
// Topics whose listing already contradicts the layout (no assignment
// znode, or children other than "partitions") are returned as irregular,
// for a full read.
func readLayout(ctx context.Context, l ChildLister, topics []string, maxInFlight int) (
	map[string]*Tree, map[string]bool, error) {
	trees := make(map[string]*Tree, 3*len(topics))
	irregular := map[string]bool{}
	roots := make([]string, len(topics))
	for i, t := range topics {
		roots[i] = znodes.TopicPath(t)
	}
	var listed []string // topics whose "partitions" znode must be listed
	for i, r := range l.ChildrenMany(ctx, roots, maxInFlight) {
		t := topics[i]
		switch {
		case errors.Is(r.Err, zkadmin.ErrNoNode):
			irregular[t] = true
		case r.Err != nil:
			return nil, nil, fmt.Errorf("read tree %s: %w", roots[i], r.Err)
		case len(r.Children) == 0:
			trees[roots[i]] = &Tree{Path: roots[i]}
		case !slices.Equal(r.Children, []string{"partitions"}):
			irregular[t] = true
		default:
			listed = append(listed, t)
		}
	}
	paths := make([]string, len(listed))
	for i, t := range listed {
		paths[i] = znodes.PartitionsPath(t)
	}
	for i, r := range l.ChildrenMany(ctx, paths, maxInFlight) {
		t := listed[i]
		if r.Err != nil {
			if errors.Is(r.Err, zkadmin.ErrNoNode) {
				irregular[t] = true
				continue
			}
			return nil, nil, fmt.Errorf("read tree %s: %w", paths[i], r.Err)
		}
		trees[znodes.TopicPath(t)] = assumedTree(t, r.Children)
	}
	for _, t := range topics {
		if !irregular[t] {
			roots := TopicRoots(t)
			trees[roots[1]] = &Tree{Path: roots[1]}
			trees[roots[2]] = &Tree{Path: roots[2]}
		}
	}
	return trees, irregular, nil
}

// assumedTree is the assignment tree Kafka's controller leaves: the
// listed partitions, each with its state znode.
func assumedTree(topic string, partitions []string) *Tree {
	names := slices.Clone(partitions)
	slices.SortFunc(names, compareNames)
	parts := &Tree{Path: znodes.PartitionsPath(topic)}
	for _, p := range names {
		pt := &Tree{Path: znodes.JoinPath(parts.Path, p)}
		pt.Children = []*Tree{{Path: znodes.JoinPath(pt.Path, "state")}}
		parts.Children = append(parts.Children, pt)
	}
	return &Tree{Path: znodes.TopicPath(topic), Children: []*Tree{parts}}
}
