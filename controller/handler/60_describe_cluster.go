package handler

// DescribeCluster (key 60), v0-1, answered by every node (reference
// apis.md §10). The Java AdminClient (kafka-topics --describe) and sarama
// send it; kadm uses Metadata instead.
//
// Behaviour:
//   - Brokers are the ones Metadata lists: this node first, then the
//     registered brokers with an endpoint on this listener.
//   - ClusterID is never null ("" when unknown); ControllerID is the
//     active controller's id, or -1 when there is none or it is not among
//     the brokers listed (as Kafka's AuthHelper does).
//   - ClusterAuthorizedOperations is INT32_MIN unless asked for; when asked
//     it is the cluster bitfield, or 0 without DESCRIBE on the cluster.
//
// Version notes: v1 adds EndpointType. kzadmin's listener plays the
// broker endpoint (1); a request for the controller endpoint (2) gets
// MISMATCHED_ENDPOINT_TYPE and any other type UNSUPPORTED_ENDPOINT_TYPE,
// with Kafka's messages and EndpointType 1, the schema's default.

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/wire"
)

const (
	endpointBroker     int8 = 1
	endpointController int8 = 2
)

func (h *Handlers) describeCluster(ctx context.Context, req *wire.Request, r *kmsg.DescribeClusterRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.DescribeClusterResponse)
	// An error answer carries the schema's default type (BROKER), as
	// Kafka's fresh response does, not the type asked for.
	resp.EndpointType = endpointBroker
	if r.Version >= 1 {
		switch r.EndpointType {
		case endpointBroker:
		case endpointController:
			resp.ErrorCode = kerr.MismatchedEndpointType.Code
			resp.ErrorMessage = strp("The request was sent to an endpoint of type BROKER, " +
				"but we wanted an endpoint of type CONTROLLER")
			return resp
		default:
			resp.ErrorCode = kerr.UnsupportedEndpointType.Code
			resp.ErrorMessage = strp(fmt.Sprintf("Unsupported endpoint type %d", r.EndpointType))
			return resp
		}
	}
	v := h.cluster.View()
	// Kafka answers -1 for a controller missing from the brokers it lists.
	resp.ClusterID, resp.ControllerID = v.ClusterID, -1
	for _, b := range h.metadataBrokers(v) {
		db := kmsg.NewDescribeClusterResponseBroker()
		db.NodeID, db.Host, db.Port, db.Rack = b.NodeID, b.Host, b.Port, b.Rack
		resp.Brokers = append(resp.Brokers, db)
		if b.NodeID == v.ControllerID {
			resp.ControllerID = v.ControllerID
		}
	}
	if r.IncludeClusterAuthorizedOperations {
		resp.ClusterAuthorizedOperations = 0
		if h.allows(ctx, req, OpDescribe, ClusterResource()) {
			resp.ClusterAuthorizedOperations = h.authorizedOps(ctx, req, ClusterResource())
		}
	}
	return resp
}
