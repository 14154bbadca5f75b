package placement

import (
	"errors"
	"fmt"
)

// errStuck means a placer walked every candidate without finding an acceptable one. The guard
// makes this unreachable when the feasibility check passed; it is kept as a loud failure
// rather than a loop.
var errStuck = errors.New("placement: internal error: no acceptable broker left for a replica")

// adminRun is one call of Kafka's AdminUtils.assignReplicasToBrokers over a fixed walk list.
// Positions in list are the dense broker indices the guard works with.
type adminRun struct {
	list      []int32 // broker ids: sorted by id (rack-unaware) or rack-alternated
	rackAt    []int   // rack index of each position; nil when rack-unaware
	numRacks  int
	rackStamp []int // rackStamp[r] == stamp: rack r holds a replica of this partition
	stamp     int   // counts partitions placed by this run (guards come and go)
	start     int   // partition p is led by list[(p+start) % n]
	shift     int   // shift in force at partition first
	first     int   // id of the first partition placed (startPartitionId)
}

func newAdminRun(sorted []Broker, aware bool) *adminRun {
	a := &adminRun{}
	if aware {
		a.list, a.rackAt, a.numRacks = rackAlternated(sorted)
		a.rackStamp = make([]int, a.numRacks)
		return a
	}
	a.list = make([]int32, len(sorted))
	for i, b := range sorted {
		a.list[i] = b.ID
	}
	return a
}

// positions maps broker ids to positions in the walk list.
func (a *adminRun) positions() map[int32]int {
	pos := make(map[int32]int, len(a.list))
	for i, id := range a.list {
		pos[id] = i
	}
	return pos
}

// replicaIndex is AdminUtils.replicaIndex: the j-th follower position for a leader at first.
// It never returns first, and n-1 consecutive j visit every other position once.
func replicaIndex(first, shift, j, n int) int {
	return (first + 1 + (shift+j)%(n-1)) % n
}

// assign places count partitions of rf replicas, partition a.first first.
func (a *adminRun) assign(count, rf int, g *guard) ([][]int32, error) {
	n := len(a.list)
	out := make([][]int32, count)
	flat := make([]int32, count*rf)
	shift := a.shift
	for i := range count {
		p := a.first + i
		// The shift moves on at every multiple of n of the absolute partition id.
		if p > 0 && p%n == 0 {
			shift++
		}
		reps := flat[i*rf : (i+1)*rf : (i+1)*rf]
		if err := a.placeOne((p+a.start)%n, shift, g, reps); err != nil {
			return nil, fmt.Errorf("partition %d: %w", p, err)
		}
		out[i] = reps
	}
	return out, nil
}

// placeOne fills reps for the partition whose leader position is f. Without limits it is
// exactly Kafka's walk; with them, brokers the guard refuses are skipped.
func (a *adminRun) placeOne(f, shift int, g *guard, reps []int32) error {
	n := len(a.list)
	g.begin()
	defer g.end()
	a.stamp++
	lead := f
	for i := 0; !g.ok(lead); i++ {
		if i == n {
			return errStuck
		}
		lead = (lead + 1) % n
	}
	a.takeAt(lead, g, reps, 0)
	if a.rackAt == nil {
		return a.followersUnaware(lead, shift, g, reps)
	}
	return a.followersAware(lead, shift, g, reps)
}

func (a *adminRun) takeAt(pos int, g *guard, reps []int32, slot int) {
	g.take(pos)
	reps[slot] = a.list[pos]
	if a.rackAt != nil {
		a.rackStamp[a.rackAt[pos]] = a.stamp
	}
}

func (a *adminRun) followersUnaware(lead, shift int, g *guard, reps []int32) error {
	n, j := len(a.list), 0
	for slot := 1; slot < len(reps); slot++ {
		found := false
		for tries := 0; tries < n-1 && !found; tries++ {
			pos := replicaIndex(lead, shift, j, n)
			j++
			if g.ok(pos) {
				a.takeAt(pos, g, reps, slot)
				found = true
			}
		}
		if !found {
			return errStuck
		}
	}
	return nil
}

// followersAware is the rack-aware walk. The counter k runs on across the replicas of one
// partition and counts skipped candidates too, as in Kafka. A candidate is skipped while its
// rack already holds a replica and some rack holds none. With limits a second pass drops the
// rack rule, for when the racks still missing have no broker with headroom.
func (a *adminRun) followersAware(lead, shift int, g *guard, reps []int32) error {
	k, usedRacks := 0, 1
	for slot := 1; slot < len(reps); slot++ {
		pos, next := a.walkAware(lead, shift, k, g, usedRacks < a.numRacks)
		if pos < 0 && g.left != nil {
			pos, next = a.walkAware(lead, shift, k, g, false)
		}
		if pos < 0 {
			return errStuck
		}
		if a.rackStamp[a.rackAt[pos]] != a.stamp {
			usedRacks++
		}
		a.takeAt(pos, g, reps, slot)
		k = next
	}
	return nil
}

// walkAware tries the next n-1 candidates from counter k and returns the first acceptable
// position and the counter after it, or -1.
func (a *adminRun) walkAware(lead, shift, k int, g *guard, rackRule bool) (int, int) {
	n := len(a.list)
	for tries := 0; tries < n-1; tries++ {
		pos := replicaIndex(lead, shift*a.numRacks, k, n)
		k++
		if rackRule && a.rackStamp[a.rackAt[pos]] == a.stamp {
			continue
		}
		if g.ok(pos) {
			return pos, k
		}
	}
	return -1, k
}
