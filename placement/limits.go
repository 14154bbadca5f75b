package placement

import (
	"math"
	"slices"
)

// Limits are KIP-578's partition limits plus the counts they are checked against. The zero
// value means "unlimited". A limit of 0 or below is unlimited: Kafka's proposal defaults both
// to Int.MaxValue, and a cluster that allows no partitions at all has no use.
type Limits struct {
	// MaxBrokerPartitions is max.broker.partitions: replicas one broker may host.
	MaxBrokerPartitions int
	// MaxPartitions is max.partitions: partitions the cluster may hold.
	MaxPartitions int
	// BrokerReplicas is the number of replicas each broker hosts now; missing brokers host none.
	BrokerReplicas map[int32]int
	// Partitions is the number of partitions in the cluster now.
	Partitions int
}

// unlimited stands for "no limit" in headroom arithmetic; min(unlimited, n) is n.
const unlimited = math.MaxInt32

// headroom is how many more replicas broker id may take.
func (l Limits) headroom(id int32) int {
	if l.MaxBrokerPartitions <= 0 {
		return unlimited
	}
	return max(0, l.MaxBrokerPartitions-l.BrokerReplicas[id])
}

// checkCluster fails when adding newPartitions would exceed max.partitions.
func (l Limits) checkCluster(newPartitions int) error {
	if l.MaxPartitions <= 0 || l.Partitions+newPartitions <= l.MaxPartitions {
		return nil
	}
	return &LimitError{Scope: ScopeCluster, Limit: l.MaxPartitions, Current: l.Partitions,
		Requested: l.Partitions + newPartitions}
}

// brokerError reports the broker that assignment pushes furthest over max.broker.partitions
// (lowest id on ties), or nil when it pushes none over.
func (l Limits) brokerError(assignment [][]int32) error {
	if l.MaxBrokerPartitions <= 0 {
		return nil
	}
	added := map[int32]int{}
	for _, replicas := range assignment {
		for _, id := range replicas {
			added[id]++
		}
	}
	return l.checkAdded(added)
}

// checkAdded returns a LimitError for the broker whose count after adding goes furthest over
// the limit, or nil. Brokers that receive nothing are never blamed, even if a lowered limit
// already leaves them above it.
func (l Limits) checkAdded(added map[int32]int) error {
	if l.MaxBrokerPartitions <= 0 {
		return nil
	}
	ids := make([]int32, 0, len(added))
	for id, n := range added {
		if n > 0 {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	var worst *LimitError
	for _, id := range ids {
		cur := l.BrokerReplicas[id]
		req := cur + added[id]
		if req > l.MaxBrokerPartitions && (worst == nil || req-l.MaxBrokerPartitions > worst.Requested-worst.Limit) {
			worst = &LimitError{Scope: ScopeBroker, BrokerID: id, Limit: l.MaxBrokerPartitions, Current: cur, Requested: req}
		}
	}
	if worst == nil {
		return nil
	}
	return worst
}

// feasible reports whether partitions partitions of rf distinct replicas each, every one led by
// an unfenced broker, fit into the headroom left. With a column per broker holding at most
// min(left, partitions) replicas, a placement exists exactly when
//
//	sum over brokers of min(left, partitions) >= partitions*rf     and
//	sum over unfenced brokers of min(left, partitions) >= partitions
//
// (the first is the Gale–Ryser condition for identical rows; the second, for leaders, follows
// by swapping replicas between rows). unfenced nil means every broker is unfenced.
func feasible(left []int, unfenced []bool, partitions, rf int) bool {
	all, lead := 0, 0
	for b, c := range left {
		m := min(c, partitions)
		all += m
		if unfenced == nil || unfenced[b] {
			lead += m
		}
	}
	return all >= partitions*rf && lead >= partitions
}

// guard decides which brokers may take the next replica of the partition being placed. It
// enforces distinct replicas always and, when limits apply, the headroom and the condition
// that what remains after this partition is still feasible. That condition is what lets a
// greedy placer never refuse a request that has a valid placement.
//
// For the remaining P partitions (this one included), call a broker "big" when its headroom is
// at least P. Placing this partition keeps the remainder feasible exactly when at most slack
// big brokers are left out of it (slack = sum min(left, P) - P*rf) and at most maxSmallU
// unfenced non-big brokers are put in it (they would burn headroom future leaders need).
type guard struct {
	left      []int  // headroom by dense broker index; nil when unlimited
	unfenced  []bool // nil: every broker may lead
	stamp     []int  // stamp[b] == cur: b already holds a replica of this partition
	cur       int
	rf        int
	remaining int // partitions still to place, this one included

	tight                         bool
	needBig, maxSmallU, slotsLeft int
	chosenBig, chosenSmallU       int
	availBig, availSU, availSF    int
}

func newGuard(left []int, unfenced []bool, brokers, partitions, rf int) *guard {
	return &guard{left: left, unfenced: unfenced, stamp: make([]int, brokers), rf: rf, remaining: partitions}
}

func (g *guard) isUnfenced(b int) bool { return g.unfenced == nil || g.unfenced[b] }

// begin starts a partition.
func (g *guard) begin() {
	g.cur++
	g.slotsLeft, g.chosenBig, g.chosenSmallU = g.rf, 0, 0
	if g.left == nil {
		return
	}
	p := g.remaining
	sumAll, sumU, big, bigU := 0, 0, 0, 0
	g.availSU, g.availSF = 0, 0
	for b, c := range g.left {
		u := g.isUnfenced(b)
		m := min(c, p)
		sumAll += m
		switch {
		case c >= p:
			big++
			if u {
				bigU++
			}
		case c > 0 && u:
			g.availSU++
		case c > 0:
			g.availSF++
		}
		if u {
			sumU += m
		}
	}
	g.availBig = big
	g.needBig = big - (sumAll - p*g.rf)
	g.maxSmallU = unlimited
	if g.unfenced != nil {
		g.maxSmallU = sumU - bigU - p + 1
	}
	g.tight = g.needBig > 0 || g.maxSmallU < g.rf
}

// ok reports whether broker b may take the next replica.
func (g *guard) ok(b int) bool {
	if g.stamp[b] == g.cur {
		return false
	}
	if g.left == nil {
		return true
	}
	c := g.left[b]
	if c <= 0 {
		return false
	}
	if !g.tight {
		return true
	}
	cb, csu := g.chosenBig, g.chosenSmallU
	ab, asu, asf := g.availBig, g.availSU, g.availSF
	switch {
	case c >= g.remaining:
		cb, ab = cb+1, ab-1
	case g.isUnfenced(b):
		csu, asu = csu+1, asu-1
	default:
		asf--
	}
	if csu > g.maxSmallU {
		return false
	}
	rest := g.slotsLeft - 1
	nb := max(0, g.needBig-cb)
	return nb <= ab && nb <= rest && ab+min(asu, g.maxSmallU-csu)+asf >= rest
}

// take records that broker b holds the next replica.
func (g *guard) take(b int) {
	g.stamp[b] = g.cur
	g.slotsLeft--
	if g.left == nil {
		return
	}
	switch c := g.left[b]; {
	case c >= g.remaining:
		g.chosenBig++
		g.availBig--
	case g.isUnfenced(b):
		g.chosenSmallU++
		g.availSU--
	default:
		g.availSF--
	}
	g.left[b]--
}

// end finishes a partition.
func (g *guard) end() { g.remaining-- }
