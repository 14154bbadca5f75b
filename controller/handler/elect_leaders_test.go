package handler

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"sync"
	"testing"

	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller"
)

// fakeElector plays the controller's ElectLeaders: a listed partition of
// an unknown topic is UNKNOWN_TOPIC_OR_PARTITION, one led by its
// preferred replica needs no election, others are elected (the preferred
// replica, or the desired leader) and, with publish, shown in the views.
// fakeDesiredElector wraps it as a DesiredElector too.
type fakeElector struct {
	views   *Views
	publish bool

	mu       sync.Mutex
	requests []*kmsg.ElectLeadersRequest
	desired  []map[string][]int32
}

func (e *fakeElector) ElectLeaders(_ context.Context, req *kmsg.ElectLeadersRequest) (*kmsg.ElectLeadersResponse, error) {
	return e.elect(req, nil), nil
}

func (e *fakeElector) elect(req *kmsg.ElectLeadersRequest, desired map[string][]int32) *kmsg.ElectLeadersResponse {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.requests = append(e.requests, req)
	v := e.views.View()
	resp := req.ResponseKind().(*kmsg.ElectLeadersResponse)
	results := map[tp]apiError{}
	var changed []*controller.TopicView
	for _, t := range req.Topics {
		vt := v.Topic(t.Topic)
		nt := copyTopic(vt)
		for i, p := range t.Partitions {
			if vt == nil || p < 0 || int(p) >= len(vt.Partitions) {
				results[tp{t.Topic, p}] = newAPIError(3, "The partition does not exist.")
				continue
			}
			want := vt.Partitions[p].Replicas[0]
			if d := desired[t.Topic]; d != nil {
				want = d[i]
			}
			if vt.Partitions[p].Leader == want {
				results[tp{t.Topic, p}] = withDefault(84)
				continue
			}
			results[tp{t.Topic, p}] = errNone
			nt.Partitions[p].Leader, nt.Partitions[p].LeaderEpoch = want, vt.Partitions[p].LeaderEpoch+1
		}
		if nt != nil {
			changed = append(changed, nt)
		}
	}
	var parts []tp
	for k := range results {
		parts = append(parts, k)
	}
	resp.Topics = electResults(parts, func(k tp) apiError { return results[k] })
	if e.publish {
		e.views.Publish(withTopics(v, changed...))
	}
	return resp
}

func copyTopic(t *controller.TopicView) *controller.TopicView {
	if t == nil {
		return nil
	}
	c := *t
	c.Partitions = append([]controller.PartitionView(nil), t.Partitions...)
	return &c
}

type fakeDesiredElector struct{ *fakeElector }

func (e fakeDesiredElector) ElectDesiredLeaders(_ context.Context, req *kmsg.ElectLeadersRequest,
	desired map[string][]int32) (*kmsg.ElectLeadersResponse, error) {
	e.mu.Lock()
	e.desired = append(e.desired, desired)
	e.mu.Unlock()
	return e.elect(req, desired), nil
}

func electFixture(t *testing.T, v *View, desire bool, mods ...func(*Options)) (*fixture, *fakeElector) {
	fe := &fakeElector{publish: true}
	f := newFixture(t, v, append(mods, func(o *Options) {
		fe.views = o.Cluster.(*Views)
		o.Elector = fe
		if desire {
			o.Elector = fakeDesiredElector{fe}
		}
	})...)
	return f, fe
}

func elReq(version int16, typ int8, timeoutMs int32, parts map[string][]int32) *kmsg.ElectLeadersRequest {
	r := kmsg.NewPtrElectLeadersRequest()
	r.Version, r.ElectionType, r.TimeoutMillis = version, typ, timeoutMs
	if parts != nil {
		r.Topics = []kmsg.ElectLeadersRequestTopic{}
	}
	names := make([]string, 0, len(parts))
	for n := range parts {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t := kmsg.NewElectLeadersRequestTopic()
		t.Topic, t.Partitions = n, parts[n]
		r.Topics = append(r.Topics, t)
	}
	return r
}

// elSummary renders a response as "top=code" and "topic-p:code".
func elSummary(r *kmsg.ElectLeadersResponse) []string {
	out := []string{fmt.Sprintf("top=%d", r.ErrorCode)}
	for _, t := range r.Topics {
		for _, p := range t.Partitions {
			out = append(out, fmt.Sprintf("%s-%d:%d", t.Topic, p.Partition, p.ErrorCode))
		}
	}
	return out
}

// electView: foo-0 is led by its preferred replica, foo-1 is not.
func electView() *View {
	foo := onlineTopic("foo", 1, []int32{1, 2}, []int32{2, 3})
	foo.Partitions[1].Leader = 3
	return withTopics(baseView(), foo)
}

func TestElectLeaders(t *testing.T) {
	inactive := electView()
	inactive.Active = false
	both := map[string][]int32{"foo": {0, 1}, "nope": {0}}
	cases := []struct {
		name    string
		view    *View
		authz   Authorizer
		publish bool
		req     *kmsg.ElectLeadersRequest
		want    []string
	}{
		{"v0 elected, waited for", electView(), nil, true, elReq(0, 0, 5000, both),
			[]string{"top=0", "foo-0:84", "foo-1:0", "nope-0:3"}},
		{"v2 view never shows it", electView(), nil, false, elReq(2, 0, 50, both),
			[]string{"top=0", "foo-0:84", "foo-1:7", "nope-0:3"}},
		{"v1 denied", electView(), denyAuthz{deny(OpAlter, ClusterResourceName): true}, true, elReq(1, 0, 5000, both),
			[]string{"top=31", "foo-0:31", "foo-1:31", "nope-0:31"}},
		{"v0 denied has no top-level error", electView(), denyAuthz{deny(OpAlter, ClusterResourceName): true}, true,
			elReq(0, 0, 5000, both), []string{"top=0", "foo-0:31", "foo-1:31", "nope-0:31"}},
		{"v1 denied, all partitions", electView(), denyAuthz{deny(OpAlter, ClusterResourceName): true}, true,
			elReq(1, 0, 5000, nil), []string{"top=31"}},
		{"v1 unknown election type", electView(), nil, true, elReq(1, 7, 5000, both),
			[]string{"top=42", "foo-0:42", "foo-1:42", "nope-0:42"}},
		{"not controller, listed", inactive, nil, true, elReq(2, 1, 5000, both),
			[]string{"top=0", "foo-0:41", "foo-1:41", "nope-0:41"}},
		{"not controller, all partitions", inactive, nil, true, elReq(2, 0, 5000, nil), []string{"top=41"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, fe := electFixture(t, tc.view, false, func(o *Options) { o.Authorizer = tc.authz })
			fe.publish = tc.publish
			got := f.call(tc.req).(*kmsg.ElectLeadersResponse)
			if s := elSummary(got); !reflect.DeepEqual(s, tc.want) {
				t.Errorf("got %v, want %v", s, tc.want)
			}
		})
	}
}

func v3Req(topics ...ElectLeadersV3Topic) *ElectLeadersV3Request {
	r := NewElectLeadersV3Request()
	r.Topics = topics
	return r
}

func TestElectLeadersV3(t *testing.T) {
	req := v3Req(ElectLeadersV3Topic{Topic: "foo", Partitions: []int32{0, 1}, DesiredLeaders: []int32{2, 2}},
		ElectLeadersV3Topic{Topic: "bar", Partitions: []int32{0}, DesiredLeaders: []int32{1, 2}})
	f, fe := electFixture(t, withTopics(electView(), onlineTopic("bar", 2, []int32{1})), true)
	got := f.call(req).(*kmsg.ElectLeadersResponse)
	if s := elSummary(got); !reflect.DeepEqual(s, []string{"top=0", "bar-0:42", "foo-0:0", "foo-1:0"}) {
		t.Errorf("desired: %v", s)
	}
	if p := f.views.View().Topic("foo").Partitions; p[0].Leader != 2 || p[1].Leader != 2 {
		t.Errorf("leaders after the election: %+v", p)
	}
	if len(fe.desired) != 1 || !reflect.DeepEqual(fe.desired[0], map[string][]int32{"foo": {2, 2}}) {
		t.Errorf("desired leaders passed: %v", fe.desired)
	}

	// Without a DesiredElector, desired leaders are refused and the rest
	// is a plain election.
	f, _ = electFixture(t, electView(), false)
	got = f.call(v3Req(ElectLeadersV3Topic{Topic: "foo", Partitions: []int32{0}, DesiredLeaders: []int32{2}},
		ElectLeadersV3Topic{Topic: "nope", Partitions: []int32{0}})).(*kmsg.ElectLeadersResponse)
	if s := elSummary(got); !reflect.DeepEqual(s, []string{"top=0", "foo-0:42", "nope-0:3"}) {
		t.Errorf("no DesiredElector: %v", s)
	}
	if got.Version != 3 {
		t.Errorf("response version %d", got.Version)
	}
}

func TestElectLeadersV3Codec(t *testing.T) {
	for _, r := range []*ElectLeadersV3Request{
		{ElectionType: 1, TimeoutMillis: 5},
		v3Req(ElectLeadersV3Topic{Topic: "a", Partitions: []int32{0, 3}, DesiredLeaders: []int32{1, 2}},
			ElectLeadersV3Topic{Topic: "b", Partitions: []int32{}}),
	} {
		var back ElectLeadersV3Request
		if err := back.ReadFrom(r.AppendTo(nil)); err != nil || !reflect.DeepEqual(&back, r) {
			t.Errorf("round trip of %+v: %+v, %v", r, back, err)
		}
	}
	// Unknown tagged fields are skipped, as in every flexible version.
	body := kbin.AppendInt8(nil, 0)
	body = kbin.AppendCompactNullableArrayLen(body, 1, false)
	body = kbin.AppendCompactString(body, "t")
	body = kbin.AppendCompactArrayLen(body, 1)
	body = kbin.AppendInt32(body, 4)
	body = kbin.AppendCompactNullableArrayLen(body, 0, true)
	body = kbin.AppendUvarint(body, 1) // one tag
	body = append(kbin.AppendUvarint(kbin.AppendUvarint(body, 9), 2), 0xAA, 0xBB)
	body = kbin.AppendInt32(body, 100)
	body = kbin.AppendUvarint(body, 0)
	var r ElectLeadersV3Request
	if err := r.ReadFrom(body); err != nil || r.TimeoutMillis != 100 || r.Topics[0].Partitions[0] != 4 ||
		r.Topics[0].DesiredLeaders != nil {
		t.Errorf("tagged: %+v %v", r, err)
	}
	if err := r.ReadFrom(body[:len(body)-3]); err == nil {
		t.Error("a truncated body decoded")
	}
	// v2's kmsg response reads a v3 answer.
	resp := r.ResponseKind()
	if resp.GetVersion() != 3 || resp.Key() != 43 {
		t.Errorf("response kind %+v", resp)
	}
}
