package placement

import (
	"fmt"
	"slices"
)

// assign puts broker b into slot of partition pi, keeping loads, leaders, headroom and the
// holder lists current.
func (pl *planner) assign(pi, slot, b int) {
	part := &pl.parts[pi]
	lost := false
	if old := part.reps[slot]; old >= 0 {
		pl.load[old]--
		if slot == 0 {
			pl.lead[old]--
		}
		if pl.isNew(part, old) {
			pl.gained[old]--
		} else {
			lost = true
		}
		pl.stale[old]++ // left in holders[old] until holdersOf compacts it
	}
	part.reps[slot] = b
	pl.load[b]++
	if slot == 0 {
		pl.lead[b]++
	}
	pl.holders[b] = append(pl.holders[b], pi)
	if pl.isNew(part, b) {
		pl.gained[b]++
		pl.free[b] = append(pl.free[b], pi)
	}
	if lost { // an original holder left: every replica may now move back to it for free
		for _, h := range part.reps {
			pl.free[h] = append(pl.free[h], pi)
		}
	}
}

// holdersOf returns the partitions broker b holds. Entries for partitions b gave up are
// removed lazily, once they make up half the list, which keeps a move O(1) amortised;
// callers skip the few that remain.
func (pl *planner) holdersOf(b int) []int {
	if 2*pl.stale[b] <= len(pl.holders[b]) {
		return pl.holders[b]
	}
	pl.stamp++
	kept := pl.holders[b][:0]
	for _, pi := range pl.holders[b] {
		if pl.mark[pi] != pl.stamp && slices.Contains(pl.parts[pi].reps, b) {
			pl.mark[pi] = pl.stamp
			kept = append(kept, pi)
		}
	}
	pl.holders[b], pl.stale[b] = kept, 0
	return kept
}

// freeList prunes and returns the partitions whose replica on b may move without adding a
// replica move: ones the plan moved to b, or whose original holder lost them.
func (pl *planner) freeList(b int) []int {
	pl.stamp++
	kept := pl.free[b][:0]
	for _, pi := range pl.free[b] {
		part := &pl.parts[pi]
		if pl.mark[pi] == pl.stamp || !slices.Contains(part.reps, b) || !(pl.isNew(part, b) || pl.lostOriginal(part)) {
			continue
		}
		pl.mark[pi] = pl.stamp
		kept = append(kept, pi)
	}
	pl.free[b] = kept
	return kept
}

// lostOriginal reports whether a target broker that held part before the plan no longer does.
func (pl *planner) lostOriginal(part *planPart) bool {
	for _, id := range part.orig {
		if d, ok := pl.dense[id]; ok && !slices.Contains(part.reps, d) {
			return true
		}
	}
	return false
}

// repairStranded gives every replica that must move a target broker.
func (pl *planner) repairStranded() error {
	for pi := range pl.parts {
		part := &pl.parts[pi]
		for slot, b := range part.reps {
			if b >= 0 {
				continue
			}
			to := pl.bestTarget(part, slot, false)
			if to < 0 {
				return pl.limitError(part, slot)
			}
			pl.assign(pi, slot, to)
		}
	}
	return nil
}

// limitError blames the broker the replica would have gone to without limits.
func (pl *planner) limitError(part *planPart, slot int) error {
	b := pl.bestTarget(part, slot, true)
	if b < 0 {
		return fmt.Errorf("placement: internal error: no broker for a replica of %v", part.orig)
	}
	id := pl.ids[b]
	cur := pl.limits.BrokerReplicas[id]
	return &LimitError{Scope: ScopeBroker, BrokerID: id, Limit: pl.limits.MaxBrokerPartitions, Current: cur,
		Requested: cur + pl.gained[b] + 1}
}

// repairRacks raises partitions to min(rf, racks) racks where headroom allows: a replica
// whose rack the partition already uses (followers first, last slot first) moves to the
// least-loaded broker on a rack the partition lacks.
func (pl *planner) repairRacks() {
	for pi := range pl.parts {
		part := &pl.parts[pi]
		for pl.distinctRacks(part.reps, -1) < pl.wantRacks(len(part.reps)) {
			slot, to := pl.rackFix(part)
			if slot < 0 {
				break
			}
			pl.assign(pi, slot, to)
		}
	}
}

func (pl *planner) rackFix(part *planPart) (slot, to int) {
	order := make([]int, 0, len(part.reps))
	for s := len(part.reps) - 1; s >= 1; s-- {
		order = append(order, s)
	}
	order = append(order, 0)
	for _, s := range order {
		if !pl.hasRack(part.reps, pl.rackOf[part.reps[s]], s) {
			continue // the only replica on its rack: moving it gains nothing
		}
		best := -1
		for b := range pl.ids {
			if pl.hasRack(part.reps, pl.rackOf[b], -1) || !pl.canTake(part, b) {
				continue
			}
			if best < 0 || pl.load[b] < pl.load[best] {
				best = b
			}
		}
		if best >= 0 {
			return s, best
		}
	}
	return -1, -1
}
