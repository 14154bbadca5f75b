package handler

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller"
	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// The real zkadmin.Admin must satisfy Admin as is.
var _ Admin = (*zkadmin.Admin)(nil)

// The controller must be a DesiredElector: the handlers find designated
// elections through this interface.
var _ DesiredElector = (*controller.Controller)(nil)

const selfID = 3000

func ep(port int32) []znodes.Endpoint {
	return []znodes.Endpoint{{Listener: "PLAINTEXT", Host: "127.0.0.1", Port: port, SecurityProtocol: "PLAINTEXT"}}
}

func rack(s string) *string { return &s }

func tid(b byte) znodes.UUID { return znodes.UUID{15: b} }

// baseView is an active controller with brokers 1-3 (1 and 2 racked) and
// no topics.
func baseView() *View {
	return &View{ClusterID: "cluster-one", MetadataView: controller.MetadataView{
		Active: true, ControllerID: selfID,
		Self: controller.BrokerView{ID: selfID, Endpoints: ep(9000)},
		Brokers: []controller.BrokerView{
			{ID: 1, Rack: rack("a"), Endpoints: ep(9001)},
			{ID: 2, Rack: rack("b"), Endpoints: ep(9002)},
			{ID: 3, Endpoints: ep(9003)},
		},
		Topics: controller.TopicViews{},
	}}
}

// onlineTopic is a topic whose partitions are led by their first replica
// with every replica in the ISR.
func onlineTopic(name string, id byte, asg ...[]int32) *controller.TopicView {
	t := &controller.TopicView{Name: name, ID: tid(id)}
	for p, replicas := range asg {
		t.Partitions = append(t.Partitions, controller.PartitionView{Partition: int32(p), Leader: replicas[0], LeaderEpoch: 0,
			Replicas: replicas, ISR: slices.Clone(replicas)})
	}
	return t
}

// withTopics returns a copy of v with the topics added (replacing).
func withTopics(v *View, topics ...*controller.TopicView) *View {
	nv := *v
	nv.Topics = v.Topics.With(topics...)
	return &nv
}

// fakeAdmin is an in-memory Admin with zkadmin's main refusals. When
// publish is set it plays the controller too: a created topic appears in
// the views, online unless offline is set.
type fakeAdmin struct {
	views   *Views
	publish bool
	offline bool

	mu      sync.Mutex
	nextID  byte
	creates []zkadmin.CreateTopicRequest
	adds    []zkadmin.AddPartitionsRequest
	deletes []string
	alters  []zkadmin.ConfigAlteration
	moves   [][]znodes.ReassignmentEntry
	cancels [][]znodes.TopicPartition
	moveErr error                        // scripted error of StartReassignment
	configs map[string]map[string]string // "type/name" -> overrides
	errs    map[string]error             // scripted errors by topic or entity name
	// maxPartitions, when set, refuses larger topics (for the fuzzer).
	maxPartitions int
	// onCreate, when set, is told of every topic written.
	onCreate func(name string, id znodes.UUID)
}

func newFakeAdmin(views *Views) *fakeAdmin {
	return &fakeAdmin{views: views, nextID: 100, configs: map[string]map[string]string{}, errs: map[string]error{}}
}

func adminError(kind zkadmin.ErrorKind, code int16, format string, args ...any) *zkadmin.AdminError {
	return &zkadmin.AdminError{Kind: kind, Code: code, Message: fmt.Sprintf(format, args...)}
}

func (f *fakeAdmin) CreateTopic(_ context.Context, req zkadmin.CreateTopicRequest) (*zkadmin.CreateTopicResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.creates = append(f.creates, req)
	if err := f.errs[req.Topic]; err != nil {
		return nil, err
	}
	if err := znodes.ValidateTopicName(req.Topic); err != nil {
		return nil, adminError(zkadmin.KindInvalidTopic, 17, "%v", err)
	}
	v := f.views.View()
	if t := v.Topic(req.Topic); t != nil {
		if t.Deleting {
			return nil, adminError(zkadmin.KindMarkedForDeletion, 36, "Topic '%s' is marked for deletion.", req.Topic)
		}
		return nil, adminError(zkadmin.KindTopicExists, 36, "Topic '%s' already exists.", req.Topic)
	}
	asg, err := f.place(v, req)
	if err != nil {
		return nil, err
	}
	if req.Admit != nil && !req.DryRun {
		if err := req.Admit(len(asg)); err != nil {
			return nil, err
		}
	}
	f.nextID++
	res := &zkadmin.CreateTopicResult{TopicID: tid(f.nextID), Assignment: asg}
	if !req.DryRun && f.onCreate != nil {
		f.onCreate(req.Topic, res.TopicID)
	}
	if !req.DryRun && f.publish {
		t := onlineTopic(req.Topic, f.nextID, asg...)
		if f.offline {
			for i := range t.Partitions {
				t.Partitions[i].Leader, t.Partitions[i].ISR = -1, nil
			}
		}
		f.views.Publish(withTopics(v, t))
	}
	return res, nil
}

func (f *fakeAdmin) place(v *View, req zkadmin.CreateTopicRequest) ([][]int32, error) {
	if req.Assignment != nil {
		for _, replicas := range req.Assignment {
			if len(replicas) == 0 || len(replicas) != len(req.Assignment[0]) {
				return nil, adminError(zkadmin.KindInvalidReplicaAssignment, 39, "bad lists")
			}
			for _, b := range replicas {
				if _, ok := v.Broker(b); !ok {
					return nil, adminError(zkadmin.KindInvalidReplicaAssignment, 39,
						"The manual partition assignment includes broker %d, but no such broker is registered.", b)
				}
			}
		}
		return req.Assignment, nil
	}
	n, rf := int(req.Partitions), int(req.ReplicationFactor)
	if n == -1 {
		n = 1
	}
	if rf == -1 {
		rf = 1
	}
	if n < 1 || rf < 1 || (f.maxPartitions > 0 && n > f.maxPartitions) {
		return nil, adminError(zkadmin.KindInvalidPartitions, 37, "bad counts %d x %d", n, rf)
	}
	if rf > len(v.Brokers) {
		return nil, adminError(zkadmin.KindInvalidReplicationFactor, 38,
			"Replication factor: %d larger than available brokers: %d.", rf, len(v.Brokers))
	}
	asg := make([][]int32, n)
	for p := range asg {
		for r := 0; r < rf; r++ {
			asg[p] = append(asg[p], v.Brokers[(p+r)%len(v.Brokers)].ID)
		}
	}
	return asg, nil
}

func (f *fakeAdmin) AddPartitions(_ context.Context, req zkadmin.AddPartitionsRequest) (*zkadmin.AddPartitionsResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.adds = append(f.adds, req)
	if err := f.errs[req.Topic]; err != nil {
		return nil, err
	}
	v := f.views.View()
	t := v.Topic(req.Topic)
	if t == nil {
		return nil, adminError(zkadmin.KindUnknownTopic, 3, "The topic '%s' does not exist.", req.Topic)
	}
	old := int32(len(t.Partitions))
	if f.maxPartitions > 0 && int(req.Total) > f.maxPartitions {
		return nil, adminError(zkadmin.KindInvalidPartitions, 37, "too many")
	}
	if req.Total <= old {
		return nil, adminError(zkadmin.KindInvalidPartitions, 37, "Topic already has %d partitions.", old)
	}
	added := req.Assignment
	for _, replicas := range added {
		if len(replicas) == 0 {
			return nil, adminError(zkadmin.KindInvalidReplicaAssignment, 39, "empty list")
		}
	}
	if added == nil {
		for p := old; p < req.Total; p++ {
			added = append(added, slices.Clone(t.Partitions[0].Replicas))
		}
	}
	if req.Admit != nil && !req.DryRun {
		if err := req.Admit(len(added)); err != nil {
			return nil, err
		}
	}
	if !req.DryRun && f.publish {
		var asg [][]int32
		for _, p := range t.Partitions {
			asg = append(asg, p.Replicas)
		}
		nt := onlineTopic(t.Name, t.ID[15], append(asg, added...)...)
		f.views.Publish(withTopics(v, nt))
	}
	return &zkadmin.AddPartitionsResult{Previous: old, Added: added}, nil
}

func (f *fakeAdmin) MarkTopicForDeletion(_ context.Context, topic string, dryRun bool) (*zkadmin.DeleteTopicResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.deletes = append(f.deletes, topic)
	if err := f.errs[topic]; err != nil {
		return nil, err
	}
	v := f.views.View()
	t := v.Topic(topic)
	if t == nil {
		return nil, adminError(zkadmin.KindUnknownTopic, 3, "Topic `%s` to delete does not exist", topic)
	}
	if !dryRun && f.publish {
		nv := withTopics(v)
		nv.Topics = nv.Topics.Without(topic)
		f.views.Publish(nv)
	}
	return &zkadmin.DeleteTopicResult{AlreadyMarked: t.Deleting}, nil
}

func (f *fakeAdmin) AlterConfigs(_ context.Context, req zkadmin.ConfigAlteration) (*zkadmin.ConfigAlterResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.alters = append(f.alters, req)
	if err := f.errs[req.EntityName]; err != nil {
		return nil, err
	}
	key := req.EntityType + "/" + req.EntityName
	before := f.configs[key]
	after := maps.Clone(before)
	if after == nil {
		after = map[string]string{}
	}
	for _, k := range req.Delete {
		delete(after, k)
	}
	maps.Copy(after, req.Set)
	if !req.DryRun {
		f.configs[key] = after
	}
	return &zkadmin.ConfigAlterResult{Before: before, After: after}, nil
}

func (f *fakeAdmin) StartReassignment(_ context.Context, entries []znodes.ReassignmentEntry, _ bool) (*zkadmin.ReassignmentResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.moves = append(f.moves, entries)
	return &zkadmin.ReassignmentResult{Requested: entries}, f.moveErr
}

func (f *fakeAdmin) CancelReassignments(_ context.Context, tps []znodes.TopicPartition, _ bool) (*zkadmin.ReassignmentResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cancels = append(f.cancels, tps)
	return &zkadmin.ReassignmentResult{}, nil
}

func (f *fakeAdmin) ReadEntityConfig(_ context.Context, entityType, name string) (map[string]string, int32, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	cfg, ok := f.configs[entityType+"/"+name]
	if !ok {
		return nil, -1, nil
	}
	return maps.Clone(cfg), 0, nil
}

// denyAuthz denies the listed (operation, resource name) pairs.
type denyAuthz map[string]bool

func (d denyAuthz) Authorize(_ context.Context, _ wire.Principal, op Operation, r Resource) bool {
	return !d[fmt.Sprintf("%d:%s", op, r.Name)]
}

func deny(op Operation, name string) string { return fmt.Sprintf("%d:%s", op, name) }

// fixture is handlers over a Views and a fakeAdmin.
type fixture struct {
	t     *testing.T
	views *Views
	admin *fakeAdmin
	h     *Handlers
}

func newFixture(t *testing.T, v *View, mods ...func(*Options)) *fixture {
	t.Helper()
	views := NewViews(v)
	admin := newFakeAdmin(views)
	opts := Options{Cluster: views, Admin: admin, Config: config.Default()}
	for _, m := range mods {
		m(&opts)
	}
	h, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, views: views, admin: admin, h: h}
}

// call sends body through the wire format at its version, as a client
// would, and returns the response as the client decodes it.
func (f *fixture) call(body kmsg.Request) kmsg.Response {
	f.t.Helper()
	var route wire.Route
	for _, r := range f.h.Routes() {
		if r.Key == body.Key() {
			route = r
		}
	}
	if route.Handler == nil {
		f.t.Fatalf("no route for key %d", body.Key())
	}
	version := body.GetVersion()
	decoded := kmsg.RequestForKey(body.Key())
	decoded.SetVersion(version)
	if d, ok := route.Decoders[version]; ok {
		var err error
		if decoded, err = d.Decode(body.AppendTo(nil)); err != nil {
			f.t.Fatalf("custom decode: %v", err)
		}
	} else if err := decoded.ReadFrom(body.AppendTo(nil)); err != nil {
		f.t.Fatalf("decode request: %v", err)
	}
	req := &wire.Request{Key: body.Key(), Version: version, Body: decoded, Principal: wire.AnonymousPrincipal()}
	resp, err := route.Handler.Handle(context.Background(), req)
	if err != nil {
		f.t.Fatalf("handle: %v", err)
	}
	resp.SetVersion(version)
	out := body.ResponseKind()
	out.SetVersion(version)
	if err := out.ReadFrom(resp.AppendTo(nil)); err != nil {
		f.t.Fatalf("decode response: %v", err)
	}
	return out
}

// sameWire fails unless got and want encode to the same bytes at got's
// version: what the client can see is equal.
func sameWire(t *testing.T, got, want kmsg.Response) {
	t.Helper()
	want.SetVersion(got.GetVersion())
	if !bytes.Equal(got.AppendTo(nil), want.AppendTo(nil)) {
		t.Errorf("v%d response differs\n got: %s\nwant: %s", got.GetVersion(), dump(got), dump(want))
	}
}

func dump(v any) string { return fmt.Sprintf("%+v", deref(v)) }

func deref(v any) any {
	switch x := v.(type) {
	case *kmsg.MetadataResponse:
		return fmtMetadata(x)
	}
	return v
}

func fmtMetadata(r *kmsg.MetadataResponse) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "ctl=%d cluster=%v authops=%d brokers=[", r.ControllerID, ptr(r.ClusterID), r.AuthorizedOperations)
	for _, br := range r.Brokers {
		fmt.Fprintf(&b, "{%d %s:%d rack=%v}", br.NodeID, br.Host, br.Port, ptr(br.Rack))
	}
	b.WriteString("] topics=[")
	for _, t := range r.Topics {
		fmt.Fprintf(&b, "{%v err=%d id=%x internal=%v ops=%d parts=%+v}", ptr(t.Topic), t.ErrorCode, t.TopicID[15],
			t.IsInternal, t.AuthorizedOperations, t.Partitions)
	}
	return b.String() + "]"
}

func ptr(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

func sp(s string) *string { return &s }
