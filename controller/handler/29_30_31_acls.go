package handler

// DescribeAcls (29), CreateAcls (30) and DeleteAcls (31), v0-3, answered
// by every kzadmind, active or standby, as every ZooKeeper-mode broker
// answers them. kzadmind must serve them because brokers list it in
// Metadata: the Java AdminClient sends these requests to any listed node,
// so kafka-acls --bootstrap-server would otherwise fail whenever it picked
// kzadmind.
//
// Behaviour, in Kafka's order:
//   - A filter or creation with an unknown code (resource type, pattern
//     type, operation, permission) closes the connection: Kafka fails to
//     parse such a request. v0 carries no pattern type; it decodes as
//     LITERAL, the schema's default (the Java client turns a v0 filter's
//     ANY into LITERAL, and refuses other types, before sending).
//   - DESCRIBE on the cluster for DescribeAcls, ALTER for the other two,
//     else CLUSTER_AUTHORIZATION_FAILED: top-level for DescribeAcls, on
//     every result for the others.
//   - Without ACLAdmin (no authorizer configured) SECURITY_DISABLED, with
//     Kafka's messages.
//   - Then ACLAdmin answers (security/acl.WireAdmin: Kafka's ZooKeeper
//     layout, as AclAuthorizer reads and writes it).

import (
	"context"
	"errors"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/wire"
)

// ACLAdmin reads and writes ACL bindings. The handlers have checked the
// request's codes and the client's authorization before calling it.
type ACLAdmin interface {
	// DescribeACLs lists the bindings r's filter matches, grouped by
	// resource pattern. An error (ZooKeeper unreachable, an ACL znode
	// that does not decode) is answered UNKNOWN_SERVER_ERROR and logged.
	DescribeACLs(ctx context.Context, r *kmsg.DescribeACLsRequest) ([]kmsg.DescribeACLsResponseResource, error)
	// CreateACLs adds the bindings, answering one result per creation,
	// in order.
	CreateACLs(ctx context.Context, creations []kmsg.CreateACLsRequestCreation) []kmsg.CreateACLsResponseResult
	// DeleteACLs removes what each filter matches, answering one result
	// per filter, in order.
	DeleteACLs(ctx context.Context, filters []kmsg.DeleteACLsRequestFilter) []kmsg.DeleteACLsResponseResult
}

// The highest codes Kafka 3.9 knows; 0 is UNKNOWN everywhere.
const (
	maxACLResourceType = 7  // USER
	maxACLPatternType  = 4  // PREFIXED
	maxACLOperation    = 14 // DESCRIBE_TOKENS
	maxACLPermission   = 3  // ALLOW
)

// errUnknownACLElements closes the connection, as Kafka's failure to parse
// the request does.
var errUnknownACLElements = errors.New("ACL request with unknown elements")

// knownACLCodes reports whether every code is one Kafka knows.
func knownACLCodes(resourceType, patternType, operation, permission int8) bool {
	in := func(v, hi int8) bool { return v >= 1 && v <= hi }
	return in(resourceType, maxACLResourceType) && in(patternType, maxACLPatternType) &&
		in(operation, maxACLOperation) && in(permission, maxACLPermission)
}

// clusterAuthFailed is the code and message of a refused cluster check.
func clusterAuthFailed() (int16, *string) {
	e := withDefault(kerr.ClusterAuthorizationFailed.Code)
	return e.code, e.msg
}

func (h *Handlers) describeACLsRoute() wire.Route {
	return routeWithErr(29, func(ctx context.Context, req *wire.Request, r *kmsg.DescribeACLsRequest) (kmsg.Response, error) {
		if !knownACLCodes(int8(r.ResourceType), int8(r.ResourcePatternType), int8(r.Operation), int8(r.PermissionType)) {
			return nil, errUnknownACLElements
		}
		resp := r.ResponseKind().(*kmsg.DescribeACLsResponse)
		resp.Resources = []kmsg.DescribeACLsResponseResource{}
		if !h.allows(ctx, req, OpDescribe, ClusterResource()) {
			resp.ErrorCode, resp.ErrorMessage = clusterAuthFailed()
			return resp, nil
		}
		if h.acls == nil {
			resp.ErrorCode = kerr.SecurityDisabled.Code
			resp.ErrorMessage = strp("No Authorizer is configured on the broker")
			return resp, nil
		}
		resources, err := h.acls.DescribeACLs(ctx, r)
		if err != nil {
			h.log.Warn().Err(err).Msg("describe ACLs")
			resp.ErrorCode = kerr.UnknownServerError.Code
			return resp, nil
		}
		resp.Resources = resources
		return resp, nil
	})
}

func (h *Handlers) createACLsRoute() wire.Route {
	return routeWithErr(30, func(ctx context.Context, req *wire.Request, r *kmsg.CreateACLsRequest) (kmsg.Response, error) {
		for _, c := range r.Creations {
			if !knownACLCodes(int8(c.ResourceType), int8(c.ResourcePatternType), int8(c.Operation), int8(c.PermissionType)) {
				return nil, errUnknownACLElements
			}
		}
		resp := r.ResponseKind().(*kmsg.CreateACLsResponse)
		failAll := func(code int16, msg *string) kmsg.Response {
			resp.Results = make([]kmsg.CreateACLsResponseResult, len(r.Creations))
			for i := range resp.Results {
				resp.Results[i] = kmsg.NewCreateACLsResponseResult()
				resp.Results[i].ErrorCode, resp.Results[i].ErrorMessage = code, msg
			}
			return resp
		}
		if !h.allows(ctx, req, OpAlter, ClusterResource()) {
			return failAll(clusterAuthFailed()), nil
		}
		if h.acls == nil {
			return failAll(kerr.SecurityDisabled.Code, strp("No Authorizer is configured.")), nil
		}
		resp.Results = h.acls.CreateACLs(ctx, r.Creations)
		return resp, nil
	})
}

func (h *Handlers) deleteACLsRoute() wire.Route {
	return routeWithErr(31, func(ctx context.Context, req *wire.Request, r *kmsg.DeleteACLsRequest) (kmsg.Response, error) {
		for _, f := range r.Filters {
			if !knownACLCodes(int8(f.ResourceType), int8(f.ResourcePatternType), int8(f.Operation), int8(f.PermissionType)) {
				return nil, errUnknownACLElements
			}
		}
		resp := r.ResponseKind().(*kmsg.DeleteACLsResponse)
		failAll := func(code int16, msg *string) kmsg.Response {
			resp.Results = make([]kmsg.DeleteACLsResponseResult, len(r.Filters))
			for i := range resp.Results {
				resp.Results[i] = kmsg.NewDeleteACLsResponseResult()
				resp.Results[i].ErrorCode, resp.Results[i].ErrorMessage = code, msg
				resp.Results[i].MatchingACLs = []kmsg.DeleteACLsResponseResultMatchingACL{}
			}
			return resp
		}
		if !h.allows(ctx, req, OpAlter, ClusterResource()) {
			return failAll(clusterAuthFailed()), nil
		}
		if h.acls == nil {
			return failAll(kerr.SecurityDisabled.Code, strp("No Authorizer is configured.")), nil
		}
		resp.Results = h.acls.DeleteACLs(ctx, r.Filters)
		return resp, nil
	})
}
