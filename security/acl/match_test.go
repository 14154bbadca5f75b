package acl

import (
	"fmt"
	"math/rand/v2"
	"net"
	"strings"
	"testing"
)

var (
	alice = Principal{"User", "alice"}
	bob   = Principal{"User", "bob"}
	ops   = Group{"Group", "ops"}
)

// Group is a principal of another type, to show types are compared.
type Group = Principal

func topic(name string) Pattern  { return Pattern{ResourceTopic, name, PatternLiteral} }
func prefix(name string) Pattern { return Pattern{ResourceTopic, name, PatternPrefixed} }

func allow(p string, op Operation) Entry { return Entry{p, "*", op, PermissionAllow} }
func deny(p string, op Operation) Entry  { return Entry{p, "*", op, PermissionDeny} }

func req(p Principal, op Operation, name string) Request {
	return Request{Principal: p, Host: net.ParseIP("10.0.0.1"), Operation: op, Type: ResourceTopic, Name: name}
}

func TestAuthorizeTable(t *testing.T) {
	cases := []struct {
		name string
		acls map[Pattern][]Entry
		opts Options
		req  Request
		want bool
	}{
		{"no ACLs, default deny", nil, Options{}, req(alice, OpRead, "t"), false},
		{"no ACLs, allow everyone", nil, Options{AllowEveryoneIfNoACLFound: true}, req(alice, OpRead, "t"), true},
		{"ACLs for others only: not 'no ACL found'", map[Pattern][]Entry{topic("t"): {allow("User:bob", OpRead)}},
			Options{AllowEveryoneIfNoACLFound: true}, req(alice, OpRead, "t"), false},
		{"ACLs on other topics do not count", map[Pattern][]Entry{topic("u"): {allow("User:bob", OpRead)}},
			Options{AllowEveryoneIfNoACLFound: true}, req(alice, OpRead, "t"), true},
		{"super user", map[Pattern][]Entry{topic("t"): {deny("User:alice", OpAll)}},
			Options{SuperUsers: []Principal{alice}}, req(alice, OpDelete, "t"), true},
		{"literal allow", map[Pattern][]Entry{topic("t"): {allow("User:alice", OpRead)}}, Options{}, req(alice, OpRead, "t"), true},
		{"literal allow other op", map[Pattern][]Entry{topic("t"): {allow("User:alice", OpRead)}}, Options{}, req(alice, OpWrite, "t"), false},
		{"allow All", map[Pattern][]Entry{topic("t"): {allow("User:alice", OpAll)}}, Options{}, req(alice, OpAlterConfigs, "t"), true},
		{"deny beats allow", map[Pattern][]Entry{topic("t"): {allow("User:alice", OpAll), deny("User:alice", OpRead)}},
			Options{}, req(alice, OpRead, "t"), false},
		{"deny other op leaves allow", map[Pattern][]Entry{topic("t"): {allow("User:alice", OpAll), deny("User:alice", OpRead)}},
			Options{}, req(alice, OpWrite, "t"), true},
		{"deny All", map[Pattern][]Entry{topic("t"): {allow("User:alice", OpRead), deny("User:alice", OpAll)}},
			Options{}, req(alice, OpRead, "t"), false},
		{"wildcard principal allow", map[Pattern][]Entry{topic("t"): {allow("User:*", OpRead)}}, Options{}, req(bob, OpRead, "t"), true},
		{"wildcard principal matches every type", map[Pattern][]Entry{topic("t"): {allow("User:*", OpRead)}}, Options{}, req(ops, OpRead, "t"), true},
		{"Group wildcard is no wildcard", map[Pattern][]Entry{topic("t"): {allow("Group:*", OpRead)}}, Options{}, req(ops, OpRead, "t"), false},
		{"wildcard principal deny", map[Pattern][]Entry{topic("t"): {allow("User:bob", OpRead), deny("User:*", OpRead)}},
			Options{}, req(bob, OpRead, "t"), false},
		{"principal type compared", map[Pattern][]Entry{topic("t"): {allow("Group:alice", OpRead)}}, Options{}, req(alice, OpRead, "t"), false},
		{"wildcard resource", map[Pattern][]Entry{topic("*"): {allow("User:alice", OpRead)}}, Options{}, req(alice, OpRead, "anything"), true},
		{"wildcard resource deny", map[Pattern][]Entry{topic("*"): {deny("User:alice", OpRead)}, topic("t"): {allow("User:alice", OpRead)}},
			Options{}, req(alice, OpRead, "t"), false},
		{"prefixed allow", map[Pattern][]Entry{prefix("fin-"): {allow("User:alice", OpWrite)}}, Options{}, req(alice, OpWrite, "fin-ledger"), true},
		{"prefixed whole name", map[Pattern][]Entry{prefix("fin-"): {allow("User:alice", OpWrite)}}, Options{}, req(alice, OpWrite, "fin-"), true},
		{"prefixed no match", map[Pattern][]Entry{prefix("fin-"): {allow("User:alice", OpWrite)}}, Options{}, req(alice, OpWrite, "fi"), false},
		{"prefixed deny over literal allow", map[Pattern][]Entry{prefix("fin"): {deny("User:alice", OpWrite)}, topic("fin-x"): {allow("User:alice", OpWrite)}},
			Options{}, req(alice, OpWrite, "fin-x"), false},
		{"prefixed star is not a wildcard", map[Pattern][]Entry{prefix("*"): {allow("User:alice", OpRead)}}, Options{}, req(alice, OpRead, "t"), false},
		{"describe implied by read", map[Pattern][]Entry{topic("t"): {allow("User:alice", OpRead)}}, Options{}, req(alice, OpDescribe, "t"), true},
		{"describe implied by write", map[Pattern][]Entry{topic("t"): {allow("User:alice", OpWrite)}}, Options{}, req(alice, OpDescribe, "t"), true},
		{"describe implied by delete", map[Pattern][]Entry{topic("t"): {allow("User:alice", OpDelete)}}, Options{}, req(alice, OpDescribe, "t"), true},
		{"describe implied by alter", map[Pattern][]Entry{topic("t"): {allow("User:alice", OpAlter)}}, Options{}, req(alice, OpDescribe, "t"), true},
		{"describe not implied by create", map[Pattern][]Entry{topic("t"): {allow("User:alice", OpCreate)}}, Options{}, req(alice, OpDescribe, "t"), false},
		{"describe configs implied by alter configs", map[Pattern][]Entry{topic("t"): {allow("User:alice", OpAlterConfigs)}}, Options{}, req(alice, OpDescribeConfigs, "t"), true},
		{"read not implied by describe", map[Pattern][]Entry{topic("t"): {allow("User:alice", OpDescribe)}}, Options{}, req(alice, OpRead, "t"), false},
		{"deny read does not deny describe", map[Pattern][]Entry{topic("t"): {allow("User:alice", OpWrite), deny("User:alice", OpRead)}},
			Options{}, req(alice, OpDescribe, "t"), true},
		{"host allow", map[Pattern][]Entry{topic("t"): {{"User:alice", "10.0.0.1", OpRead, PermissionAllow}}}, Options{}, req(alice, OpRead, "t"), true},
		{"host allow other host", map[Pattern][]Entry{topic("t"): {{"User:alice", "10.0.0.2", OpRead, PermissionAllow}}}, Options{}, req(alice, OpRead, "t"), false},
		{"host deny", map[Pattern][]Entry{topic("t"): {allow("User:alice", OpRead), {"User:alice", "10.0.0.1", OpRead, PermissionDeny}}},
			Options{}, req(alice, OpRead, "t"), false},
		{"host deny other host", map[Pattern][]Entry{topic("t"): {allow("User:alice", OpRead), {"User:alice", "10.0.0.9", OpRead, PermissionDeny}}},
			Options{}, req(alice, OpRead, "t"), true},
		{"unknown host: specific deny applies", map[Pattern][]Entry{topic("t"): {allow("User:alice", OpRead), {"User:alice", "10.0.0.9", OpRead, PermissionDeny}}},
			Options{}, Request{Principal: alice, Operation: OpRead, Type: ResourceTopic, Name: "t"}, false},
		{"unknown host: specific allow does not", map[Pattern][]Entry{topic("t"): {{"User:alice", "10.0.0.1", OpRead, PermissionAllow}}},
			Options{}, Request{Principal: alice, Operation: OpRead, Type: ResourceTopic, Name: "t"}, false},
		{"ipv6 spelled as Java does", map[Pattern][]Entry{topic("t"): {{"User:alice", "0:0:0:0:0:0:0:1", OpRead, PermissionAllow}}},
			Options{}, Request{Principal: alice, Host: net.ParseIP("::1"), Operation: OpRead, Type: ResourceTopic, Name: "t"}, true},
		{"resource type compared", map[Pattern][]Entry{{ResourceGroup, "t", PatternLiteral}: {allow("User:alice", OpRead)}},
			Options{}, req(alice, OpRead, "t"), false},
		{"cluster create", map[Pattern][]Entry{{ResourceCluster, ClusterName, PatternLiteral}: {allow("User:alice", OpCreate)}},
			Options{}, Request{Principal: alice, Operation: OpCreate, Type: ResourceCluster, Name: ClusterName}, true},
		{"bad principal entry is skipped but counts as found", map[Pattern][]Entry{topic("t"): {allow("nocolon", OpRead)}},
			Options{AllowEveryoneIfNoACLFound: true}, req(alice, OpRead, "t"), true},
	}
	for _, tc := range cases {
		got := NewIndex(tc.acls).Authorize(tc.req, tc.opts)
		if got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

// naiveAuthorize transcribes Kafka's AclAuthorizer.authorizeAction over a
// flat list of bindings, for the quick-check below.
func naiveAuthorize(bindings []Binding, r Request, opts Options) bool {
	for _, su := range opts.SuperUsers {
		if su == r.Principal {
			return true
		}
	}
	var matching []Entry
	for _, b := range bindings {
		p := b.Pattern
		if p.Type != r.Type {
			continue
		}
		if p.PatternType == PatternLiteral && (p.Name == r.Name || p.Name == "*") ||
			p.PatternType == PatternPrefixed && strings.HasPrefix(r.Name, p.Name) {
			matching = append(matching, b.Entry)
		}
	}
	if len(matching) == 0 {
		return opts.AllowEveryoneIfNoACLFound
	}
	exists := func(op Operation, perm Permission) bool {
		for _, e := range matching {
			host := e.Host == "*" || r.Host != nil && net.ParseIP(e.Host).Equal(r.Host)
			if e.Permission == perm && (e.Principal == r.Principal.String() || e.Principal == "User:*") &&
				(e.Operation == op || e.Operation == OpAll) && host {
				return true
			}
		}
		return false
	}
	if exists(r.Operation, PermissionDeny) {
		return false
	}
	allowOps := []Operation{r.Operation}
	switch r.Operation {
	case OpDescribe:
		allowOps = append(allowOps, OpRead, OpWrite, OpDelete, OpAlter)
	case OpDescribeConfigs:
		allowOps = append(allowOps, OpAlterConfigs)
	}
	for _, op := range allowOps {
		if exists(op, PermissionAllow) {
			return true
		}
	}
	return false
}

// TestAuthorizeQuickCheck compares Index.Authorize with the naive
// transcription on random ACL sets and requests.
func TestAuthorizeQuickCheck(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	names := []string{"a", "ab", "abc", "b", "*", "x-1"}
	principals := []string{"User:alice", "User:bob", "User:*", "Group:alice"}
	hosts := []string{"*", "10.0.0.1", "10.0.0.2"}
	pick := func(s []string) string { return s[rng.IntN(len(s))] }
	for round := range 3000 {
		acls := map[Pattern][]Entry{}
		var flat []Binding
		for range rng.IntN(6) {
			p := Pattern{[]ResourceType{ResourceTopic, ResourceGroup}[rng.IntN(2)], pick(names),
				[]PatternType{PatternLiteral, PatternPrefixed}[rng.IntN(2)]}
			e := Entry{pick(principals), pick(hosts), Operation(2 + rng.IntN(13)),
				[]Permission{PermissionAllow, PermissionDeny}[rng.IntN(2)]}
			acls[p] = append(acls[p], e)
			flat = append(flat, Binding{p, e})
		}
		idx := NewIndex(acls)
		opts := Options{AllowEveryoneIfNoACLFound: rng.IntN(2) == 0}
		if rng.IntN(10) == 0 {
			opts.SuperUsers = []Principal{bob}
		}
		for range 20 {
			p, _ := ParsePrincipal(pick([]string{"User:alice", "User:bob", "Group:alice", "User:carol"}))
			r := Request{Principal: p, Operation: Operation(3 + rng.IntN(12)),
				Type: []ResourceType{ResourceTopic, ResourceGroup}[rng.IntN(2)], Name: pick(names)}
			if h := pick([]string{"10.0.0.1", "10.0.0.2", ""}); h != "" {
				r.Host = net.ParseIP(h)
			}
			got, want := idx.Authorize(r, opts), naiveAuthorize(flat, r, opts)
			if r.Host == nil {
				// The naive version has no unknown-host rule; check
				// that rule on its own: unknown is never more
				// permissive than any known host.
				for _, h := range []string{"10.0.0.1", "10.0.0.2", "10.9.9.9"} {
					r2 := r
					r2.Host = net.ParseIP(h)
					if got && !idx.Authorize(r2, opts) {
						t.Fatalf("round %d: unknown host allowed %v where %s is not (acls %v)", round, r, h, acls)
					}
				}
				continue
			}
			if got != want {
				t.Fatalf("round %d: %+v with %v (opts %+v): got %v, want %v", round, r, acls, opts, got, want)
			}
		}
	}
}

func TestIndexWith(t *testing.T) {
	x := NewIndex(map[Pattern][]Entry{topic("a"): {allow("User:alice", OpRead)}, prefix("b"): {allow("User:alice", OpRead)}})
	y := x.With(map[Pattern][]Entry{topic("a"): nil, topic("c"): {allow("User:alice", OpRead)}})
	if x.Len() != 2 || y.Len() != 2 {
		t.Fatalf("lens %d %d", x.Len(), y.Len())
	}
	if !x.Authorize(req(alice, OpRead, "a"), Options{}) || y.Authorize(req(alice, OpRead, "a"), Options{}) {
		t.Fatal("With changed the original or kept a removed pattern")
	}
	if !y.Authorize(req(alice, OpRead, "c"), Options{}) || !y.Authorize(req(alice, OpRead, "bee"), Options{}) {
		t.Fatal("With lost a pattern")
	}
	var zero Index
	if zero.Authorize(req(alice, OpRead, "a"), Options{}) || !zero.Authorize(req(alice, OpRead, "a"), Options{AllowEveryoneIfNoACLFound: true}) {
		t.Fatal("zero Index")
	}
}

func TestNames(t *testing.T) {
	for _, rt := range StoredResourceTypes() {
		for _, s := range []string{rt.String(), rt.EnumName(), strings.ToLower(rt.EnumName())} {
			if got, ok := ParseResourceType(s); !ok || got != rt {
				t.Errorf("ParseResourceType(%q) = %v %v", s, got, ok)
			}
		}
	}
	if ResourceTransactionalID.EnumName() != "TRANSACTIONAL_ID" || ResourceDelegationToken.String() != "DelegationToken" {
		t.Error("resource names")
	}
	for _, op := range Operations() {
		for _, s := range []string{op.String(), enumName(op.String()), strings.ToLower(enumName(op.String()))} {
			if got, ok := ParseOperation(s); !ok || got != op {
				t.Errorf("ParseOperation(%q) = %v %v", s, got, ok)
			}
		}
	}
	for _, bad := range []string{"idempotentwrite", "Any", "Unknown", ""} {
		if _, ok := ParseOperation(bad); ok {
			t.Errorf("ParseOperation(%q) accepted", bad)
		}
	}
	if p, ok := ParsePermission("DENY"); !ok || p != PermissionDeny {
		t.Error("DENY")
	}
	if _, ok := ParsePermission("Any"); ok {
		t.Error("Any permission accepted")
	}
	if su, ok := ParseSuperUsers(" User:admin ; User:CN=x,O=y;"); !ok || len(su) != 2 || su[1].Name != "CN=x,O=y" {
		t.Errorf("super users %v %v", su, ok)
	}
	if _, ok := ParseSuperUsers("admin"); ok {
		t.Error("super user without type accepted")
	}
	b := Binding{topic("t"), allow("User:a", OpRead)}
	if got := b.Pattern.String() + " " + b.Entry.String(); got != "ResourcePattern(resourceType=TOPIC, name=t, patternType=LITERAL) (principal=User:a, host=*, operation=READ, permissionType=ALLOW)" {
		t.Errorf("binding text %q", got)
	}
}

// BenchmarkAuthorize measures one decision against 10k literal and 100
// prefixed patterns (the Metadata path calls it once per topic).
func BenchmarkAuthorize(b *testing.B) {
	acls := map[Pattern][]Entry{}
	for i := range 10000 {
		acls[topic(fmt.Sprintf("topic-%d", i))] = []Entry{allow("User:alice", OpRead), deny("User:bob", OpWrite)}
	}
	for i := range 100 {
		acls[prefix(fmt.Sprintf("p%d-", i))] = []Entry{allow("User:alice", OpWrite)}
	}
	idx := NewIndex(acls)
	r := req(alice, OpDescribe, "topic-5000")
	b.ReportAllocs()
	for b.Loop() {
		if !idx.Authorize(r, Options{}) {
			b.Fatal("denied")
		}
	}
}
