package acl

import (
	"context"
	"errors"
	"net"
	"sync"
	"testing"

	"github.com/rs/zerolog"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl/plain"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller"
	"github.com/kzadmin/kzadmin/controller/handler"
	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/security/sasl"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// The end-to-end test serves the real handlers behind SASL/PLAIN with this
// package's authorizer over ACLs in a real ZooKeeper, and checks per API
// that a principal without the ACL is refused with Kafka's error and one
// with it gets through. A fake Admin stands in for the writes: what is
// checked is the authorization, which happens before them.

const selfID = 1000

// fakeAdmin accepts every write and, for those a client waits on,
// publishes the view a controller would.
type fakeAdmin struct {
	views *handler.Views
	mu    sync.Mutex
}

func (a *fakeAdmin) CreateTopic(_ context.Context, req zkadmin.CreateTopicRequest) (*zkadmin.CreateTopicResult, error) {
	return &zkadmin.CreateTopicResult{Assignment: [][]int32{{1}}}, nil
}

func (a *fakeAdmin) AddPartitions(_ context.Context, req zkadmin.AddPartitionsRequest) (*zkadmin.AddPartitionsResult, error) {
	return &zkadmin.AddPartitionsResult{Previous: 1, Added: [][]int32{{1}}}, nil
}

func (a *fakeAdmin) MarkTopicForDeletion(_ context.Context, topic string, dryRun bool) (*zkadmin.DeleteTopicResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	v := *a.views.View()
	if t := v.Topics.Get(topic); t != nil {
		c := *t
		c.Deleting = true
		v.Topics = v.Topics.With(&c)
	}
	a.views.Publish(&v)
	return &zkadmin.DeleteTopicResult{}, nil
}

func (a *fakeAdmin) AlterConfigs(_ context.Context, req zkadmin.ConfigAlteration) (*zkadmin.ConfigAlterResult, error) {
	return &zkadmin.ConfigAlterResult{After: req.Set}, nil
}

func (a *fakeAdmin) ReadEntityConfig(context.Context, string, string) (map[string]string, int32, error) {
	return nil, -1, nil
}

func (a *fakeAdmin) StartReassignment(_ context.Context, entries []znodes.ReassignmentEntry, dryRun bool) (*zkadmin.ReassignmentResult, error) {
	return &zkadmin.ReassignmentResult{Requested: entries}, nil
}

func (a *fakeAdmin) CancelReassignments(context.Context, []znodes.TopicPartition, bool) (*zkadmin.ReassignmentResult, error) {
	return &zkadmin.ReassignmentResult{}, nil
}

// noElections answers every election ELECTION_NOT_NEEDED.
type noElections struct{}

func (noElections) ElectLeaders(_ context.Context, req *kmsg.ElectLeadersRequest) (*kmsg.ElectLeadersResponse, error) {
	resp := req.ResponseKind().(*kmsg.ElectLeadersResponse)
	for _, t := range req.Topics {
		rt := kmsg.NewElectLeadersResponseTopic()
		rt.Topic = t.Topic
		for _, p := range t.Partitions {
			rp := kmsg.NewElectLeadersResponseTopicPartition()
			rp.Partition, rp.ErrorCode = p, kerr.ElectionNotNeeded.Code
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp, nil
}

type authzEnv struct {
	t    *testing.T
	addr string
}

func newAuthzEnv(t *testing.T, bindings []Binding, opts Options) *authzEnv {
	t.Helper()
	zk, _ := connectZK(t)
	ctx := testCtx(t)
	if err := NewStore(zk).Add(ctx, bindings); err != nil {
		t.Fatal(err)
	}
	log := zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.WarnLevel)
	cache := runCache(t, zk)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := int32(ln.Addr().(*net.TCPAddr).Port)
	ep := []znodes.Endpoint{{Listener: "SASL_PLAINTEXT", Host: "127.0.0.1", Port: port, SecurityProtocol: "SASL_PLAINTEXT"}}
	views := handler.NewViews(&handler.View{ClusterID: "authz-cluster", MetadataView: controller.MetadataView{
		Active: true, ControllerID: selfID,
		Self:    controller.BrokerView{ID: selfID, Endpoints: ep},
		Brokers: []controller.BrokerView{{ID: 1, Endpoints: ep}},
		Topics: controller.NewTopicViews(map[string]*controller.TopicView{"orders": {Name: "orders", ID: znodes.UUID{15: 1}, Partitions: []controller.PartitionView{
			{Partition: 0, Leader: 1, LeaderEpoch: 0, Replicas: []int32{1}, ISR: []int32{1}}}}}),
	}})
	cfg := config.Default()
	cfg.NodeID = selfID
	h, err := handler.New(handler.Options{Cluster: views, Admin: &fakeAdmin{views: views}, Elector: noElections{},
		Authorizer: NewAuthorizer(cache, opts, log), Config: cfg, Listener: "SASL_PLAINTEXT", Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	mux := wire.NewMux()
	if err := h.Register(mux); err != nil {
		t.Fatal(err)
	}
	sc, err := sasl.Config{Mechanisms: []string{"PLAIN"}, FailedAuthenticationDelay: -1, PlainUsers: map[string]string{
		"alice": "a", "bob": "b", "carol": "c", "admin": "a"}}.WireConfig()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := wire.New(wire.Config{Mux: mux, SASL: sc, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	t.Cleanup(func() {
		_ = srv.Close()
		<-served
	})
	return &authzEnv{t: t, addr: ln.Addr().String()}
}

// as returns a client authenticated as user (password = its first letter).
func (e *authzEnv) as(user string) *kgo.Client {
	e.t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.addr), kgo.RequestRetries(1),
		kgo.SASL(plain.Auth{User: user, Pass: user[:1]}.AsMechanism()))
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(cl.Close)
	return cl
}

func clusterPattern() Pattern { return Pattern{ResourceCluster, ClusterName, PatternLiteral} }

func TestAuthorizationPerAPI(t *testing.T) {
	e := newAuthzEnv(t, []Binding{
		{topic("*"), allow("User:alice", OpAll)},
		{clusterPattern(), allow("User:alice", OpAll)},
		{prefix("carol-"), allow("User:carol", OpCreate)},
		{topic("orders"), deny("User:admin", OpAll)},
	}, Options{SuperUsers: []Principal{{"User", "admin"}}})
	ctx := testCtx(t)
	alice, bob, carol, admin := e.as("alice"), e.as("bob"), e.as("carol"), e.as("admin")

	t.Run("Metadata", func(t *testing.T) {
		all := kmsg.NewPtrMetadataRequest()
		for cl, want := range map[*kgo.Client]int{alice: 1, bob: 0, admin: 1} {
			resp, err := all.RequestWith(ctx, cl)
			if err != nil {
				t.Fatalf("all topics: %v", err)
			}
			if len(resp.Topics) != want {
				t.Errorf("all topics: %d topics, want %d", len(resp.Topics), want)
			}
		}
		one := kmsg.NewPtrMetadataRequest()
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr("orders")
		one.Topics = append(one.Topics, rt)
		resp, err := one.RequestWith(ctx, bob)
		if err != nil || len(resp.Topics) != 1 || resp.Topics[0].ErrorCode != kerr.TopicAuthorizationFailed.Code {
			t.Errorf("bob, explicit topic: %+v %v", resp, err)
		}
		// kadm hides what Metadata hides (a fresh client: kgo caches
		// the explicit request's per-topic error).
		td, err := kadm.NewClient(e.as("bob")).ListTopics(ctx)
		if err != nil || len(td) != 0 {
			t.Errorf("kadm as bob listed %v, %v", td.Names(), err)
		}
	})

	t.Run("CreateTopics", func(t *testing.T) {
		for _, tc := range []struct {
			cl    *kgo.Client
			topic string
			want  int16
		}{
			{alice, "new", 0},       // Create on Cluster (KIP-4)
			{carol, "carol-new", 0}, // Create on the topic (KIP-277)
			{carol, "other", kerr.TopicAuthorizationFailed.Code}, // neither
			{bob, "new", kerr.TopicAuthorizationFailed.Code},
		} {
			req := kmsg.NewPtrCreateTopicsRequest()
			req.ValidateOnly, req.TimeoutMillis = true, 5000
			rt := kmsg.NewCreateTopicsRequestTopic()
			rt.Topic, rt.NumPartitions, rt.ReplicationFactor = tc.topic, 1, 1
			req.Topics = append(req.Topics, rt)
			resp, err := req.RequestWith(ctx, tc.cl)
			if err != nil || resp.Topics[0].ErrorCode != tc.want {
				t.Errorf("%s: %+v %v, want code %d", tc.topic, resp, err, tc.want)
			}
		}
	})

	t.Run("CreatePartitions", func(t *testing.T) {
		for cl, want := range map[*kgo.Client]int16{alice: 0, bob: kerr.TopicAuthorizationFailed.Code} {
			req := kmsg.NewPtrCreatePartitionsRequest()
			req.ValidateOnly, req.TimeoutMillis = true, 5000
			rt := kmsg.NewCreatePartitionsRequestTopic()
			rt.Topic, rt.Count = "orders", 2
			req.Topics = append(req.Topics, rt)
			resp, err := req.RequestWith(ctx, cl)
			if err != nil || resp.Topics[0].ErrorCode != want {
				t.Errorf("%+v %v, want %d", resp, err, want)
			}
		}
	})

	t.Run("Configs", func(t *testing.T) {
		for _, tc := range []struct {
			cl          *kgo.Client
			rtype       kmsg.ConfigResourceType
			name        string
			describe    int16
			incremental int16
		}{
			{alice, kmsg.ConfigResourceTypeTopic, "orders", 0, 0},
			{bob, kmsg.ConfigResourceTypeTopic, "orders", kerr.TopicAuthorizationFailed.Code, kerr.TopicAuthorizationFailed.Code},
			{alice, kmsg.ConfigResourceTypeBroker, "", 0, 0},
			{bob, kmsg.ConfigResourceTypeBroker, "", kerr.ClusterAuthorizationFailed.Code, kerr.ClusterAuthorizationFailed.Code},
		} {
			d := kmsg.NewPtrDescribeConfigsRequest()
			dr := kmsg.NewDescribeConfigsRequestResource()
			dr.ResourceType, dr.ResourceName = tc.rtype, tc.name
			d.Resources = append(d.Resources, dr)
			dresp, err := d.RequestWith(ctx, tc.cl)
			if err != nil || dresp.Resources[0].ErrorCode != tc.describe {
				t.Errorf("describe %v %s: %+v %v, want %d", tc.rtype, tc.name, dresp, err, tc.describe)
			}
			a := kmsg.NewPtrIncrementalAlterConfigsRequest()
			a.ValidateOnly = true
			ar := kmsg.NewIncrementalAlterConfigsRequestResource()
			ar.ResourceType, ar.ResourceName = tc.rtype, tc.name
			a.Resources = append(a.Resources, ar)
			aresp, err := a.RequestWith(ctx, tc.cl)
			if err != nil || aresp.Resources[0].ErrorCode != tc.incremental {
				t.Errorf("alter %v %s: %+v %v, want %d", tc.rtype, tc.name, aresp, err, tc.incremental)
			}
		}
	})

	t.Run("ClusterAlter", func(t *testing.T) {
		for cl, denied := range map[*kgo.Client]bool{alice: false, bob: true} {
			el := kmsg.NewPtrElectLeadersRequest()
			et := kmsg.NewElectLeadersRequestTopic()
			et.Topic, et.Partitions = "orders", []int32{0}
			el.Topics, el.TimeoutMillis = append(el.Topics, et), 5000
			eresp, err := el.RequestWith(ctx, cl)
			if err != nil || (eresp.ErrorCode == kerr.ClusterAuthorizationFailed.Code) != denied {
				t.Errorf("ElectLeaders denied=%v: %+v %v", denied, eresp, err)
			}
			ar := kmsg.NewPtrAlterPartitionAssignmentsRequest()
			at := kmsg.NewAlterPartitionAssignmentsRequestTopic()
			ap := kmsg.NewAlterPartitionAssignmentsRequestTopicPartition()
			ap.Partition, ap.Replicas = 0, []int32{1}
			at.Topic, at.Partitions = "orders", append(at.Partitions, ap)
			ar.Topics = append(ar.Topics, at)
			aresp, err := ar.RequestWith(ctx, cl)
			if err != nil || (aresp.ErrorCode == kerr.ClusterAuthorizationFailed.Code) != denied {
				t.Errorf("AlterPartitionAssignments denied=%v: %+v %v", denied, aresp, err)
			}
			lresp, err := kmsg.NewPtrListPartitionReassignmentsRequest().RequestWith(ctx, cl)
			if err != nil || (lresp.ErrorCode == kerr.ClusterAuthorizationFailed.Code) != denied {
				t.Errorf("ListPartitionReassignments denied=%v: %+v %v", denied, lresp, err)
			}
		}
	})

	t.Run("DeleteTopics", func(t *testing.T) {
		for _, tc := range []struct {
			cl   *kgo.Client
			want int16
		}{{bob, kerr.TopicAuthorizationFailed.Code}, {carol, kerr.TopicAuthorizationFailed.Code}, {alice, 0}} {
			req := kmsg.NewPtrDeleteTopicsRequest()
			req.TimeoutMillis = 5000
			rt := kmsg.NewDeleteTopicsRequestTopic()
			rt.Topic = kmsg.StringPtr("orders")
			req.Topics, req.TopicNames = append(req.Topics, rt), []string{"orders"}
			resp, err := req.RequestWith(ctx, tc.cl)
			if err != nil || resp.Topics[0].ErrorCode != tc.want {
				t.Errorf("%+v %v, want %d", resp, err, tc.want)
			}
		}
	})
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatal("test context ran out")
	}
}
