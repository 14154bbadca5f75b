package acl

import (
	"net"
	"slices"
	"strings"
)

// Principal is who asks: Kafka's KafkaPrincipal ("User", "alice").
type Principal struct {
	Type string
	Name string
}

func (p Principal) String() string { return p.Type + ":" + p.Name }

// ParsePrincipal reads "<type>:<name>", splitting at the first ':'.
func ParsePrincipal(s string) (Principal, bool) {
	typ, name, ok := strings.Cut(s, ":")
	if !ok || typ == "" {
		return Principal{}, false
	}
	return Principal{Type: typ, Name: name}, true
}

// Request is one authorization question.
type Request struct {
	Principal Principal
	// Host is the client's IP address; nil when unknown.
	Host      net.IP
	Operation Operation
	Type      ResourceType
	Name      string
}

// Options are the authorizer's settings.
type Options struct {
	// SuperUsers (super.users) are allowed everything.
	SuperUsers []Principal
	// AllowEveryoneIfNoACLFound (allow.everyone.if.no.acl.found) allows
	// access to resources no ACL applies to.
	AllowEveryoneIfNoACLFound bool
}

// ParseSuperUsers reads super.users: principals separated by ';'.
func ParseSuperUsers(s string) ([]Principal, bool) {
	var out []Principal
	for _, p := range strings.Split(s, ";") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		pr, ok := ParsePrincipal(p)
		if !ok {
			return nil, false
		}
		out = append(out, pr)
	}
	return out, true
}

// stored is an entry as the index keeps it: parsed once, so that
// decisions compare values.
type stored struct {
	principal Principal // Name "*" with Type "User" is the wildcard
	host      string    // "*" or as written
	hostIP    net.IP    // parsed host; nil for "*" or a non-IP text
	op        Operation
	perm      Permission
}

func storeEntry(e Entry) (stored, bool) {
	p, ok := ParsePrincipal(e.Principal)
	if !ok {
		return stored{}, false
	}
	return stored{principal: p, host: e.Host, hostIP: net.ParseIP(e.Host), op: e.Operation, perm: e.Permission}, true
}

type literalKey struct {
	typ  ResourceType
	name string
}

// Index is an immutable set of ACLs arranged for decisions. The zero value
// holds none. Build one with NewIndex or Index.With.
type Index struct {
	literal  map[literalKey][]stored
	prefixed map[literalKey][]stored
	// prefixLens lists, per type, the distinct lengths of the stored
	// prefixes, so a name is checked with one map lookup per length.
	prefixLens map[ResourceType][]int
	patterns   map[Pattern][]Entry
}

// NewIndex indexes the given ACLs, grouped by pattern.
func NewIndex(acls map[Pattern][]Entry) *Index {
	x := &Index{}
	return x.With(acls)
}

// With returns a new Index in which each pattern of changes has exactly
// the given entries (none removes the pattern). x is unchanged.
func (x *Index) With(changes map[Pattern][]Entry) *Index {
	n := &Index{
		literal:    make(map[literalKey][]stored, len(x.literal)),
		prefixed:   make(map[literalKey][]stored, len(x.prefixed)),
		prefixLens: make(map[ResourceType][]int),
		patterns:   make(map[Pattern][]Entry, len(x.patterns)+len(changes)),
	}
	for p, es := range x.patterns {
		if _, changed := changes[p]; !changed {
			n.patterns[p] = es
		}
	}
	for p, es := range changes {
		if len(es) > 0 {
			n.patterns[p] = slices.Clone(es)
		}
	}
	for p, es := range n.patterns {
		var ss []stored
		for _, e := range es {
			if s, ok := storeEntry(e); ok {
				ss = append(ss, s)
			}
		}
		k := literalKey{p.Type, p.Name}
		switch p.PatternType {
		case PatternLiteral:
			n.literal[k] = ss
		case PatternPrefixed:
			n.prefixed[k] = ss
			if !slices.Contains(n.prefixLens[p.Type], len(p.Name)) {
				n.prefixLens[p.Type] = append(n.prefixLens[p.Type], len(p.Name))
			}
		}
	}
	return n
}

// Patterns returns every pattern with its entries (shared: do not modify).
func (x *Index) Patterns() map[Pattern][]Entry { return x.patterns }

// Len is the number of patterns.
func (x *Index) Len() int { return len(x.patterns) }

// forMatching calls f with each group of entries that applies to the
// resource, stopping when f returns false.
func (x *Index) forMatching(typ ResourceType, name string, f func([]stored) bool) {
	if es, ok := x.literal[literalKey{typ, name}]; ok && !f(es) {
		return
	}
	if name != WildcardResource {
		if es, ok := x.literal[literalKey{typ, WildcardResource}]; ok && !f(es) {
			return
		}
	}
	for _, n := range x.prefixLens[typ] {
		if n > len(name) {
			continue
		}
		if es, ok := x.prefixed[literalKey{typ, name[:n]}]; ok && !f(es) {
			return
		}
	}
}

// Authorize decides req as Kafka's AclAuthorizer does (see the package
// documentation).
func (x *Index) Authorize(req Request, opts Options) bool {
	if slices.Contains(opts.SuperUsers, req.Principal) {
		return true
	}
	found, denied, allowed := false, false, false
	x.forMatching(req.Type, req.Name, func(es []stored) bool {
		for _, e := range es {
			found = true
			if !principalMatches(e.principal, req.Principal) {
				continue
			}
			switch {
			case e.perm == PermissionDeny && (e.op == req.Operation || e.op == OpAll) && hostMatches(e, req.Host, true):
				denied = true
				return false
			case e.perm == PermissionAllow && implies(e.op, req.Operation) && hostMatches(e, req.Host, false):
				allowed = true
			}
		}
		return true
	})
	if !found {
		return opts.AllowEveryoneIfNoACLFound
	}
	return !denied && allowed
}

func principalMatches(acl, p Principal) bool {
	return acl == p || acl.Type == "User" && acl.Name == "*"
}

// hostMatches compares an entry's host with the client's. With the
// client's address unknown, a denial for any host applies (forDeny) and
// an allowance only for "*".
func hostMatches(e stored, host net.IP, forDeny bool) bool {
	if e.host == WildcardHost {
		return true
	}
	if host == nil {
		return forDeny
	}
	return e.hostIP != nil && e.hostIP.Equal(host) || e.host == host.String()
}

// implies reports whether allowing granted allows asked: the operation
// itself, All, and Kafka's two implications.
func implies(granted, asked Operation) bool {
	if granted == asked || granted == OpAll {
		return true
	}
	switch asked {
	case OpDescribe:
		return granted == OpRead || granted == OpWrite || granted == OpDelete || granted == OpAlter
	case OpDescribeConfigs:
		return granted == OpAlterConfigs
	}
	return false
}
