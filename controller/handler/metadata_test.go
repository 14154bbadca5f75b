package handler

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller"
	"github.com/kzadmin/kzadmin/znodes"
)

func mdReq(version int16, names ...string) *kmsg.MetadataRequest {
	r := kmsg.NewPtrMetadataRequest()
	r.Version = version
	for _, n := range names {
		t := kmsg.NewMetadataRequestTopic()
		t.Topic = sp(n)
		r.Topics = append(r.Topics, t)
	}
	if version >= 1 && names == nil {
		r.Topics = nil
	} else if r.Topics == nil {
		r.Topics = []kmsg.MetadataRequestTopic{}
	}
	return r
}

func mdAll(version int16) *kmsg.MetadataRequest {
	r := mdReq(version)
	if version >= 1 {
		r.Topics = nil
	}
	return r
}

func mdBrokers(ids ...int32) []kmsg.MetadataResponseBroker {
	racks := map[int32]*string{1: rack("a"), 2: rack("b")}
	var out []kmsg.MetadataResponseBroker
	for _, id := range ids {
		b := kmsg.NewMetadataResponseBroker()
		b.NodeID, b.Host, b.Rack = id, "127.0.0.1", racks[id]
		b.Port = 9000 + id
		if id == selfID {
			b.Port = 9000
		}
		out = append(out, b)
	}
	return out
}

type mdp struct {
	err              int16
	id, leader, ep   int32
	replicas, isr, o []int32
}

func mdTopic(name string, id byte, err int16, parts ...mdp) kmsg.MetadataResponseTopic {
	t := kmsg.NewMetadataResponseTopic()
	t.Topic, t.ErrorCode, t.IsInternal = sp(name), err, znodes.IsInternalTopic(name)
	if id != 0 {
		t.TopicID = tid(id)
	}
	for _, p := range parts {
		mp := kmsg.NewMetadataResponseTopicPartition()
		mp.ErrorCode, mp.Partition, mp.Leader, mp.LeaderEpoch = p.err, p.id, p.leader, p.ep
		mp.Replicas, mp.ISR, mp.OfflineReplicas = orEmpty(p.replicas), orEmpty(p.isr), orEmpty(p.o)
		t.Partitions = append(t.Partitions, mp)
	}
	return t
}

func mdResp(ctl int32, cluster *string, brokers []kmsg.MetadataResponseBroker, topics ...kmsg.MetadataResponseTopic) *kmsg.MetadataResponse {
	r := kmsg.NewPtrMetadataResponse()
	r.ControllerID, r.ClusterID, r.Brokers, r.Topics = ctl, cluster, brokers, topics
	return r
}

// degradedView: foo has 2 partitions; broker 3 is dead (unregistered)
// and is a replica of foo-1, whose ISR still names it. bar-0 has no
// leader. baz is queued for deletion.
func degradedView() *View {
	v := baseView()
	v.Brokers = v.Brokers[:2]
	foo := onlineTopic("foo", 1, []int32{1, 2}, []int32{2, 3})
	foo.Partitions[1].Offline = []int32{3}
	foo.Partitions[1].LeaderEpoch = 4
	bar := onlineTopic("bar", 2, []int32{1})
	bar.Partitions[0].Leader, bar.Partitions[0].LeaderEpoch = -1, 7
	baz := onlineTopic("baz", 3, []int32{1})
	baz.Deleting = true
	return withTopics(v, foo, bar, baz)
}

func TestMetadataVersions(t *testing.T) {
	all := mdBrokers(selfID, 1, 2)
	fooOK := mdp{id: 0, leader: 1, replicas: []int32{1, 2}, isr: []int32{1, 2}}
	cases := []struct {
		name string
		req  *kmsg.MetadataRequest
		want *kmsg.MetadataResponse
	}{
		{"v0 empty means all; quirk filters and answers 9", mdReq(0), mdResp(-1, nil, all,
			mdTopic("bar", 2, 0, mdp{err: 5, leader: -1, ep: 7, replicas: []int32{1}, isr: []int32{1}}),
			mdTopic("foo", 1, 0, fooOK,
				mdp{err: 9, id: 1, leader: 2, ep: 4, replicas: []int32{2}, isr: []int32{2}, o: []int32{3}}))},
		{"v1 null means all; lists unfiltered, error 0", mdAll(1), mdResp(selfID, nil, all,
			mdTopic("bar", 2, 0, mdp{err: 5, leader: -1, ep: 7, replicas: []int32{1}, isr: []int32{1}}),
			mdTopic("foo", 1, 0, fooOK,
				mdp{id: 1, leader: 2, ep: 4, replicas: []int32{2, 3}, isr: []int32{2, 3}, o: []int32{3}}))},
		{"v1 empty means none", func() *kmsg.MetadataRequest {
			r := mdReq(1)
			r.Topics = []kmsg.MetadataRequestTopic{}
			return r
		}(), mdResp(selfID, nil, all)},
		{"v2 cluster id; deleting topic is unknown", mdReq(2, "baz", "nope", "foo", "nope"),
			mdResp(selfID, sp("cluster-one"), all,
				mdTopic("baz", 0, 3), mdTopic("nope", 0, 3),
				mdTopic("foo", 1, 0, fooOK,
					mdp{id: 1, leader: 2, ep: 4, replicas: []int32{2, 3}, isr: []int32{2, 3}, o: []int32{3}}))},
		{"v12 topic ids and epochs", mdReq(12, "bar"), mdResp(selfID, sp("cluster-one"), all,
			mdTopic("bar", 2, 0, mdp{err: 5, leader: -1, ep: 7, replicas: []int32{1}, isr: []int32{1}}))},
		{"missing internal topic is internal", mdReq(4, "__consumer_offsets", "bad/name"),
			mdResp(selfID, sp("cluster-one"), all, mdTopic("__consumer_offsets", 0, 3), mdTopic("bad/name", 0, 17))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, degradedView(), func(o *Options) { o.Config.AutoCreateTopicsEnable = false })
			got := f.call(tc.req).(*kmsg.MetadataResponse)
			sameWire(t, got, tc.want)
			if n := len(f.admin.creates); n != 0 {
				t.Errorf("%d auto-creations, want none", n)
			}
		})
	}
}

func TestMetadataLeaderWithoutListener(t *testing.T) {
	v := baseView()
	v.Brokers[1].Endpoints = []znodes.Endpoint{{Listener: "INTERNAL", Host: "h", Port: 1}}
	v = withTopics(v, onlineTopic("t", 1, []int32{2, 1}))
	for _, tc := range []struct {
		version int16
		code    int16
	}{{0, 5}, {5, 5}, {6, 72}, {12, 72}} {
		f := newFixture(t, v)
		got := f.call(mdReq(tc.version, "t")).(*kmsg.MetadataResponse)
		p := got.Topics[0].Partitions[0]
		if p.ErrorCode != tc.code || p.Leader != -1 {
			t.Errorf("v%d: partition %+v, want error %d and leader -1", tc.version, p, tc.code)
		}
		if len(got.Brokers) != 3 { // self, 1, 3: broker 2 has no PLAINTEXT endpoint
			t.Errorf("v%d: brokers %+v", tc.version, got.Brokers)
		}
	}
}

func TestMetadataAutoCreate(t *testing.T) {
	cases := []struct {
		name     string
		req      *kmsg.MetadataRequest
		auto     bool
		wantCode int16
		creates  int
	}{
		{"v3 has no flag and means true", mdReq(3, "new"), true, 5, 1},
		{"v4 flag false", mdReq(4, "new"), true, 3, 0},
		{"v4 flag true", func() *kmsg.MetadataRequest { r := mdReq(4, "new"); r.AllowAutoTopicCreation = true; return r }(), true, 5, 1},
		{"config off", mdReq(3, "new"), false, 3, 0},
		{"marked for deletion: LNA without creating", mdReq(3, "baz"), true, 5, 0},
		{"invalid name", mdReq(3, "a b"), true, 17, 0},
		{"creation error passes through", mdReq(3, "toobig"), true, 38, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, degradedView(), func(o *Options) { o.Config.AutoCreateTopicsEnable = tc.auto })
			f.admin.errs["toobig"] = adminError(0, 38, "Replication factor: 3 larger than available brokers: 2.")
			got := f.call(tc.req).(*kmsg.MetadataResponse)
			if len(got.Topics) != 1 || got.Topics[0].ErrorCode != tc.wantCode || len(got.Topics[0].Partitions) != 0 {
				t.Fatalf("topics %s, want one with error %d and no partitions", fmtMetadata(got), tc.wantCode)
			}
			if len(f.admin.creates) != tc.creates {
				t.Fatalf("%d creations, want %d", len(f.admin.creates), tc.creates)
			}
			if tc.creates > 0 {
				if c := f.admin.creates[0]; c.Partitions != -1 || c.ReplicationFactor != -1 || c.DryRun {
					t.Errorf("creation %+v, want defaults", c)
				}
			}
		})
	}
}

func TestMetadataAutoCreateInternalSettings(t *testing.T) {
	f := newFixture(t, baseView())
	got := f.call(mdReq(1, "__transaction_state")).(*kmsg.MetadataResponse)
	if tp := got.Topics[0]; tp.ErrorCode != 5 || !tp.IsInternal || tp.TopicID != [16]byte{} {
		t.Fatalf("topic %+v", tp)
	}
	c := f.admin.creates[0]
	if c.Partitions != 50 || c.ReplicationFactor != 3 || c.Config["cleanup.policy"] != "compact" ||
		c.Config["min.insync.replicas"] != "2" {
		t.Errorf("creation %+v", c)
	}
}

func TestMetadataTopicIDs(t *testing.T) {
	byID := func(version int16, ids ...byte) *kmsg.MetadataRequest {
		r := mdReq(version)
		for _, id := range ids {
			rt := kmsg.NewMetadataRequestTopic()
			rt.TopicID = tid(id)
			r.Topics = append(r.Topics, rt)
		}
		return r
	}
	all := mdBrokers(selfID, 1, 2)
	unknown := kmsg.NewMetadataResponseTopic()
	unknown.ErrorCode, unknown.TopicID = 100, tid(9)
	deleting := kmsg.NewMetadataResponseTopic()
	deleting.ErrorCode, deleting.TopicID = 100, tid(3)
	bar := mdTopic("bar", 2, 0, mdp{err: 5, leader: -1, ep: 7, replicas: []int32{1}, isr: []int32{1}})
	f := newFixture(t, degradedView())
	sameWire(t, f.call(byID(12, 2, 9, 3, 2)), mdResp(selfID, sp("cluster-one"), all, unknown, deleting, bar))

	// v10-11 cannot carry ids or null names: a whole-request error, each
	// entry with the id it was asked by (Kafka's getErrorResponse).
	bad := kmsg.NewMetadataResponseTopic()
	bad.ErrorCode, bad.Topic, bad.TopicID = 42, sp(""), tid(2)
	sameWire(t, f.call(byID(11, 2)), mdResp(-1, nil, nil, bad))
	nullName := mdReq(10, "foo")
	nullName.Topics = append(nullName.Topics, kmsg.NewMetadataRequestTopic())
	foo := kmsg.NewMetadataResponseTopic()
	foo.ErrorCode, foo.Topic = 42, sp("foo")
	nullEntry := kmsg.NewMetadataResponseTopic()
	nullEntry.ErrorCode, nullEntry.Topic = 42, sp("")
	sameWire(t, f.call(nullName), mdResp(-1, nil, nil, foo, nullEntry))
}

func TestMetadataAuthorization(t *testing.T) {
	authz := denyAuthz{deny(OpDescribe, "foo"): true, deny(OpAlter, "bar"): true,
		deny(OpCreate, ClusterResourceName): true, deny(OpCreate, "new"): true}
	f := newFixture(t, degradedView(), func(o *Options) { o.Authorizer = authz })

	r := mdAll(8)
	r.IncludeTopicAuthorizedOperations, r.IncludeClusterAuthorizedOperations = true, true
	got := f.call(r).(*kmsg.MetadataResponse)
	if len(got.Topics) != 1 || *got.Topics[0].Topic != "bar" {
		t.Fatalf("all topics: %s, want only bar (foo is not describable)", fmtMetadata(got))
	}
	if ops := got.Topics[0].AuthorizedOperations; ops != 3576&^(1<<OpAlter) {
		t.Errorf("bar's operations %d", ops)
	}
	if got.AuthorizedOperations != 8096&^(1<<OpCreate) {
		t.Errorf("cluster operations %d", got.AuthorizedOperations)
	}

	r = mdReq(9, "foo", "bar", "new")
	r.AllowAutoTopicCreation = true
	got = f.call(r).(*kmsg.MetadataResponse)
	var order []string
	for _, tp := range got.Topics {
		order = append(order, *tp.Topic)
		if tp.AuthorizedOperations != authorizedOpsNotRequested {
			t.Errorf("%s: operations %d not requested", *tp.Topic, tp.AuthorizedOperations)
		}
	}
	if len(order) != 3 || order[0] != "bar" || order[1] != "new" || got.Topics[1].ErrorCode != 29 ||
		got.Topics[2].ErrorCode != 29 {
		t.Errorf("explicit: %s, want bar, then new (create denied), then foo (describe denied)", fmtMetadata(got))
	}
	if len(f.admin.creates) != 0 {
		t.Errorf("created %+v without permission", f.admin.creates)
	}
	// v11: cluster operations are gone from the response.
	r = mdReq(11)
	r.IncludeClusterAuthorizedOperations = true
	if got := f.call(r).(*kmsg.MetadataResponse); got.AuthorizedOperations != authorizedOpsNotRequested {
		t.Errorf("v11 cluster operations %d", got.AuthorizedOperations)
	}
}

func TestMetadataStandbyAndSelf(t *testing.T) {
	v := &View{MetadataView: controller.MetadataView{ControllerID: 7, Self: controller.BrokerView{ID: selfID,
		Endpoints: []znodes.Endpoint{{Listener: "OTHER", Host: "ctl", Port: 1}}}}}
	f := newFixture(t, v)
	got := f.call(mdAll(1)).(*kmsg.MetadataResponse)
	if got.ControllerID != 7 || len(got.Brokers) != 1 || got.Brokers[0].Host != "ctl" || len(got.Topics) != 0 {
		t.Errorf("standby: %s", fmtMetadata(got))
	}
}
