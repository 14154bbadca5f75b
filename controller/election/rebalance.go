package election

import (
	"cmp"
	"slices"
)

// DefaultImbalancePercentage is leader.imbalance.per.broker.percentage's
// default.
const DefaultImbalancePercentage = 10

// RebalancePartition is one partition as the auto-rebalance check sees it,
// straight from the controller context.
type RebalancePartition struct {
	Partition  TopicPartition
	Assignment ReplicaAssignment
	// Current is the cached leadership, nil when the partition has none.
	Current *LeaderAndIsr
	// TopicDeleting: the topic is queued for deletion.
	TopicDeleting bool
}

// BrokerImbalance is the check for one preferred broker B: the partitions
// whose first assigned replica is B.
type BrokerImbalance struct {
	Broker int32
	// Partitions counts every partition preferring B, leaderless ones too.
	Partitions int
	// NotPreferred counts those with leadership info whose leader is not B.
	NotPreferred int
	// Ratio is NotPreferred / Partitions.
	Ratio float64
	// OverThreshold is Ratio > percentage / 100 (strictly).
	OverThreshold bool
	// Candidates are the partitions to elect with Preferred (auto
	// triggered: no znode cleanup afterwards), one batch per broker: the
	// not-preferred ones where B is online and in the ISR. Empty unless
	// OverThreshold.
	Candidates []TopicPartition
}

// CheckImbalance is Kafka's checkAndTriggerAutoLeaderRebalance over a
// snapshot of the context. The result has one entry per preferred broker,
// sorted by broker id; candidates keep input order. Topics queued for
// deletion are left out entirely. Partitions being reassigned are not
// excluded (Kafka 3.x, after KAFKA-10149); a shutting-down or dead preferred
// broker yields no candidates because it is not online.
func CheckImbalance(l Liveness, percentage int, parts []RebalancePartition) []BrokerImbalance {
	byBroker := map[int32]*BrokerImbalance{}
	notPreferred := map[int32][]RebalancePartition{}
	for _, p := range parts {
		if p.TopicDeleting || len(p.Assignment.Replicas) == 0 {
			continue
		}
		b := p.Assignment.Replicas[0]
		bi := byBroker[b]
		if bi == nil {
			bi = &BrokerImbalance{Broker: b}
			byBroker[b] = bi
		}
		bi.Partitions++
		if p.Current != nil && p.Current.Leader != b {
			bi.NotPreferred++
			notPreferred[b] = append(notPreferred[b], p)
		}
	}
	threshold := float64(percentage) / 100
	out := make([]BrokerImbalance, 0, len(byBroker))
	for b, bi := range byBroker {
		// Float division as in Kafka, so ties at the threshold behave alike.
		bi.Ratio = float64(bi.NotPreferred) / float64(bi.Partitions)
		bi.OverThreshold = bi.Ratio > threshold
		if bi.OverThreshold {
			for _, p := range notPreferred[b] {
				if ReplicaOnline(l, b, p.Partition) && slices.Contains(p.Current.ISR, b) {
					bi.Candidates = append(bi.Candidates, p.Partition)
				}
			}
		}
		out = append(out, *bi)
	}
	slices.SortFunc(out, func(x, y BrokerImbalance) int { return cmp.Compare(x.Broker, y.Broker) })
	return out
}

// HasPreferredLeader is the per-partition test behind the
// PreferredReplicaImbalanceCount metric: the leader is the first assigned
// replica. While a reassignment is adding that replica, the partition counts
// as balanced until the new replica has joined the ISR.
func HasPreferredLeader(a ReplicaAssignment, current LeaderAndIsr) bool {
	if len(a.Replicas) == 0 {
		return true
	}
	preferred := a.Replicas[0]
	if a.IsBeingReassigned() && slices.Contains(a.Adding, preferred) {
		return !slices.Contains(current.ISR, preferred)
	}
	return current.Leader == preferred
}

// PreferredReplicaImbalanceCount is the metric's value: partitions with
// leadership info, of topics not queued for deletion, that lack their
// preferred leader.
func PreferredReplicaImbalanceCount(parts []RebalancePartition) int {
	n := 0
	for _, p := range parts {
		if !p.TopicDeleting && p.Current != nil && !HasPreferredLeader(p.Assignment, *p.Current) {
			n++
		}
	}
	return n
}
