package zkadmin

// replicaTally is the replica counts of a set of topics: the replicas each
// broker hosts and the partitions, as Cluster.ReplicaCounts sums them
// (without a pending legacy reassignment, which ReplicaCounts adds on
// top). The create path keeps the tally of its last read and carries it
// to the next read by what changed, so that a round's counting costs the
// topics that changed instead of every topic in the cluster: at 5k topics,
// summing them all was a millisecond of each small create, spent mostly
// waiting for memory. A tally is never changed once it is shared; with
// returns a changed copy.
type replicaTally struct {
	sum        replicaSum
	partitions int
}

// add counts t's replicas and partitions n times (n is 1 or -1).
func (tl *replicaTally) add(t *Topic, n int) {
	tl.partitions += n * len(t.Assignment.Partitions)
	if t.replicaCounts != nil {
		for _, r := range t.replicaCounts {
			tl.sum.add(r.broker, n*r.count)
		}
		return
	}
	for _, replicas := range t.Assignment.Partitions {
		for _, b := range replicas {
			tl.sum.add(b, n)
		}
	}
}

// tallyOf counts topics.
func tallyOf(topics []*Topic) *replicaTally {
	tl := &replicaTally{}
	for _, t := range topics {
		tl.add(t, 1)
	}
	return tl
}

// with returns a copy of tl without the topics removed and with those
// added.
func (tl *replicaTally) with(removed, added []*Topic) *replicaTally {
	out := &replicaTally{partitions: tl.partitions, sum: tl.sum.clone()}
	for _, t := range removed {
		out.add(t, -1)
	}
	for _, t := range added {
		out.add(t, 1)
	}
	return out
}

// replicaSum adds up replicas by broker. Broker ids are small in practice,
// so it counts in a slice indexed by id, with a map only for the others.
type replicaSum struct {
	dense  []int
	sparse map[int32]int
}

// denseBrokerIDs bounds the ids replicaSum counts in its slice.
const denseBrokerIDs = 1 << 16

func (s *replicaSum) add(broker int32, n int) {
	if broker < 0 || broker >= denseBrokerIDs {
		if s.sparse == nil {
			s.sparse = map[int32]int{}
		}
		s.sparse[broker] += n
		return
	}
	if int(broker) >= len(s.dense) {
		s.dense = append(s.dense, make([]int, int(broker)+1-len(s.dense))...)
	}
	s.dense[broker] += n
}

func (s *replicaSum) clone() replicaSum {
	out := replicaSum{dense: append([]int(nil), s.dense...)}
	if len(s.sparse) > 0 {
		out.sparse = make(map[int32]int, len(s.sparse))
		for b, n := range s.sparse {
			out.sparse[b] = n
		}
	}
	return out
}

// byBroker returns the sums by broker, brokers with no replicas left out.
func (s *replicaSum) byBroker() map[int32]int {
	out := make(map[int32]int, len(s.sparse))
	for b, n := range s.dense {
		if n != 0 {
			out[int32(b)] = n
		}
	}
	for b, n := range s.sparse {
		if n != 0 {
			out[b] = n
		}
	}
	return out
}
