package daemon

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/handler"
	"github.com/kzadmin/kzadmin/controller/wire"
)

// The broker→controller APIs are checked here, in front of the
// controller's routes, rather than in the controller: the controller
// answers them from its state, the daemon owns the authorizer, and
// Kafka's order is "authorize, then look at the request" either way.
//
// Kafka 3.9 (KafkaApis, ZooKeeper mode) checks:
//
//	AlterPartition (56), ControlledShutdown (7), AllocateProducerIds (67):
//	    ClusterAction on the Cluster; denied → the response's top-level
//	    ErrorCode is CLUSTER_AUTHORIZATION_FAILED (31) and nothing else is
//	    set (each request's getErrorResponse).
//	InitProducerId (22) with a transactional id: Write on that
//	    TransactionalId; denied → TRANSACTIONAL_ID_AUTHORIZATION_FAILED (53).
//	InitProducerId without one: IdempotentWrite on the Cluster, or
//	    (KIP-679) Write on any topic (authorizeByResourceType); denied →
//	    CLUSTER_AUTHORIZATION_FAILED. Producer id -1, epoch -1.
//
// Brokers reach the controller as the principal of their inter-broker
// listener: User:ANONYMOUS on PLAINTEXT, the SASL user or the certificate
// principal otherwise. As with Kafka, that principal needs ClusterAction
// (usually by listing it in super.users) once an authorizer is on, or the
// brokers' AlterPartition and ControlledShutdown are refused.

// typeAuthorizer is the optional "on any resource of this type" check;
// *acl.Authorizer implements it. An Authorizer without it is asked only
// about the Cluster, so Write on a topic does not stand in for
// IdempotentWrite.
type typeAuthorizer interface {
	AuthorizeByResourceType(ctx context.Context, p wire.Principal, op handler.Operation, rt handler.ResourceType) bool
}

// resourceTransactionalID is Kafka's ResourceType TRANSACTIONAL_ID (5),
// which the handler package has no name for.
const resourceTransactionalID handler.ResourceType = 5

// The API keys guarded.
const (
	keyControlledShutdown  int16 = 7
	keyInitProducerID      int16 = 22
	keyAlterPartition      int16 = 56
	keyAllocateProducerIDs int16 = 67
)

// guardBrokerRoutes wraps the broker routes in Kafka's authorization
// checks. With no authorizer (nil) everything is allowed, as in Kafka, and
// the routes are returned as they are. A route for a key not listed above
// is refused, so that a new broker route cannot go unchecked by accident.
func guardBrokerRoutes(routes []wire.Route, authz handler.Authorizer) ([]wire.Route, error) {
	if authz == nil {
		return routes, nil
	}
	out := make([]wire.Route, len(routes))
	for i, r := range routes {
		var check func(context.Context, *wire.Request) (kmsg.Response, bool)
		switch r.Key {
		case keyAlterPartition, keyControlledShutdown, keyAllocateProducerIDs:
			check = clusterActionCheck(authz)
		case keyInitProducerID:
			check = initProducerIDCheck(authz)
		default:
			return nil, fmt.Errorf("broker route %d (%s) has no authorization rule", r.Key, kmsg.NameForKey(r.Key))
		}
		next := r.Handler
		r.Handler = wire.HandlerFunc(func(ctx context.Context, req *wire.Request) (kmsg.Response, error) {
			if resp, ok := check(ctx, req); !ok {
				return resp, nil
			}
			return next.Handle(ctx, req)
		})
		out[i] = r
	}
	return out, nil
}

// clusterActionCheck allows a request whose principal has ClusterAction
// on the Cluster, and otherwise answers with the top-level error 31.
func clusterActionCheck(authz handler.Authorizer) func(context.Context, *wire.Request) (kmsg.Response, bool) {
	return func(ctx context.Context, req *wire.Request) (kmsg.Response, bool) {
		if authz.Authorize(ctx, req.Principal, handler.OpClusterAction, handler.ClusterResource()) {
			return nil, true
		}
		code := kerr.ClusterAuthorizationFailed.Code
		resp := req.Body.ResponseKind()
		switch r := resp.(type) {
		case *kmsg.AlterPartitionResponse:
			r.ErrorCode = code
		case *kmsg.ControlledShutdownResponse:
			r.ErrorCode = code
		case *kmsg.AllocateProducerIDsResponse:
			r.ErrorCode = code
		}
		return resp, false
	}
}

// initProducerIDCheck is KafkaApis.handleInitProducerIdRequest's check.
func initProducerIDCheck(authz handler.Authorizer) func(context.Context, *wire.Request) (kmsg.Response, bool) {
	byType, _ := authz.(typeAuthorizer)
	return func(ctx context.Context, req *wire.Request) (kmsg.Response, bool) {
		body, ok := req.Body.(*kmsg.InitProducerIDRequest)
		if !ok {
			return nil, true // the route's own adapter refuses a wrong body
		}
		var code int16
		if id := body.TransactionalID; id != nil {
			if authz.Authorize(ctx, req.Principal, handler.OpWrite, handler.Resource{Type: resourceTransactionalID, Name: *id}) {
				return nil, true
			}
			code = kerr.TransactionalIDAuthorizationFailed.Code
		} else {
			if authz.Authorize(ctx, req.Principal, handler.OpIdempotentWrite, handler.ClusterResource()) ||
				byType != nil && byType.AuthorizeByResourceType(ctx, req.Principal, handler.OpWrite, handler.ResourceTopic) {
				return nil, true
			}
			code = kerr.ClusterAuthorizationFailed.Code
		}
		resp := body.ResponseKind().(*kmsg.InitProducerIDResponse)
		resp.ErrorCode, resp.ProducerID, resp.ProducerEpoch = code, -1, -1
		return resp, false
	}
}
