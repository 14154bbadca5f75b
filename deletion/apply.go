package deletion

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// Writer applies ops atomically as one multi, with the semantics of
// zkadmin.Client.Multi and FencedMulti: on failure nothing is applied and
// the error is a *zkadmin.MultiError naming the failing op. The controller
// passes a FencedMulti with its epoch zkVersion; a test may pass Multi.
type Writer func(ctx context.Context, ops []zkadmin.Op) ([]zkadmin.OpResult, error)

// ApplyOptions tune Plan.Apply and the Remove* helpers. Zero values take
// zkadmin's batch defaults.
type ApplyOptions struct {
	// MaxOps bounds the ops of one multi (zkadmin.DefaultBatchOps).
	MaxOps int
	// MaxInFlight bounds the multis, and ReadTrees' reads, outstanding at
	// once (zkadmin.DefaultBatchInFlight and zkadmin.DefaultMaxInFlight).
	MaxInFlight int
}

// Result says which topics' znodes are gone.
type Result struct {
	// Removed: every op applied or found its znode already absent.
	Removed []string
	// Failed: the topics whose removal stopped, and why. Their later
	// stages were not attempted; retrying re-reads and carries on.
	Failed map[string]error
	// Err is set when the whole write stopped: the controller moved
	// (zkadmin.ErrControllerMoved), the session expired, the client closed
	// or ctx ended. Every topic not yet complete is then in Failed too.
	Err error
}

// fatal reports errors that end the whole write, not one topic's.
func fatal(err error) bool {
	return errors.Is(err, zkadmin.ErrControllerMoved) || errors.Is(err, zkadmin.ErrSessionExpired) ||
		errors.Is(err, zkadmin.ErrClosed) || errors.Is(err, context.Canceled) ||
		errors.Is(err, context.DeadlineExceeded)
}

// Apply runs the plan's stages in order. In each stage, the groups of
// topics that have not failed are packed into multis of at most MaxOps ops
// (a group is never split), up to MaxInFlight at a time. When a multi
// fails, the op that failed is dealt with and the rest is tried again: a
// delete of an absent znode is dropped (someone else removed it), any other
// failure fails that op's topic, whose remaining stages are skipped.
func (p Plan) Apply(ctx context.Context, w Writer, opts ApplyOptions) Result {
	return p.apply(ctx, w, opts, false)
}

// apply is Apply; strict fails a topic on a delete that finds no znode,
// instead of dropping the delete, for plans built on an assumed layout.
func (p Plan) apply(ctx context.Context, w Writer, opts ApplyOptions, strict bool) Result {
	maxOps := cmpOr(opts.MaxOps, zkadmin.DefaultBatchOps)
	inFlight := cmpOr(opts.MaxInFlight, zkadmin.DefaultBatchInFlight)
	failed := map[string]error{}
	var stop error
	for _, st := range p.Stages {
		var live []Group
		for _, g := range st {
			if failed[g.Topic] == nil {
				live = append(live, g)
			}
		}
		var mu sync.Mutex
		runLimited(pack(live, maxOps), inFlight, func(batch []Group) {
			errs, fatalErr := applyBatch(ctx, w, batch, strict)
			mu.Lock()
			defer mu.Unlock()
			maps.Copy(failed, errs)
			if fatalErr != nil && stop == nil {
				stop = fatalErr
			}
		})
		if stop != nil {
			break
		}
	}
	return p.result(failed, stop)
}

func (p Plan) result(failed map[string]error, stop error) Result {
	r := Result{Err: stop}
	for _, t := range p.topics() {
		switch {
		case failed[t] != nil:
		case stop != nil:
			failed[t] = stop
		default:
			r.Removed = append(r.Removed, t)
		}
	}
	if len(failed) > 0 {
		r.Failed = failed
	}
	return r
}

// topics lists the plan's topics in order of first appearance.
func (p Plan) topics() []string {
	var out []string
	seen := map[string]bool{}
	for _, st := range p.Stages {
		for _, g := range st {
			if !seen[g.Topic] {
				seen[g.Topic] = true
				out = append(out, g.Topic)
			}
		}
	}
	return out
}

// applyBatch applies groups as one multi, retrying without the culprit of
// each failure. It returns the topics that failed and a fatal error.
func applyBatch(ctx context.Context, w Writer, groups []Group, strict bool) (map[string]error, error) {
	groups = slices.Clone(groups)
	failed := map[string]error{}
	for len(groups) > 0 {
		var ops []zkadmin.Op
		for _, g := range groups {
			ops = append(ops, g.Ops...)
		}
		_, err := w(ctx, ops)
		if err == nil {
			return failed, nil
		}
		var me *zkadmin.MultiError
		if fatal(err) || !errors.As(err, &me) || me.Index < 0 || me.Index >= len(ops) {
			if fatal(err) {
				return failed, err
			}
			for _, g := range groups {
				failed[g.Topic] = err
			}
			return failed, nil
		}
		gi, oi := locate(groups, me.Index)
		g := groups[gi]
		op := g.Ops[oi]
		switch {
		case !strict && op.Kind == zkadmin.OpDelete && errors.Is(me.Err, zkadmin.ErrNoNode):
			g.Ops = slices.Delete(slices.Clone(g.Ops), oi, oi+1)
			groups[gi] = g
			if len(g.Ops) == 0 {
				groups = slices.Delete(groups, gi, gi+1)
			}
		default:
			failed[g.Topic] = opFailure(g.Topic, op, me.Err)
			groups = slices.Delete(groups, gi, gi+1)
		}
	}
	return failed, nil
}

// opFailure explains a failed op of topic's removal.
func opFailure(topic string, op zkadmin.Op, err error) error {
	if op.Kind == zkadmin.OpCreate && op.Path == znodes.TopicPath(topic) && errors.Is(err, zkadmin.ErrNodeExists) {
		return fmt.Errorf("remove marker of %s: %w", topic, ErrTopicPresent)
	}
	return fmt.Errorf("remove znodes of %s: %s %s: %w", topic, op.Kind, op.Path, err)
}

// locate maps an index into the flattened ops to (group, op in group).
func locate(groups []Group, idx int) (int, int) {
	for gi, g := range groups {
		if idx < len(g.Ops) {
			return gi, idx
		}
		idx -= len(g.Ops)
	}
	return len(groups) - 1, 0
}

// pack fills batches of up to maxOps ops with whole groups, in order.
func pack(groups []Group, maxOps int) [][]Group {
	var out [][]Group
	var cur []Group
	n := 0
	for _, g := range groups {
		if n > 0 && n+len(g.Ops) > maxOps {
			out = append(out, cur)
			cur, n = nil, 0
		}
		cur = append(cur, g)
		n += len(g.Ops)
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// runLimited calls do for every batch from at most limit goroutines and
// waits for all of them.
func runLimited(batches [][]Group, limit int, do func([]Group)) {
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for _, b := range batches {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			do(b)
		}()
	}
	wg.Wait()
}

func cmpOr(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// RemoveTopicZnodes carries out a RemoveTopics effect's ZooKeeper part.
// It first reads only what Kafka's layout leaves open (readLayout: two
// listings per topic) and applies TopicRemovalPlan strictly; a topic whose
// znodes turn out not to match the layout (a delete finds children or no
// znode; the multi is then rolled back) is read in full with ReadTrees and
// removed with a second plan. Topics whose znodes are all absent count as
// removed.
func RemoveTopicZnodes(ctx context.Context, l ChildLister, w Writer, topics []string, opts ApplyOptions) Result {
	trees, irregular, err := readLayout(ctx, l, topics, opts.MaxInFlight)
	if err != nil {
		return failAll(topics, err)
	}
	var regular []string
	for _, t := range topics {
		if !irregular[t] {
			regular = append(regular, t)
		}
	}
	first := TopicRemovalPlan(regular, trees).apply(ctx, w, opts, true)
	if first.Err != nil {
		return first
	}
	var again []string
	for _, t := range topics {
		if irregular[t] || first.Failed[t] != nil {
			again = append(again, t)
		}
	}
	if len(again) == 0 {
		return ordered(topics, first)
	}
	var roots []string
	for _, t := range again {
		roots = append(roots, TopicRoots(t)...)
	}
	return readAndApply(ctx, l, w, again, roots, opts, func(trees map[string]*Tree) Plan {
		return TopicRemovalPlan(again, trees)
	}, topics)
}

// RemoveMarkerZnodes carries out a RemoveMarkers effect's ZooKeeper part
// with MarkerRemovalPlan (guardAbsent: e.Reason.GuardAbsent()).
func RemoveMarkerZnodes(ctx context.Context, l ChildLister, w Writer, topics []string, guardAbsent bool,
	opts ApplyOptions) Result {
	roots := make([]string, len(topics))
	for i, t := range topics {
		roots[i] = znodes.DeleteTopicPath(t)
	}
	return readAndApply(ctx, l, w, topics, roots, opts, func(trees map[string]*Tree) Plan {
		return MarkerRemovalPlan(topics, trees, guardAbsent)
	}, topics)
}

// readAndApply reads the trees under roots, applies the plan built from
// them and reports over all (the topics of the whole call, in order).
func readAndApply(ctx context.Context, l ChildLister, w Writer, topics, roots []string, opts ApplyOptions,
	build func(map[string]*Tree) Plan, all []string) Result {
	trees, err := ReadTrees(ctx, l, roots, opts.MaxInFlight)
	if err != nil {
		return ordered(all, failAll(topics, err))
	}
	return ordered(all, build(trees).Apply(ctx, w, opts))
}

// failAll fails every topic with a read error.
func failAll(topics []string, err error) Result {
	r := Result{Failed: map[string]error{}}
	for _, t := range topics {
		r.Failed[t] = err
	}
	if fatal(err) {
		r.Err = err
	}
	return r
}

// ordered lists as removed, in the callers' order, every topic of all that
// r does not report failed (a topic with nothing left to delete included).
func ordered(all []string, r Result) Result {
	r.Removed = nil
	for _, t := range all {
		if r.Failed[t] == nil {
			r.Removed = append(r.Removed, t)
		}
	}
	return r
}
