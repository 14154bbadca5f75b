package handler

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

func dtReq(version int16, timeoutMs int32, names ...string) *kmsg.DeleteTopicsRequest {
	r := kmsg.NewPtrDeleteTopicsRequest()
	r.Version, r.TimeoutMillis = version, timeoutMs
	for _, n := range names {
		if version < 6 {
			r.TopicNames = append(r.TopicNames, n)
			continue
		}
		t := kmsg.NewDeleteTopicsRequestTopic()
		t.Topic = sp(n)
		r.Topics = append(r.Topics, t)
	}
	return r
}

func dtByID(r *kmsg.DeleteTopicsRequest, name *string, id byte) *kmsg.DeleteTopicsRequest {
	t := kmsg.NewDeleteTopicsRequestTopic()
	t.Topic = name
	if id != 0 {
		t.TopicID = tid(id)
	}
	r.Topics = append(r.Topics, t)
	return r
}

func dtResult(name *string, id byte, code int16) kmsg.DeleteTopicsResponseTopic {
	t := kmsg.NewDeleteTopicsResponseTopic()
	t.Topic, t.ErrorCode = name, code
	if id != 0 {
		t.TopicID = tid(id)
	}
	return t
}

func dtResp(topics ...kmsg.DeleteTopicsResponseTopic) *kmsg.DeleteTopicsResponse {
	r := kmsg.NewPtrDeleteTopicsResponse()
	r.Topics = topics
	return r
}

func deleteView() *View {
	baz := onlineTopic("baz", 3, []int32{1})
	baz.Deleting = true
	return withTopics(baseView(), onlineTopic("foo", 1, []int32{1}), onlineTopic("bar", 2, []int32{2}), baz)
}

func TestDeleteTopicsWholeRequest(t *testing.T) {
	inactive := deleteView()
	inactive.Active = false
	cases := []struct {
		name    string
		view    *View
		disable bool
		req     *kmsg.DeleteTopicsRequest
		want    *kmsg.DeleteTopicsResponse
	}{
		{"not controller", inactive, false, dtByID(dtReq(6, 0, "foo"), nil, 2),
			dtResp(dtResult(sp("foo"), 0, 41), dtResult(nil, 2, 41))},
		{"disabled v3+", deleteView(), true, dtReq(3, 0, "foo", "x"), dtResp(dtResult(sp("foo"), 0, 73), dtResult(sp("x"), 0, 73))},
		{"disabled v0-2", deleteView(), true, dtReq(2, 0, "foo"), dtResp(dtResult(sp("foo"), 0, 42))},
		{"v6 name and id together", deleteView(), false, dtByID(dtReq(6, 0, "foo"), sp("bar"), 2),
			dtResp(dtResult(sp("foo"), 0, 42), dtResult(sp("bar"), 2, 42))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, tc.view, func(o *Options) { o.Config.DeleteTopicEnable = !tc.disable })
			sameWire(t, f.call(tc.req), tc.want)
			if len(f.admin.deletes) != 0 {
				t.Errorf("deleted %v", f.admin.deletes)
			}
		})
	}
}

func TestDeleteTopicsEntries(t *testing.T) {
	authz := denyAuthz{deny(OpDelete, "bar"): true}
	f := newFixture(t, deleteView(), func(o *Options) { o.Authorizer = authz })
	req := dtReq(6, 0, "foo", "bar", "baz", "invalid name", "foo")
	req = dtByID(req, nil, 9)
	got := f.call(req)
	sameWire(t, got, dtResp(
		dtResult(sp("foo"), 0, 7), // queued; timeout 0 answers REQUEST_TIMED_OUT
		dtResult(sp("bar"), 0, 29),
		dtResult(sp("baz"), 0, 3), // already being deleted: looks gone
		dtResult(sp("invalid name"), 0, 3),
		dtResult(sp("foo"), 0, 0), // a duplicate: only the first entry gets the outcome
		dtResult(nil, 9, 100),
	))
	if len(f.admin.deletes) != 1 {
		t.Errorf("Admin deletions %v, want foo once", f.admin.deletes)
	}
}

func TestDeleteTopicsByIDAuthorization(t *testing.T) {
	authz := denyAuthz{deny(OpDescribe, "foo"): true}
	f := newFixture(t, deleteView(), func(o *Options) { o.Authorizer = authz })
	f.admin.publish = true
	got := f.call(dtByID(dtByID(dtReq(6, 5000), nil, 1), nil, 2))
	sameWire(t, got, dtResp(dtResult(nil, 1, 29), dtResult(sp("bar"), 2, 0)))
}

func TestDeleteTopicsTimeout(t *testing.T) {
	for _, tc := range []struct {
		name      string
		timeoutMs int32
		publish   bool
		want      int16
	}{
		{"positive waits until gone", 10000, true, 0},
		{"expires when never gone", 50, false, 7},
		{"zero never waits", 0, true, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, deleteView())
			f.admin.publish = tc.publish
			got := f.call(dtReq(5, tc.timeoutMs, "foo")).(*kmsg.DeleteTopicsResponse)
			if r := got.Topics[0]; r.ErrorCode != tc.want || r.ErrorMessage != nil {
				t.Errorf("result %+v, want %d", r, tc.want)
			}
		})
	}
}
