package acl

import (
	"context"
	"net"
	"testing"

	"github.com/rs/zerolog"

	"github.com/kzadmin/kzadmin/controller/handler"
	"github.com/kzadmin/kzadmin/controller/wire"
)

func typeReq(p Principal, op Operation) TypeRequest {
	return TypeRequest{Principal: p, Host: net.ParseIP("10.0.0.1"), Operation: op, Type: ResourceTopic}
}

// TestAuthorizeByResourceType follows the cases of Kafka's
// AuthorizerInterfaceDefaultTest / AclAuthorizerTest for
// authorizeByResourceType.
func TestAuthorizeByResourceType(t *testing.T) {
	group := func(name string) Pattern { return Pattern{ResourceGroup, name, PatternLiteral} }
	cases := []struct {
		name string
		acls map[Pattern][]Entry
		opts Options
		req  TypeRequest
		want bool
	}{
		{"no ACLs", nil, Options{}, typeReq(alice, OpWrite), false},
		{"no ACLs, allow everyone", nil, Options{AllowEveryoneIfNoACLFound: true}, typeReq(alice, OpWrite), true},
		{"super user", nil, Options{SuperUsers: []Principal{alice}}, typeReq(alice, OpWrite), true},
		{"literal allow on one topic", map[Pattern][]Entry{topic("t"): {allow("User:alice", OpWrite)}}, Options{}, typeReq(alice, OpWrite), true},
		{"prefixed allow", map[Pattern][]Entry{prefix("fin-"): {allow("User:alice", OpWrite)}}, Options{}, typeReq(alice, OpWrite), true},
		{"allow All", map[Pattern][]Entry{topic("t"): {allow("User:alice", OpAll)}}, Options{}, typeReq(alice, OpWrite), true},
		{"wildcard principal", map[Pattern][]Entry{topic("t"): {allow("User:*", OpWrite)}}, Options{}, typeReq(alice, OpWrite), true},
		{"other principal", map[Pattern][]Entry{topic("t"): {allow("User:bob", OpWrite)}}, Options{}, typeReq(alice, OpWrite), false},
		{"other operation", map[Pattern][]Entry{topic("t"): {allow("User:alice", OpRead)}}, Options{}, typeReq(alice, OpWrite), false},
		{"no implication: write does not give describe on the type",
			map[Pattern][]Entry{topic("t"): {allow("User:alice", OpWrite)}}, Options{}, typeReq(alice, OpDescribe), false},
		{"other resource type", map[Pattern][]Entry{group("g"): {allow("User:alice", OpRead)}}, Options{}, typeReq(alice, OpRead), false},
		{"other host", map[Pattern][]Entry{topic("t"): {{"User:alice", "10.0.0.2", OpWrite, PermissionAllow}}}, Options{}, typeReq(alice, OpWrite), false},
		{"same host", map[Pattern][]Entry{topic("t"): {{"User:alice", "10.0.0.1", OpWrite, PermissionAllow}}}, Options{}, typeReq(alice, OpWrite), true},
		{"deny on the wildcard resource", map[Pattern][]Entry{topic("*"): {deny("User:alice", OpWrite)}, topic("t"): {allow("User:alice", OpWrite)}},
			Options{AllowEveryoneIfNoACLFound: true}, typeReq(alice, OpWrite), false},
		{"deny on the same literal", map[Pattern][]Entry{topic("t"): {allow("User:alice", OpWrite), deny("User:alice", OpWrite)}},
			Options{}, typeReq(alice, OpWrite), false},
		{"deny on another literal", map[Pattern][]Entry{topic("t"): {allow("User:alice", OpWrite)}, topic("u"): {deny("User:alice", OpWrite)}},
			Options{}, typeReq(alice, OpWrite), true},
		{"prefixed deny covers the literal", map[Pattern][]Entry{topic("fin-x"): {allow("User:alice", OpWrite)}, prefix("fin"): {deny("User:alice", OpWrite)}},
			Options{}, typeReq(alice, OpWrite), false},
		{"prefixed deny covers the longer prefix", map[Pattern][]Entry{prefix("fin-x"): {allow("User:alice", OpWrite)}, prefix("fin"): {deny("User:alice", OpWrite)}},
			Options{}, typeReq(alice, OpWrite), false},
		{"longer prefixed deny leaves the shorter allow", map[Pattern][]Entry{prefix("fin"): {allow("User:alice", OpWrite)}, prefix("fin-x"): {deny("User:alice", OpWrite)}},
			Options{}, typeReq(alice, OpWrite), true},
		{"literal allow on * survives literal denies", map[Pattern][]Entry{topic("*"): {allow("User:alice", OpWrite)}, topic("t"): {deny("User:alice", OpWrite)}},
			Options{}, typeReq(alice, OpWrite), true},
		{"deny All on the wildcard", map[Pattern][]Entry{topic("*"): {deny("User:*", OpAll)}, topic("t"): {allow("User:alice", OpWrite)}},
			Options{}, typeReq(alice, OpWrite), false},
		{"deny of another principal", map[Pattern][]Entry{topic("t"): {allow("User:alice", OpWrite), deny("User:bob", OpWrite)}},
			Options{}, typeReq(alice, OpWrite), true},
		{"allow everyone despite ACLs", map[Pattern][]Entry{topic("t"): {deny("User:alice", OpWrite)}},
			Options{AllowEveryoneIfNoACLFound: true}, typeReq(alice, OpWrite), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := NewIndex(c.acls).AuthorizeByResourceType(c.req, c.opts); got != c.want {
				t.Fatalf("got %v, want %v", got, c.want)
			}
		})
	}
}

type fixedIndex struct{ x *Index }

func (f fixedIndex) Index() *Index { return f.x }

// TestAuthorizerByResourceType: the handler-facing method maps the
// handler's codes and takes the host from the context.
func TestAuthorizerByResourceType(t *testing.T) {
	x := NewIndex(map[Pattern][]Entry{topic("t"): {{"User:alice", "10.0.0.1", OpWrite, PermissionAllow}}})
	a := NewAuthorizer(fixedIndex{x}, Options{}, zerolog.Nop())
	alicePr := wire.Principal{Type: "User", Name: "alice"}
	if a.AuthorizeByResourceType(context.Background(), alicePr, handler.OpWrite, handler.ResourceTopic) {
		t.Fatal("allowed with an unknown host, though the only ACL names a host")
	}
	if a.AuthorizeByResourceType(context.Background(), wire.Principal{Type: "User", Name: "bob"}, handler.OpWrite, handler.ResourceTopic) {
		t.Fatal("bob allowed")
	}
}
