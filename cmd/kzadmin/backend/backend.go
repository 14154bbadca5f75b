package backend

import (
	"context"
	"fmt"
	"time"

	"github.com/kzadmin/kzadmin/security/scram"
)

// Backend is what the commands need from a cluster. Every mutating call
// takes a DryRun flag: validate everything, write nothing, and say in
// Writes what would have been written.
type Backend interface {
	// ListTopics lists every topic, sorted by name.
	ListTopics(ctx context.Context) ([]TopicListing, error)
	// Describe reads the brokers and the named topics (all when All is
	// set) with partition states, and their config overrides if asked.
	Describe(ctx context.Context, req DescribeRequest) (*ClusterView, error)
	CreateTopic(ctx context.Context, req CreateTopicRequest) (*CreateTopicResult, error)
	CreatePartitions(ctx context.Context, req CreatePartitionsRequest) (*CreatePartitionsResult, error)
	DeleteTopic(ctx context.Context, topic string, dryRun bool) (*DeleteTopicResult, error)
	// DescribeConfigs returns the overrides of the named entities of one
	// type; no names means every entity of that type that has a znode
	// (topics: every topic; brokers: <default> and each live broker).
	DescribeConfigs(ctx context.Context, entityType string, names []string) ([]EntityConfig, error)
	AlterConfigs(ctx context.Context, req AlterConfigsRequest) (*AlterConfigsResult, error)
	// DescribeUserClientConfigs returns a user's quotas for one client id
	// (either may be DefaultEntity).
	DescribeUserClientConfigs(ctx context.Context, user, client string) (EntityConfig, error)
	// StartReassignment moves the listed partitions to the given replicas.
	StartReassignment(ctx context.Context, moves []Reassignment, dryRun bool) (*ReassignResult, error)
	// CancelReassignments stops the reassignments in progress of the listed
	// partitions, returning them to their original replicas.
	CancelReassignments(ctx context.Context, partitions []TopicPartition, dryRun bool) (*ReassignResult, error)
	ElectLeaders(ctx context.Context, req ElectionRequest) (*ElectionResult, error)
	Close()
}

// ReassignmentLister is offered by the backends that can list the
// reassignments in progress without reading every topic (over the wire:
// ListPartitionReassignments); for the others, Describe of every topic
// tells.
type ReassignmentLister interface {
	// Reassigning lists the reassignments in progress, sorted.
	Reassigning(ctx context.Context) ([]OngoingReassignment, error)
}

// OngoingReassignment is one partition being reassigned: its replicas
// (the target and those being removed), and those being added and
// removed.
type OngoingReassignment struct {
	TopicPartition
	Replicas []int32
	Adding   []int32
	Removing []int32
}

// TopicPartition names one partition.
type TopicPartition struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
}

func (tp TopicPartition) String() string { return fmt.Sprintf("%s-%d", tp.Topic, tp.Partition) }

// TopicListing is one topic of ListTopics.
type TopicListing struct {
	Name              string
	Internal          bool
	MarkedForDeletion bool
	// Partitions and ReplicationFactor (of partition 0) are 0 when the
	// topic cannot be read.
	Partitions        int
	ReplicationFactor int
	// Err is set when the topic cannot be read (a malformed znode).
	Err error
}

// DescribeRequest says what Describe reads.
type DescribeRequest struct {
	All     bool
	Topics  []string
	Configs bool
}

// ClusterView is one consistent read of brokers and topics.
type ClusterView struct {
	Brokers    []Broker
	Controller int32 // -1: none
	Topics     []Topic
	// Pending holds reassignments requested but not yet begun by the
	// controller (ZooKeeper: the legacy /admin/reassign_partitions znode).
	Pending map[TopicPartition][]int32
	// BrokerDefaults are the cluster-wide dynamic broker configs.
	BrokerDefaults map[string]string
	// Warnings describe unreadable cluster-level state (a malformed broker
	// registration, reassignment request, ...), for the user to see.
	Warnings []string
}

// Broker is a live broker.
type Broker struct {
	ID        int32
	Rack      string
	HasRack   bool
	Endpoints []string
}

// Topic is one described topic.
type Topic struct {
	Name              string
	ID                string
	Internal          bool
	MarkedForDeletion bool
	Partitions        []Partition
	// Configs are the topic's overrides (DescribeRequest.Configs).
	Configs map[string]string
	// Err is set when the topic cannot be read at all; ConfigErr when only
	// its config cannot.
	Err       error
	ConfigErr error
}

// Partition is one partition's replicas and state. Leader is -1 when the
// partition has no leader (or no state yet: see Err).
type Partition struct {
	ID           int32
	Leader       int32
	LeaderEpoch  int32
	Replicas     []int32
	ISR          []int32
	Adding       []int32
	Removing     []int32
	ELR          []int32
	LastKnownELR []int32
	// Err is set when the state cannot be read (missing: not yet created
	// by the controller, or malformed).
	Err error
}

// CreateTopicRequest: Partitions and ReplicationFactor (-1: the cluster's
// defaults) or an explicit Assignment, plus config overrides.
type CreateTopicRequest struct {
	Topic             string
	Partitions        int32
	ReplicationFactor int16
	Assignment        [][]int32
	Configs           map[string]string
	DisableRackAware  bool
	DryRun            bool
}

// CreatePartitionsRequest raises a topic's partition count to Total,
// optionally with explicit replicas for the new partitions.
type CreatePartitionsRequest struct {
	Topic            string
	Total            int32
	Assignment       [][]int32
	DisableRackAware bool
	DryRun           bool
}

// AlterConfigsRequest sets and deletes overrides of one entity. Name is
// the topic, the broker id, the user, or DefaultEntity.
type AlterConfigsRequest struct {
	EntityType string
	Name       string
	// Client, with EntityType users, makes the entity the user's quotas
	// for this client id (DefaultEntity: the default client id).
	Client string
	Set    map[string]string
	// Scram sets a user's SCRAM credentials, keyed by mechanism name
	// ("SCRAM-SHA-256"), from passwords salted on this side.
	Scram  map[string]scram.SaltedPassword
	Delete []string
	DryRun bool
}

// DefaultEntity names the cluster-wide default broker entity.
const DefaultEntity = "<default>"

// EntityConfig is one entity's overrides.
type EntityConfig struct {
	EntityType string
	Name       string
	// Client is set for a user's quotas for one client id.
	Client    string
	Overrides map[string]string
	Err       error
}

// Reassignment is one partition's target replicas.
type Reassignment struct {
	Topic     string
	Partition int32
	Replicas  []int32
}

// ElectionType is preferred, unclean or designated.
type ElectionType string

const (
	Preferred ElectionType = "PREFERRED"
	Unclean   ElectionType = "UNCLEAN"
	// Designated elects the leader named for each partition (seed 003's
	// ElectLeaders v3 DesiredLeaders); only the wire backend has it.
	Designated ElectionType = "DESIGNATED"
)

// ElectionRequest asks for leader elections; no Partitions means every
// partition that needs one.
type ElectionRequest struct {
	Type       ElectionType
	Partitions []TopicPartition
	// Leaders, for Designated, is the leader wanted for Partitions[i].
	Leaders []int32
	DryRun  bool
	// Timeout bounds waiting for the outcome where the backend must wait
	// (ZooKeeper's unclean election); 0 means the backend's default.
	Timeout time.Duration
	// Progress, when set, receives human-readable steps as they happen.
	Progress func(string)
}
