package acl

import (
	"fmt"
	"strings"
)

// ResourceType is Kafka's ResourceType, with its wire codes.
type ResourceType int8

// The resource types; Unknown and Any are never stored.
const (
	ResourceUnknown         ResourceType = 0
	ResourceAny             ResourceType = 1
	ResourceTopic           ResourceType = 2
	ResourceGroup           ResourceType = 3
	ResourceCluster         ResourceType = 4
	ResourceTransactionalID ResourceType = 5
	ResourceDelegationToken ResourceType = 6
	ResourceUser            ResourceType = 7
)

// StoredResourceTypes are the types ACLs can be stored for, in Kafka's
// order.
func StoredResourceTypes() []ResourceType {
	return []ResourceType{ResourceTopic, ResourceGroup, ResourceCluster, ResourceTransactionalID,
		ResourceDelegationToken, ResourceUser}
}

// ClusterName is the name of Kafka's one Cluster resource.
const ClusterName = "kafka-cluster"

// WildcardResource is the literal name that matches every resource of its
// type.
const WildcardResource = "*"

// Operation is Kafka's AclOperation, with its wire codes.
type Operation int8

// The operations.
const (
	OpUnknown         Operation = 0
	OpAny             Operation = 1
	OpAll             Operation = 2
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
	OpCreateTokens    Operation = 13
	OpDescribeTokens  Operation = 14
)

// Permission is Kafka's AclPermissionType.
type Permission int8

// The permission types.
const (
	PermissionUnknown Permission = 0
	PermissionAny     Permission = 1
	PermissionDeny    Permission = 2
	PermissionAllow   Permission = 3
)

// PatternType is Kafka's PatternType.
type PatternType int8

// The pattern types; only Literal and Prefixed are stored.
const (
	PatternUnknown  PatternType = 0
	PatternAny      PatternType = 1
	PatternMatch    PatternType = 2
	PatternLiteral  PatternType = 3
	PatternPrefixed PatternType = 4
)

// enumName is Kafka's enum constant name for a PascalCase name:
// "TransactionalId" -> "TRANSACTIONAL_ID".
func enumName(pascal string) string {
	var b strings.Builder
	for i, r := range pascal {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
		}
		b.WriteRune(r)
	}
	return strings.ToUpper(b.String())
}

// lookupName resolves s as Kafka's SecurityUtils does: the PascalCase name
// or the enum name, then the upper-cased input against the enum names.
func lookupName[T ~int8](s string, values []T, pascal func(T) string) (T, bool) {
	for _, v := range values {
		if s == pascal(v) || s == enumName(pascal(v)) {
			return v, true
		}
	}
	up := strings.ToUpper(s)
	for _, v := range values {
		if up == enumName(pascal(v)) {
			return v, true
		}
	}
	return 0, false
}

// String is the PascalCase name used in znode paths ("TransactionalId").
func (t ResourceType) String() string {
	switch t {
	case ResourceAny:
		return "Any"
	case ResourceTopic:
		return "Topic"
	case ResourceGroup:
		return "Group"
	case ResourceCluster:
		return "Cluster"
	case ResourceTransactionalID:
		return "TransactionalId"
	case ResourceDelegationToken:
		return "DelegationToken"
	case ResourceUser:
		return "User"
	}
	return "Unknown"
}

// EnumName is the enum constant name used in literal change notifications
// ("TRANSACTIONAL_ID").
func (t ResourceType) EnumName() string { return enumName(t.String()) }

// ParseResourceType reads a stored resource type name.
func ParseResourceType(s string) (ResourceType, bool) {
	return lookupName(s, StoredResourceTypes(), ResourceType.String)
}

func (o Operation) String() string {
	names := [...]string{"Unknown", "Any", "All", "Read", "Write", "Create", "Delete", "Alter", "Describe",
		"ClusterAction", "DescribeConfigs", "AlterConfigs", "IdempotentWrite", "CreateTokens", "DescribeTokens"}
	if o >= 0 && int(o) < len(names) {
		return names[o]
	}
	return "Unknown"
}

// EnumName is Kafka's enum constant name ("IDEMPOTENT_WRITE"), as
// kafka-acls prints it.
func (o Operation) EnumName() string { return enumName(o.String()) }

// Operations lists the operations an ACL entry can name (All through
// DescribeTokens).
func Operations() []Operation {
	var out []Operation
	for o := OpAll; o <= OpDescribeTokens; o++ {
		out = append(out, o)
	}
	return out
}

// ParseOperation reads a stored operation name ("Read", "IdempotentWrite",
// or an enum name such as "IDEMPOTENT_WRITE").
func ParseOperation(s string) (Operation, bool) { return lookupName(s, Operations(), Operation.String) }

func (p Permission) String() string {
	switch p {
	case PermissionAny:
		return "Any"
	case PermissionDeny:
		return "Deny"
	case PermissionAllow:
		return "Allow"
	}
	return "Unknown"
}

// EnumName is Kafka's enum constant name ("ALLOW", "DENY").
func (p Permission) EnumName() string { return enumName(p.String()) }

// ParsePermission reads "Allow" or "Deny" (or ALLOW, DENY).
func ParsePermission(s string) (Permission, bool) {
	return lookupName(s, []Permission{PermissionDeny, PermissionAllow}, Permission.String)
}

func (p PatternType) String() string {
	switch p {
	case PatternAny:
		return "ANY"
	case PatternMatch:
		return "MATCH"
	case PatternLiteral:
		return "LITERAL"
	case PatternPrefixed:
		return "PREFIXED"
	}
	return "UNKNOWN"
}

// ParsePatternType reads LITERAL or PREFIXED, case-insensitively.
func ParsePatternType(s string) (PatternType, bool) {
	switch strings.ToUpper(s) {
	case "LITERAL":
		return PatternLiteral, true
	case "PREFIXED":
		return PatternPrefixed, true
	}
	return PatternUnknown, false
}

// Pattern is a resource pattern: the resources an ACL entry applies to.
type Pattern struct {
	Type        ResourceType
	Name        string
	PatternType PatternType
}

func (p Pattern) String() string {
	return fmt.Sprintf("ResourcePattern(resourceType=%s, name=%s, patternType=%s)", p.Type.EnumName(), p.Name, p.PatternType)
}

// Entry is one access control entry.
type Entry struct {
	// Principal is "<type>:<name>", e.g. "User:alice"; "User:*" is anyone.
	Principal  string
	Host       string // an IP address or "*"
	Operation  Operation
	Permission Permission
}

func (e Entry) String() string {
	return fmt.Sprintf("(principal=%s, host=%s, operation=%s, permissionType=%s)",
		e.Principal, e.Host, enumName(e.Operation.String()), enumName(e.Permission.String()))
}

// Binding is an entry bound to a pattern: one ACL.
type Binding struct {
	Pattern Pattern
	Entry   Entry
}

// WildcardPrincipal matches every user.
const WildcardPrincipal = "User:*"

// WildcardHost matches every client host.
const WildcardHost = "*"
