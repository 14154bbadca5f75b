package placement

// place is RackList.place: one partition of rf replicas, written to reps (len rf). The leader is unfenced and
// comes from the rack at the current offset or the first one after it that has an unfenced
// broker left; followers are taken rack by rack from the offset, skipping the leader's rack
// once, unfenced brokers before fenced ones. With limits, brokers the guard refuses are
// passed over within their rack.
func (rl *rackList) place(rf int, reps []int32, g *guard) error {
	if err := rl.validateRackList(rf); err != nil {
		return err
	}
	if rl.epoch == rl.numUnfenced && rl.numUnfenced > 1 {
		javaShuffle(rl.names, rl.rnd)
		for _, r := range rl.hashOrder {
			javaShuffle(rl.racks[r].fenced.brokers, rl.rnd)
			javaShuffle(rl.racks[r].unfenced.brokers, rl.rnd)
		}
		rl.epoch = 0
	}
	if rl.offset == len(rl.names) {
		rl.offset = 0
	}
	g.begin()
	defer g.end()
	rl.stamp++
	first, err := rl.placeLeader(reps, g)
	if err != nil {
		return err
	}
	if err := rl.placeFollowers(first, reps, g); err != nil {
		return err
	}
	rl.epoch++
	rl.offset++
	return nil
}

func (rl *rackList) take(b, slot int, reps []int32, g *guard) {
	g.take(b)
	reps[slot] = rl.ids[b]
	rl.rackStamp[rl.rackOf[b]] = rl.stamp
}

// placeLeader returns the position in names of the leader's rack.
func (rl *rackList) placeLeader(reps []int32, g *guard) (int, error) {
	numRacks := len(rl.names)
	first := rl.offset
	// A list that returns -1 stays empty for the rest of the epoch, so one full round of
	// empty racks means Kafka's loop would never end; fall back instead.
	for misses := 0; misses < numRacks; {
		b := rl.racks[rl.names[first]].unfenced.next(rl.epoch)
		if b < 0 {
			first = (first + 1) % numRacks
			misses++
			continue
		}
		if g.ok(b) {
			rl.take(b, 0, reps, g)
			return first, nil
		}
	}
	b, at := rl.fallback(first, g, true)
	if b < 0 {
		return 0, errStuck
	}
	rl.take(b, 0, reps, g)
	return at, nil
}

func (rl *rackList) placeFollowers(first int, reps []int32, g *guard) error {
	numRacks := len(rl.names)
	ri := rl.offset
	for slot := 1; slot < len(reps); slot++ {
		b := -1
		for misses := 0; b < 0 && misses <= numRacks; misses++ {
			if ri == first {
				first = -1 // skip the leader's rack exactly once
			} else {
				b = rl.nextAccepted(&rl.racks[rl.names[ri]], g)
			}
			ri = (ri + 1) % numRacks
		}
		if b < 0 {
			b, _ = rl.fallback(ri, g, false)
		}
		if b < 0 {
			return errStuck
		}
		rl.take(b, slot, reps, g)
	}
	return nil
}

// nextAccepted draws from rack until it yields a broker the guard accepts or runs dry.
func (rl *rackList) nextAccepted(rk *stripedRack, g *guard) int {
	for {
		b := rk.next(rl.epoch)
		if b < 0 || g.ok(b) {
			return b
		}
	}
}

// fallback scans every broker, racks from position from on, unfenced before fenced, first
// in racks the partition does not use yet. It is reached only when limits (or Kafka's
// stale-epoch quirk) leave the striped walk with nothing; it does not consume list state.
func (rl *rackList) fallback(from int, g *guard, leader bool) (b, at int) {
	numRacks := len(rl.names)
	for pass := range 2 {
		for i := range numRacks {
			at = (from + i) % numRacks
			r := rl.names[at]
			if pass == 0 && rl.rackStamp[r] == rl.stamp {
				continue
			}
			if b = scanList(&rl.racks[r].unfenced, g); b >= 0 {
				return b, at
			}
			if !leader {
				if b = scanList(&rl.racks[r].fenced, g); b >= 0 {
					return b, at
				}
			}
		}
	}
	return -1, 0
}

func scanList(l *brokerList, g *guard) int {
	n := len(l.brokers)
	for j := range n {
		if b := l.brokers[(l.offset+j)%n]; g.ok(b) {
			return b
		}
	}
	return -1
}
