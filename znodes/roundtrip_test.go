package znodes_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/znodes"
)

// roundTrip encodes v, decodes the bytes with decode, and requires the
// result to equal v exactly. It returns the encoded bytes.
func roundTrip[T encoder](t *testing.T, v T, decode func([]byte) (T, error)) []byte {
	t.Helper()
	enc, err := v.Encode()
	if err != nil {
		t.Fatalf("encode %#v: %v", v, err)
	}
	got, err := decode(enc)
	if err != nil {
		t.Fatalf("decode(%s): %v", enc, err)
	}
	if !reflect.DeepEqual(got, v) {
		t.Fatalf("round trip of %s:\n got %#v\nwant %#v", enc, got, v)
	}
	return enc
}

func raw(s string) json.RawMessage { return json.RawMessage(s) }

func TestRoundTripTopicAssignment(t *testing.T) {
	decode := func(b []byte) (znodes.TopicAssignment, error) { return znodes.DecodeTopicAssignment("t", b) }
	id := mustUUID(t, "AAECAwQFBgcICQoLDA0ODw")
	cases := []znodes.TopicAssignment{
		{Version: 3},
		{Version: 3, Partitions: map[int32][]int32{0: nil}},
		{Version: 3, Partitions: map[int32][]int32{0: {1}, 1: {2}, 2: {3}, 10: {1}, 2147483647: {5}}, TopicID: id},
		{Version: 3, Partitions: map[int32][]int32{0: {4, 5, 1, 2}}, AddingReplicas: map[int32][]int32{0: {4, 5}},
			RemovingReplicas: map[int32][]int32{0: {1, 2}}},
		{Version: 3, Partitions: map[int32][]int32{0: {-1, 2147483647, -2147483648}},
			Unknown: map[string]json.RawMessage{"owner": raw(`"team-a"`), "x-extra": raw(`{"nested":[1,2,{"k":null}]}`)}},
	}
	for _, c := range cases {
		roundTrip(t, c, decode)
	}
}

func TestTopicAssignmentEncodeOrderAndUnknown(t *testing.T) {
	in := `{ "zeta" : [1, 2] , "version":1,"partitions":{"10":[1],"9":[2],"0":[3]},"alpha":{"a" : "<&>"}}`
	a, err := znodes.DecodeTopicAssignment("t", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]json.RawMessage{"zeta": raw(`[1,2]`), "alpha": raw(`{"a":"<&>"}`)}
	if !reflect.DeepEqual(a.Unknown, want) {
		t.Fatalf("unknown fields = %s, want compacted %s", a.Unknown, want)
	}
	enc, err := a.Encode()
	if err != nil {
		t.Fatal(err)
	}
	const wantEnc = `{"version":3,"partitions":{"0":[3],"9":[2],"10":[1]},"adding_replicas":{},"removing_replicas":{},` +
		`"alpha":{"a":"<&>"},"zeta":[1,2]}`
	if string(enc) != wantEnc {
		t.Fatalf("encode\n got %s\nwant %s", enc, wantEnc)
	}
}

func TestTopicAssignmentDropsEmptyReassignmentLists(t *testing.T) {
	a, err := znodes.DecodeTopicAssignment("t", []byte(
		`{"partitions":{"0":[1,2]},"adding_replicas":{"0":[]},"removing_replicas":null}`))
	if err != nil {
		t.Fatal(err)
	}
	if a.AddingReplicas != nil || a.RemovingReplicas != nil {
		t.Fatalf("empty reassignment state should decode as nil, got %+v", a)
	}
	a.AddingReplicas = map[int32][]int32{1: {}, 2: nil}
	enc, _ := a.Encode()
	if !strings.Contains(string(enc), `"adding_replicas":{}`) {
		t.Fatalf("empty adding lists must not be written: %s", enc)
	}
}

func TestTopicAssignmentMissingPartitions(t *testing.T) {
	// Kafka reads a topic without "partitions" as a topic with none.
	a, err := znodes.DecodeTopicAssignment("t", []byte(`{"version":3}`))
	if err != nil || a.Partitions != nil {
		t.Fatalf("got %+v, %v; want no partitions", a, err)
	}
	a, err = znodes.DecodeTopicAssignment("t", []byte(`{"partitions":null}`))
	if err != nil || a.Partitions != nil {
		t.Fatalf("null partitions: got %+v, %v", a, err)
	}
}

func TestTopicAssignmentEncodeErrors(t *testing.T) {
	bad := []znodes.TopicAssignment{
		{Partitions: map[int32][]int32{-1: {1}}},
		{AddingReplicas: map[int32][]int32{-5: {1}}},
		{Unknown: map[string]json.RawMessage{"partitions": raw(`{}`)}},
		{Unknown: map[string]json.RawMessage{"x": raw(`{bad`)}},
		{Unknown: map[string]json.RawMessage{"x": raw("\"\xff\"")}},
	}
	for _, a := range bad {
		if enc, err := a.Encode(); err == nil {
			t.Errorf("Encode(%+v) = %s, want error", a, enc)
		}
	}
}

func TestTopicAssignmentReassignmentHelpers(t *testing.T) {
	a := znodes.TopicAssignment{
		Partitions:       map[int32][]int32{0: {4, 5, 6, 1, 2, 3}, 1: {1, 2}},
		AddingReplicas:   map[int32][]int32{0: {4, 5, 6}},
		RemovingReplicas: map[int32][]int32{0: {1, 2, 3}},
	}
	if !a.IsReassigning(0) || a.IsReassigning(1) || a.IsReassigning(7) {
		t.Fatal("IsReassigning wrong")
	}
	if got := a.TargetReplicas(0); !reflect.DeepEqual(got, []int32{4, 5, 6}) {
		t.Fatalf("TargetReplicas = %v", got)
	}
	if got := a.OriginalReplicas(0); !reflect.DeepEqual(got, []int32{1, 2, 3}) {
		t.Fatalf("OriginalReplicas = %v", got)
	}
	if got := a.TargetReplicas(1); !reflect.DeepEqual(got, []int32{1, 2}) {
		t.Fatalf("TargetReplicas of a settled partition = %v", got)
	}
	if got := a.PartitionIDs(); !reflect.DeepEqual(got, []int32{0, 1}) {
		t.Fatalf("PartitionIDs = %v", got)
	}
}

func TestRoundTripPartitionState(t *testing.T) {
	decode := func(b []byte) (znodes.PartitionState, error) { return znodes.DecodePartitionState("t", 0, b) }
	cases := []znodes.PartitionState{
		{Version: 1, Leader: znodes.NoLeader},
		{Version: 1, Leader: 2, LeaderEpoch: 2147483647, ISR: []int32{2, 1}, ControllerEpoch: 12},
		{Version: 1, Leader: 3, LeaderEpoch: 5, ISR: []int32{3}, ControllerEpoch: 9, LeaderRecoveryState: znodes.LeaderRecovering},
		{Version: 1, Leader: -1, LeaderEpoch: 6, ControllerEpoch: 9, EligibleLeaderReplicas: []int32{2, 3}, LastKnownELR: []int32{1}, ELRMinISR: 2},
		{Version: 1, Leader: 1, ISR: []int32{1}, Unknown: map[string]json.RawMessage{"future_field": raw(`{"a":1}`)}},
	}
	for _, c := range cases {
		roundTrip(t, c, decode)
	}
}

func TestPartitionStateUnknownAfterKnownFields(t *testing.T) {
	s := znodes.PartitionState{Leader: 1, LeaderEpoch: 2, ISR: []int32{1, 2}, ControllerEpoch: 3,
		EligibleLeaderReplicas: []int32{2}, Unknown: map[string]json.RawMessage{"b": raw(`2`), "a": raw(`"x"`)}}
	enc, err := s.Encode()
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"controller_epoch":3,"leader":1,"version":1,"leader_epoch":2,"isr":[1,2],` +
		`"eligible_leader_replicas":[2],"a":"x","b":2}`
	if string(enc) != want {
		t.Fatalf("encode\n got %s\nwant %s", enc, want)
	}
}

func TestPartitionStateEncodeErrors(t *testing.T) {
	bad := []znodes.PartitionState{
		{LeaderRecoveryState: 2},
		{Unknown: map[string]json.RawMessage{"isr": raw(`[]`)}},
		{Unknown: map[string]json.RawMessage{"last_known_elr": raw(`[1]`)}},
		{Unknown: map[string]json.RawMessage{"x": raw(``)}},
	}
	for _, s := range bad {
		if enc, err := s.Encode(); err == nil {
			t.Errorf("Encode(%+v) = %s, want error", s, enc)
		}
	}
}

func TestPartitionStateEmptyELRIsOmitted(t *testing.T) {
	s, err := znodes.DecodePartitionState("t", 0, []byte(
		`{"controller_epoch":1,"leader":1,"version":1,"leader_epoch":0,"isr":[1],"eligible_leader_replicas":[],"last_known_elr":null}`))
	if err != nil {
		t.Fatal(err)
	}
	if s.EligibleLeaderReplicas != nil || s.LastKnownELR != nil {
		t.Fatalf("empty ELR should decode as nil: %+v", s)
	}
	enc, _ := s.Encode()
	if string(enc) != `{"controller_epoch":1,"leader":1,"version":1,"leader_epoch":0,"isr":[1]}` {
		t.Fatalf("empty ELR must not be written: %s", enc)
	}
}

func TestRoundTripEntityConfig(t *testing.T) {
	decode := func(b []byte) (znodes.EntityConfig, error) {
		return znodes.DecodeEntityConfig("brokers", "<default>", b)
	}
	cases := []znodes.EntityConfig{
		{Version: 1},
		{Version: 1, Config: map[string]string{"max.partitions": "10000", "max.broker.partitions": "4000"}},
		{Version: 1, Config: map[string]string{"weird \"key\"\n": "value with <html> & \\ and \u2028 and é"}},
		{Version: 1, Config: map[string]string{"a": ""}, Unknown: map[string]json.RawMessage{"audit": raw(`["x"]`)}},
	}
	for _, c := range cases {
		roundTrip(t, c, decode)
	}
}

func TestEntityConfigLenientForms(t *testing.T) {
	for _, in := range []string{"", `[]`, `null`, `"x"`, `7`, `{}`, `{"version":1}`, `{"config":null}`,
		`{"version":1,"config":[]}`, `{"version":1,"config":"a=b"}`} {
		var data []byte
		if in != "" {
			data = []byte(in)
		}
		c, err := znodes.DecodeEntityConfig("topics", "t", data)
		if err != nil || c.Config != nil {
			t.Errorf("DecodeEntityConfig(%q) = %+v, %v; want no overrides", in, c, err)
		}
	}
	if c, err := znodes.DecodeEntityConfig("topics", "t", nil); err != nil || c.Config != nil {
		t.Errorf("null data: %+v, %v", c, err)
	}
}

func TestEntityConfigEncodeSorted(t *testing.T) {
	c := znodes.EntityConfig{Config: map[string]string{"segment.bytes": "104857600", "cleanup.policy": "compact",
		"compression.type": "producer"}}
	enc, err := c.Encode()
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"version":1,"config":{"cleanup.policy":"compact","compression.type":"producer","segment.bytes":"104857600"}}`
	if string(enc) != want {
		t.Fatalf("got %s\nwant %s", enc, want)
	}
	bad := znodes.EntityConfig{Unknown: map[string]json.RawMessage{"config": raw(`{}`)}}
	if _, err := bad.Encode(); err == nil {
		t.Fatal("unknown field named config must be rejected")
	}
}

func TestRoundTripBrokerRegistration(t *testing.T) {
	decode := func(b []byte) (znodes.BrokerRegistration, error) { return znodes.DecodeBrokerRegistration(1, b) }
	now := time.UnixMilli(1700000000123)
	cases := []znodes.BrokerRegistration{
		znodes.NewBrokerRegistration([]znodes.Endpoint{
			{Listener: "PLAINTEXT", Host: "b1", Port: 9092, SecurityProtocol: znodes.ProtocolPlaintext},
			{Listener: "SSL", Host: "fe80::1%eth0", Port: 9093, SecurityProtocol: znodes.ProtocolSSL},
			{Listener: "CONTROLLER", Host: "", Port: 0, SecurityProtocol: znodes.ProtocolSASLSSL},
		}, ptr("rack-1"), 9999, now),
		znodes.NewBrokerRegistration(nil, nil, -1, now),
		znodes.NewBrokerRegistration([]znodes.Endpoint{
			{Listener: "REPLICATION", Host: "10.0.0.1", Port: -1, SecurityProtocol: znodes.ProtocolSASLPlaintext},
		}, ptr(""), -1, now),
		{Version: 5, Port: -1, JMXPort: -1, Timestamp: "1",
			Features: map[string]znodes.SupportedVersionRange{"metadata.version": {Min: 0, Max: 20}, "a": {Min: 3, Max: 3}},
			Unknown:  map[string]json.RawMessage{"tags": raw(`{"zone":"a"}`)}},
	}
	for _, c := range cases {
		roundTrip(t, c, decode)
	}
}

func TestBrokerRegistrationEncodeErrors(t *testing.T) {
	ep := func(l, h string, p string) znodes.BrokerRegistration {
		return znodes.BrokerRegistration{Endpoints: []znodes.Endpoint{{Listener: l, Host: h, Port: 1, SecurityProtocol: p}}}
	}
	bad := map[string]znodes.BrokerRegistration{
		"unknown protocol":    ep("A", "h", "TLS"),
		"lower-case protocol": ep("A", "h", "ssl"),
		"empty protocol":      ep("A", "h", ""),
		"host with slash":     ep("A", "h/x", "SSL"),
		"host with bracket":   ep("A", "[h]", "SSL"),
		"lower-case listener": ep("a", "h", "SSL"),
		"listener with comma": ep("A,B", "h", "SSL"),
		"duplicate listener": {Endpoints: []znodes.Endpoint{
			{Listener: "A", Host: "h", Port: 1, SecurityProtocol: "SSL"},
			{Listener: "A", Host: "h", Port: 2, SecurityProtocol: "SSL"}}},
		"bad feature range": {Features: map[string]znodes.SupportedVersionRange{"f": {Min: 2, Max: 1}}},
		"unknown collides":  {Unknown: map[string]json.RawMessage{"rack": raw(`"r"`)}},
	}
	for name, b := range bad {
		if enc, err := b.Encode(); err == nil {
			t.Errorf("%s: Encode = %s, want error", name, enc)
		}
	}
}

func TestRoundTripSmallPayloads(t *testing.T) {
	roundTrip(t, znodes.ClusterID{ID: "L1InghpRQTWlPTIp69XPbg"}, znodes.DecodeClusterID)
	roundTrip(t, znodes.ClusterID{ID: ""}, znodes.DecodeClusterID)
	roundTrip(t, znodes.NewControllerRegistration(4, time.UnixMilli(1)), znodes.DecodeControllerRegistration)
	roundTrip(t, znodes.ControllerRegistration{Version: 2, BrokerID: 3000, Timestamp: "x", KRaftControllerEpoch: 7},
		znodes.DecodeControllerRegistration)
	roundTrip(t, znodes.ReassignPartitions{Version: 1}, znodes.DecodeReassignPartitions)
	roundTrip(t, znodes.ReassignPartitions{Version: 1, Partitions: []znodes.ReassignmentEntry{
		{Topic: "a", Partition: 1, Replicas: []int32{3, 2}}, {Topic: "a", Partition: 1}}}, znodes.DecodeReassignPartitions)
	roundTrip(t, znodes.PreferredReplicaElection{Version: 1}, znodes.DecodePreferredReplicaElection)
	roundTrip(t, znodes.PreferredReplicaElection{Version: 1, Partitions: []znodes.TopicPartition{{"b", 2}, {"b", 2}}},
		znodes.DecodePreferredReplicaElection)
	isr := func(b []byte) (znodes.IsrChangeNotification, error) { return znodes.DecodeIsrChangeNotification("", b) }
	roundTrip(t, znodes.IsrChangeNotification{Version: 1, Partitions: []znodes.TopicPartition{{"x", 9}}}, isr)
	logdir := func(b []byte) (znodes.LogDirEventNotification, error) {
		return znodes.DecodeLogDirEventNotification("", b)
	}
	roundTrip(t, znodes.LogDirEventNotification{Version: 1, BrokerID: 2, Event: znodes.LogDirFailureEvent}, logdir)
	change := func(b []byte) (znodes.ConfigChangeNotification, error) {
		return znodes.DecodeConfigChangeNotification("", b)
	}
	roundTrip(t, znodes.NewConfigChangeNotification(znodes.EntityUsers, znodes.UserClientEntityName("CN%3Da", "%3Cdefault%3E")), change)
	roundTrip(t, znodes.NewConfigChangeNotification(znodes.EntityIPs, ""), change)
	roundTrip(t, znodes.FinalizedFeatures{Version: 2, Status: znodes.FeatureEnabled,
		Features: map[string]int16{"metadata.version": 7}, Unknown: map[string]json.RawMessage{"z": raw(`0`)}},
		znodes.DecodeFinalizedFeatures)
	roundTrip(t, znodes.FinalizedFeatures{Version: 1, Status: znodes.FeatureDisabled, Features: map[string]int16{"f": 1}},
		znodes.DecodeFinalizedFeatures)
	roundTrip(t, znodes.ProducerIDBlock{Version: 1, BrokerID: 1, Start: 9223372036854774808, End: 9223372036854775807},
		znodes.DecodeProducerIDBlock)
	roundTrip(t, znodes.MigrationState{KRaftControllerID: -1, KRaftControllerEpoch: -1, KRaftMetadataOffset: -1, KRaftMetadataEpoch: -1},
		znodes.DecodeMigrationState)
	acls := func(b []byte) (znodes.ResourceACLs, error) { return znodes.DecodeResourceACLs("/kafka-acl/Group/g", b) }
	roundTrip(t, znodes.ResourceACLs{ACLs: []znodes.ACLEntry{
		{Principal: "User:CN=a,O=b", PermissionType: "Deny", Operation: "All", Host: "10.0.0.1"},
		{Principal: "Group:ops", PermissionType: "Allow", Operation: "Describe", Host: "*"}}}, acls)
}

func TestSmallPayloadEncodeErrors(t *testing.T) {
	errs := map[string]func() ([]byte, error){
		"config change entity type": znodes.ConfigChangeNotification{EntityType: "groups", EntityName: "g"}.Encode,
		"feature version":           znodes.FinalizedFeatures{Version: 3}.Encode,
		"feature status":            znodes.FinalizedFeatures{Status: 2}.Encode,
		"feature level":             znodes.FinalizedFeatures{Features: map[string]int16{"f": 0}}.Encode,
		"feature unknown collides":  znodes.FinalizedFeatures{Unknown: map[string]json.RawMessage{"status": raw(`1`)}}.Encode,
		"acl principal":             znodes.ResourceACLs{ACLs: []znodes.ACLEntry{{Principal: "alice"}}}.Encode,
	}
	for name, f := range errs {
		if enc, err := f(); err == nil {
			t.Errorf("%s: Encode = %s, want error", name, enc)
		}
	}
}

func TestFinalizedFeaturesVersionZeroWritesTwo(t *testing.T) {
	enc, err := znodes.FinalizedFeatures{Status: znodes.FeatureEnabled}.Encode()
	if err != nil || string(enc) != `{"features":{},"version":2,"status":1}` {
		t.Fatalf("got %s, %v", enc, err)
	}
	enc, err = znodes.FinalizedFeatures{Version: 1, Status: znodes.FeatureEnabled, Features: map[string]int16{"f": 3}}.Encode()
	if err != nil || string(enc) != `{"features":{"f":{"max_version_level":3,"min_version_level":3}},"version":1,"status":1}` {
		t.Fatalf("v1 features: got %s, %v", enc, err)
	}
	// Version 2 ignores a stray min_version_level, as Kafka does.
	ff, err := znodes.DecodeFinalizedFeatures([]byte(`{"features":{"f":{"min_version_level":0,"max_version_level":2}},"version":2,"status":1}`))
	if err != nil || ff.Features["f"] != 2 {
		t.Fatalf("v2 with min: %+v, %v", ff, err)
	}
}
