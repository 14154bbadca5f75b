package handler

import (
	"context"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// Cluster is the controller as the handlers see it: its current View, and
// a way to wait for a later one. *Views implements it.
type Cluster interface {
	// View returns the current view; never nil.
	View() *View
	// WaitView returns the first view, current or later, for which cond
	// holds, or ctx's error (with the latest view) when ctx ends first.
	// cond must be quick and must not keep the view.
	WaitView(ctx context.Context, cond func(*View) bool) (*View, error)
}

// Propagator is a Cluster that can wait until the brokers have heard of a
// view: until each has answered the UpdateMetadata sent up to it, or ctx
// ends. kzadmind's adapter of the controller is one.
type Propagator interface {
	WaitPropagated(ctx context.Context, v *View) error
}

// Synchronizer is a Cluster whose View can lag writes the controller has
// already made to ZooKeeper: Sync returns once every such write made
// before the call shows in View, or ctx's error. kzadmind's adapter of the
// controller is one; ListPartitionReassignments uses it, so that a client
// that saw a reassignment finish in ZooKeeper is not told it is still
// running.
type Synchronizer interface {
	Sync(ctx context.Context) error
}

// Admin does the handlers' writes through ZooKeeper. *zkadmin.Admin
// implements it as is; its refusals are *zkadmin.AdminError values, whose
// Code the handlers answer with. Any other error is answered
// UNKNOWN_SERVER_ERROR.
type Admin interface {
	// CreateTopic validates, places, checks the partition limits and
	// writes one topic (nothing with DryRun).
	CreateTopic(ctx context.Context, req zkadmin.CreateTopicRequest) (*zkadmin.CreateTopicResult, error)
	// AddPartitions raises a topic's partition count, continuing its
	// placement unless an assignment is given.
	AddPartitions(ctx context.Context, req zkadmin.AddPartitionsRequest) (*zkadmin.AddPartitionsResult, error)
	// MarkTopicForDeletion queues a topic for deletion.
	MarkTopicForDeletion(ctx context.Context, topic string, dryRun bool) (*zkadmin.DeleteTopicResult, error)
	// AlterConfigs sets and deletes an entity's config overrides.
	AlterConfigs(ctx context.Context, req zkadmin.ConfigAlteration) (*zkadmin.ConfigAlterResult, error)
	// ReadEntityConfig reads an entity's overrides (nil when none) and
	// the znode version (-1 when absent).
	ReadEntityConfig(ctx context.Context, entityType, name string) (map[string]string, int32, error)
	// StartReassignment requests partition moves (the partition limits
	// are checked first); CancelReassignments stops moves in progress.
	StartReassignment(ctx context.Context, entries []znodes.ReassignmentEntry, dryRun bool) (*zkadmin.ReassignmentResult, error)
	CancelReassignments(ctx context.Context, tps []znodes.TopicPartition, dryRun bool) (*zkadmin.ReassignmentResult, error)
}

// Elector runs leader elections; the controller's ElectLeaders implements
// it. req is at v0-2 (v3 requests arrive here converted, their desired
// leaders in desired). The response must list what Kafka lists (reference
// apis.md §7); authorization is the handler's, not the Elector's.
type Elector interface {
	ElectLeaders(ctx context.Context, req *kmsg.ElectLeadersRequest) (*kmsg.ElectLeadersResponse, error)
}

// DesiredElector is an Elector that also takes ElectLeaders v3's desired
// leaders (seed 003): desired[topic][i] is the leader wanted for the i-th
// partition listed for topic. Without it, v3 requests with desired
// leaders are answered INVALID_REQUEST per partition.
type DesiredElector interface {
	Elector
	ElectDesiredLeaders(ctx context.Context, req *kmsg.ElectLeadersRequest, desired map[string][]int32) (*kmsg.ElectLeadersResponse, error)
}
