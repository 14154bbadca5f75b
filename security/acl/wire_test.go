package acl

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rs/zerolog"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func creation(rt ResourceType, name string, pt PatternType, principal, host string, op Operation, perm Permission) kmsg.CreateACLsRequestCreation {
	c := kmsg.NewCreateACLsRequestCreation()
	c.ResourceType, c.ResourceName, c.ResourcePatternType = kmsg.ACLResourceType(rt), name, kmsg.ACLResourcePatternType(pt)
	c.Principal, c.Host = principal, host
	c.Operation, c.PermissionType = kmsg.ACLOperation(op), kmsg.ACLPermissionType(perm)
	return c
}

func sp(s string) *string { return &s }

// describeText renders a DescribeAcls answer in a stable text.
func describeText(resources []kmsg.DescribeACLsResponseResource) string {
	var b strings.Builder
	for _, r := range resources {
		fmt.Fprintf(&b, "%s:%s:%s", ResourceType(r.ResourceType), r.ResourceName, PatternType(r.ResourcePatternType))
		for _, a := range r.ACLs {
			fmt.Fprintf(&b, " [%s %s %s %s]", a.Principal, a.Host, Operation(a.Operation), Permission(a.PermissionType))
		}
		b.WriteString("\n")
	}
	return b.String()
}

func TestWireAdminCreateDescribeDelete(t *testing.T) {
	zk, _ := connectZK(t)
	ctx := testCtx(t)
	w := NewWireAdmin(NewStore(zk), zerolog.Nop())

	results := w.CreateACLs(ctx, []kmsg.CreateACLsRequestCreation{
		creation(ResourceTopic, "orders", PatternLiteral, "User:alice", "*", OpRead, PermissionAllow),
		creation(ResourceTopic, "orders", PatternLiteral, "User:bob", "10.0.0.1", OpWrite, PermissionDeny),
		creation(ResourceTopic, "fin-", PatternPrefixed, "User:alice", "*", OpWrite, PermissionAllow),
		creation(ResourceCluster, ClusterName, PatternLiteral, "User:admin", "*", OpAlter, PermissionAllow),
		creation(ResourceGroup, "*", PatternLiteral, "User:alice", "*", OpRead, PermissionAllow),
		// Refused, each on its own: Kafka's checks, then kafka-acls's.
		creation(ResourceCluster, "other", PatternLiteral, "User:admin", "*", OpAlter, PermissionAllow),
		creation(ResourceTopic, "", PatternLiteral, "User:alice", "*", OpRead, PermissionAllow),
		creation(ResourceTopic, "a/b", PatternLiteral, "User:alice", "*", OpRead, PermissionAllow),
		creation(ResourceTopic, "t", PatternMatch, "User:alice", "*", OpRead, PermissionAllow),
		creation(ResourceTopic, "t", PatternLiteral, "User:alice", "*", OpAny, PermissionAllow),
		creation(ResourceTopic, "t", PatternLiteral, "alice", "*", OpRead, PermissionAllow),
		creation(ResourceTopic, "t", PatternLiteral, "User:alice", "*", OpClusterAction, PermissionAllow),
		creation(ResourceTopic, "t", PatternLiteral, "User:alice", "", OpRead, PermissionAllow),
	})
	wantErrs := []string{"", "", "", "", "",
		"The only valid name for the CLUSTER resource is kafka-cluster",
		"Invalid empty resource name",
		`Failed to create ACL: resource name "a/b" contains '/'`,
		"ACL creation names pattern type MATCH, which only filters may",
		"ACL creation names operation ANY",
		`Failed to create ACL: principal "alice" is not <type>:<name>`,
		"Failed to create ACL: resource type Topic only supports operations",
		"Failed to create ACL: host must not be empty (use * for any host)",
	}
	for i, r := range results {
		msg := ""
		if r.ErrorMessage != nil {
			msg = *r.ErrorMessage
		}
		switch {
		case wantErrs[i] == "" && (r.ErrorCode != 0 || msg != ""):
			t.Errorf("creation %d: %v %q", i, kerr.ErrorForCode(r.ErrorCode), msg)
		case wantErrs[i] != "" && (r.ErrorCode != kerr.InvalidRequest.Code || !strings.HasPrefix(msg, wantErrs[i])):
			t.Errorf("creation %d: %v %q, want INVALID_REQUEST %q", i, kerr.ErrorForCode(r.ErrorCode), msg, wantErrs[i])
		}
	}
	if data, _, err := zk.Get(ctx, "/kafka-acl/Topic/orders"); err != nil || !strings.Contains(string(data), `"principal":"User:bob"`) {
		t.Fatalf("/kafka-acl/Topic/orders: %s %v", data, err)
	}

	describe := func(rt ResourceType, name *string, pt PatternType, principal *string) string {
		r := kmsg.NewPtrDescribeACLsRequest()
		r.ResourceType, r.ResourceName, r.ResourcePatternType = kmsg.ACLResourceType(rt), name, kmsg.ACLResourcePatternType(pt)
		r.Principal, r.Operation, r.PermissionType = principal, kmsg.ACLOperation(OpAny), kmsg.ACLPermissionType(PermissionAny)
		res, err := w.DescribeACLs(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		return describeText(res)
	}
	for _, tc := range []struct {
		what      string
		rt        ResourceType
		name      *string
		pt        PatternType
		principal *string
		want      string
	}{
		{"everything", ResourceAny, nil, PatternAny, nil,
			"Topic:orders:LITERAL [User:alice * Read Allow] [User:bob 10.0.0.1 Write Deny]\n" +
				"Topic:fin-:PREFIXED [User:alice * Write Allow]\n" +
				"Group:*:LITERAL [User:alice * Read Allow]\n" +
				"Cluster:kafka-cluster:LITERAL [User:admin * Alter Allow]\n"},
		{"what applies to topic fin-x", ResourceTopic, sp("fin-x"), PatternMatch, nil,
			"Topic:fin-:PREFIXED [User:alice * Write Allow]\n"},
		{"literal orders for bob", ResourceTopic, sp("orders"), PatternLiteral, sp("User:bob"),
			"Topic:orders:LITERAL [User:bob 10.0.0.1 Write Deny]\n"},
		{"an empty name matches nothing", ResourceAny, sp(""), PatternAny, nil, ""},
		{"an empty principal matches nothing", ResourceAny, nil, PatternAny, sp(""), ""},
	} {
		if got := describe(tc.rt, tc.name, tc.pt, tc.principal); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.what, got, tc.want)
		}
	}

	filter := func(rt ResourceType, name *string, pt PatternType, op Operation) kmsg.DeleteACLsRequestFilter {
		f := kmsg.NewDeleteACLsRequestFilter()
		f.ResourceType, f.ResourceName, f.ResourcePatternType = kmsg.ACLResourceType(rt), name, kmsg.ACLResourcePatternType(pt)
		f.Operation, f.PermissionType = kmsg.ACLOperation(op), kmsg.ACLPermissionType(PermissionAny)
		return f
	}
	deleted := w.DeleteACLs(ctx, []kmsg.DeleteACLsRequestFilter{
		filter(ResourceTopic, sp("orders"), PatternLiteral, OpRead),
		filter(ResourceTopic, nil, PatternAny, OpAny), // also matches orders' Read: reported above only
		filter(ResourceUser, nil, PatternAny, OpAny),
	})
	var got []string
	for i, r := range deleted {
		if r.ErrorCode != 0 {
			t.Errorf("filter %d: %v", i, kerr.ErrorForCode(r.ErrorCode))
		}
		for _, m := range r.MatchingACLs {
			got = append(got, fmt.Sprintf("%d:%s:%s:%s", i, m.ResourceName, Operation(m.Operation), m.Principal))
		}
	}
	if want := "0:orders:Read:User:alice 1:orders:Write:User:bob 1:fin-:Write:User:alice"; strings.Join(got, " ") != want {
		t.Fatalf("deleted %v, want %s", got, want)
	}
	if rest := describe(ResourceAny, nil, PatternAny, nil); rest != "Group:*:LITERAL [User:alice * Read Allow]\n"+
		"Cluster:kafka-cluster:LITERAL [User:admin * Alter Allow]\n" {
		t.Fatalf("left after deleting:\n%s", rest)
	}
	if ok, _, err := zk.Exists(ctx, "/kafka-acl/Topic/orders"); ok || err != nil {
		t.Fatalf("/kafka-acl/Topic/orders left without entries: %v %v", ok, err)
	}
}

// TestWireConversionsRoundTrip: every binding and filter survives its wire
// form, the one the CLI sends and the one kzadmind reads.
func TestWireConversionsRoundTrip(t *testing.T) {
	for _, b := range []Binding{
		{topic("orders"), allow("User:alice", OpRead)},
		{prefix("fin-"), Entry{"User:bob", "10.0.0.1", OpWrite, PermissionDeny}},
		{Pattern{ResourceCluster, ClusterName, PatternLiteral}, allow("User:*", OpIdempotentWrite)},
	} {
		if got := BindingOfCreation(CreationOf(b)); got != b {
			t.Errorf("creation round trip: %v, want %v", got, b)
		}
		if got := BindingOfMatching(MatchingACLOf(b)); got != b {
			t.Errorf("matching round trip: %v, want %v", got, b)
		}
	}
	// A DescribeAcls answer as WireAdmin groups it reads back as the
	// bindings it was built from.
	zk, _ := connectZK(t)
	w := NewWireAdmin(NewStore(zk), zerolog.Nop())
	ctx := testCtx(t)
	stored := []Binding{
		{topic("orders"), allow("User:alice", OpRead)},
		{topic("orders"), Entry{"User:bob", "10.0.0.1", OpWrite, PermissionDeny}},
		{prefix("fin-"), allow("User:alice", OpWrite)},
	}
	if err := w.store.Add(ctx, stored); err != nil {
		t.Fatal(err)
	}
	r := kmsg.NewPtrDescribeACLsRequest()
	r.ResourceType, r.ResourcePatternType, r.Operation, r.PermissionType = 1, 1, 1, 1
	res, err := w.DescribeACLs(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	if got := BindingsOfResources(res); fmt.Sprint(got) != fmt.Sprint(stored) {
		t.Errorf("describe round trip: %v, want %v", got, stored)
	}
	for _, f := range []Filter{
		MatchAll(),
		{Type: ResourceTopic, Name: "fin-x", PatternType: PatternMatch, Principal: "User:a", Host: "*", Operation: OpRead, Permission: PermissionAllow},
	} {
		got, ok := wireFilter(FilterFields(f))
		if !ok || got != f {
			t.Errorf("filter round trip: %+v %v, want %+v", got, ok, f)
		}
	}
}
