// Package throttle computes the replication throttles of a partition
// reassignment as Kafka's kafka-reassign-partitions --throttle sets them:
// which replicas of each topic are throttled as leaders (the ones the data
// is read from) and as followers (the new ones it is copied to), and which
// brokers take the throttle rate. It is pure: the caller reads the
// cluster and writes the configs.
package throttle

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// The configs a reassignment throttle sets (Kafka's QuotaConfig names).
const (
	LeaderReplicasKey   = "leader.replication.throttled.replicas"
	FollowerReplicasKey = "follower.replication.throttled.replicas"
	LeaderRateKey       = "leader.replication.throttled.rate"
	FollowerRateKey     = "follower.replication.throttled.rate"
	// AlterLogDirsRateKey is cleared with the others (kafka-reassign-partitions
	// sets it for log-directory moves, which kzadmin does not make).
	AlterLogDirsRateKey = "replica.alter.log.dirs.io.max.bytes.per.second"
)

// TopicKeys are the topic configs a throttle sets, and --verify clears.
func TopicKeys() []string { return []string{LeaderReplicasKey, FollowerReplicasKey} }

// BrokerKeys are the broker configs --verify clears.
func BrokerKeys() []string { return []string{LeaderRateKey, FollowerRateKey, AlterLogDirsRateKey} }

// Partition names one partition.
type Partition struct {
	Topic     string
	Partition int32
}

// Ongoing is a reassignment in progress: the partition's replicas, which
// include the ones being added.
type Ongoing struct {
	Replicas, Adding []int32
}

// Move is one partition's movement: its data is read from Sources and
// copied to Destinations.
type Move struct {
	Sources, Destinations []int32
}

// Moves are the movements of the cluster once the plan runs, as Kafka's
// tool computes them: every reassignment in progress (its replicas but the
// ones being added are the sources, the added ones the destinations), and
// each planned partition, whose sources are those of its reassignment in
// progress, else its current replicas, and whose destinations are the
// planned replicas that are not sources. A planned partition with no
// current replicas is an error.
func Moves(plan map[Partition][]int32, current map[Partition][]int32, ongoing map[Partition]Ongoing) (map[Partition]Move, error) {
	moves := make(map[Partition]Move, len(ongoing)+len(plan))
	for p, o := range ongoing {
		moves[p] = Move{Sources: without(o.Replicas, o.Adding), Destinations: sortedSet(o.Adding)}
	}
	for _, p := range slices.SortedFunc(maps.Keys(plan), comparePartitions) {
		sources := moves[p].Sources
		if _, inProgress := ongoing[p]; !inProgress {
			if len(current[p]) == 0 {
				return nil, fmt.Errorf("%s-%d: cannot reassign a partition with no replicas", p.Topic, p.Partition)
			}
			sources = sortedSet(current[p])
		}
		moves[p] = Move{Sources: sources, Destinations: without(plan[p], sources)}
	}
	return moves, nil
}

// TopicConfigs are the throttled-replica configs of each topic with a
// move: "<partition>:<broker>" items, sorted as strings and joined with
// commas as Kafka's tool writes them; leaders are each move's sources,
// followers its destinations.
func TopicConfigs(moves map[Partition]Move) map[string]map[string]string {
	leaders, followers := map[string][]string{}, map[string][]string{}
	for p, m := range moves {
		for _, b := range m.Sources {
			leaders[p.Topic] = append(leaders[p.Topic], item(p.Partition, b))
		}
		if _, ok := followers[p.Topic]; !ok {
			followers[p.Topic] = nil // a topic with a move has both configs, even empty
		}
		for _, b := range m.Destinations {
			followers[p.Topic] = append(followers[p.Topic], item(p.Partition, b))
		}
	}
	out := make(map[string]map[string]string, len(followers))
	for topic := range followers {
		out[topic] = map[string]string{
			LeaderReplicasKey:   joinSorted(leaders[topic]),
			FollowerReplicasKey: joinSorted(followers[topic]),
		}
	}
	return out
}

// Brokers are the brokers a move reads from or copies to, ascending: the
// ones whose replication the rate throttles.
func Brokers(moves map[Partition]Move) []int32 {
	set := map[int32]bool{}
	for _, m := range moves {
		for _, b := range m.Sources {
			set[b] = true
		}
		for _, b := range m.Destinations {
			set[b] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// BrokerConfigs are the rate configs each throttled broker takes.
func BrokerConfigs(rate int64) map[string]string {
	r := strconv.FormatInt(rate, 10)
	return map[string]string{LeaderRateKey: r, FollowerRateKey: r}
}

func item(partition, broker int32) string { return fmt.Sprintf("%d:%d", partition, broker) }

// joinSorted dedupes and sorts items as strings, as Java's TreeSet<String>.
func joinSorted(items []string) string {
	slices.Sort(items)
	return strings.Join(slices.Compact(items), ",")
}

// sortedSet is ids without duplicates, ascending.
func sortedSet(ids []int32) []int32 {
	out := slices.Clone(ids)
	slices.Sort(out)
	return slices.Compact(out)
}

// without is the set of a's ids not in b, ascending.
func without(a, b []int32) []int32 {
	var out []int32
	for _, id := range sortedSet(a) {
		if !slices.Contains(b, id) {
			out = append(out, id)
		}
	}
	return out
}

func comparePartitions(a, b Partition) int {
	if c := strings.Compare(a.Topic, b.Topic); c != 0 {
		return c
	}
	return int(a.Partition) - int(b.Partition)
}
