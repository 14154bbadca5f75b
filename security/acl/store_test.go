package acl

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/kzadmin/kzadmin/znodes"
)

func TestStoreAddListRemove(t *testing.T) {
	zk, _ := connectZK(t)
	ctx := testCtx(t)
	s := NewStore(zk)
	bindings := []Binding{
		{topic("orders"), allow("User:alice", OpRead)},
		{topic("orders"), allow("User:alice", OpRead)}, // duplicate: stored once
		{topic("orders"), Entry{"User:bob", "10.0.0.1", OpWrite, PermissionDeny}},
		{prefix("fin-"), allow("User:alice", OpWrite)},
		{Pattern{ResourceCluster, ClusterName, PatternLiteral}, allow("User:admin", OpCreate)},
		{Pattern{ResourceTransactionalID, "tx", PatternLiteral}, allow("User:alice", OpWrite)},
	}
	if err := s.Add(ctx, bindings); err != nil {
		t.Fatal(err)
	}
	// The znodes are exactly Kafka's.
	data, _, err := zk.Get(ctx, "/kafka-acl/Topic/orders")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"version":1,"acls":[{"principal":"User:alice","permissionType":"Allow","operation":"Read","host":"*"},` +
		`{"principal":"User:bob","permissionType":"Deny","operation":"Write","host":"10.0.0.1"}]}`
	if string(data) != want {
		t.Fatalf("znode\n got %s\nwant %s", data, want)
	}
	if data, _, err = zk.Get(ctx, "/kafka-acl-extended/prefixed/Topic/fin-"); err != nil || !strings.Contains(string(data), `"operation":"Write"`) {
		t.Fatalf("prefixed znode %s %v", data, err)
	}
	checkNotifications(t, zk, "/kafka-acl-changes", "CLUSTER:kafka-cluster", "TOPIC:orders", "TRANSACTIONAL_ID:tx")
	checkNotifications(t, zk, "/kafka-acl-extended-changes",
		`{"version":1,"resourceType":"TOPIC","name":"fin-","patternType":"PREFIXED"}`)

	all, err := s.List(ctx, MatchAll())
	if err != nil || len(all) != 5 {
		t.Fatalf("list all: %v %v", all, err)
	}
	f := MatchAll()
	f.Type, f.Name, f.PatternType = ResourceTopic, "fin-ledger", PatternMatch
	if got, _ := s.List(ctx, f); len(got) != 1 || got[0].Pattern != prefix("fin-") {
		t.Fatalf("list MATCH fin-ledger: %v", got)
	}
	f = MatchAll()
	f.Principal = "User:alice"
	if got, _ := s.List(ctx, f); len(got) != 3 {
		t.Fatalf("list alice: %v", got)
	}

	// Remove bob's entry: the znode keeps alice's. Remove alice's: the
	// znode goes.
	f = MatchAll()
	f.Type, f.Name, f.PatternType, f.Principal = ResourceTopic, "orders", PatternLiteral, "User:bob"
	removed, err := s.Remove(ctx, f)
	if err != nil || len(removed) != 1 || removed[0].Entry.Principal != "User:bob" {
		t.Fatalf("remove bob: %v %v", removed, err)
	}
	f.Principal = ""
	if removed, err = s.Remove(ctx, f); err != nil || len(removed) != 1 {
		t.Fatalf("remove orders: %v %v", removed, err)
	}
	if ok, _, _ := zk.Exists(ctx, "/kafka-acl/Topic/orders"); ok {
		t.Fatal("empty ACL znode left behind")
	}
	// Removing what is not there writes nothing.
	if removed, err = s.Remove(ctx, f); err != nil || len(removed) != 0 {
		t.Fatalf("remove again: %v %v", removed, err)
	}
}

func checkNotifications(t *testing.T, zk ZK, root string, want ...string) {
	t.Helper()
	ctx := testCtx(t)
	children, _, err := zk.Children(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range children {
		if !strings.HasPrefix(c, znodes.ACLChangePrefix) {
			t.Fatalf("notification %s", c)
		}
		data, _, err := zk.Get(ctx, root+"/"+c)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(data))
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%s holds\n%s\nwant\n%s", root, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestStoreValidation(t *testing.T) {
	zk, _ := connectZK(t)
	s := NewStore(zk)
	for _, b := range []Binding{
		{topic("t"), allow("alice", OpRead)},
		{topic("t"), Entry{"User:a", "", OpRead, PermissionAllow}},
		{topic("t"), allow("User:a", OpClusterAction)},
		{topic("t"), Entry{"User:a", "*", OpRead, PermissionAny}},
		{topic(""), allow("User:a", OpRead)},
		{prefix("*"), allow("User:a", OpRead)},
		{Pattern{ResourceTopic, "t", PatternMatch}, allow("User:a", OpRead)},
		{Pattern{ResourceAny, "t", PatternLiteral}, allow("User:a", OpRead)},
		{Pattern{ResourceGroup, "g", PatternLiteral}, allow("User:a", OpWrite)},
	} {
		if err := s.Add(context.Background(), []Binding{b}); err == nil {
			t.Errorf("%v %v accepted", b.Pattern, b.Entry)
		}
	}
}

// TestStoreConcurrentAdds: writers adding to the same pattern at once all
// land, thanks to the version-checked multi and its retries.
func TestStoreConcurrentAdds(t *testing.T) {
	zk, _ := connectZK(t)
	s := NewStore(zk)
	ctx := testCtx(t)
	if err := EnsurePaths(ctx, zk); err != nil {
		t.Fatal(err)
	}
	const n = 8
	errs := make(chan error, n)
	for i := range n {
		go func() {
			errs <- s.Add(ctx, []Binding{{topic("shared"), allow("User:u"+string(rune('a'+i)), OpRead)}})
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.List(ctx, MatchAll())
	if err != nil || len(got) != n {
		t.Fatalf("after %d concurrent adds: %d bindings, %v", n, len(got), err)
	}
}
