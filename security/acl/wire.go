package acl

import (
	"context"
	"fmt"
	"strings"

	"github.com/rs/zerolog"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// WireAdmin serves DescribeAcls, CreateAcls and DeleteAcls over a Store,
// for kzadmind's handlers (handler.ACLAdmin). The handlers have already
// refused unknown codes and checked the client's authorization.
//
// Differences from Kafka's AclAuthorizer, all in what it refuses: a
// creation is checked as kafka-acls checks it (the operation must suit the
// resource type, the host must not be empty, the principal must be
// <type>:<name>), and each bad creation gets its own INVALID_REQUEST,
// where Kafka fails the whole request for a creation that names ANY or
// MATCH.
type WireAdmin struct {
	store *Store
	log   zerolog.Logger
}

// NewWireAdmin returns a WireAdmin over store.
func NewWireAdmin(store *Store, log zerolog.Logger) *WireAdmin {
	return &WireAdmin{store: store, log: log}
}

// The wire forms of a binding. Kafka's codes are the model's own, so each
// conversion copies fields.

// CreationOf is b as a CreateAcls creation.
func CreationOf(b Binding) kmsg.CreateACLsRequestCreation {
	c := kmsg.NewCreateACLsRequestCreation()
	c.ResourceType, c.ResourceName = kmsg.ACLResourceType(b.Pattern.Type), b.Pattern.Name
	c.ResourcePatternType = kmsg.ACLResourcePatternType(b.Pattern.PatternType)
	c.Principal, c.Host = b.Entry.Principal, b.Entry.Host
	c.Operation, c.PermissionType = kmsg.ACLOperation(b.Entry.Operation), kmsg.ACLPermissionType(b.Entry.Permission)
	return c
}

// BindingOfCreation is the binding a CreateAcls creation asks for.
func BindingOfCreation(c kmsg.CreateACLsRequestCreation) Binding {
	return Binding{
		Pattern: Pattern{Type: ResourceType(c.ResourceType), Name: c.ResourceName, PatternType: PatternType(c.ResourcePatternType)},
		Entry:   Entry{Principal: c.Principal, Host: c.Host, Operation: Operation(c.Operation), Permission: Permission(c.PermissionType)},
	}
}

// MatchingACLOf is b as a DeleteAcls answer lists it.
func MatchingACLOf(b Binding) kmsg.DeleteACLsResponseResultMatchingACL {
	m := kmsg.NewDeleteACLsResponseResultMatchingACL()
	m.ResourceType, m.ResourceName = kmsg.ACLResourceType(b.Pattern.Type), b.Pattern.Name
	m.ResourcePatternType = kmsg.ACLResourcePatternType(b.Pattern.PatternType)
	m.Principal, m.Host = b.Entry.Principal, b.Entry.Host
	m.Operation, m.PermissionType = kmsg.ACLOperation(b.Entry.Operation), kmsg.ACLPermissionType(b.Entry.Permission)
	return m
}

// BindingOfMatching is the binding a DeleteAcls answer lists.
func BindingOfMatching(m kmsg.DeleteACLsResponseResultMatchingACL) Binding {
	return Binding{
		Pattern: Pattern{Type: ResourceType(m.ResourceType), Name: m.ResourceName, PatternType: PatternType(m.ResourcePatternType)},
		Entry:   Entry{Principal: m.Principal, Host: m.Host, Operation: Operation(m.Operation), Permission: Permission(m.PermissionType)},
	}
}

// BindingsOfResources are the bindings a DescribeAcls answer lists, in
// its order.
func BindingsOfResources(resources []kmsg.DescribeACLsResponseResource) []Binding {
	var out []Binding
	for _, r := range resources {
		p := Pattern{Type: ResourceType(r.ResourceType), Name: r.ResourceName, PatternType: PatternType(r.ResourcePatternType)}
		for _, a := range r.ACLs {
			out = append(out, Binding{Pattern: p, Entry: Entry{Principal: a.Principal, Host: a.Host,
				Operation: Operation(a.Operation), Permission: Permission(a.PermissionType)}})
		}
	}
	return out
}

// FilterFields are f's fields as DescribeAcls and DeleteAcls carry them:
// an empty name, principal or host is null, which matches everything.
func FilterFields(f Filter) (rt kmsg.ACLResourceType, name *string, pt kmsg.ACLResourcePatternType, principal, host *string,
	op kmsg.ACLOperation, perm kmsg.ACLPermissionType) {
	orNull := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	return kmsg.ACLResourceType(f.Type), orNull(f.Name), kmsg.ACLResourcePatternType(f.PatternType),
		orNull(f.Principal), orNull(f.Host), kmsg.ACLOperation(f.Operation), kmsg.ACLPermissionType(f.Permission)
}

// wireFilter builds a Filter from a request's fields. A name, principal or
// host that is present but empty matches nothing, as in Kafka (no stored
// binding has an empty one); ok is false then.
func wireFilter(rt kmsg.ACLResourceType, name *string, pt kmsg.ACLResourcePatternType, principal, host *string,
	op kmsg.ACLOperation, perm kmsg.ACLPermissionType) (f Filter, ok bool) {
	f = Filter{Type: ResourceType(rt), PatternType: PatternType(pt), Operation: Operation(op), Permission: Permission(perm)}
	for _, field := range []struct {
		from *string
		to   *string
	}{{name, &f.Name}, {principal, &f.Principal}, {host, &f.Host}} {
		if field.from == nil {
			continue
		}
		if *field.from == "" {
			return f, false
		}
		*field.to = *field.from
	}
	return f, true
}

// DescribeACLs lists what r's filter matches, one resource per pattern.
func (w *WireAdmin) DescribeACLs(ctx context.Context, r *kmsg.DescribeACLsRequest) ([]kmsg.DescribeACLsResponseResource, error) {
	out := []kmsg.DescribeACLsResponseResource{}
	f, ok := wireFilter(r.ResourceType, r.ResourceName, r.ResourcePatternType, r.Principal, r.Host, r.Operation, r.PermissionType)
	if !ok {
		return out, nil
	}
	bindings, err := w.store.List(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("describe ACLs: %w", err)
	}
	for _, b := range bindings {
		if n := len(out); n == 0 || patternOf(out[n-1]) != b.Pattern {
			res := kmsg.NewDescribeACLsResponseResource()
			res.ResourceType = kmsg.ACLResourceType(b.Pattern.Type)
			res.ResourceName = b.Pattern.Name
			res.ResourcePatternType = kmsg.ACLResourcePatternType(b.Pattern.PatternType)
			res.ACLs = []kmsg.DescribeACLsResponseResourceACL{}
			out = append(out, res)
		}
		a := kmsg.NewDescribeACLsResponseResourceACL()
		a.Principal, a.Host = b.Entry.Principal, b.Entry.Host
		a.Operation, a.PermissionType = kmsg.ACLOperation(b.Entry.Operation), kmsg.ACLPermissionType(b.Entry.Permission)
		last := &out[len(out)-1]
		last.ACLs = append(last.ACLs, a)
	}
	return out, nil
}

func patternOf(r kmsg.DescribeACLsResponseResource) Pattern {
	return Pattern{Type: ResourceType(r.ResourceType), Name: r.ResourceName, PatternType: PatternType(r.ResourcePatternType)}
}

// creationProblem says what is wrong with a binding to create, in Kafka's
// order, then kafka-acls's checks; "" when nothing is.
func creationProblem(b Binding) string {
	p, e := b.Pattern, b.Entry
	switch {
	case p.Type == ResourceAny:
		return "ACL creation names resource type ANY"
	case p.PatternType == PatternAny || p.PatternType == PatternMatch:
		return fmt.Sprintf("ACL creation names pattern type %s, which only filters may", p.PatternType)
	case e.Operation == OpAny:
		return "ACL creation names operation ANY"
	case e.Permission == PermissionAny:
		return "ACL creation names permission type ANY"
	case p.Type == ResourceCluster && p.Name != ClusterName:
		return "The only valid name for the CLUSTER resource is " + ClusterName
	case p.Name == "":
		return "Invalid empty resource name"
	case strings.Contains(p.Name, "/"):
		return fmt.Sprintf("Failed to create ACL: resource name %q contains '/'", p.Name)
	}
	if err := ValidateBinding(b); err != nil {
		return "Failed to create ACL: " + err.Error()
	}
	return ""
}

// CreateACLs adds the valid creations, one version-checked update per
// pattern as Kafka groups them, and answers one result per creation.
func (w *WireAdmin) CreateACLs(ctx context.Context, creations []kmsg.CreateACLsRequestCreation) []kmsg.CreateACLsResponseResult {
	results := make([]kmsg.CreateACLsResponseResult, len(creations))
	byPattern := map[Pattern][]int{}
	var patterns []Pattern
	bindings := make([]Binding, len(creations))
	for i, c := range creations {
		results[i] = kmsg.NewCreateACLsResponseResult()
		bindings[i] = BindingOfCreation(c)
		if msg := creationProblem(bindings[i]); msg != "" {
			results[i].ErrorCode, results[i].ErrorMessage = kerr.InvalidRequest.Code, &msg
			continue
		}
		p := bindings[i].Pattern
		if _, seen := byPattern[p]; !seen {
			patterns = append(patterns, p)
		}
		byPattern[p] = append(byPattern[p], i)
	}
	for _, p := range patterns {
		idx := byPattern[p]
		add := make([]Binding, len(idx))
		for j, i := range idx {
			add[j] = bindings[i]
		}
		if err := w.store.Add(ctx, add); err != nil {
			w.log.Warn().Err(err).Str("pattern", p.String()).Msg("create ACLs")
			for _, i := range idx {
				results[i].ErrorCode = kerr.UnknownServerError.Code
			}
		}
	}
	return results
}

// DeleteACLs removes what each filter matches, in order; a binding two
// filters match is reported under the first.
func (w *WireAdmin) DeleteACLs(ctx context.Context, filters []kmsg.DeleteACLsRequestFilter) []kmsg.DeleteACLsResponseResult {
	results := make([]kmsg.DeleteACLsResponseResult, len(filters))
	for i, fr := range filters {
		res := kmsg.NewDeleteACLsResponseResult()
		res.MatchingACLs = []kmsg.DeleteACLsResponseResultMatchingACL{}
		f, ok := wireFilter(fr.ResourceType, fr.ResourceName, fr.ResourcePatternType, fr.Principal, fr.Host, fr.Operation, fr.PermissionType)
		if ok {
			removed, err := w.store.Remove(ctx, f)
			for _, b := range removed {
				res.MatchingACLs = append(res.MatchingACLs, MatchingACLOf(b))
			}
			if err != nil {
				w.log.Warn().Err(err).Int("filter", i).Msg("delete ACLs")
				res.ErrorCode = kerr.UnknownServerError.Code
			}
		}
		results[i] = res
	}
	return results
}
