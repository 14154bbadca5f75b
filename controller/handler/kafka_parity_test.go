package handler

import (
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/znodes"
)

// The tests in this file pin answers an audit against Kafka 3.9's
// KafkaApis, AuthHelper and KRaftMetadataCache found we gave differently.

// TestParityMetadataMissingTopicsCarryOperations: every topic Kafka's
// getTopicMetadata answers, missing and invalid names included, gets its
// authorized operations when asked; only the unauthorized entries do not.
func TestParityMetadataMissingTopicsCarryOperations(t *testing.T) {
	f := newFixture(t, baseView(), func(o *Options) { o.Config.AutoCreateTopicsEnable = false })
	r := mdReq(9, "missing", "bad/name")
	r.IncludeTopicAuthorizedOperations = true
	got := f.call(r).(*kmsg.MetadataResponse)
	for name, code := range map[string]int16{"missing": 3, "bad/name": 17} {
		tp := hmetaTopic(t, got, name)
		if tp.ErrorCode != code || tp.AuthorizedOperations == authorizedOpsNotRequested || tp.AuthorizedOperations == 0 {
			t.Errorf("%s: code %d ops %d, want code %d with its operations", name, tp.ErrorCode, tp.AuthorizedOperations, code)
		}
	}
}

// TestParityMetadataByIDDenied: asked by id (v12), a topic the principal
// may not DESCRIBE is answered with its id and a null name: Kafka does not
// treat ids as sensitive, and the name must not leak.
func TestParityMetadataByIDDenied(t *testing.T) {
	v := withTopics(baseView(), onlineTopic("secret", 7, []int32{1}))
	f := newFixture(t, v, func(o *Options) { o.Authorizer = denyAuthz{deny(OpDescribe, "secret"): true} })
	r := mdReq(12)
	rt := kmsg.NewMetadataRequestTopic()
	rt.TopicID = tid(7)
	r.Topics = append(r.Topics, rt)
	got := f.call(r).(*kmsg.MetadataResponse)
	if len(got.Topics) != 1 || got.Topics[0].ErrorCode != 29 || got.Topics[0].Topic != nil || got.Topics[0].TopicID != tid(7) {
		t.Fatalf("by id, describe denied: %s, want 29 with the id and a null name", fmtMetadata(got))
	}
}

// TestParityMetadataCreateDenied: with auto-creation on, a principal that
// may not CREATE gets TOPIC_AUTHORIZATION_FAILED before the name is
// looked at (Kafka checks the permission first), and an internal topic
// keeps IsInternal.
func TestParityMetadataCreateDenied(t *testing.T) {
	authz := denyAuthz{deny(OpCreate, ClusterResourceName): true, deny(OpCreate, "bad/name"): true,
		deny(OpCreate, znodes.GroupMetadataTopic): true}
	f := newFixture(t, baseView(), func(o *Options) { o.Authorizer = authz })
	got := f.call(mdReq(3, "bad/name", znodes.GroupMetadataTopic)).(*kmsg.MetadataResponse)
	if tp := hmetaTopic(t, got, "bad/name"); tp.ErrorCode != 29 {
		t.Errorf("invalid name, create denied: code %d, want 29", tp.ErrorCode)
	}
	if tp := hmetaTopic(t, got, znodes.GroupMetadataTopic); tp.ErrorCode != 29 || !tp.IsInternal {
		t.Errorf("%s, create denied: code %d internal %v, want 29 and internal", znodes.GroupMetadataTopic, tp.ErrorCode, tp.IsInternal)
	}
	if len(f.admin.creates) != 0 {
		t.Errorf("created %+v", f.admin.creates)
	}
}

// TestParityTransactionStateConfigs: Kafka's TransactionStateManager
// creates its topic uncompressed.
func TestParityTransactionStateConfigs(t *testing.T) {
	cfg := autoCreateRequest(znodes.TransactionStateTopic, config.Default().InternalTopics).Config
	if cfg["compression.type"] != "uncompressed" || cfg["cleanup.policy"] != "compact" {
		t.Fatalf("%s configs %v", znodes.TransactionStateTopic, cfg)
	}
}

// TestParityDescribeCluster: an error answer carries the schema's
// EndpointType (1), not the one asked for; a controller that is not among
// the brokers listed is answered -1 (AuthHelper).
func TestParityDescribeCluster(t *testing.T) {
	f := newFixture(t, baseView())
	if got := f.call(hmetaDCReq(1, 2, false)).(*kmsg.DescribeClusterResponse); got.ErrorCode != 114 || got.EndpointType != 1 {
		t.Errorf("controller endpoint asked: code %d type %d, want 114 and type 1", got.ErrorCode, got.EndpointType)
	}
	v := baseView()
	v.ControllerID = 7
	f = newFixture(t, v)
	if got := f.call(hmetaDCReq(1, 1, false)).(*kmsg.DescribeClusterResponse); got.ControllerID != -1 {
		t.Errorf("controller 7, not a listed broker: got %d, want -1", got.ControllerID)
	}
}

// TestParityDescribeTopicPartitions: KRaft's answers for a missing
// internal topic (IsInternal, operations), a leader without an endpoint
// on this listener (leader -1, counted offline), and a denied topic after
// the page's end (still answered: Kafka filters every candidate first).
func TestParityDescribeTopicPartitions(t *testing.T) {
	v := withTopics(baseView(), onlineTopic("a", 1, []int32{1}, []int32{1}), onlineTopic("t", 2, []int32{2, 1}),
		onlineTopic("z", 3, []int32{1}))
	hmetaNoListener(v, 2)
	f := newFixture(t, v, func(o *Options) { o.Authorizer = denyAuthz{deny(OpDescribe, "z"): true} })

	got := f.call(dtpReq(10, nil, znodes.GroupMetadataTopic)).(*kmsg.DescribeTopicPartitionsResponse)
	if len(got.Topics) != 1 || got.Topics[0].ErrorCode != 3 || !got.Topics[0].IsInternal ||
		got.Topics[0].AuthorizedOperations == authorizedOpsNotRequested {
		t.Errorf("missing internal topic: %+v", got.Topics)
	}

	got = f.call(dtpReq(10, nil, "t")).(*kmsg.DescribeTopicPartitionsResponse)
	if p := got.Topics[0].Partitions[0]; p.LeaderID != -1 || !slices.Equal(p.OfflineReplicas, []int32{2}) {
		t.Errorf("leader without a listener: leader %d offline %v, want -1 and [2]", p.LeaderID, p.OfflineReplicas)
	}

	got = f.call(dtpReq(1, nil, "a", "z")).(*kmsg.DescribeTopicPartitionsResponse)
	if len(got.Topics) != 2 || *got.Topics[0].Topic != "a" || len(got.Topics[0].Partitions) != 1 ||
		*got.Topics[1].Topic != "z" || got.Topics[1].ErrorCode != 29 ||
		got.NextCursor == nil || got.NextCursor.Topic != "a" || got.NextCursor.Partition != 1 {
		t.Errorf("page of 1 over a (2 partitions) and denied z: %+v next %+v", got.Topics, got.NextCursor)
	}
}

// TestParityDeleteTopicsNeitherNameNorID: a v6 entry with a null name and
// a zero id is TOPIC_AUTHORIZATION_FAILED in Kafka (its unknown-id check
// needs an id; a null name is never authorized), not UNKNOWN_TOPIC_ID.
func TestParityDeleteTopicsNeitherNameNorID(t *testing.T) {
	f := newFixture(t, deleteView())
	got := f.call(dtByID(dtReq(6, 0), nil, 0)).(*kmsg.DeleteTopicsResponse)
	if len(got.Topics) != 1 || got.Topics[0].ErrorCode != 29 {
		t.Fatalf("null name, zero id: %+v, want 29", got.Topics)
	}
}

// TestParityConfigs: the certificate configs are passwords in Kafka
// (values withheld); a broker resource named "03000" or "+3000" is broker
// 3000's entity, as Kafka parses it; and a topic config value Kafka
// refuses is reported with the resource, as its ConfigAdminManager does.
func TestParityConfigs(t *testing.T) {
	for _, k := range []string{"ssl.truststore.certificates", "listener.name.x.ssl.keystore.certificate.chain"} {
		if !isSensitive(k) {
			t.Errorf("%s not sensitive", k)
		}
	}
	f := newFixture(t, baseView(), func(o *Options) { o.Config.NodeID = 3000 })
	for _, name := range []string{"3000", "03000", "+3000"} {
		if entity, e := f.h.brokerEntity(name); e.code != 0 || entity != "3000" {
			t.Errorf("broker resource %q: entity %q code %d, want 3000", name, entity, e.code)
		}
	}
	bad := alterError(kmsg.ConfigResourceTypeTopic, "foo",
		newAPIError(40, "Invalid value abc for configuration retention.ms: Not a number of type LONG"))
	want := "Invalid config value for resource ConfigResource(type=TOPIC, name='foo'): " +
		"Invalid value abc for configuration retention.ms: Not a number of type LONG"
	if bad.code != 40 || bad.msg == nil || *bad.msg != want {
		t.Errorf("invalid value: %d %v, want 40 %q", bad.code, ptr(bad.msg), want)
	}
	unknown := alterError(kmsg.ConfigResourceTypeTopic, "foo", newAPIError(40, "Unknown topic config name: nope"))
	if unknown.msg == nil || *unknown.msg != "Unknown topic config name: nope" {
		t.Errorf("unknown name: %v, want Kafka's bare message", ptr(unknown.msg))
	}
}
