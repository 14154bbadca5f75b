package handler

import (
	"fmt"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// hmetaNoListener gives broker id an endpoint on another listener only:
// registered (alive) but without an endpoint for PLAINTEXT.
func hmetaNoListener(v *View, id int32) {
	for i := range v.Brokers {
		if v.Brokers[i].ID == id {
			v.Brokers[i].Endpoints = []znodes.Endpoint{{Listener: "INTERNAL", Host: "h", Port: 1}}
		}
	}
}

// hmetaBrokerIDs lists the node ids of a Metadata response's brokers.
func hmetaBrokerIDs(r *kmsg.MetadataResponse) []int32 {
	var ids []int32
	for _, b := range r.Brokers {
		ids = append(ids, b.NodeID)
	}
	slices.Sort(ids)
	return ids
}

// hmetaTopic finds a topic by name in a Metadata response.
func hmetaTopic(t *testing.T, r *kmsg.MetadataResponse, name string) kmsg.MetadataResponseTopic {
	t.Helper()
	for _, tp := range r.Topics {
		if tp.Topic != nil && *tp.Topic == name {
			return tp
		}
	}
	t.Fatalf("no topic %q in %s", name, fmtMetadata(r))
	return kmsg.MetadataResponseTopic{}
}

func hmetaAllow(r *kmsg.MetadataRequest) *kmsg.MetadataRequest {
	r.AllowAutoTopicCreation = true
	return r
}

// TestMetadataFieldsPerVersion checks, at every version 0-12, which fields
// the client can see (apis.md §3.2) and the v0 quirk (§3.4): broker 3 is
// dead and a replica of t-1, whose leader (2) is alive.
func TestMetadataFieldsPerVersion(t *testing.T) {
	v := baseView()
	v.Brokers = v.Brokers[:2]
	tt := onlineTopic("t", 1, []int32{1, 2}, []int32{2, 3})
	tt.Partitions[1].Offline, tt.Partitions[1].LeaderEpoch = []int32{3}, 4
	v = withTopics(v, tt, onlineTopic("__consumer_offsets", 2, []int32{1}))
	f := newFixture(t, v, func(o *Options) { o.Config.AutoCreateTopicsEnable = false })
	for version := int16(0); version <= 12; version++ {
		t.Run(fmt.Sprintf("v%d", version), func(t *testing.T) {
			got := f.call(mdReq(version, "t", "__consumer_offsets")).(*kmsg.MetadataResponse)
			if ids := hmetaBrokerIDs(got); !slices.Equal(ids, []int32{1, 2, selfID}) {
				t.Errorf("brokers %v, want 1, 2 and self (3 is dead)", ids)
			}
			wantCtl, wantRack := int32(-1), false
			if version >= 1 {
				wantCtl, wantRack = selfID, true
			}
			if got.ControllerID != wantCtl {
				t.Errorf("controller %d, want %d", got.ControllerID, wantCtl)
			}
			for _, b := range got.Brokers {
				if b.NodeID == 1 && (b.Rack != nil) != wantRack {
					t.Errorf("broker 1 rack %v, want present=%v", ptr(b.Rack), wantRack)
				}
			}
			if (got.ClusterID != nil) != (version >= 2) || (got.ClusterID != nil && *got.ClusterID != "cluster-one") {
				t.Errorf("cluster id %v", ptr(got.ClusterID))
			}
			if co := hmetaTopic(t, got, "__consumer_offsets"); co.IsInternal != (version >= 1) || co.ErrorCode != 0 {
				t.Errorf("__consumer_offsets: error %d internal %v", co.ErrorCode, co.IsInternal)
			}
			tp := hmetaTopic(t, got, "t")
			if tp.ErrorCode != 0 || tp.IsInternal || len(tp.Partitions) != 2 {
				t.Fatalf("t: %s", fmtMetadata(got))
			}
			if want := map[bool][16]byte{true: tid(1)}[version >= 10]; tp.TopicID != want {
				t.Errorf("topic id %x, want %x", tp.TopicID, want)
			}
			p0, p1 := tp.Partitions[0], tp.Partitions[1]
			if p0.ErrorCode != 0 || p0.Leader != 1 || !slices.Equal(p0.Replicas, []int32{1, 2}) {
				t.Errorf("partition 0: %+v", p0)
			}
			wantEpoch := int32(-1) // not on the wire before v7: the decoder's default
			if version >= 7 {
				wantEpoch = 4
			}
			if p1.Leader != 2 || p1.LeaderEpoch != wantEpoch {
				t.Errorf("partition 1 leader %d epoch %d, want 2 and %d", p1.Leader, p1.LeaderEpoch, wantEpoch)
			}
			wantOffline := []int32{}
			if version >= 5 {
				wantOffline = []int32{3}
			}
			if !slices.Equal(p1.OfflineReplicas, wantOffline) {
				t.Errorf("partition 1 offline %v, want %v", p1.OfflineReplicas, wantOffline)
			}
			if version == 0 {
				if p1.ErrorCode != 9 || !slices.Equal(p1.Replicas, []int32{2}) || !slices.Equal(p1.ISR, []int32{2}) {
					t.Errorf("v0 quirk: %+v, want REPLICA_NOT_AVAILABLE and lists without 3", p1)
				}
			} else if p1.ErrorCode != 0 || !slices.Equal(p1.Replicas, []int32{2, 3}) || !slices.Equal(p1.ISR, []int32{2, 3}) {
				t.Errorf("v%d: %+v, want error 0 and unfiltered lists", version, p1)
			}
		})
	}
}

// TestMetadataV0QuirkListenerlessReplica: in the v0 quirk "alive" means
// registered with an endpoint on the request's listener (apis.md §3.4),
// so a registered broker without one is filtered out too, and left out
// of Brokers at every version.
func TestMetadataV0QuirkListenerlessReplica(t *testing.T) {
	v := baseView()
	hmetaNoListener(v, 3)
	v = withTopics(v, onlineTopic("r", 1, []int32{1, 3}), onlineTopic("l", 2, []int32{3, 1}))
	f := newFixture(t, v)
	for _, version := range []int16{0, 1, 5, 6, 12} {
		got := f.call(mdReq(version, "r", "l")).(*kmsg.MetadataResponse)
		if ids := hmetaBrokerIDs(got); !slices.Equal(ids, []int32{1, 2, selfID}) {
			t.Errorf("v%d: brokers %v", version, ids)
		}
		r := hmetaTopic(t, got, "r").Partitions[0]
		l := hmetaTopic(t, got, "l").Partitions[0]
		switch {
		case version == 0:
			if r.ErrorCode != 9 || r.Leader != 1 || !slices.Equal(r.Replicas, []int32{1}) || !slices.Equal(r.ISR, []int32{1}) {
				t.Errorf("v0 r: %+v", r)
			}
			if l.ErrorCode != 5 || l.Leader != -1 || !slices.Equal(l.Replicas, []int32{1}) || !slices.Equal(l.ISR, []int32{1}) {
				t.Errorf("v0 l: %+v, want LEADER_NOT_AVAILABLE with filtered lists", l)
			}
		default:
			wantL := int16(5)
			if version >= 6 {
				wantL = 72
			}
			if r.ErrorCode != 0 || r.Leader != 1 || !slices.Equal(r.Replicas, []int32{1, 3}) || !slices.Equal(r.ISR, []int32{1, 3}) {
				t.Errorf("v%d r: %+v", version, r)
			}
			if l.ErrorCode != wantL || l.Leader != -1 || !slices.Equal(l.Replicas, []int32{3, 1}) || !slices.Equal(l.ISR, []int32{3, 1}) {
				t.Errorf("v%d l: %+v, want error %d with unfiltered lists", version, l, wantL)
			}
		}
	}
}

// TestMetadataLastISRMemberDead: the ZK controller keeps the last ISR
// member when it dies with no other leader (apis.md §3.4 notes): leader
// -1, LEADER_NOT_AVAILABLE, epoch kept, and the topic error stays 0.
// Partitions come in id order and replicas keep assignment order.
func TestMetadataLastISRMemberDead(t *testing.T) {
	v := baseView()
	v.Brokers = v.Brokers[:2] // 3 is dead
	top := onlineTopic("x", 1, []int32{3, 1}, []int32{3, 2})
	for i := range top.Partitions {
		top.Partitions[i].Leader, top.Partitions[i].ISR, top.Partitions[i].LeaderEpoch = -1, []int32{3}, 9
		top.Partitions[i].Offline = []int32{3}
	}
	f := newFixture(t, withTopics(v, top))
	for _, version := range []int16{0, 1, 7, 12} {
		got := f.call(mdReq(version, "x")).(*kmsg.MetadataResponse)
		tp := hmetaTopic(t, got, "x")
		if tp.ErrorCode != 0 || len(tp.Partitions) != 2 {
			t.Fatalf("v%d: %s", version, fmtMetadata(got))
		}
		for i, p := range tp.Partitions {
			wantReplicas, wantISR := []int32{3, int32(i + 1)}, []int32{3}
			if version == 0 {
				wantReplicas, wantISR = []int32{int32(i + 1)}, []int32{}
			}
			wantEpoch := int32(-1)
			if version >= 7 {
				wantEpoch = 9
			}
			if p.Partition != int32(i) || p.ErrorCode != 5 || p.Leader != -1 || p.LeaderEpoch != wantEpoch ||
				!slices.Equal(p.Replicas, wantReplicas) || !slices.Equal(p.ISR, wantISR) {
				t.Errorf("v%d partition %d: %+v, want replicas %v isr %v", version, i, p, wantReplicas, wantISR)
			}
		}
	}
}

// TestMetadataShuttingDownBrokerIsLive: Kafka's controller sends
// liveOrShuttingDownBrokers in UpdateMetadata, so a broker in controlled
// shutdown is still listed and still serves as leader.
func TestMetadataShuttingDownBrokerIsLive(t *testing.T) {
	v := baseView()
	v.Brokers[1].ShuttingDown = true
	f := newFixture(t, withTopics(v, onlineTopic("s", 1, []int32{2, 1})))
	for _, version := range []int16{0, 1, 12} {
		got := f.call(mdReq(version, "s")).(*kmsg.MetadataResponse)
		if ids := hmetaBrokerIDs(got); !slices.Equal(ids, []int32{1, 2, 3, selfID}) {
			t.Errorf("v%d: brokers %v", version, ids)
		}
		if p := hmetaTopic(t, got, "s").Partitions[0]; p.ErrorCode != 0 || p.Leader != 2 {
			t.Errorf("v%d: %+v", version, p)
		}
	}
}

// TestMetadataListenerSelectsEndpoints: Brokers carry each broker's
// endpoint of the handlers' listener, with its rack.
func TestMetadataListenerSelectsEndpoints(t *testing.T) {
	v := baseView()
	v.Self.Endpoints = append(v.Self.Endpoints, znodes.Endpoint{Listener: "INTERNAL", Host: "self-int", Port: 7000})
	v.Brokers[0].Endpoints = append(v.Brokers[0].Endpoints, znodes.Endpoint{Listener: "INTERNAL", Host: "b1-int", Port: 7001})
	v.Brokers[2].Endpoints = []znodes.Endpoint{{Listener: "INTERNAL", Host: "b3-int", Port: 7003}}
	f := newFixture(t, v, func(o *Options) { o.Listener = "INTERNAL" })
	got := f.call(mdAll(1)).(*kmsg.MetadataResponse)
	want := map[int32]string{selfID: "self-int:7000:", 1: "b1-int:7001:a", 3: "b3-int:7003:"}
	if len(got.Brokers) != len(want) {
		t.Fatalf("brokers %s, want self, 1 and 3 (2 has no INTERNAL endpoint)", fmtMetadata(got))
	}
	for _, b := range got.Brokers {
		rk := ""
		if b.Rack != nil {
			rk = *b.Rack
		}
		if s := fmt.Sprintf("%s:%d:%s", b.Host, b.Port, rk); s != want[b.NodeID] {
			t.Errorf("broker %d: %s, want %s", b.NodeID, s, want[b.NodeID])
		}
	}
}

// TestMetadataUnknownControllerAndCluster: ControllerID -1 when unknown;
// an unknown cluster id is null.
func TestMetadataUnknownControllerAndCluster(t *testing.T) {
	v := baseView()
	v.ControllerID, v.ClusterID = -1, ""
	f := newFixture(t, v)
	for _, version := range []int16{1, 2, 12} {
		got := f.call(mdAll(version)).(*kmsg.MetadataResponse)
		if got.ControllerID != -1 || got.ClusterID != nil {
			t.Errorf("v%d: controller %d cluster %v", version, got.ControllerID, ptr(got.ClusterID))
		}
	}
}

// TestMetadataAllTopicsNeverAutoCreates: v0's [] and v1+'s null mean all
// topics, and an all-topics request never creates anything; v1+'s []
// means none (apis.md §3.1, §3.5).
func TestMetadataAllTopicsNeverAutoCreates(t *testing.T) {
	f := newFixture(t, withTopics(baseView(), onlineTopic("a", 1, []int32{1}), onlineTopic("__consumer_offsets", 2, []int32{2})))
	for version := int16(0); version <= 12; version++ {
		r := hmetaAllow(mdAll(version))
		got := f.call(r).(*kmsg.MetadataResponse)
		if len(got.Topics) != 2 || *got.Topics[0].Topic != "__consumer_offsets" || *got.Topics[1].Topic != "a" {
			t.Errorf("v%d all: %s", version, fmtMetadata(got))
		}
		if version == 0 {
			continue
		}
		none := hmetaAllow(mdReq(version))
		none.Topics = []kmsg.MetadataRequestTopic{}
		if got := f.call(none).(*kmsg.MetadataResponse); len(got.Topics) != 0 || len(got.Brokers) != 4 {
			t.Errorf("v%d none: %s", version, fmtMetadata(got))
		}
	}
	if len(f.admin.creates) != 0 {
		t.Errorf("created %+v", f.admin.creates)
	}
}

// TestMetadataAutoCreateEveryVersion: v0-3 always allow auto-creation
// (kmsg decodes the absent flag as false), v4+ only with the flag; the
// answer is LEADER_NOT_AVAILABLE with no partitions and a zero id, else
// UNKNOWN_TOPIC_OR_PARTITION (apis.md §1.7, §3.5).
func TestMetadataAutoCreateEveryVersion(t *testing.T) {
	for version := int16(0); version <= 12; version++ {
		for _, flag := range []bool{false, true} {
			f := newFixture(t, baseView())
			r := mdReq(version, "fresh")
			r.AllowAutoTopicCreation = flag
			got := f.call(r).(*kmsg.MetadataResponse)
			creates := version < 4 || flag
			want := int16(3)
			if creates {
				want = 5
			}
			tp := hmetaTopic(t, got, "fresh")
			if len(got.Topics) != 1 || tp.ErrorCode != want || len(tp.Partitions) != 0 || tp.TopicID != [16]byte{} || tp.IsInternal {
				t.Errorf("v%d flag %v: %s, want error %d", version, flag, fmtMetadata(got), want)
			}
			if n := len(f.admin.creates); n != map[bool]int{true: 1}[creates] {
				t.Errorf("v%d flag %v: %d creations", version, flag, n)
			}
		}
	}
}

// TestMetadataAutoCreateOutcomes: "created" and "already exists" both
// answer LEADER_NOT_AVAILABLE, an unknown outcome too (the topic may
// exist now); other refusals pass their code through (apis.md §3.5). A
// name asked for twice is created once and answered once.
func TestMetadataAutoCreateOutcomes(t *testing.T) {
	f := newFixture(t, baseView())
	f.admin.errs["exists"] = adminError(zkadmin.KindTopicExists, 36, "Topic 'exists' already exists.")
	f.admin.errs["marked"] = adminError(zkadmin.KindMarkedForDeletion, 36, "Topic 'marked' is marked for deletion.")
	f.admin.errs["lost"] = zkadmin.ErrConnectionLoss
	f.admin.errs["limit"] = adminError(zkadmin.KindPartitionLimit, 44, "WILL_EXCEED_PARTITION_LIMITS: too many")
	f.admin.errs["badcfg"] = adminError(zkadmin.KindInvalidConfig, 40, "bad config")
	r := hmetaAllow(mdReq(8, "new", "exists", "marked", "lost", "limit", "badcfg", "new"))
	r.IncludeTopicAuthorizedOperations = true
	got := f.call(r).(*kmsg.MetadataResponse)
	want := map[string]int16{"new": 5, "exists": 5, "marked": 5, "lost": 5, "limit": 44, "badcfg": 40}
	if len(got.Topics) != len(want) {
		t.Fatalf("%s, want one entry per distinct name", fmtMetadata(got))
	}
	for name, code := range want {
		tp := hmetaTopic(t, got, name)
		// Auto-created (and attempted) topics are "authorized" ones:
		// their operations are filled in when asked (apis.md §3.2).
		if tp.ErrorCode != code || len(tp.Partitions) != 0 || tp.AuthorizedOperations != 3576 {
			t.Errorf("%s: error %d ops %d, want %d and 3576", name, tp.ErrorCode, tp.AuthorizedOperations, code)
		}
	}
	if len(f.admin.creates) != 6 {
		t.Errorf("%d creations, want 6 (new once)", len(f.admin.creates))
	}
}

// TestMetadataAutoCreateConsumerOffsets: __consumer_offsets gets the
// offsets.topic.* defaults and GroupCoordinator.offsetsTopicConfigs, and
// is reported internal.
func TestMetadataAutoCreateConsumerOffsets(t *testing.T) {
	f := newFixture(t, baseView())
	got := f.call(mdReq(2, "__consumer_offsets")).(*kmsg.MetadataResponse)
	if tp := hmetaTopic(t, got, "__consumer_offsets"); tp.ErrorCode != 5 || !tp.IsInternal {
		t.Fatalf("%s", fmtMetadata(got))
	}
	c := f.admin.creates[0]
	want := map[string]string{"cleanup.policy": "compact", "compression.type": "producer", "segment.bytes": "104857600"}
	if c.Partitions != 50 || c.ReplicationFactor != 3 || len(c.Config) != len(want) {
		t.Fatalf("creation %+v", c)
	}
	for k, val := range want {
		if c.Config[k] != val {
			t.Errorf("%s=%q, want %q", k, c.Config[k], val)
		}
	}
}

// TestMetadataDescribeDeniedHidesExistence: without DESCRIBE an explicit
// request gets TOPIC_AUTHORIZATION_FAILED whether the topic exists or
// not, IsInternal false, a zero id, no partitions, no operations, and no
// creation; an all-topics request leaves the topic out (apis.md §3.3).
func TestMetadataDescribeDeniedHidesExistence(t *testing.T) {
	authz := denyAuthz{deny(OpDescribe, "foo"): true, deny(OpDescribe, "ghost"): true,
		deny(OpDescribe, "__consumer_offsets"): true}
	v := withTopics(baseView(), onlineTopic("foo", 1, []int32{1}), onlineTopic("__consumer_offsets", 2, []int32{2}),
		onlineTopic("ok", 3, []int32{3}))
	f := newFixture(t, v, func(o *Options) { o.Authorizer = authz })
	for _, version := range []int16{1, 4, 8, 10, 12} {
		r := hmetaAllow(mdReq(version, "foo", "ghost", "__consumer_offsets", "ok"))
		r.IncludeTopicAuthorizedOperations = true
		got := f.call(r).(*kmsg.MetadataResponse)
		if len(got.Topics) != 4 || *got.Topics[0].Topic != "ok" {
			t.Fatalf("v%d: %s, want ok first then the denied ones", version, fmtMetadata(got))
		}
		for _, tp := range got.Topics[1:] {
			if tp.ErrorCode != 29 || tp.IsInternal || tp.TopicID != [16]byte{} || len(tp.Partitions) != 0 ||
				tp.AuthorizedOperations != authorizedOpsNotRequested {
				t.Errorf("v%d: denied entry %s: %s", version, ptr(tp.Topic), fmtMetadata(got))
			}
		}
	}
	for _, version := range []int16{0, 1, 12} {
		got := f.call(mdAll(version)).(*kmsg.MetadataResponse)
		if len(got.Topics) != 1 || *got.Topics[0].Topic != "ok" {
			t.Errorf("v%d all: %s, want only ok", version, fmtMetadata(got))
		}
	}
	if len(f.admin.creates) != 0 {
		t.Errorf("created %+v", f.admin.creates)
	}
}

// TestMetadataAutoCreateNeedsCreateOnClusterOrTopic: CREATE on the
// cluster or on the topic is enough (apis.md §1.5).
func TestMetadataAutoCreateNeedsCreateOnClusterOrTopic(t *testing.T) {
	for _, tc := range []struct {
		name  string
		authz denyAuthz
	}{
		{"cluster denied, topic allowed", denyAuthz{deny(OpCreate, ClusterResourceName): true}},
		{"cluster allowed, topic denied", denyAuthz{deny(OpCreate, "fresh"): true}},
	} {
		f := newFixture(t, baseView(), func(o *Options) { o.Authorizer = tc.authz })
		got := f.call(hmetaAllow(mdReq(9, "fresh"))).(*kmsg.MetadataResponse)
		if tp := hmetaTopic(t, got, "fresh"); tp.ErrorCode != 5 || len(f.admin.creates) != 1 {
			t.Errorf("%s: %s, %d creations", tc.name, fmtMetadata(got), len(f.admin.creates))
		}
	}
}

// TestMetadataClusterOperationsByVersion: v8-10 answer the cluster's
// operations when asked, 0 without DESCRIBE on the cluster; otherwise,
// and from v11, INT32_MIN (apis.md §3.2).
func TestMetadataClusterOperationsByVersion(t *testing.T) {
	all := newFixture(t, baseView())
	denied := newFixture(t, baseView(), func(o *Options) {
		o.Authorizer = denyAuthz{deny(OpDescribe, ClusterResourceName): true}
	})
	for version := int16(8); version <= 12; version++ {
		for _, asked := range []bool{false, true} {
			r := mdReq(version)
			r.IncludeClusterAuthorizedOperations = asked
			wantAll, wantDenied := authorizedOpsNotRequested, authorizedOpsNotRequested
			if asked && version <= 10 {
				wantAll, wantDenied = 8096, 0
			}
			if got := all.call(r).(*kmsg.MetadataResponse).AuthorizedOperations; got != wantAll {
				t.Errorf("v%d asked=%v: %d, want %d", version, asked, got, wantAll)
			}
			if got := denied.call(r).(*kmsg.MetadataResponse).AuthorizedOperations; got != wantDenied {
				t.Errorf("v%d asked=%v without DESCRIBE: %d, want %d", version, asked, got, wantDenied)
			}
		}
	}
}

// TestMetadataTopicOperationsOnExistingTopics: asked for at v8+, every
// described topic carries its operations; not asked, INT32_MIN.
func TestMetadataTopicOperationsOnExistingTopics(t *testing.T) {
	f := newFixture(t, withTopics(baseView(), onlineTopic("a", 1, []int32{1}), onlineTopic("b", 2, []int32{2})),
		func(o *Options) { o.Authorizer = denyAuthz{deny(OpWrite, "b"): true, deny(OpDelete, "b"): true} })
	for _, version := range []int16{8, 10, 12} {
		for _, asked := range []bool{false, true} {
			r := mdReq(version, "a", "b")
			r.IncludeTopicAuthorizedOperations = asked
			got := f.call(r).(*kmsg.MetadataResponse)
			wantA, wantB := authorizedOpsNotRequested, authorizedOpsNotRequested
			if asked {
				wantA, wantB = 3576, 3576&^(1<<OpWrite|1<<OpDelete)
			}
			if a, b := hmetaTopic(t, got, "a").AuthorizedOperations, hmetaTopic(t, got, "b").AuthorizedOperations; a != wantA || b != wantB {
				t.Errorf("v%d asked=%v: a=%d b=%d, want %d %d", version, asked, a, b, wantA, wantB)
			}
		}
	}
}

// TestMetadataV12IDsWinOverNames: when any entry has a topic id, only
// the ids count and names are ignored (apis.md §3.1; KafkaApis
// useTopicId); a found topic is answered in full.
func TestMetadataV12IDsWinOverNames(t *testing.T) {
	f := newFixture(t, withTopics(baseView(), onlineTopic("a", 1, []int32{1}), onlineTopic("b", 2, []int32{2, 3})))
	r := mdReq(12, "a")
	byID := kmsg.NewMetadataRequestTopic()
	byID.TopicID = tid(2)
	r.Topics = append(r.Topics, byID)
	r.IncludeTopicAuthorizedOperations = true
	got := f.call(r).(*kmsg.MetadataResponse)
	if len(got.Topics) != 1 {
		t.Fatalf("%s, want only b", fmtMetadata(got))
	}
	tp := hmetaTopic(t, got, "b")
	if tp.ErrorCode != 0 || tp.TopicID != tid(2) || tp.AuthorizedOperations != 3576 || len(tp.Partitions) != 1 ||
		!slices.Equal(tp.Partitions[0].Replicas, []int32{2, 3}) {
		t.Errorf("b: %s", fmtMetadata(got))
	}
	// Names only, at v12: answered by name as before.
	got = f.call(mdReq(12, "a")).(*kmsg.MetadataResponse)
	if tp := hmetaTopic(t, got, "a"); tp.ErrorCode != 0 || tp.TopicID != tid(1) {
		t.Errorf("by name: %s", fmtMetadata(got))
	}
}

// TestMetadataStandbyUnknownController: a view that knows no controller
// answers -1 and still lists this node.
func TestMetadataStandbyUnknownController(t *testing.T) {
	v := &View{MetadataView: controller.MetadataView{ControllerID: -1,
		Self: controller.BrokerView{ID: selfID, Endpoints: ep(9000)}}}
	f := newFixture(t, v)
	got := f.call(mdAll(12)).(*kmsg.MetadataResponse)
	if got.ControllerID != -1 || len(got.Brokers) != 1 || got.Brokers[0].NodeID != selfID || got.Brokers[0].Port != 9000 {
		t.Errorf("%s", fmtMetadata(got))
	}
}
