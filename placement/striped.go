package placement

import (
	"cmp"
	"slices"
)

// brokerList is Kafka's BrokerList: the brokers of one rack in one fencing state, handed out
// one per call within an epoch, starting one further along at each new epoch.
type brokerList struct {
	brokers              []int // dense broker indices
	index, offset, epoch int
}

// next returns the next broker for epoch e, or -1 when the list is empty or used up for e.
// An empty list never changes state; a new epoch moves the offset on before the first fetch.
func (l *brokerList) next(e int) int {
	n := len(l.brokers)
	if n == 0 {
		return -1
	}
	if e != l.epoch {
		l.epoch, l.index, l.offset = e, 0, (l.offset+1)%n
	}
	if l.index >= n {
		return -1
	}
	b := l.brokers[(l.index+l.offset)%n]
	l.index++
	return b
}

// pendingEpoch marks a continued list: no real epoch equals it, so the first fetch, in
// whichever epoch, moves the offset on to the broker after the last one used.
const pendingEpoch = -1

// nextOffset is the position of the broker the list will hand out first.
func (l *brokerList) nextOffset() int {
	if l.epoch == pendingEpoch && len(l.brokers) > 0 {
		return (l.offset + 1) % len(l.brokers)
	}
	return l.offset
}

// stripedRack is Kafka's Rack: unfenced brokers first, fenced ones only as a last resort.
type stripedRack struct {
	key              rackKey
	fenced, unfenced brokerList
}

func (r *stripedRack) next(e int) int {
	if b := r.unfenced.next(e); b >= 0 {
		return b
	}
	return r.fenced.next(e)
}

// rackList is Kafka's RackList: the state of one StripedReplicaPlacer.place call.
type rackList struct {
	rnd       Rand
	ids       []int32 // dense index -> broker id
	rackOf    []int   // dense index -> rack index
	unfenced  []bool  // dense index -> may lead
	racks     []stripedRack
	hashOrder []int // rack indices in Java HashMap iteration order
	names     []int // rackNames: rack indices, sorted, later shuffled
	rackStamp []int // rackStamp[r] == stamp: rack r holds a replica of this partition
	stamp     int   // counts partitions placed (guards come and go)

	numTotal, numUnfenced int
	epoch, offset         int
}

// newRackList builds the placer state and makes its random draws in Kafka's order: per rack in
// HashMap order the fenced list's offset then the unfenced list's, then the rack offset. With
// existing partitions, offsets that can be inferred from them are not drawn (seed 004).
func newRackList(rnd Rand, brokers []Broker, existing [][]int32) *rackList {
	rl := &rackList{rnd: rnd}
	index := map[rackKey]int{}
	var keys []rackKey
	for i, b := range brokers {
		r, ok := index[b.rackKey()]
		if !ok {
			r = len(rl.racks)
			index[b.rackKey()] = r
			keys = append(keys, b.rackKey())
			rl.racks = append(rl.racks, stripedRack{key: b.rackKey()})
			rl.names = append(rl.names, r)
		}
		rl.ids = append(rl.ids, b.ID)
		rl.rackOf = append(rl.rackOf, r)
		rl.unfenced = append(rl.unfenced, !b.Fenced)
		if b.Fenced {
			rl.racks[r].fenced.brokers = append(rl.racks[r].fenced.brokers, i)
		} else {
			rl.racks[r].unfenced.brokers = append(rl.racks[r].unfenced.brokers, i)
			rl.numUnfenced++
		}
		rl.numTotal++
	}
	rl.hashOrder = javaHashMapOrder(keys)
	rl.rackStamp = make([]int, len(rl.racks))
	byID := func(a, b int) int { return cmp.Compare(rl.ids[a], rl.ids[b]) }
	for r := range rl.racks {
		slices.SortFunc(rl.racks[r].fenced.brokers, byID)
		slices.SortFunc(rl.racks[r].unfenced.brokers, byID)
	}
	slices.SortStableFunc(rl.names, func(a, b int) int { return compareRackKeys(rl.racks[a].key, rl.racks[b].key) })
	rl.initOffsets(rl.inferStart(existing))
	return rl
}

func (rl *rackList) initOffsets(cont stripedStart) {
	for _, r := range rl.hashOrder {
		rk := &rl.racks[r]
		if n := len(rk.fenced.brokers); n > 0 {
			rk.fenced.offset = rl.rnd.IntN(n)
		}
		if n := len(rk.unfenced.brokers); n > 0 {
			if cont.hasBroker[r] {
				rk.unfenced.offset, rk.unfenced.epoch = cont.brokerOffset[r], pendingEpoch
			} else {
				rk.unfenced.offset = rl.rnd.IntN(n)
			}
		}
	}
	switch {
	case len(rl.names) == 0:
	case cont.hasRack:
		rl.offset = cont.rackOffset
	default:
		rl.offset = rl.rnd.IntN(len(rl.names))
	}
}

// unfencedFlags is the guard's view of who may lead: nil when everyone may.
func (rl *rackList) unfencedFlags() []bool {
	if rl.numUnfenced == rl.numTotal {
		return nil
	}
	return rl.unfenced
}

// validatePlacer is StripedReplicaPlacer.place's check order.
func (rl *rackList) validatePlacer(rf int) error {
	switch {
	case rf <= 0:
		return errNonPositiveRF(rf)
	case rl.numUnfenced == 0:
		return errAllFenced()
	case rf > rl.numTotal:
		return errTooFewBrokers(rf, rl.numTotal)
	}
	return nil
}

// validateRackList is RackList.place's check order, which differs from the placer's.
func (rl *rackList) validateRackList(rf int) error {
	switch {
	case rf <= 0:
		return errNonPositiveRF(rf)
	case rf > rl.numTotal:
		return errTooFewBrokers(rf, rl.numTotal)
	case rl.numUnfenced == 0:
		return errAllFenced()
	}
	return nil
}

func errNonPositiveRF(rf int) error {
	return errorf(InvalidReplicationFactor, "Invalid replication factor %d: the replication factor must be positive.", rf)
}

func errAllFenced() error {
	return errorf(InvalidReplicationFactor, "All brokers are currently fenced.")
}

func errTooFewBrokers(rf, n int) error {
	return errorf(InvalidReplicationFactor,
		"The target replication factor of %d cannot be reached because only %d broker(s) are registered.", rf, n)
}

// placeAll places count partitions of rf replicas.
func (rl *rackList) placeAll(count, rf int, g *guard) ([][]int32, error) {
	out := make([][]int32, count)
	flat := make([]int32, count*rf)
	for i := range count {
		reps := flat[i*rf : (i+1)*rf : (i+1)*rf]
		if err := rl.place(rf, reps, g); err != nil {
			return nil, err
		}
		out[i] = reps
	}
	return out, nil
}
