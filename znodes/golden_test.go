package znodes_test

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/kzadmin/kzadmin/znodes"
)

// encoder is what every payload type implements.
type encoder interface {
	Encode() ([]byte, error)
}

// A golden case decodes testdata/<file>, compares the result with want, and,
// when exact is set, requires Encode to reproduce the file byte for byte
// (payloads Kafka writes in a deterministic key order). In every case the
// encoded form must decode back to want, with Version normalised by norm.
type golden struct {
	file   string
	exact  bool
	decode func([]byte) (encoder, error)
	want   encoder
	// reencoded is what decoding Encode's output yields when it differs
	// from want (older versions are upgraded on rewrite).
	reencoded encoder
}

func ptr[T any](v T) *T { return &v }

func mustUUID(t testing.TB, s string) znodes.UUID {
	t.Helper()
	u, err := znodes.ParseUUID(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func decodeWith[T encoder](f func([]byte) (T, error)) func([]byte) (encoder, error) {
	return func(b []byte) (encoder, error) { return f(b) }
}

// goldenCases lists every golden payload, grouped by znode family.
func goldenCases(t *testing.T) []golden {
	var cases []golden
	for _, group := range []func(*testing.T) []golden{
		goldenCluster, goldenBrokers, goldenTopics, goldenAdmin, goldenConfigs, goldenMisc,
	} {
		cases = append(cases, group(t)...)
	}
	return cases
}

func goldenCluster(t *testing.T) []golden {
	return []golden{
		{file: "cluster_id.json", exact: true, decode: decodeWith(znodes.DecodeClusterID),
			want: znodes.ClusterID{ID: "L1InghpRQTWlPTIp69XPbg"}},
		{file: "controller_v2.json", exact: true, decode: decodeWith(znodes.DecodeControllerRegistration),
			want: znodes.ControllerRegistration{Version: 2, BrokerID: 1, Timestamp: "1700000000123", KRaftControllerEpoch: -1}},
		{file: "controller_v1.json", decode: decodeWith(znodes.DecodeControllerRegistration),
			want:      znodes.ControllerRegistration{Version: 1, BrokerID: 1, Timestamp: "1700000000123", KRaftControllerEpoch: -1},
			reencoded: znodes.ControllerRegistration{Version: 2, BrokerID: 1, Timestamp: "1700000000123", KRaftControllerEpoch: -1}},
		{file: "controller_kraft.json", exact: true, decode: decodeWith(znodes.DecodeControllerRegistration),
			want: znodes.ControllerRegistration{Version: 2, BrokerID: 3000, Timestamp: "1700000000999", KRaftControllerEpoch: 5}},
	}
}

func goldenBrokers(t *testing.T) []golden {
	broker := func(b []byte) (znodes.BrokerRegistration, error) { return znodes.DecodeBrokerRegistration(1, b) }
	return []golden{
		{file: "broker_v5.json", exact: true, decode: decodeWith(broker), want: znodes.BrokerRegistration{
			Version: 5, Host: "b1.example.com", Port: 9092, JMXPort: -1, Timestamp: "1700000000123",
			Endpoints: []znodes.Endpoint{
				{Listener: "PLAINTEXT", Host: "b1.example.com", Port: 9092, SecurityProtocol: "PLAINTEXT"},
				{Listener: "INTERNAL", Host: "b1.example.com", Port: 9093, SecurityProtocol: "SASL_SSL"}},
			Rack: ptr("us-east-1a")}},
		{file: "broker_v5_ssl_only.json", exact: true, decode: decodeWith(broker), want: znodes.BrokerRegistration{
			Version: 5, Port: -1, JMXPort: -1, Timestamp: "1700000000123",
			Endpoints: []znodes.Endpoint{{Listener: "SSL", Host: "b2", Port: 9093, SecurityProtocol: "SSL"}}}},
		{file: "broker_v4.json", decode: decodeWith(broker), want: znodes.BrokerRegistration{
			Version: 4, Host: "b1.example.com", Port: 9092, JMXPort: -1, Timestamp: "1700000000123",
			Endpoints: []znodes.Endpoint{{Listener: "PLAINTEXT", Host: "b1.example.com", Port: 9092, SecurityProtocol: "PLAINTEXT"}}}},
		{file: "broker_v3.json", decode: decodeWith(broker), want: znodes.BrokerRegistration{
			Version: 3, Host: "b3", Port: 9092, JMXPort: 9999, Timestamp: "1500000000000", Rack: ptr("r1"),
			Endpoints: []znodes.Endpoint{
				{Listener: "PLAINTEXT", Host: "b3", Port: 9092, SecurityProtocol: "PLAINTEXT"},
				{Listener: "SSL", Host: "b3", Port: 9093, SecurityProtocol: "SSL"}}}},
		{file: "broker_v2.json", decode: decodeWith(broker), want: znodes.BrokerRegistration{
			Version: 2, Host: "b2", Port: 9092, JMXPort: 9999, Timestamp: "1400000000000",
			Endpoints: []znodes.Endpoint{
				{Listener: "PLAINTEXT", Host: "b2", Port: 9092, SecurityProtocol: "PLAINTEXT"},
				{Listener: "SSL", Host: "::1", Port: 9093, SecurityProtocol: "SSL"}}}},
		{file: "broker_v1.json", decode: decodeWith(broker), want: znodes.BrokerRegistration{
			Version: 1, Host: "localhost", Port: 9092, JMXPort: 9999, Timestamp: "2233345666",
			Endpoints: []znodes.Endpoint{{Listener: "PLAINTEXT", Host: "localhost", Port: 9092, SecurityProtocol: "PLAINTEXT"}}}},
	}
}

func goldenTopics(t *testing.T) []golden {
	topicID := mustUUID(t, "qSVG0ukwQZqMS74sw61E-w")
	topic := func(b []byte) (znodes.TopicAssignment, error) { return znodes.DecodeTopicAssignment("foo", b) }
	state := func(b []byte) (znodes.PartitionState, error) { return znodes.DecodePartitionState("foo", 0, b) }
	return []golden{
		{file: "topic_assignment_v3.json", exact: true, decode: decodeWith(topic), want: znodes.TopicAssignment{
			Version: 3, Partitions: map[int32][]int32{0: {1, 2, 3}, 1: {2, 3, 1}, 2: {3, 1, 2}}, TopicID: topicID}},
		{file: "topic_assignment_v3_no_id.json", exact: true, decode: decodeWith(topic), want: znodes.TopicAssignment{
			Version: 3, Partitions: map[int32][]int32{0: {1, 2}}}},
		{file: "topic_assignment_reassigning.json", exact: true, decode: decodeWith(topic), want: znodes.TopicAssignment{
			Version: 3, Partitions: map[int32][]int32{0: {4, 5, 6, 1, 2, 3}},
			AddingReplicas: map[int32][]int32{0: {4, 5, 6}}, RemovingReplicas: map[int32][]int32{0: {1, 2, 3}},
			TopicID: topicID}},
		{file: "topic_assignment_v2.json", decode: decodeWith(topic), want: znodes.TopicAssignment{
			Version: 2, Partitions: map[int32][]int32{0: {1, 2}, 1: {2, 1}}}},
		{file: "topic_assignment_v1.json", decode: decodeWith(topic), want: znodes.TopicAssignment{
			Version: 1, Partitions: map[int32][]int32{0: {1, 2}}}},
		{file: "partition_state.json", exact: true, decode: decodeWith(state), want: znodes.PartitionState{
			Version: 1, Leader: 1, LeaderEpoch: 0, ISR: []int32{1, 2, 3}, ControllerEpoch: 7}},
		{file: "partition_state_recovering.json", exact: true, decode: decodeWith(state), want: znodes.PartitionState{
			Version: 1, Leader: 3, LeaderEpoch: 5, ISR: []int32{3}, ControllerEpoch: 9,
			LeaderRecoveryState: znodes.LeaderRecovering}},
		{file: "partition_state_elr.json", exact: true, decode: decodeWith(state), want: znodes.PartitionState{
			Version: 1, Leader: -1, LeaderEpoch: 6, ControllerEpoch: 9,
			EligibleLeaderReplicas: []int32{2, 3}, LastKnownELR: []int32{1}}},
	}
}

func goldenAdmin(t *testing.T) []golden {
	return []golden{
		{file: "reassign_partitions.json", exact: true, decode: decodeWith(znodes.DecodeReassignPartitions),
			want: znodes.ReassignPartitions{Version: 1, Partitions: []znodes.ReassignmentEntry{
				{Topic: "foo", Partition: 0, Replicas: []int32{1, 2}}}}},
		{file: "preferred_replica_election.json", exact: true, decode: decodeWith(znodes.DecodePreferredReplicaElection),
			want: znodes.PreferredReplicaElection{Version: 1, Partitions: []znodes.TopicPartition{{"foo", 0}, {"foo", 1}}}},
		{file: "isr_change_notification.json", exact: true,
			decode: decodeWith(func(b []byte) (znodes.IsrChangeNotification, error) {
				return znodes.DecodeIsrChangeNotification("isr_change_0000000000", b)
			}),
			want: znodes.IsrChangeNotification{Version: 1, Partitions: []znodes.TopicPartition{{"topic-a", 0}, {"topic-b", 0}}}},
		{file: "log_dir_event_notification.json", exact: true,
			decode: decodeWith(func(b []byte) (znodes.LogDirEventNotification, error) {
				return znodes.DecodeLogDirEventNotification("", b)
			}),
			want: znodes.LogDirEventNotification{Version: 1, BrokerID: 3, Event: 1}},
	}
}

func goldenConfigs(t *testing.T) []golden {
	config := func(b []byte) (znodes.EntityConfig, error) { return znodes.DecodeEntityConfig("topics", "t", b) }
	change := func(b []byte) (znodes.ConfigChangeNotification, error) {
		return znodes.DecodeConfigChangeNotification("config_change_0000000001", b)
	}
	cfg := func(m map[string]string) znodes.EntityConfig { return znodes.EntityConfig{Version: 1, Config: m} }
	return []golden{
		{file: "config_topic_orders.json", decode: decodeWith(config),
			want: cfg(map[string]string{"retention.ms": "86400000", "cleanup.policy": "compact"})},
		{file: "config_topic_empty.json", exact: true, decode: decodeWith(config), want: cfg(nil)},
		{file: "config_broker_default.json", exact: true, decode: decodeWith(config),
			want: cfg(map[string]string{"log.cleaner.threads": "2"})},
		{file: "config_broker_password.json", exact: true, decode: decodeWith(config),
			want: cfg(map[string]string{"listener.name.internal.ssl.key.password": "encryptedPassword:…,keyLength:128,…"})},
		{file: "config_user_alice.json", decode: decodeWith(config), want: cfg(map[string]string{
			"producer_byte_rate": "1048576",
			"SCRAM-SHA-256":      "salt=dGVzdHNhbHQ=,stored_key=…,server_key=…,iterations=4096"})},
		{file: "config_user_client_default.json", exact: true, decode: decodeWith(config),
			want: cfg(map[string]string{"consumer_byte_rate": "2097152"})},
		{file: "config_client_my_app.json", exact: true, decode: decodeWith(config),
			want: cfg(map[string]string{"request_percentage": "50"})},
		{file: "config_ip.json", exact: true, decode: decodeWith(config),
			want: cfg(map[string]string{"connection_creation_rate": "20"})},
		{file: "config_consumer_offsets.json", decode: decodeWith(config), want: cfg(map[string]string{
			"compression.type": "producer", "cleanup.policy": "compact", "segment.bytes": "104857600"})},
		{file: "config_change_topic.json", exact: true, decode: decodeWith(change),
			want: znodes.ConfigChangeNotification{Version: 2, EntityType: "topics", EntityName: "orders"}},
		{file: "config_change_broker_default.json", exact: true, decode: decodeWith(change),
			want: znodes.ConfigChangeNotification{Version: 2, EntityType: "brokers", EntityName: "<default>"}},
		{file: "config_change_user_client.json", exact: true, decode: decodeWith(change),
			want: znodes.ConfigChangeNotification{Version: 2, EntityType: "users", EntityName: "alice/clients/app-1"}},
		{file: "config_change_v1.json", decode: decodeWith(change),
			want:      znodes.ConfigChangeNotification{Version: 1, EntityType: "topics", EntityName: "orders"},
			reencoded: znodes.ConfigChangeNotification{Version: 2, EntityType: "topics", EntityName: "orders"}},
	}
}

func goldenMisc(t *testing.T) []golden {
	return []golden{
		{file: "feature_v2.json", exact: true, decode: decodeWith(znodes.DecodeFinalizedFeatures),
			want: znodes.FinalizedFeatures{Version: 2, Status: znodes.FeatureEnabled}},
		{file: "feature_v1_disabled.json", exact: true, decode: decodeWith(znodes.DecodeFinalizedFeatures),
			want: znodes.FinalizedFeatures{Version: 1, Status: znodes.FeatureDisabled}},
		{file: "producer_id_block.json", exact: true, decode: decodeWith(znodes.DecodeProducerIDBlock),
			want: znodes.ProducerIDBlock{Version: 1, BrokerID: 1, Start: 2000, End: 2999}},
		{file: "migration.json", exact: true, decode: decodeWith(znodes.DecodeMigrationState),
			want: znodes.MigrationState{KRaftControllerID: 3000, KRaftControllerEpoch: 5, KRaftMetadataOffset: 12345, KRaftMetadataEpoch: 5}},
		{file: "acls_topic.json", exact: true,
			decode: decodeWith(func(b []byte) (znodes.ResourceACLs, error) {
				return znodes.DecodeResourceACLs(znodes.ACLResourcePath(znodes.PatternLiteral, "Topic", "foo"), b)
			}),
			want: znodes.ResourceACLs{ACLs: []znodes.ACLEntry{
				{Principal: "User:alice", PermissionType: "Allow", Operation: "Read", Host: "*"}}}},
	}
}

func TestGolden(t *testing.T) {
	for _, c := range goldenCases(t) {
		t.Run(c.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", c.file))
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.decode(data)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("decode:\n got %#v\nwant %#v", got, c.want)
			}
			enc, err := got.Encode()
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			if c.exact && !bytes.Equal(enc, data) {
				t.Fatalf("encode is not Kafka's bytes:\n got %s\nwant %s", enc, data)
			}
			back, err := c.decode(enc)
			if err != nil {
				t.Fatalf("decode(encode): %v (encoded %s)", err, enc)
			}
			want := c.want
			if c.reencoded != nil {
				want = c.reencoded
			}
			if !reflect.DeepEqual(back, normalizeVersion(want)) {
				t.Fatalf("decode(encode):\n got %#v\nwant %#v", back, normalizeVersion(want))
			}
		})
	}
}

// normalizeVersion sets Version to what Encode writes, for types whose
// encoder always writes its newest version.
func normalizeVersion(v encoder) encoder {
	switch x := v.(type) {
	case znodes.ControllerRegistration:
		x.Version = 2
		return x
	case znodes.BrokerRegistration:
		x.Version = znodes.BrokerRegistrationVersion
		return x
	case znodes.TopicAssignment:
		x.Version = znodes.TopicAssignmentVersion
		return x
	case znodes.PartitionState:
		x.Version = 1
		return x
	case znodes.EntityConfig:
		x.Version = 1
		return x
	case znodes.ConfigChangeNotification:
		x.Version = znodes.ConfigChangeNotificationVersion
		return x
	case znodes.ReassignPartitions:
		x.Version = 1
		return x
	case znodes.PreferredReplicaElection:
		x.Version = 1
		return x
	case znodes.IsrChangeNotification:
		x.Version = 1
		return x
	case znodes.LogDirEventNotification:
		x.Version = 1
		return x
	case znodes.ProducerIDBlock:
		x.Version = 1
		return x
	}
	return v
}

// TestGoldenControllerEpoch covers the one non-JSON payload Kafka writes.
func TestGoldenControllerEpoch(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "controller_epoch.txt"))
	if err != nil {
		t.Fatal(err)
	}
	epoch, err := znodes.DecodeControllerEpoch(data)
	if err != nil || epoch != 7 {
		t.Fatalf("DecodeControllerEpoch = %d, %v; want 7", epoch, err)
	}
	if got := znodes.EncodeControllerEpoch(epoch); !bytes.Equal(got, data) {
		t.Fatalf("EncodeControllerEpoch = %q, want %q", got, data)
	}
}

// TestGoldenACLChanges covers the two ACL change notification formats.
func TestGoldenACLChanges(t *testing.T) {
	literal, err := os.ReadFile(filepath.Join("testdata", "acl_change_literal.txt"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := znodes.DecodeLiteralACLChange(literal)
	want := znodes.ACLChange{ResourceType: "TOPIC", Name: "foo", PatternType: znodes.PatternLiteral}
	if err != nil || c != want {
		t.Fatalf("DecodeLiteralACLChange = %+v, %v; want %+v", c, err, want)
	}
	if got := znodes.EncodeLiteralACLChange(c); !bytes.Equal(got, literal) {
		t.Fatalf("EncodeLiteralACLChange = %q, want %q", got, literal)
	}
	extended, err := os.ReadFile(filepath.Join("testdata", "acl_change_extended.json"))
	if err != nil {
		t.Fatal(err)
	}
	c, err = znodes.DecodeExtendedACLChange(extended)
	want = znodes.ACLChange{ResourceType: "TOPIC", Name: "foo-", PatternType: znodes.PatternPrefixed}
	if err != nil || c != want {
		t.Fatalf("DecodeExtendedACLChange = %+v, %v; want %+v", c, err, want)
	}
	if got := znodes.EncodeExtendedACLChange(c); !bytes.Equal(got, extended) {
		t.Fatalf("EncodeExtendedACLChange = %s, want %s", got, extended)
	}
}

// TestGoldenFilesAllUsed guards against a testdata payload nobody decodes.
func TestGoldenFilesAllUsed(t *testing.T) {
	used := map[string]bool{"controller_epoch.txt": true, "acl_change_literal.txt": true, "acl_change_extended.json": true}
	for _, c := range goldenCases(t) {
		used[c.file] = true
	}
	entries, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() && !used[e.Name()] {
			t.Errorf("testdata/%s is not covered by a golden case", e.Name())
		}
	}
}
