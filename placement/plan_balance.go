package placement

import "slices"

// balanceReplicas moves replicas until no two brokers' loads differ by two or more, or no
// move is allowed. Each step lowers the sum of squared loads, so every phase ends.
//  1. Free moves: replicas the plan already moved are redirected, or returned to a broker
//     that held the partition before, directly or through a chain; this mends what the
//     stranded-replica repair decided before it knew the rest.
//  2. Share moves: from brokers above their share to brokers below it. Each adds at most one
//     replica move and brings the plan one move closer to the shares, which is what a
//     minimal plan needs.
//  3. Whatever imbalance rack spread or headroom leaves: any move from a heavier to a
//     lighter broker, free ones first. The free searches back off after failing, as they
//     are costly on large clusters and rarely succeed this late.
func (pl *planner) balanceReplicas() {
	for pl.moveFree() || pl.moveChain() {
	}
	for pl.moveToShare() {
	}
	skip, backoff := 0, 1
	for {
		switch {
		case skip == 0 && (pl.moveFree() || pl.moveChain()):
			backoff = 1
		case pl.moveOne():
			if skip > 0 {
				skip--
			} else {
				skip, backoff = backoff, 2*backoff
			}
		default:
			return
		}
	}
}

// moveFree makes one move that adds no replica move, from a broker to one at least two
// lighter: a replica the plan moved goes on to the lightest broker that can take it, or a
// replica goes back to a broker that held the partition before the plan.
func (pl *planner) moveFree() bool {
	byLoad := pl.byLoad()
	for hi := len(byLoad) - 1; hi >= 0 && pl.load[byLoad[hi]] >= pl.load[byLoad[0]]+2; hi-- {
		from := byLoad[hi]
		for _, pi := range pl.freeList(from) {
			part := &pl.parts[pi]
			slot := slices.Index(part.reps, from)
			if to := pl.freeDestination(part, slot, byLoad); to >= 0 {
				pl.assign(pi, slot, to)
				return true
			}
		}
	}
	return false
}

// freeDestination returns a broker at least two lighter than the one in slot that can take
// the replica at no cost, or -1: any broker for a replica the plan moved here, otherwise
// only a broker that held the partition before.
func (pl *planner) freeDestination(part *planPart, slot int, byLoad []int) int {
	from := part.reps[slot]
	if !pl.isNew(part, from) {
		for _, id := range part.orig {
			if to, ok := pl.dense[id]; ok && pl.load[to] <= pl.load[from]-2 && pl.movable(part, slot, to) {
				return to
			}
		}
		return -1
	}
	for _, to := range byLoad {
		if pl.load[to] > pl.load[from]-2 {
			break
		}
		if pl.movable(part, slot, to) {
			return to
		}
	}
	return -1
}

// moveToShare moves one replica from the broker furthest above its share to a broker below
// its share and at least two lighter (the furthest below that can take one), preferring a
// follower.
func (pl *planner) moveToShare() bool {
	var over, under []int
	for b := range pl.ids {
		switch {
		case pl.load[b] > pl.share[b]:
			over = append(over, b)
		case pl.load[b] < pl.share[b]:
			under = append(under, b)
		}
	}
	slices.SortStableFunc(over, func(a, b int) int { return (pl.load[b] - pl.share[b]) - (pl.load[a] - pl.share[a]) })
	slices.SortStableFunc(under, func(a, b int) int { return (pl.load[a] - pl.share[a]) - (pl.load[b] - pl.share[b]) })
	for _, from := range over {
		for _, to := range under {
			// Between loads one apart a move only swaps which broker holds the extra replica.
			if pl.load[to] > pl.load[from]-2 {
				continue
			}
			if pi, slot := pl.bestMove(pl.holdersOf(from), from, to, 1); pi >= 0 {
				pl.assign(pi, slot, to)
				return true
			}
		}
	}
	return false
}

// movable reports whether the replica in slot may go to broker to: headroom, distinct
// replicas, and a rack spread that does not shrink.
func (pl *planner) movable(part *planPart, slot, to int) bool {
	if !pl.canTake(part, to) {
		return false
	}
	after := pl.distinctRacks(part.reps, slot)
	if !pl.hasRack(part.reps, pl.rackOf[to], slot) {
		after++
	}
	return after >= pl.distinctRacks(part.reps, -1)
}

// moveOne makes one move from a heavier to a lighter broker (loads differing by two or more),
// preferring followers, and reports whether it moved anything. It runs after moveFree found
// nothing, so every candidate costs one replica move.
func (pl *planner) moveOne() bool {
	byLoad := pl.byLoad()
	for hi := len(byLoad) - 1; hi >= 0 && pl.load[byLoad[hi]] >= pl.load[byLoad[0]]+2; hi-- {
		from := byLoad[hi]
		for _, to := range byLoad {
			if pl.load[to] > pl.load[from]-2 {
				break
			}
			if pi, slot := pl.bestMove(pl.holdersOf(from), from, to, 1); pi >= 0 {
				pl.assign(pi, slot, to)
				return true
			}
		}
	}
	return false
}

func (pl *planner) byLoad() []int {
	order := make([]int, len(pl.ids))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return pl.load[a] - pl.load[b] })
	return order
}

// bestMove picks, among partitions on from, the replica to hand to to at a cost of at most
// maxCost replica moves: undoing an earlier move first, then a follower rather than the
// leader. It returns -1 when there is none.
func (pl *planner) bestMove(parts []int, from, to, maxCost int) (int, int) {
	bestPart, bestSlot, bestKey := -1, -1, 0
	for _, pi := range parts {
		part := &pl.parts[pi]
		slot := slices.Index(part.reps, from)
		if slot < 0 {
			continue
		}
		cost := b2iPlan(pl.isNew(part, to)) - b2iPlan(pl.isNew(part, from))
		if cost > maxCost || !pl.movable(part, slot, to) {
			continue
		}
		key := 4*cost + b2iPlan(slot == 0) // a leader change is the lesser evil
		if bestPart < 0 || key < bestKey {
			bestPart, bestSlot, bestKey = pi, slot, key
		}
		// Nothing beats undoing a move as a follower; and when costly moves are allowed,
		// moveFree has already ruled out the cheaper ones.
		if key == -4 || (maxCost > 0 && key <= 4) {
			break
		}
	}
	return bestPart, bestSlot
}

// hop is one replica move in a chain.
type hop struct {
	from, part, slot int
}

// Chain search is a fallback: it starts from the few heaviest brokers only and gives up after
// looking at chainBudget replicas, so it stays cheap on large clusters where balance is stuck.
const (
	chainSources = 4
	chainBudget  = 1 << 18
)

// moveChain looks for a path X -> Z1 -> ... -> Y of moves that add no replica move, where X
// is at least two heavier than Y: the brokers in between give one replica and take one. This
// finds what a single move cannot when the only partitions X could give to Y already hold Y.
func (pl *planner) moveChain() bool {
	byLoad := pl.byLoad()
	budget := chainBudget
	for i := len(byLoad) - 1; i >= max(0, len(byLoad)-chainSources); i-- {
		x := byLoad[i]
		if pl.load[x] >= pl.load[byLoad[0]]+2 && pl.searchChain(x, &budget) {
			return true
		}
	}
	return false
}

// searchChain runs a breadth-first search from x over free moves and applies the first chain
// that reaches a broker at least two lighter than x.
func (pl *planner) searchChain(x int, budget *int) bool {
	n := len(pl.ids)
	prev := make([]hop, n)
	seen := make([]bool, n)
	seen[x] = true
	for queue := []int{x}; len(queue) > 0 && *budget > 0; queue = queue[1:] {
		z := queue[0]
		parts := pl.freeList(z)
		for y := range n {
			if seen[y] {
				continue
			}
			*budget -= len(parts)
			pi, slot := pl.bestMove(parts, z, y, 0)
			if pi < 0 || pl.pathUses(prev, x, z, pi) {
				continue
			}
			seen[y], prev[y] = true, hop{from: z, part: pi, slot: slot}
			if pl.load[y] <= pl.load[x]-2 {
				for to := y; to != x; to = prev[to].from { // last hop first
					pl.assign(prev[to].part, prev[to].slot, to)
				}
				return true
			}
			queue = append(queue, y)
		}
	}
	return false
}

// pathUses reports whether the chain from x to z already moves a replica of partition pi.
func (pl *planner) pathUses(prev []hop, x, z, pi int) bool {
	for at := z; at != x; at = prev[at].from {
		if prev[at].part == pi {
			return true
		}
	}
	return false
}

func b2iPlan(b bool) int {
	if b {
		return 1
	}
	return 0
}

// balanceLeaders reorders replicas so preferred leaders spread evenly: a partition led by a
// broker that leads at least two more partitions than one of its followers is led by that
// follower instead. No data moves. Each swap lowers the sum of squared leader counts.
func (pl *planner) balanceLeaders() {
	for changed := true; changed; {
		changed = false
		for pi := range pl.parts {
			reps := pl.parts[pi].reps
			best := -1
			for s := 1; s < len(reps); s++ {
				if pl.lead[reps[s]] <= pl.lead[reps[0]]-2 && (best < 0 || pl.lead[reps[s]] < pl.lead[reps[best]]) {
					best = s
				}
			}
			if best >= 0 {
				pl.lead[reps[0]]--
				pl.lead[reps[best]]++
				reps[0], reps[best] = reps[best], reps[0]
				changed = true
			}
		}
	}
}

// balance measures the current state.
func (pl *planner) balance() Balance {
	var bal Balance
	for i := range pl.ids {
		if i == 0 || pl.load[i] < bal.MinReplicas {
			bal.MinReplicas = pl.load[i]
		}
		bal.MaxReplicas = max(bal.MaxReplicas, pl.load[i])
		if i == 0 || pl.lead[i] < bal.MinLeaders {
			bal.MinLeaders = pl.lead[i]
		}
		bal.MaxLeaders = max(bal.MaxLeaders, pl.lead[i])
	}
	for _, part := range pl.parts {
		for _, b := range part.reps {
			if b < 0 {
				bal.Stranded++
			}
		}
		if pl.distinctRacks(part.reps, -1) < pl.wantRacks(len(part.reps)) {
			bal.RackShortfall++
		}
	}
	return bal
}

// result writes the proposal back in the input's shape and counts its cost.
func (pl *planner) result(topics []Topic) (out []Topic, moves, leaderChanges int) {
	next := 0
	for _, t := range topics {
		nt := Topic{Name: t.Name, Partitions: make([][]int32, len(t.Partitions))}
		for p := range t.Partitions {
			part := &pl.parts[next]
			next++
			reps := make([]int32, len(part.reps))
			for i, b := range part.reps {
				reps[i] = pl.ids[b]
				if pl.isNew(part, b) {
					moves++
				}
			}
			if reps[0] != part.orig[0] {
				leaderChanges++
			}
			nt.Partitions[p] = reps
		}
		out = append(out, nt)
	}
	return out, moves, leaderChanges
}
