package znodes_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kzadmin/kzadmin/znodes"
)

func TestPathBuilders(t *testing.T) {
	cases := []struct{ got, want string }{
		{znodes.TopicPath("orders"), "/brokers/topics/orders"},
		{znodes.PartitionsPath("orders"), "/brokers/topics/orders/partitions"},
		{znodes.PartitionPath("orders", 7), "/brokers/topics/orders/partitions/7"},
		{znodes.PartitionStatePath("orders", 7), "/brokers/topics/orders/partitions/7/state"},
		{znodes.PartitionStatePath("__consumer_offsets", 49), "/brokers/topics/__consumer_offsets/partitions/49/state"},
		{znodes.BrokerIDPath(1001), "/brokers/ids/1001"},
		{znodes.BrokerIDPath(-1), "/brokers/ids/-1"},
		{znodes.DeleteTopicPath("orders"), "/admin/delete_topics/orders"},
		{znodes.ConfigEntityTypePath(znodes.EntityTopics), "/config/topics"},
		{znodes.ConfigEntityPath(znodes.EntityTopics, "orders"), "/config/topics/orders"},
		{znodes.ConfigEntityPath(znodes.EntityBrokers, znodes.DefaultEntityName), "/config/brokers/<default>"},
		{znodes.ConfigEntityPath(znodes.EntityUsers, znodes.UserClientEntityName("alice", "app-1")), "/config/users/alice/clients/app-1"},
		{znodes.ConfigEntityPath(znodes.EntityClients, znodes.SanitizeEntityName("my app")), "/config/clients/my%20app"},
		{znodes.ConfigEntityPath(znodes.EntityIPs, "10.0.0.5"), "/config/ips/10.0.0.5"},
		{znodes.ConfigChangePath("config_change_0000000001"), "/config/changes/config_change_0000000001"},
		{znodes.IsrChangeNotificationChildPath("isr_change_0000000012"), "/isr_change_notification/isr_change_0000000012"},
		{znodes.LogDirEventNotificationChildPath("log_dir_event_0000000000"), "/log_dir_event_notification/log_dir_event_0000000000"},
		{znodes.DelegationTokenInfoPath("tok"), "/delegation_token/tokens/tok"},
		{znodes.ACLResourcePath(znodes.PatternLiteral, "Topic", "foo"), "/kafka-acl/Topic/foo"},
		{znodes.ACLResourcePath(znodes.PatternPrefixed, "Group", "g-"), "/kafka-acl-extended/prefixed/Group/g-"},
		{znodes.ACLResourceTypePath(znodes.PatternLiteral, "Cluster"), "/kafka-acl/Cluster"},
		{znodes.JoinPath("/", "controller"), "/controller"},
		{znodes.JoinPath("/brokers", "ids"), "/brokers/ids"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestFixedPaths(t *testing.T) {
	cases := map[string]string{
		znodes.ClusterIDPath:                 "/cluster/id",
		znodes.ControllerPath:                "/controller",
		znodes.ControllerEpochPath:           "/controller_epoch",
		znodes.BrokerIDsPath:                 "/brokers/ids",
		znodes.TopicsPath:                    "/brokers/topics",
		znodes.BrokerSeqIDPath:               "/brokers/seqid",
		znodes.DeleteTopicsPath:              "/admin/delete_topics",
		znodes.ReassignPartitionsPath:        "/admin/reassign_partitions",
		znodes.PreferredReplicaElectionPath:  "/admin/preferred_replica_election",
		znodes.IsrChangeNotificationPath:     "/isr_change_notification",
		znodes.LogDirEventNotificationPath:   "/log_dir_event_notification",
		znodes.ConfigChangesPath:             "/config/changes",
		znodes.FeaturePath:                   "/feature",
		znodes.LatestProducerIDBlockPath:     "/latest_producer_id_block",
		znodes.MigrationPath:                 "/migration",
		znodes.IsrChangeSequencePath:         "/isr_change_notification/isr_change_",
		znodes.LogDirEventSequencePath:       "/log_dir_event_notification/log_dir_event_",
		znodes.ConfigChangeSequencePath:      "/config/changes/config_change_",
		znodes.ACLChangeSequencePath:         "/kafka-acl-changes/acl_changes_",
		znodes.ExtendedACLChangeSequencePath: "/kafka-acl-extended-changes/acl_changes_",
		znodes.TokenChangeSequencePath:       "/delegation_token/token_changes/token_change_",
	}
	for got, want := range cases {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

func TestTopLevelPersistentPathsKafkaOrder(t *testing.T) {
	want := []string{
		"/consumers", "/brokers/ids", "/brokers/topics", "/config/changes", "/admin/delete_topics",
		"/brokers/seqid", "/isr_change_notification", "/latest_producer_id_block", "/log_dir_event_notification",
		"/config/topics", "/config/clients", "/config/users", "/config/brokers", "/config/ips",
	}
	got := znodes.TopLevelPersistentPaths()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	got[0] = "mutated"
	if znodes.TopLevelPersistentPaths()[0] != "/consumers" {
		t.Fatal("TopLevelPersistentPaths must return a fresh slice")
	}
}

func TestParseBrokerID(t *testing.T) {
	ok := map[string]int32{"0": 0, "1": 1, "1001": 1001, "2147483647": 2147483647, "-5": -5, "+7": 7, "007": 7}
	for in, want := range ok {
		got, err := znodes.ParseBrokerID(in)
		if err != nil || got != want {
			t.Errorf("ParseBrokerID(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-", "+", "1a", " 1", "1 ", "2147483648", "0x10", "1_000", "١"} {
		if got, err := znodes.ParseBrokerID(in); err == nil {
			t.Errorf("ParseBrokerID(%q) = %d, want error", in, got)
		}
	}
}

func TestParsePartitionID(t *testing.T) {
	if p, err := znodes.ParsePartitionID("49"); err != nil || p != 49 {
		t.Fatalf("ParsePartitionID(49) = %d, %v", p, err)
	}
	if _, err := znodes.ParsePartitionID("state"); err == nil {
		t.Fatal("want error for a non-numeric partition child")
	}
}

func TestParseSequentialChild(t *testing.T) {
	cases := []struct {
		prefix, name string
		want         int64
		ok           bool
	}{
		{znodes.IsrChangePrefix, "isr_change_0000000012", 12, true},
		{znodes.ConfigChangePrefix, "config_change_0000000000", 0, true},
		{znodes.ConfigChangePrefix, "config_change_9999999999", 9999999999, true},
		{znodes.ConfigChangePrefix, "config_change_-2147483648", -2147483648, true},
		{znodes.LogDirEventPrefix, "log_dir_event_0000000003", 3, true},
		{znodes.ACLChangePrefix, "acl_changes_0000000001", 1, true},
		{znodes.TokenChangePrefix, "token_change_0000000001", 1, true},
		{znodes.ConfigChangePrefix, "config_change_", 0, false},
		{znodes.ConfigChangePrefix, "config_change_12x", 0, false},
		{znodes.ConfigChangePrefix, "isr_change_0000000012", 0, false},
		{znodes.ConfigChangePrefix, "stray", 0, false},
		{znodes.ConfigChangePrefix, "config_change_99999999999999999999", 0, false},
	}
	for _, c := range cases {
		got, err := znodes.ParseSequentialChild(c.prefix, c.name)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseSequentialChild(%q, %q) = %d, %v; want %d ok=%v", c.prefix, c.name, got, err, c.want, c.ok)
		}
	}
}

func TestSequentialChildName(t *testing.T) {
	if got := znodes.SequentialChildName(znodes.ConfigChangePrefix, 12); got != "config_change_0000000012" {
		t.Fatalf("got %q", got)
	}
	if got := znodes.SequentialChildName(znodes.IsrChangePrefix, -1); got != "isr_change_-000000001" {
		t.Fatalf("negative counter (after ZooKeeper's int overflow) got %q", got)
	}
	seq, err := znodes.ParseSequentialChild(znodes.IsrChangePrefix, znodes.SequentialChildName(znodes.IsrChangePrefix, 2147483647))
	if err != nil || seq != 2147483647 {
		t.Fatalf("round trip: %d, %v", seq, err)
	}
}

func TestParseTopicAndStatePaths(t *testing.T) {
	if topic, ok := znodes.ParseTopicPath("/brokers/topics/orders"); !ok || topic != "orders" {
		t.Errorf("ParseTopicPath = %q, %v", topic, ok)
	}
	for _, p := range []string{"/brokers/topics", "/brokers/topics/", "/brokers/topics/a/partitions", "/brokers/ids/1"} {
		if topic, ok := znodes.ParseTopicPath(p); ok {
			t.Errorf("ParseTopicPath(%q) = %q, want not ok", p, topic)
		}
	}
	tp, ok := znodes.ParsePartitionStatePath(znodes.PartitionStatePath("a.b", 12))
	if !ok || tp != (znodes.TopicPartition{Topic: "a.b", Partition: 12}) {
		t.Errorf("ParsePartitionStatePath = %+v, %v", tp, ok)
	}
	for _, p := range []string{
		"/brokers/topics/a/partitions/x/state", "/brokers/topics/a/partitions/1", "/brokers/topics//partitions/1/state",
		"/brokers/topics/a/partition/1/state", "/brokers/topics/a/partitions/1/state/x", "/config/topics/a",
	} {
		if tp, ok := znodes.ParsePartitionStatePath(p); ok {
			t.Errorf("ParsePartitionStatePath(%q) = %+v, want not ok", p, tp)
		}
	}
}

func TestParseBrokerAndDeletePaths(t *testing.T) {
	if id, ok := znodes.ParseBrokerIDPath("/brokers/ids/3"); !ok || id != 3 {
		t.Errorf("ParseBrokerIDPath = %d, %v", id, ok)
	}
	for _, p := range []string{"/brokers/ids/x", "/brokers/ids/", "/brokers/ids/3/x", "/brokers/topics/3"} {
		if _, ok := znodes.ParseBrokerIDPath(p); ok {
			t.Errorf("ParseBrokerIDPath(%q) should fail", p)
		}
	}
	if topic, ok := znodes.ParseDeleteTopicPath("/admin/delete_topics/orders"); !ok || topic != "orders" {
		t.Errorf("ParseDeleteTopicPath = %q, %v", topic, ok)
	}
	for _, p := range []string{"/admin/delete_topics/", "/admin/delete_topics/a/b", "/admin/delete_topics"} {
		if _, ok := znodes.ParseDeleteTopicPath(p); ok {
			t.Errorf("ParseDeleteTopicPath(%q) should fail", p)
		}
	}
}

func TestParseConfigEntityPath(t *testing.T) {
	ok := []struct{ path, typ, name string }{
		{"/config/topics/orders", "topics", "orders"},
		{"/config/brokers/<default>", "brokers", "<default>"},
		{"/config/users/alice/clients/app-1", "users", "alice/clients/app-1"},
		{"/config/users/<default>/clients/<default>", "users", "<default>/clients/<default>"},
		{"/config/ips/10.0.0.5", "ips", "10.0.0.5"},
		{"/config/clients/my%20app", "clients", "my%20app"},
	}
	for _, c := range ok {
		typ, name, found := znodes.ParseConfigEntityPath(c.path)
		if !found || typ != c.typ || name != c.name {
			t.Errorf("ParseConfigEntityPath(%q) = %q, %q, %v", c.path, typ, name, found)
		}
	}
	for _, p := range []string{
		"/config/changes/config_change_0000000001", "/config/topics", "/config/topics/", "/config/groups/g",
		"/config/topics/a/b", "/config/users/alice/clients", "/config/users/alice/clients/", "/config/users/alice/x/y",
		"/config/clients/a/clients/b", "/brokers/topics/a",
	} {
		if typ, name, found := znodes.ParseConfigEntityPath(p); found {
			t.Errorf("ParseConfigEntityPath(%q) = %q, %q; want not found", p, typ, name)
		}
	}
}

func TestConfigEntityTypesOrder(t *testing.T) {
	want := "topics,clients,users,brokers,ips"
	if got := strings.Join(znodes.ConfigEntityTypes(), ","); got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func TestTopicPartitionString(t *testing.T) {
	if got := (znodes.TopicPartition{Topic: "orders", Partition: 3}).String(); got != "orders-3" {
		t.Fatalf("got %q", got)
	}
}

func TestACLPathsForEveryResourceType(t *testing.T) {
	for _, typ := range []string{"Topic", "Group", "Cluster", "TransactionalId", "DelegationToken", "User"} {
		lit := znodes.ACLResourcePath(znodes.PatternLiteral, typ, "n")
		if lit != "/kafka-acl/"+typ+"/n" {
			t.Errorf("literal %s: %s", typ, lit)
		}
		pre := znodes.ACLResourcePath(znodes.PatternPrefixed, typ, "n")
		if pre != "/kafka-acl-extended/prefixed/"+typ+"/n" {
			t.Errorf("prefixed %s: %s", typ, pre)
		}
		if !strings.HasPrefix(pre, znodes.ExtendedACLPath+"/") || !strings.HasPrefix(lit, znodes.ACLPath+"/") {
			t.Errorf("%s: roots", typ)
		}
	}
}

// TestPathBuildersAgreeWithParsers: every built path parses back.
func TestPathBuildersAgreeWithParsers(t *testing.T) {
	for _, topic := range []string{"a", "orders.v1", "__consumer_offsets", "x-y_z"} {
		for _, p := range []int32{0, 1, 49, 2147483647} {
			tp, ok := znodes.ParsePartitionStatePath(znodes.PartitionStatePath(topic, p))
			if !ok || tp.Topic != topic || tp.Partition != p {
				t.Errorf("%s/%d: %+v %v", topic, p, tp, ok)
			}
		}
		if got, ok := znodes.ParseTopicPath(znodes.TopicPath(topic)); !ok || got != topic {
			t.Errorf("topic %s: %q %v", topic, got, ok)
		}
		if got, ok := znodes.ParseDeleteTopicPath(znodes.DeleteTopicPath(topic)); !ok || got != topic {
			t.Errorf("delete %s: %q %v", topic, got, ok)
		}
		typ, name, ok := znodes.ParseConfigEntityPath(znodes.ConfigEntityPath(znodes.EntityTopics, topic))
		if !ok || typ != znodes.EntityTopics || name != topic {
			t.Errorf("config %s: %q %q %v", topic, typ, name, ok)
		}
	}
	for _, id := range []int32{0, 1, 1001, 2147483647, -1} {
		if got, ok := znodes.ParseBrokerIDPath(znodes.BrokerIDPath(id)); !ok || got != id {
			t.Errorf("broker %d: %d %v", id, got, ok)
		}
	}
}
