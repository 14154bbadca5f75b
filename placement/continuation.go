package placement

// Continuation: when partitions are added to a topic, both placers pick up where the
// topic's existing layout left off instead of starting from fresh random offsets, so added
// partitions follow the sequence a single larger creation would have produced and do not
// restart it (KAFKA-14437, seed 004). Whatever cannot be inferred is drawn at random, as before.

// stripedStart is what the striped placer infers from existing partitions.
type stripedStart struct {
	hasRack      bool
	rackOffset   int
	hasBroker    []bool // by rack index
	brokerOffset []int  // by rack index: position of the last unfenced broker used
}

// inferStart implements the KAFKA-14437 heuristics:
//   - rack offset: the rack after the rack of the last partition's leader, in sorted rack order;
//   - per rack: scanning partitions from last to first and replicas in order, the first broker
//     in that rack decides; if it is unfenced, the rack's unfenced list starts at the broker
//     after it. If it is fenced, the rack keeps a random offset (the scan does not go on).
//
// Brokers not in the usable list are skipped. The PR sets the list's offset to j+1 and relies
// on a list touched in epoch 0 not moving on; but a rack first touched by a later partition of
// the call (rf below the rack count) moves on once more and skips a broker. Here the list
// keeps offset j with a pending epoch, so its first touch, whenever it comes, hands out the
// broker after j; for racks the call's first partition touches this is the PR's behaviour.
// The PR took the index before sorting; here it is taken in id order, which is the same
// whenever brokers arrive sorted by id (the controller's order).
func (rl *rackList) inferStart(existing [][]int32) stripedStart {
	cont := stripedStart{hasBroker: make([]bool, len(rl.racks)), brokerOffset: make([]int, len(rl.racks))}
	if len(existing) == 0 || len(rl.racks) == 0 {
		return cont
	}
	dense := make(map[int32]int, len(rl.ids))
	for i, id := range rl.ids {
		dense[id] = i
	}
	if last := existing[len(existing)-1]; len(last) > 0 {
		if d, ok := dense[last[0]]; ok {
			for i, r := range rl.names {
				if r == rl.rackOf[d] {
					cont.hasRack, cont.rackOffset = true, (i+1)%len(rl.names)
				}
			}
		}
	}
	decided := make([]bool, len(rl.racks))
	undecided := len(rl.racks)
	for p := len(existing) - 1; p >= 0 && undecided > 0; p-- {
		for _, id := range existing[p] {
			d, ok := dense[id]
			if !ok || decided[rl.rackOf[d]] {
				continue
			}
			r := rl.rackOf[d]
			decided[r] = true
			undecided--
			list := rl.racks[r].unfenced.brokers
			for j, b := range list {
				if b == d {
					cont.hasBroker[r], cont.brokerOffset[r] = true, j
				}
			}
		}
	}
	return cont
}

// adminStart is what the AdminUtils placer infers from existing partitions.
type adminStart struct {
	hasStart, hasShift bool
	start, shift       int
}

// inferStart finds where an AdminUtils layout left off, the analogue of the striped rules:
//   - start: the leader of partition m (m = len(existing)) is the broker after the last
//     partition's leader in the walk list (the rack offset's counterpart);
//   - shift: the shift whose walk reproduces the last partition's followers (the broker
//     offsets' counterpart). When several do, earlier partitions decide, taking into account
//     that the shift grew by one at every multiple of n.
//
// For a layout that AdminUtils made over the same brokers this recovers its (start, shift),
// so adding partitions in steps gives exactly the layout of one creation. Kafka's own
// add-partitions rule (Options.KafkaAddRule) instead restarts from partition 0's leader.
func (a *adminRun) inferStart(existing [][]int32, rf int) adminStart {
	var st adminStart
	n, m := len(a.list), len(existing)
	pos := a.positions()
	last := existing[m-1]
	if len(last) == 0 {
		return st
	}
	fl, ok := pos[last[0]]
	if !ok {
		return st
	}
	st.hasStart, st.start = true, mod(fl+1-m, n)
	if rf == 1 || n == 1 {
		st.hasShift = true // the shift does not matter
		return st
	}
	g := newGuard(nil, nil, n, 1, rf)
	buf := make([]int32, rf)
	var survivors []int
	for s := range n - 1 {
		if a.reproduces(fl, s, last, g, buf) {
			survivors = append(survivors, s)
		}
	}
	for q := m - 2; q >= 0 && q >= m-1-2*n && len(survivors) > 1; q-- {
		var kept []int
		for _, s := range survivors {
			sq := mod(s-((m-1)/n-q/n), n-1)
			if a.reproduces(mod(q+st.start, n), sq, existing[q], g, buf) {
				kept = append(kept, s)
			}
		}
		if len(kept) == 0 {
			break
		}
		survivors = kept
	}
	if len(survivors) > 0 {
		st.hasShift, st.shift = true, survivors[0]
	}
	return st
}

// reproduces reports whether the unlimited walk for leader position f and shift s gives the
// replica list want (compared over the shorter of the two lengths).
func (a *adminRun) reproduces(f, s int, want []int32, g *guard, buf []int32) bool {
	if len(want) == 0 || a.list[f] != want[0] {
		return false
	}
	if err := a.placeOne(f, s, g, buf); err != nil {
		return false
	}
	for i := range min(len(want), len(buf)) {
		if buf[i] != want[i] {
			return false
		}
	}
	return true
}

// kafkaAddStart is AdminZkClient.createNewPartitionsAssignment's rule: the index, in the
// id-sorted broker list, of the first broker whose id is at least partition 0's leader (0 if
// none), used as both start and shift. In the rack-aware case it then indexes the
// rack-alternated list, an upstream quirk kept for compatibility.
func kafkaAddStart(sorted []Broker, existing [][]int32) int {
	if len(existing[0]) == 0 {
		return 0
	}
	leader0 := existing[0][0]
	for i, b := range sorted {
		if b.ID >= leader0 {
			return i
		}
	}
	return 0
}

func mod(x, n int) int {
	if n <= 0 {
		return 0
	}
	return (x%n + n) % n
}
