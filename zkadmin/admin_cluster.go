package zkadmin

import (
	"slices"
	"sort"
	"strings"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/placement"
	"github.com/kzadmin/kzadmin/znodes"
)

// Cluster is one read of the cluster's znodes (ReadCluster). A malformed
// znode never fails the read: it is reported next to the item it concerns
// (Topic.Err, Partition.Err, BrokerErrors, ...), and everything else is
// still there.
type Cluster struct {
	// TopicsExist reports whether /brokers/topics exists; TopicsVersion is
	// its data version, read before anything else. It is the fence of the
	// partition limits (see the package doc).
	TopicsExist   bool
	TopicsVersion int32
	// topicsCversion is its children version, as of TopicNames.
	topicsCversion int32
	// TopicNames lists every child of /brokers/topics, sorted.
	TopicNames []string
	// Topics are the topics read (all of TopicNames, or those asked for),
	// sorted by name.
	Topics []*Topic
	// AllTopics reports whether Topics covers every topic, which the
	// partition counts need.
	AllTopics bool

	// Brokers are the registered (live) brokers that decode, by id.
	Brokers []Broker
	// BrokerErrors are registrations that do not decode or names under
	// /brokers/ids that are not broker ids. Such brokers are not counted
	// as live.
	BrokerErrors []BrokerError
	// Controller is the active controller's id, -1 when there is none.
	// ControllerErr is set when /controller does not decode.
	Controller    int32
	ControllerErr error

	// MarkedForDeletion holds the topics under /admin/delete_topics.
	MarkedForDeletion map[string]bool

	// Reassignment is the legacy /admin/reassign_partitions request when
	// present; ReassignmentErr is set when it is present but malformed
	// (Kafka ignores such a request but leaves the znode in place).
	Reassignment    *znodes.ReassignPartitions
	ReassignmentErr error
	// PreferredElection is /admin/preferred_replica_election when present.
	PreferredElection    *znodes.PreferredReplicaElection
	PreferredElectionErr error

	// BrokerDefaults is the config map of /config/brokers/<default>;
	// BrokerDefaultsVersion is its data version, -1 when it is absent.
	BrokerDefaults        map[string]string
	BrokerDefaultsVersion int32
	BrokerDefaultsErr     error
	// Config is the effective configuration: the static one overlaid with
	// BrokerDefaults. ConfigErr lists dynamic values that were skipped as
	// invalid (their static values stay in force).
	Config    config.Config
	ConfigErr error

	// byName indexes Topics; nil in the create path's reads, which Topic
	// then searches by name instead of building a map of every topic.
	byName map[string]*Topic
	// tally, when set, counts Topics (see replicaTally).
	tally *replicaTally
}

// Broker is a live broker.
type Broker struct {
	ID int32
	// Rack is broker.rack; HasRack is false when the broker has none.
	Rack    string
	HasRack bool
	// Endpoints are the advertised listeners.
	Endpoints []znodes.Endpoint
	// Epoch is the broker epoch (the czxid of its registration).
	Epoch int64
}

// BrokerError is a child of /brokers/ids that could not be read as a broker.
type BrokerError struct {
	Name string
	Err  error
}

// Topic is one topic as read from ZooKeeper.
type Topic struct {
	Name string
	// Assignment is the decoded /brokers/topics/<name>; Version is that
	// znode's data version (for version-checked rewrites).
	Assignment znodes.TopicAssignment
	Version    int32
	// Err is set when the topic znode does not decode; Assignment is then
	// empty and the topic is never rewritten.
	Err error
	// MarkedForDeletion mirrors Cluster.MarkedForDeletion.
	MarkedForDeletion bool

	// Config holds the overrides in /config/topics/<name> (ReadOptions.
	// Configs). ConfigVersion is -1 when the znode is absent.
	Config        map[string]string
	ConfigVersion int32
	ConfigErr     error

	// Partitions are the assigned partitions in id order, with their state
	// when ReadOptions.States asked for it.
	Partitions []Partition

	// replicaCounts are Assignment's replicas by broker, counted once
	// when the topic is decoded (nil: not counted, or no replicas): the
	// create path sums them over every topic for each batch, which
	// walking every partition made cost milliseconds at 100k partitions.
	replicaCounts []brokerReplicas
}

// brokerReplicas is how many replicas of a topic one broker holds.
type brokerReplicas struct {
	broker int32
	count  int
}

// countReplicas fills t.replicaCounts from t.Assignment.
func (t *Topic) countReplicas() {
	t.replicaCounts = nil
	for _, replicas := range t.Assignment.Partitions {
	next:
		for _, b := range replicas {
			for i := range t.replicaCounts {
				if t.replicaCounts[i].broker == b {
					t.replicaCounts[i].count++
					continue next
				}
			}
			t.replicaCounts = append(t.replicaCounts, brokerReplicas{broker: b, count: 1})
		}
	}
}

// Partition is one partition's assignment and state.
type Partition struct {
	ID       int32
	Replicas []int32
	Adding   []int32
	Removing []int32
	// State is the decoded state znode when StateRead is set. Err is
	// ErrNoNode when the controller has not created the state yet (a new
	// or offline partition), or the decode error.
	State     znodes.PartitionState
	StateRead bool
	Err       error
}

// Topic returns the topic read under name, or nil.
func (c *Cluster) Topic(name string) *Topic {
	if c.byName != nil {
		return c.byName[name]
	}
	i, found := slices.BinarySearchFunc(c.Topics, name, func(t *Topic, name string) int { return strings.Compare(t.Name, name) })
	if !found {
		return nil
	}
	return c.Topics[i]
}

// HasTopic reports whether /brokers/topics/<name> exists (read or not).
func (c *Cluster) HasTopic(name string) bool {
	i := sort.SearchStrings(c.TopicNames, name)
	return i < len(c.TopicNames) && c.TopicNames[i] == name
}

// Broker returns the live broker with this id.
func (c *Cluster) Broker(id int32) (Broker, bool) {
	i := sort.Search(len(c.Brokers), func(i int) bool { return c.Brokers[i].ID >= id })
	if i < len(c.Brokers) && c.Brokers[i].ID == id {
		return c.Brokers[i], true
	}
	return Broker{}, false
}

// PlacementBrokers returns the live brokers as placement sees them.
func (c *Cluster) PlacementBrokers() []placement.Broker {
	out := make([]placement.Broker, len(c.Brokers))
	for i, b := range c.Brokers {
		out[i] = placement.Broker{ID: b.ID, Rack: b.Rack, HasRack: b.HasRack}
	}
	return out
}

// ReplicaCounts returns the partition replicas each broker hosts and the
// partitions in the cluster, counting what is committed and what is
// requested but not yet applied:
//   - every replica of every topic znode, including those being added by a
//     reassignment in progress (they are in "partitions" already), and
//     topics marked for deletion (their replicas exist until deleted);
//   - the replicas a pending legacy /admin/reassign_partitions request
//     would add, since Kafka's controller applies it without asking us.
//
// A topic whose znode does not decode counts as no partitions, which is
// what Kafka's controller makes of it. The counts are only complete when
// the read covered all topics (AllTopics).
func (c *Cluster) ReplicaCounts() (perBroker map[int32]int, partitions int) {
	tally := c.tally
	if tally == nil {
		tally = tallyOf(c.Topics)
	}
	perBroker, partitions = tally.sum.byBroker(), tally.partitions
	if c.Reassignment != nil {
		for tp, target := range c.Reassignment.ByPartition() {
			var current []int32
			if t := c.Topic(tp.Topic); t != nil {
				current = t.Assignment.Partitions[tp.Partition]
			}
			for b, n := range placement.AddedReplicas([][]int32{current}, [][]int32{target}) {
				perBroker[b] += n
			}
		}
	}
	return perBroker, partitions
}

// Limits returns the partition limits in force with the current counts, as
// placement takes them.
func (c *Cluster) Limits() placement.Limits {
	perBroker, partitions := c.ReplicaCounts()
	l := c.Config.Limits()
	return placement.Limits{
		MaxBrokerPartitions: limitValue(l.MaxBrokerPartitions),
		MaxPartitions:       limitValue(l.MaxPartitions),
		BrokerReplicas:      perBroker,
		Partitions:          partitions,
	}
}

// limitValue maps config's Unlimited (and nonsense) to placement's 0.
func limitValue(v int32) int {
	if v <= 0 || v == config.Unlimited {
		return 0
	}
	return int(v)
}

// existingReplicas returns a topic's replica lists indexed by partition id,
// and false when the ids are not exactly 0..n-1.
func (t *Topic) existingReplicas() ([][]int32, bool) {
	ids := t.Assignment.PartitionIDs()
	out := make([][]int32, len(ids))
	for i, p := range ids {
		if p != int32(i) {
			return nil, false
		}
		out[i] = t.Assignment.Partitions[p]
	}
	return out, true
}

// reassigning reports whether any partition of t has a reassignment in
// progress in its znode or pending in the legacy request.
func (c *Cluster) reassigning(t *Topic) bool {
	for p := range t.Assignment.Partitions {
		if t.Assignment.IsReassigning(p) {
			return true
		}
	}
	if c.Reassignment != nil {
		for _, e := range c.Reassignment.Partitions {
			if e.Topic == t.Name {
				return true
			}
		}
	}
	return false
}
