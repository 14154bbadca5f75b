package zkadmin

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/kzadmin/kzadmin/placement"
	"github.com/kzadmin/kzadmin/znodes"
)

// CreateTopicRequest asks for a new topic: either Partitions and
// ReplicationFactor (placed by placement, rack-aware when the brokers have
// racks) or an explicit Assignment, where element i is partition i's
// replicas, the first being the preferred leader.
type CreateTopicRequest struct {
	Topic string
	// Partitions and ReplicationFactor: -1 takes num.partitions and
	// default.replication.factor from the effective config. Leave both
	// zero when giving an Assignment.
	Partitions        int32
	ReplicationFactor int16
	Assignment        [][]int32
	// AssignmentIDs, when not nil, number Assignment's lists (ascending,
	// each id once) as a CreateTopics request numbers its own, and must
	// be 0..n-1: planNewTopic checks that after the lists themselves,
	// where Kafka does, so that a request failing both gets Kafka's
	// answer. nil: list i is partition i.
	AssignmentIDs []int32
	// Config holds the topic's config overrides, validated against Kafka
	// 3.9's topic configs.
	Config map[string]string
	// RackMode is what to do when only some brokers have a rack; the zero
	// value refuses, as kafka-topics does without --disable-rack-aware.
	RackMode placement.RackMode
	// DryRun validates, places and checks limits, and returns the ops it
	// would apply without writing anything.
	DryRun bool
	// Admit, when set, is asked once, after every check and before the
	// write, to take the topic's partitions from the requester's
	// controller mutation quota (KIP-599); its error refuses the topic.
	// Dry runs never ask.
	Admit func(partitions int) error
}

// CreateTopicResult says what was (or, DryRun, would be) written.
type CreateTopicResult struct {
	TopicID    znodes.UUID
	Assignment [][]int32
	// Ops is the multi that was applied (or would be).
	Ops []Op
	// Attempts counts reads and plans, more than 1 when a concurrent writer
	// won a race first.
	Attempts int
	// BrokerDefaults are the cluster-wide dynamic broker configs
	// (/config/brokers/<default>) as the plan read them, empty when there
	// are none or they do not decode; nil when the call did not read them
	// (CreateTopic).
	BrokerDefaults map[string]string
}

// CreateTopic creates a topic as AdminZkClient.createTopicWithAssignment
// does, but atomically: the config znode /config/topics/<t> and the
// assignment /brokers/topics/<t> (version 3, with a new topic id) are
// written in one multi, together with the partition-limit fence, so a topic
// never exists without its config and concurrent creators never overshoot
// the limits. No config change notification is written (Kafka writes none
// for a new topic), and no partition state: Kafka's controller (or kzadmin's)
// creates those when it sees the topic.
func (a *Admin) CreateTopic(ctx context.Context, req CreateTopicRequest) (*CreateTopicResult, error) {
	out, err := a.CreateTopics(ctx, []CreateTopicRequest{req})
	if out[0].Err != nil {
		return nil, out[0].Err
	}
	if err != nil {
		return nil, err
	}
	return out[0].Result, nil
}

// checkCreateRequest makes the checks of the request's shape, which need
// no read and come before all the others.
func checkCreateRequest(req CreateTopicRequest) error {
	name := req.Topic
	if name == znodes.ClusterMetadataTopic {
		return adminErr(KindInvalidRequest, name, "Creation of internal topic %s is prohibited.", name)
	}
	if req.AssignmentIDs != nil && len(req.AssignmentIDs) != len(req.Assignment) {
		return adminErr(KindInvalidRequest, name, "create topic %s: %d partition ids for %d replica lists",
			name, len(req.AssignmentIDs), len(req.Assignment))
	}
	if req.Assignment != nil && (req.Partitions > 0 || req.ReplicationFactor > 0) {
		return adminErr(KindInvalidRequest, name, "Both numPartitions or replicationFactor and replicasAssignments "+
			"were set. Both cannot be used at the same time.")
	}
	return nil
}

// planNewTopic checks a topic and places it, in Kafka's order (its
// createTopics, then AdminZkClient.validateTopicCreate): the placement of
// partition and replica counts, the name, its state in the cluster and
// its collisions, an explicit assignment and its partition ids, the
// configs. The partition limits, which Kafka does not have, come last, so
// that a topic refused for them is one that would otherwise have been
// created. plannedNames and planned are as validateNewTopic takes them.
// anyRead reports a refusal that no state of the cluster would lift (the
// name, the configs).
func (a *Admin) planNewTopic(c *Cluster, req CreateTopicRequest, limits placement.Limits, plannedNames []string,
	planned map[string]bool) (asg [][]int32, anyRead bool, err error) {
	name := req.Topic
	var overLimit error
	if req.Assignment == nil {
		asg, err = a.placeCounts(c, req, limits)
		if errors.Is(err, ErrPartitionLimit) {
			overLimit = err
		} else if err != nil {
			return nil, false, err
		}
	}
	if err := znodes.ValidateTopicName(name); err != nil {
		return nil, true, adminErr(KindInvalidTopic, name, "%v", err)
	}
	if err := validateNewTopic(c, name, plannedNames, planned); err != nil {
		return nil, false, err
	}
	if req.Assignment != nil {
		if err := validateAssignment(c, name, req.Assignment, req.AssignmentIDs, 0, 0); err != nil {
			return nil, false, err
		}
		if !consecutiveFromZero(req.AssignmentIDs) {
			// Not a refusal on any read: the checks before it read the
			// cluster.
			return nil, false, adminErr(KindInvalidReplicaAssignment, name,
				"partitions should be a consecutive 0-based integer sequence")
		}
		asg = req.Assignment
	}
	if err := ValidateTopicConfig(name, req.Config); err != nil {
		return nil, true, err
	}
	if overLimit != nil {
		return nil, false, overLimit
	}
	if req.Assignment != nil {
		doing := fmt.Sprintf("creating topic '%s' with %d partitions", name, len(req.Assignment))
		if err := limits.CheckNewPartitions(req.Assignment); err != nil {
			return nil, false, fromPlacement(name, doing, err)
		}
	}
	return asg, false, nil
}

// validateNewTopic is AdminZkClient.validateTopicCreate's check of the name
// against the cluster, in Kafka's order and with Kafka's messages.
// plannedNames are the topics planned earlier in the batch, in order,
// which planned also holds.
func validateNewTopic(c *Cluster, name string, plannedNames []string, planned map[string]bool) error {
	if c.MarkedForDeletion[name] {
		return adminErr(KindMarkedForDeletion, name, "Topic '%s' is marked for deletion.", name)
	}
	if c.HasTopic(name) || planned[name] {
		return adminErr(KindTopicExists, name, "Topic '%s' already exists.", name)
	}
	// The topics planned earlier in the batch count as existing, after the
	// cluster's (checked apart, so that no round copies the cluster's names).
	colliding := slices.Concat(znodes.CollidingTopics(name, c.TopicNames), znodes.CollidingTopics(name, plannedNames))
	if err := znodes.CheckTopicCollision(name, colliding); err != nil {
		return adminErr(KindInvalidTopic, name, "%v", err)
	}
	return nil
}

// placeCounts places a topic given by partition and replica counts within
// the limits (the cluster's counts plus what the batch planned before
// this topic), which the placement steers around where it can.
func (a *Admin) placeCounts(c *Cluster, req CreateTopicRequest, limits placement.Limits) ([][]int32, error) {
	name := req.Topic
	partitions, rf := int(req.Partitions), int(req.ReplicationFactor)
	if partitions == -1 {
		partitions = int(c.Config.NumPartitions)
	}
	if rf == -1 {
		rf = int(c.Config.DefaultReplicationFactor)
	}
	doing := fmt.Sprintf("creating topic '%s' with %d partitions of replication factor %d", name, partitions, rf)
	brokers, err := placement.ApplyRackMode(c.PlacementBrokers(), req.RackMode)
	if err != nil {
		return nil, fromPlacement(name, doing, err)
	}
	asg, err := placement.AssignReplicas(brokers, partitions, rf,
		placement.Options{Rand: a.opts.Rand, Limits: limits, Topic: name})
	if err != nil {
		return nil, fromPlacement(name, doing, err)
	}
	return asg, nil
}

// confirmCreated decides a create whose reply was lost: it landed exactly
// when the topic now carries the id we generated.
func (a *Admin) confirmCreated(ctx context.Context, name string, id znodes.UUID) bool {
	if a.zk.WaitConnected(ctx) != nil || a.zk.Sync(ctx, znodes.TopicPath(name)) != nil {
		return false
	}
	data, _, err := a.zk.Get(ctx, znodes.TopicPath(name))
	if err != nil {
		return false
	}
	t, err := znodes.DecodeTopicAssignment(name, data)
	return err == nil && t.TopicID == id
}
