package acl

import "strings"

// Filter selects ACL bindings, as Kafka's AclBindingFilter does. The zero
// value matches nothing useful; start from MatchAll.
type Filter struct {
	// Type is the resource type; ResourceAny matches all.
	Type ResourceType
	// Name is the resource name; "" matches all.
	Name string
	// PatternType is Literal or Prefixed to match patterns of that type
	// and exactly Name; Any to match both; Match to match the patterns
	// that apply to the resource Name (its literal pattern, the wildcard
	// and the prefixes of Name), which needs Type and Name.
	PatternType PatternType
	// Principal and Host are matched exactly; "" matches all.
	Principal string
	Host      string
	// Operation and Permission: OpAny and PermissionAny match all.
	Operation  Operation
	Permission Permission
}

// MatchAll is the filter that matches every binding.
func MatchAll() Filter {
	return Filter{Type: ResourceAny, PatternType: PatternAny, Operation: OpAny, Permission: PermissionAny}
}

// MatchesPattern reports whether p passes the resource part of f.
func (f Filter) MatchesPattern(p Pattern) bool {
	if f.Type != ResourceAny && f.Type != p.Type {
		return false
	}
	switch f.PatternType {
	case PatternAny:
		return f.Name == "" || f.Name == p.Name
	case PatternMatch:
		if f.Name == "" {
			return true
		}
		if p.PatternType == PatternLiteral {
			return p.Name == f.Name || p.Name == WildcardResource
		}
		return strings.HasPrefix(f.Name, p.Name)
	default:
		return f.PatternType == p.PatternType && (f.Name == "" || f.Name == p.Name)
	}
}

// MatchesEntry reports whether e passes the entry part of f.
func (f Filter) MatchesEntry(e Entry) bool {
	return (f.Principal == "" || f.Principal == e.Principal) &&
		(f.Host == "" || f.Host == e.Host) &&
		(f.Operation == OpAny || f.Operation == e.Operation) &&
		(f.Permission == PermissionAny || f.Permission == e.Permission)
}

// ValidOperations are the operations kafka-acls accepts for a resource
// type (AclCommand's ResourceTypeToValidOperations).
func ValidOperations(t ResourceType) []Operation {
	switch t {
	case ResourceTopic:
		return []Operation{OpRead, OpWrite, OpCreate, OpDescribe, OpDelete, OpDescribeConfigs, OpAlterConfigs, OpAlter, OpAll}
	case ResourceGroup:
		return []Operation{OpRead, OpDescribe, OpDelete, OpAll}
	case ResourceCluster:
		return []Operation{OpCreate, OpClusterAction, OpDescribeConfigs, OpAlterConfigs, OpIdempotentWrite, OpAlter, OpDescribe, OpAll}
	case ResourceTransactionalID:
		return []Operation{OpDescribe, OpWrite, OpAll}
	case ResourceDelegationToken:
		return []Operation{OpDescribe, OpAll}
	case ResourceUser:
		return []Operation{OpCreateTokens, OpDescribeTokens, OpAll}
	}
	return nil
}
