package handler

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

type ctTopic struct {
	name    string
	parts   int32
	rf      int16
	asg     map[int32][]int32
	configs map[string]*string
}

func ctReq(version int16, timeoutMs int32, validateOnly bool, topics ...ctTopic) *kmsg.CreateTopicsRequest {
	r := kmsg.NewPtrCreateTopicsRequest()
	r.Version, r.TimeoutMillis, r.ValidateOnly = version, timeoutMs, validateOnly
	for _, t := range topics {
		rt := kmsg.NewCreateTopicsRequestTopic()
		rt.Topic, rt.NumPartitions, rt.ReplicationFactor = t.name, t.parts, t.rf
		for p, replicas := range t.asg {
			a := kmsg.NewCreateTopicsRequestTopicReplicaAssignment()
			a.Partition, a.Replicas = p, replicas
			rt.ReplicaAssignment = append(rt.ReplicaAssignment, a)
		}
		for k, v := range t.configs {
			c := kmsg.NewCreateTopicsRequestTopicConfig()
			c.Name, c.Value = k, v
			rt.Configs = append(rt.Configs, c)
		}
		r.Topics = append(r.Topics, rt)
	}
	return r
}

func ctResult(name string, code int16, msg *string) kmsg.CreateTopicsResponseTopic {
	t := kmsg.NewCreateTopicsResponseTopic()
	t.Topic, t.ErrorCode, t.ErrorMessage = name, code, msg
	t.Configs = []kmsg.CreateTopicsResponseTopicConfig{} // v5+: Kafka's results never carry null
	return t
}

func ctResp(topics ...kmsg.CreateTopicsResponseTopic) *kmsg.CreateTopicsResponse {
	r := kmsg.NewPtrCreateTopicsResponse()
	r.Topics = topics
	return r
}

func TestCreateTopicsNotController(t *testing.T) {
	v := baseView()
	v.Active, v.ControllerID = false, 7
	f := newFixture(t, v)
	for _, version := range []int16{0, 1, 5, 7} {
		got := f.call(ctReq(version, 1000, false, ctTopic{name: "a", parts: 1, rf: 1}, ctTopic{name: "a", parts: 1, rf: 1}))
		sameWire(t, got, ctResp(ctResult("a", 41, nil), ctResult("a", 41, nil)))
	}
	if len(f.admin.creates) != 0 {
		t.Errorf("created %+v while not the controller", f.admin.creates)
	}
}

// TestCreateTopicsBatch checks one result per entry in request order, each
// from the first failing check, and that failures do not stop the others.
func TestCreateTopicsBatch(t *testing.T) {
	limitMsg := "WILL_EXCEED_PARTITION_LIMITS: creating topic 'limited' with 1 partitions: max.partitions=1 reached"
	f := newFixture(t, withTopics(baseView(), onlineTopic("foo", 1, []int32{1})))
	f.admin.errs["limited"] = &zkadmin.AdminError{Kind: zkadmin.KindPartitionLimit, Code: 44, Message: limitMsg}
	gapMsg := "partitions should be a consecutive 0-based integer sequence"
	f.admin.errs["gap"] = &zkadmin.AdminError{Kind: zkadmin.KindInvalidReplicaAssignment, Code: 39, Message: gapMsg}
	req := ctReq(4, 0, false,
		ctTopic{name: "foo", parts: 1, rf: 1},
		ctTopic{name: "__cluster_metadata", parts: 1, rf: 1},
		ctTopic{name: "bad name", parts: -2, rf: 1},
		ctTopic{name: "rf0", parts: 1, rf: 0},
		ctTopic{name: "nullcfg", parts: 1, rf: 1, configs: map[string]*string{"retention.ms": nil}},
		ctTopic{name: "gap", parts: -1, rf: -1, asg: map[int32][]int32{0: {1}, 2: {2}}},
		ctTopic{name: "defaults", parts: -1, rf: -1},
		ctTopic{name: "both", parts: 5, rf: 3, asg: map[int32][]int32{0: {2, 1}}},
		ctTopic{name: "toomany", parts: 1, rf: 4},
		ctTopic{name: "deadbroker", parts: -1, rf: -1, asg: map[int32][]int32{0: {9}}},
		ctTopic{name: "limited", parts: 1, rf: 1},
	)
	got := f.call(req)
	sameWire(t, got, ctResp(
		ctResult("foo", 36, sp("Topic 'foo' already exists.")),
		ctResult("__cluster_metadata", 42, sp("Creation of internal topic __cluster_metadata is prohibited.")),
		ctResult("bad name", 37, sp("Number of partitions must be larger than 0.")),
		ctResult("rf0", 38, sp("Replication factor must be larger than 0.")),
		ctResult("nullcfg", 40, sp("Null value not supported for topic configs: retention.ms")),
		ctResult("gap", 39, sp(gapMsg)), // by the Admin, after the lists
		ctResult("defaults", 7, nil),    // timeout 0: created, but not waited for
		ctResult("both", 7, nil),
		ctResult("toomany", 38, sp("Replication factor: 4 larger than available brokers: 3.")),
		ctResult("deadbroker", 39, sp("The manual partition assignment includes broker 9, but no such broker is registered.")),
		ctResult("limited", 44, sp(limitMsg)),
	))
	byName := map[string]zkadmin.CreateTopicRequest{}
	for _, c := range f.admin.creates {
		byName[c.Topic] = c
	}
	if c := byName["defaults"]; c.Partitions != -1 || c.ReplicationFactor != -1 || c.Assignment != nil {
		t.Errorf("defaults sent as %+v, want -1/-1 for Admin to resolve", c)
	}
	if c := byName["both"]; c.Partitions != 0 || c.ReplicationFactor != 0 || len(c.Assignment) != 1 {
		t.Errorf("both sent as %+v, want the assignment alone", c)
	}
	if c := byName["gap"]; !slices.Equal(c.AssignmentIDs, []int32{0, 2}) || len(c.Assignment) != 2 {
		t.Errorf("gap sent as %+v, want its two lists numbered 0 and 2", c)
	}
	if len(f.admin.creates) != 6 {
		t.Errorf("Admin saw %d creations, want 6 (the rest fail before)", len(f.admin.creates))
	}
}

func TestCreateTopicsLimitCode88(t *testing.T) {
	f := newFixture(t, baseView(), func(o *Options) { o.Config.PartitionLimitsErrorCode = 88 })
	f.admin.errs["x"] = &zkadmin.AdminError{Kind: zkadmin.KindPartitionLimit, Code: 44, Message: "WILL_EXCEED_PARTITION_LIMITS: x"}
	got := f.call(ctReq(1, 0, false, ctTopic{name: "x", parts: 1, rf: 1})).(*kmsg.CreateTopicsResponse)
	if got.Topics[0].ErrorCode != 88 {
		t.Errorf("code %d, want 88", got.Topics[0].ErrorCode)
	}
}

func TestCreateTopicsDuplicates(t *testing.T) {
	entries := []ctTopic{{name: "d", parts: 1, rf: 1}, {name: "e", parts: 1, rf: 1}, {name: "d", parts: 2, rf: 1}}
	// v0 (seed 000): the last entry wins and both entries tell its result.
	f := newFixture(t, baseView())
	sameWire(t, f.call(ctReq(0, 0, false, entries...)), ctResp(ctResult("d", 7, nil), ctResult("e", 7, nil), ctResult("d", 7, nil)))
	if len(f.admin.creates) != 2 || f.admin.creates[1].Topic != "d" || f.admin.creates[1].Partitions != 2 {
		t.Errorf("v0 creations %+v, want e then the last d", f.admin.creates)
	}
	// v1+: every entry of the name is refused; the others proceed.
	msg := sp("Found multiple entries for this topic.")
	for _, version := range []int16{1, 7} {
		f := newFixture(t, baseView())
		got := f.call(ctReq(version, 0, false, entries...))
		// e timed out (timeout 0): like any failure it carries -1/-1 and
		// no configs at v5+, but keeps its id at v7 (Kafka resets all but
		// the id).
		want := ctResp(ctResult("d", 42, msg), ctResult("e", 7, nil), ctResult("d", 42, msg))
		if version >= 7 {
			want.Topics[1].TopicID = tid(101)
		}
		sameWire(t, got, want)
		if len(f.admin.creates) != 1 {
			t.Errorf("v%d creations %+v, want only e", version, f.admin.creates)
		}
	}
}

func TestCreateTopicsV5Metadata(t *testing.T) {
	f := newFixture(t, baseView())
	f.admin.publish = true
	f.admin.configs["brokers/<default>"] = map[string]string{"log.retention.ms": "1000"}
	req := ctTopic{name: "m", parts: 2, rf: 2, configs: map[string]*string{"min.insync.replicas": sp("2")}}
	for _, version := range []int16{4, 5, 7} {
		f.views.Publish(baseView()) // each version creates afresh
		got := f.call(ctReq(version, 5000, false, req)).(*kmsg.CreateTopicsResponse)
		rt := got.Topics[0]
		if rt.ErrorCode != 0 || rt.ErrorMessage != nil {
			t.Fatalf("v%d: %+v", version, rt)
		}
		if version < 5 {
			if rt.NumPartitions != -1 || rt.ReplicationFactor != -1 || rt.Configs != nil {
				t.Errorf("v%d carries v5 fields: %+v", version, rt)
			}
			continue
		}
		if rt.NumPartitions != 2 || rt.ReplicationFactor != 2 {
			t.Errorf("v%d: partitions %d rf %d", version, rt.NumPartitions, rt.ReplicationFactor)
		}
		cfg := map[string]kmsg.CreateTopicsResponseTopicConfig{}
		for _, c := range rt.Configs {
			cfg[c.Name] = c
		}
		if len(cfg) != len(zkadmin.TopicConfigDefs()) {
			t.Errorf("v%d: %d configs, want every topic config", version, len(cfg))
		}
		check := func(name, value string, source int8) {
			c := cfg[name]
			if c.Value == nil || *c.Value != value || c.Source != source || c.ReadOnly || c.IsSensitive {
				t.Errorf("v%d: %s = %+v, want %s from source %d", version, name, c, value, source)
			}
		}
		check("min.insync.replicas", "2", 1)
		check("retention.ms", "1000", 3)
		check("segment.bytes", "1073741824", 5)
		if wantID := version >= 7; (rt.TopicID != [16]byte{}) != wantID {
			t.Errorf("v%d: topic id %x", version, rt.TopicID)
		}
	}
}

func TestCreateTopicsValidateOnly(t *testing.T) {
	f := newFixture(t, baseView())
	f.admin.publish = true
	got := f.call(ctReq(7, 0, true, ctTopic{name: "v", parts: 3, rf: 1})).(*kmsg.CreateTopicsResponse)
	rt := got.Topics[0]
	if rt.ErrorCode != 0 || rt.NumPartitions != 3 || rt.ReplicationFactor != 1 || rt.TopicID != [16]byte{} {
		t.Errorf("validateOnly: %+v, want success with metadata and no id", rt)
	}
	if c := f.admin.creates[0]; !c.DryRun {
		t.Errorf("Admin got %+v, want DryRun", c)
	}
	if f.views.View().Topic("v") != nil {
		t.Error("validateOnly created the topic")
	}
}

func TestCreateTopicsTimeout(t *testing.T) {
	cases := []struct {
		name      string
		timeoutMs int32
		publish   bool
		offline   bool
		want      int16
	}{
		{"zero answers at once, timed out", 0, true, false, 7},
		{"negative too", -1, true, false, 7},
		{"positive waits for leaders", 10000, true, false, 0},
		{"positive expires without leaders", 50, true, true, 7},
		{"positive expires when the controller never sees it", 50, false, false, 7},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, baseView())
			f.admin.publish, f.admin.offline = tc.publish, tc.offline
			got := f.call(ctReq(1, tc.timeoutMs, false, ctTopic{name: "w", parts: 2, rf: 2})).(*kmsg.CreateTopicsResponse)
			if got.Topics[0].ErrorCode != tc.want || got.Topics[0].ErrorMessage != nil {
				t.Errorf("result %+v, want code %d and no message", got.Topics[0], tc.want)
			}
		})
	}
}

// TestCreateTopicsWaitsForLaterView publishes the topic's leadership only
// after the request started waiting, as the controller does.
func TestCreateTopicsWaitsForLaterView(t *testing.T) {
	f := newFixture(t, baseView())
	ids := make(chan znodes.UUID, 1)
	f.admin.onCreate = func(_ string, id znodes.UUID) { ids <- id }
	done := make(chan *kmsg.CreateTopicsResponse)
	go func() {
		done <- f.call(ctReq(3, 20000, false, ctTopic{name: "late", parts: 1, rf: 1})).(*kmsg.CreateTopicsResponse)
	}()
	// Once Admin wrote it, publish a view without, and then with a leader.
	id := <-ids
	offline := onlineTopic("late", id[15], []int32{1})
	offline.Partitions[0].Leader = -1
	f.views.Publish(withTopics(baseView(), offline))
	f.views.Publish(withTopics(baseView(), onlineTopic("late", id[15], []int32{1})))
	if got := <-done; got.Topics[0].ErrorCode != 0 {
		t.Errorf("result %+v", got.Topics[0])
	}
}

func TestCreateTopicsAuthorization(t *testing.T) {
	authz := denyAuthz{deny(OpCreate, ClusterResourceName): true, deny(OpCreate, "no"): true,
		deny(OpDescribeConfigs, "hidden"): true, deny(OpCreate, "nosee"): true, deny(OpDescribeConfigs, "nosee"): true}
	f := newFixture(t, baseView(), func(o *Options) { o.Authorizer = authz })
	got := f.call(ctReq(5, 0, true, ctTopic{name: "no", parts: 1, rf: 1}, ctTopic{name: "hidden", parts: 1, rf: 1},
		ctTopic{name: "nosee", parts: 1, rf: 1})).(*kmsg.CreateTopicsResponse)
	if r := got.Topics[0]; r.ErrorCode != 29 || r.ErrorMessage == nil || *r.ErrorMessage != "Authorization failed." || r.ConfigErrorCode != 0 {
		t.Errorf("denied: %+v", r)
	}
	if r := got.Topics[1]; r.ErrorCode != 0 || r.ConfigErrorCode != 29 || len(r.Configs) != 0 || r.NumPartitions != 1 {
		t.Errorf("create by topic ACL, configs withheld: %+v", r)
	}
	// A refusal of KafkaApis' own checks keeps TopicConfigErrorCode 29
	// when DESCRIBE_CONFIGS is denied too (only the admin manager's
	// answers are reset).
	if r := got.Topics[2]; r.ErrorCode != 29 || r.ConfigErrorCode != 29 || r.NumPartitions != -1 {
		t.Errorf("create and describe-configs denied: %+v", r)
	}
}

// batchFake is fakeAdmin with the batch call, which it answers topic by
// topic, recording each call's topics.
type batchFake struct {
	*fakeAdmin
	calls [][]string
	err   error // scripted failure of the whole call
}

func (b *batchFake) CreateTopics(ctx context.Context, reqs []zkadmin.CreateTopicRequest) ([]zkadmin.CreateTopicOutcome, error) {
	var names []string
	out := make([]zkadmin.CreateTopicOutcome, len(reqs))
	for i, r := range reqs {
		names = append(names, r.Topic)
		if b.err != nil {
			out[i].Err = b.err
			continue
		}
		out[i].Result, out[i].Err = b.CreateTopic(ctx, r)
	}
	b.calls = append(b.calls, names)
	return out, b.err
}

// The batch call gets every entry that passed the prechecks, once and in
// request order, and the response is what per-topic calls give.
func TestCreateTopicsUsesTheBatchCall(t *testing.T) {
	view := withTopics(baseView(), onlineTopic("foo", 1, []int32{1}))
	req := func() *kmsg.CreateTopicsRequest {
		return ctReq(7, 0, false,
			ctTopic{name: "foo", parts: 1, rf: 1},
			ctTopic{name: "b", parts: 2, rf: 2},
			ctTopic{name: "rf0", parts: 1, rf: 0},
			ctTopic{name: "a", parts: -1, rf: -1},
			ctTopic{name: "toomany", parts: 1, rf: 4},
			ctTopic{name: "c", parts: 1, rf: 1, configs: map[string]*string{"retention.ms": sp("1000")}},
		)
	}
	single := newFixture(t, view)
	want := single.call(req())
	var bf *batchFake
	batched := newFixture(t, view, func(o *Options) {
		bf = &batchFake{fakeAdmin: o.Admin.(*fakeAdmin)}
		o.Admin = bf
	})
	sameWire(t, batched.call(req()), want)
	if len(bf.calls) != 1 || !slices.Equal(bf.calls[0], []string{"b", "a", "toomany", "c"}) {
		t.Errorf("batch calls %v, want one with b, a, toomany, c", bf.calls)
	}
	// A request whose entries all fail the prechecks makes no call.
	bf.calls = nil
	batched.call(ctReq(7, 0, false, ctTopic{name: "foo", parts: 1, rf: 1}))
	if len(bf.calls) != 0 {
		t.Errorf("batch calls %v for nothing to create", bf.calls)
	}
}

func TestCreateTopicsBatchCallFailure(t *testing.T) {
	f := newFixture(t, baseView(), func(o *Options) {
		o.Admin = &batchFake{fakeAdmin: o.Admin.(*fakeAdmin), err: errors.New("zookeeper: connection loss")}
	})
	got := f.call(ctReq(1, 0, false, ctTopic{name: "a", parts: 1, rf: 1}, ctTopic{name: "b", parts: 1, rf: 0}))
	topics := got.(*kmsg.CreateTopicsResponse).Topics
	if topics[0].ErrorCode != -1 || topics[1].ErrorCode != 38 {
		t.Errorf("codes %d %d, want UNKNOWN_SERVER_ERROR and INVALID_REPLICATION_FACTOR", topics[0].ErrorCode, topics[1].ErrorCode)
	}
}
