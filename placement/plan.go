package placement

import (
	"cmp"
	"slices"
)

// Topic is one topic's replica assignment: replica lists by partition id, the first replica
// of each being the preferred leader.
type Topic struct {
	Name       string
	Partitions [][]int32
}

// Balance summarises an assignment of the planned topics over the target brokers.
type Balance struct {
	// MinReplicas and MaxReplicas are the fewest and most replicas a target broker holds.
	MinReplicas, MaxReplicas int
	// MinLeaders and MaxLeaders count preferred leaders (first replicas) per target broker.
	MinLeaders, MaxLeaders int
	// Stranded counts replicas on brokers outside the target list (or repeated in a partition).
	Stranded int
	// RackShortfall counts partitions on fewer racks than min(replication factor, racks).
	RackShortfall int
}

// Plan is a proposed reassignment.
type Plan struct {
	// Topics is the proposed assignment, in the order and shape of the input.
	Topics []Topic
	// Moves counts replicas placed on a broker that did not hold a replica of that partition.
	Moves int
	// LeaderChanges counts partitions whose preferred leader changes.
	LeaderChanges int
	// Before and After describe the input and the proposal.
	Before, After Balance
}

// PlanReassignment proposes where the topics' replicas should live on the target brokers
// (kafka-reassign-partitions --generate, done better). Where --generate re-places every
// partition from scratch, this keeps replicas where they are and moves as few as it can:
//  1. replicas on brokers outside the targets (or repeated in a partition) move to the
//     least-loaded target broker, on a rack the partition lacks if any;
//  2. partitions spanning fewer racks than min(rf, racks) get a replica moved to a missing rack;
//  3. replicas move from the most to the least loaded broker while loads differ by two or
//     more, never reducing a partition's rack spread, preferring moves that undo earlier ones;
//  4. replicas are reordered within partitions (no data moves) to balance preferred leaders.
//
// Every broker that gains a replica is checked as Limits.CheckReassignment does. Brokers
// must all have a rack or none (use ApplyRackMode to decide); each partition keeps its own
// replication factor.
func PlanReassignment(topics []Topic, brokers []Broker, limits Limits) (Plan, error) {
	pl, err := newPlanner(topics, brokers, limits)
	if err != nil {
		return Plan{}, err
	}
	plan := Plan{Before: pl.balance()}
	if err := pl.repairStranded(); err != nil {
		return Plan{}, err
	}
	pl.repairRacks()
	pl.balanceReplicas()
	pl.balanceLeaders()
	plan.After = pl.balance()
	plan.Topics, plan.Moves, plan.LeaderChanges = pl.result(topics)
	return plan, nil
}

// planPart is one partition in the planner.
type planPart struct {
	orig []int32 // replica ids before the plan
	reps []int   // dense target indices; -1 for a replica that must move
}

type planner struct {
	ids      []int32 // target brokers by id
	dense    map[int32]int
	rackOf   []int
	numRacks int
	parts    []planPart
	load     []int
	lead     []int
	headroom []int   // replicas each broker may gain under max.broker.partitions
	gained   []int   // replicas each broker gains in the plan so far
	share    []int   // replicas each broker should end with: q or q+1
	holders  [][]int // partitions each broker holds, plus stale entries (see holdersOf)
	stale    []int   // stale entries in holders, per broker
	free     [][]int // partitions whose replica on the broker may move at no cost (pruned lazily)
	mark     []int   // scratch stamps by partition, for pruning free
	stamp    int
	limits   Limits
}

func newPlanner(topics []Topic, brokers []Broker, limits Limits) (*planner, error) {
	if id, dup := duplicateID(brokers); dup {
		return nil, errorf(AdminOperation, "Broker %d appears more than once in the broker list.", id)
	}
	sorted, err := ApplyRackMode(brokers, RackEnforced)
	if err != nil {
		return nil, err
	}
	pl := &planner{dense: map[int32]int{}, limits: limits}
	racks := map[string]int{}
	for i, b := range sorted {
		pl.ids = append(pl.ids, b.ID)
		pl.dense[b.ID] = i
		if _, ok := racks[b.Rack]; !ok {
			racks[b.Rack] = len(racks)
		}
		pl.rackOf = append(pl.rackOf, racks[b.Rack])
		pl.headroom = append(pl.headroom, limits.headroom(b.ID))
	}
	pl.numRacks = len(racks)
	n := len(pl.ids)
	pl.load, pl.lead, pl.gained = make([]int, n), make([]int, n), make([]int, n)
	for _, t := range topics {
		for p, orig := range t.Partitions {
			switch {
			case len(orig) == 0:
				return nil, errorf(InvalidReplicaAssignment, "Partition %s-%d has no replicas.", t.Name, p)
			case len(orig) > n:
				return nil, errorf(InvalidReplicationFactor, "Replication factor: %d larger than available brokers: %d.",
					len(orig), n)
			}
			pl.parts = append(pl.parts, pl.newPart(orig))
		}
	}
	pl.shares()
	pl.holders, pl.free, pl.stale = make([][]int, n), make([][]int, n), make([]int, n)
	pl.mark = make([]int, len(pl.parts))
	for pi, part := range pl.parts {
		for _, b := range part.reps {
			if b >= 0 {
				pl.holders[b] = append(pl.holders[b], pi)
			}
		}
	}
	return pl, nil
}

// shares sets each broker's final share of the replicas: q or q+1, the extra ones going to
// the brokers that hold most now, so that reaching the shares moves as little as possible.
func (pl *planner) shares() {
	n, total := len(pl.ids), 0
	for _, part := range pl.parts {
		total += len(part.reps)
	}
	byLoad := make([]int, n)
	for i := range byLoad {
		byLoad[i] = i
	}
	slices.SortStableFunc(byLoad, func(a, b int) int { return cmp.Compare(pl.load[b], pl.load[a]) })
	pl.share = make([]int, n)
	for rank, b := range byLoad {
		pl.share[b] = total / n
		if rank < total%n {
			pl.share[b]++
		}
	}
}

func (pl *planner) newPart(orig []int32) planPart {
	part := planPart{orig: orig, reps: make([]int, len(orig))}
	for i, id := range orig {
		d, ok := pl.dense[id]
		if !ok || slices.Contains(orig[:i], id) {
			d = -1
		}
		part.reps[i] = d
		if d >= 0 {
			pl.load[d]++
			if i == 0 {
				pl.lead[d]++
			}
		}
	}
	return part
}

// wantRacks is the rack spread a partition of rf replicas should reach.
func (pl *planner) wantRacks(rf int) int { return min(rf, pl.numRacks) }

// distinctRacks counts the racks of a partition's placed replicas, ignoring slot skip.
func (pl *planner) distinctRacks(reps []int, skip int) int {
	n := 0
	for i, b := range reps {
		if b < 0 || i == skip {
			continue
		}
		dup := false
		for j := range i {
			if j != skip && reps[j] >= 0 && pl.rackOf[reps[j]] == pl.rackOf[b] {
				dup = true
				break
			}
		}
		if !dup {
			n++
		}
	}
	return n
}

func (pl *planner) hasRack(reps []int, rack, skip int) bool {
	for i, b := range reps {
		if i != skip && b >= 0 && pl.rackOf[b] == rack {
			return true
		}
	}
	return false
}

// isNew reports whether broker b would be a new holder for the partition.
func (pl *planner) isNew(part *planPart, b int) bool { return !slices.Contains(part.orig, pl.ids[b]) }

// canTake reports whether b may receive a replica of part in place of slot.
func (pl *planner) canTake(part *planPart, b int) bool {
	return !slices.Contains(part.reps, b) && (!pl.isNew(part, b) || pl.gained[b] < pl.headroom[b])
}

// bestTarget picks the broker for slot of part: on a rack the partition lacks when that
// raises its spread, then one still below its share, then least loaded, then lowest id.
// ignoreRoom finds the broker to blame when limits leave none.
func (pl *planner) bestTarget(part *planPart, slot int, ignoreRoom bool) int {
	needRack := pl.distinctRacks(part.reps, slot) < pl.wantRacks(len(part.reps))
	best, bestKey := -1, [4]int{}
	for b := range pl.ids {
		if slices.Contains(part.reps, b) || (!ignoreRoom && !pl.canTake(part, b)) {
			continue
		}
		rackPenalty := 0
		if needRack && pl.hasRack(part.reps, pl.rackOf[b], slot) {
			rackPenalty = 1
		}
		key := [4]int{rackPenalty, b2iPlan(pl.load[b] >= pl.share[b]), pl.load[b], b}
		if best < 0 || cmpKey(key, bestKey) < 0 {
			best, bestKey = b, key
		}
	}
	return best
}

func cmpKey(a, b [4]int) int {
	for i := range a {
		if c := cmp.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return 0
}
