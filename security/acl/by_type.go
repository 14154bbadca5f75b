package acl

import (
	"context"
	"net"
	"slices"
	"strings"

	"github.com/kzadmin/kzadmin/controller/handler"
	"github.com/kzadmin/kzadmin/controller/wire"
)

// Why a second kind of decision: since KIP-679 (Kafka 3.0) an idempotent
// producer needs IdempotentWrite on the Cluster *or* Write on any topic
// at all. Kafka asks its authorizer "may this principal perform op on some
// resource of this type?" (Authorizer.authorizeByResourceType), and
// AclAuthorizer answers from the ACLs of the whole type rather than from
// one resource. The rules below are AclAuthorizer's, in its order.

// TypeRequest asks whether a principal may perform an operation on at
// least one resource of a type.
type TypeRequest struct {
	Principal Principal
	// Host is the client's IP address; nil when unknown.
	Host      net.IP
	Operation Operation
	Type      ResourceType
}

// AuthorizeByResourceType decides req as Kafka's
// AclAuthorizer.authorizeByResourceType does:
//
//   - a super user is allowed;
//   - a literal Deny on the wildcard resource "*" denies;
//   - with allow.everyone.if.no.acl.found, anything else is allowed;
//   - with no Deny at all, any Allow (literal or prefixed) allows;
//   - otherwise an Allow counts only if no Deny covers it: a literal Allow
//     on "*", a literal Allow whose name no literal Deny names and no
//     prefixed Deny starts, or a prefixed Allow that no prefixed Deny
//     starts.
//
// Entries match on principal (or User:*), host (or *) and the operation
// itself or All: unlike single-resource checks, no implications apply.
func (x *Index) AuthorizeByResourceType(req TypeRequest, opts Options) bool {
	if slices.Contains(opts.SuperUsers, req.Principal) {
		return true
	}
	denyLit := x.typeNames(req, PatternLiteral, PermissionDeny)
	if denyLit[WildcardResource] {
		return false
	}
	if opts.AllowEveryoneIfNoACLFound {
		return true
	}
	denyPre := x.typeNames(req, PatternPrefixed, PermissionDeny)
	allowLit := x.typeNames(req, PatternLiteral, PermissionAllow)
	allowPre := x.typeNames(req, PatternPrefixed, PermissionAllow)
	if len(denyLit) == 0 && len(denyPre) == 0 {
		return len(allowLit) > 0 || len(allowPre) > 0
	}
	for p := range allowPre {
		if !dominatedByPrefix(p, denyPre) {
			return true
		}
	}
	for l := range allowLit {
		if l == WildcardResource || !denyLit[l] && !dominatedByPrefix(l, denyPre) {
			return true
		}
	}
	return false
}

// typeNames returns the names of the patterns of req's type and pattern
// type that hold an entry of permission perm matching req's principal,
// host and operation (or All).
func (x *Index) typeNames(req TypeRequest, pt PatternType, perm Permission) map[string]bool {
	src := x.literal
	if pt == PatternPrefixed {
		src = x.prefixed
	}
	out := map[string]bool{}
	for k, es := range src {
		if k.typ != req.Type {
			continue
		}
		for _, e := range es {
			if e.perm == perm && (e.op == req.Operation || e.op == OpAll) &&
				principalMatches(e.principal, req.Principal) && hostMatches(e, req.Host, perm == PermissionDeny) {
				out[k.name] = true
				break
			}
		}
	}
	return out
}

// dominatedByPrefix reports whether some prefix in denied starts name
// (name itself included).
func dominatedByPrefix(name string, denied map[string]bool) bool {
	for p := range denied {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// AuthorizeByResourceType asks whether p may perform op on some resource
// of type rt (Kafka's Authorizer.authorizeByResourceType), with the
// client's host from ctx as Authorize takes it. kzadmind uses it for an
// idempotent producer's InitProducerId: Write on any topic stands in for
// IdempotentWrite on the Cluster.
func (a *Authorizer) AuthorizeByResourceType(ctx context.Context, p wire.Principal, op handler.Operation, rt handler.ResourceType) bool {
	req := TypeRequest{
		Principal: Principal{Type: p.Type, Name: p.Name},
		Host:      clientIP(ctx),
		Operation: Operation(op),
		Type:      ResourceType(rt),
	}
	ok := a.src.Index().AuthorizeByResourceType(req, a.opts)
	if !ok {
		if e := a.log.Debug(); e.Enabled() {
			e.Str("principal", req.Principal.String()).Str("operation", req.Operation.String()).
				Str("host", hostText(req.Host)).Str("resource_type", req.Type.String()).Msg("denied on every resource of the type")
		}
	}
	return ok
}
