package handler

import (
	"context"

	"github.com/kzadmin/kzadmin/controller/wire"
)

// Operation is Kafka's AclOperation, with its wire codes (the bit numbers
// of the authorized-operations fields).
type Operation int8

// The operations the admin APIs check.
const (
	OpRead            Operation = 3
	OpWrite           Operation = 4
	OpCreate          Operation = 5
	OpDelete          Operation = 6
	OpAlter           Operation = 7
	OpDescribe        Operation = 8
	OpClusterAction   Operation = 9
	OpDescribeConfigs Operation = 10
	OpAlterConfigs    Operation = 11
	OpIdempotentWrite Operation = 12
)

// ResourceType is Kafka's ResourceType, with its wire codes.
type ResourceType int8

// The resource types the admin APIs check.
const (
	ResourceTopic           ResourceType = 2
	ResourceGroup           ResourceType = 3
	ResourceCluster         ResourceType = 4
	ResourceTransactionalID ResourceType = 5
)

// ClusterResourceName is the name of Kafka's one CLUSTER resource.
const ClusterResourceName = "kafka-cluster"

// Resource is what an operation is checked against.
type Resource struct {
	Type ResourceType
	Name string
}

// TopicResource and ClusterResource build the two resources checked here.
func TopicResource(name string) Resource { return Resource{Type: ResourceTopic, Name: name} }

// ClusterResource is the cluster.
func ClusterResource() Resource { return Resource{Type: ResourceCluster, Name: ClusterResourceName} }

// Authorizer decides whether a principal may perform an operation on a
// resource. The handlers call it at every point Kafka's KafkaApis does
// (reference apis.md §1.5); the security work provides Kafka's ACL
// authorizer. It must be safe for concurrent use and quick: it is called
// per topic.
type Authorizer interface {
	Authorize(ctx context.Context, p wire.Principal, op Operation, r Resource) bool
}

// AllowAll allows everything, as Kafka does with no authorizer configured.
type AllowAll struct{}

// Authorize returns true.
func (AllowAll) Authorize(context.Context, wire.Principal, Operation, Resource) bool { return true }

// authorizedOpsNotRequested is the authorized-operations value when the
// client did not ask for them (INT32_MIN).
const authorizedOpsNotRequested int32 = -2147483648

// topicOps and clusterOps are the operations each resource type supports,
// as the authorized-operations bitfields list them.
var (
	topicOps = []Operation{OpRead, OpWrite, OpCreate, OpDelete, OpAlter, OpDescribe, OpDescribeConfigs,
		OpAlterConfigs}
	clusterOps = []Operation{OpCreate, OpAlter, OpDescribe, OpClusterAction, OpDescribeConfigs, OpAlterConfigs,
		OpIdempotentWrite}
)

// allows is the handlers' one way to ask the authorizer.
func (h *Handlers) allows(ctx context.Context, req *wire.Request, op Operation, r Resource) bool {
	return h.authz.Authorize(ctx, req.Principal, op, r)
}

// authorizedOps returns the bitfield of the operations the principal may
// perform on r: 3576 for a topic and 8096 for the cluster when everything
// is allowed.
func (h *Handlers) authorizedOps(ctx context.Context, req *wire.Request, r Resource) int32 {
	ops := topicOps
	if r.Type == ResourceCluster {
		ops = clusterOps
	}
	var bits int32
	for _, op := range ops {
		if h.allows(ctx, req, op, r) {
			bits |= 1 << op
		}
	}
	return bits
}
