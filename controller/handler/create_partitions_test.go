package handler

import (
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/zkadmin"
)

type cpTopic struct {
	name  string
	count int32
	asg   [][]int32 // nil: automatic
}

func cpReq(version int16, timeoutMs int32, validateOnly bool, topics ...cpTopic) *kmsg.CreatePartitionsRequest {
	r := kmsg.NewPtrCreatePartitionsRequest()
	r.Version, r.TimeoutMillis, r.ValidateOnly = version, timeoutMs, validateOnly
	for _, t := range topics {
		rt := kmsg.NewCreatePartitionsRequestTopic()
		rt.Topic, rt.Count = t.name, t.count
		if t.asg != nil {
			rt.Assignment = []kmsg.CreatePartitionsRequestTopicAssignment{}
		}
		for _, replicas := range t.asg {
			a := kmsg.NewCreatePartitionsRequestTopicAssignment()
			a.Replicas = replicas
			rt.Assignment = append(rt.Assignment, a)
		}
		r.Topics = append(r.Topics, rt)
	}
	return r
}

func cpResult(name string, code int16, msg *string) kmsg.CreatePartitionsResponseTopic {
	t := kmsg.NewCreatePartitionsResponseTopic()
	t.Topic, t.ErrorCode, t.ErrorMessage = name, code, msg
	return t
}

func cpResp(topics ...kmsg.CreatePartitionsResponseTopic) *kmsg.CreatePartitionsResponse {
	r := kmsg.NewPtrCreatePartitionsResponse()
	r.Topics = topics
	return r
}

func TestCreatePartitions(t *testing.T) {
	gone := onlineTopic("gone", 4, []int32{1})
	gone.Deleting = true
	v := withTopics(baseView(), onlineTopic("foo", 1, []int32{1, 2}), onlineTopic("bar", 2, []int32{2}),
		onlineTopic("locked", 3, []int32{3}), gone)
	f := newFixture(t, v, func(o *Options) { o.Authorizer = denyAuthz{deny(OpAlter, "locked"): true} })
	f.admin.errs["reassigning"] = adminError(zkadmin.KindReassignmentInProgress, 60,
		"A partition reassignment is in progress for the topic 'reassigning'.")
	got := f.call(cpReq(3, 0, false,
		cpTopic{name: "foo", count: 3},
		cpTopic{name: "dup", count: 2},
		cpTopic{name: "locked", count: 2},
		cpTopic{name: "gone", count: 2},
		cpTopic{name: "bar", count: 3, asg: [][]int32{{12}, {13, 12}}},
		cpTopic{name: "bar", count: 2, asg: [][]int32{{1}}}, // duplicate of bar
		cpTopic{name: "dup", count: 2},
		cpTopic{name: "missing", count: 2},
		cpTopic{name: "reassigning", count: 2},
	))
	dupMsg := sp("Duplicate topic in request.")
	sameWire(t, got, cpResp(
		cpResult("foo", 7, nil), // timeout 0: written, not waited for
		cpResult("dup", 42, dupMsg),
		cpResult("locked", 29, sp("The topic authorization is failed.")),
		cpResult("gone", 17, sp("The topic is queued for deletion.")),
		cpResult("bar", 42, dupMsg),
		cpResult("missing", 3, sp("The topic 'missing' does not exist.")),
		cpResult("reassigning", 60, sp("A partition reassignment is in progress for the topic 'reassigning'.")),
	))
	if len(f.admin.adds) != 3 || f.admin.adds[0].Assignment != nil || f.admin.adds[0].Total != 3 {
		t.Errorf("Admin saw %+v", f.admin.adds)
	}
}

func TestCreatePartitionsAssignments(t *testing.T) {
	v := withTopics(baseView(), onlineTopic("foo", 1, []int32{1}))
	f := newFixture(t, v)
	// The assignment reaches Admin as given: Admin checks the brokers, in
	// Kafka's order (after the reassignment and the counts).
	f.call(cpReq(1, 0, true, cpTopic{name: "foo", count: 3, asg: [][]int32{{12}, {13, 1}, {12}}}))
	if len(f.admin.adds) != 1 || !slices.Equal(f.admin.adds[0].Assignment[1], []int32{13, 1}) {
		t.Errorf("Admin saw %+v", f.admin.adds)
	}
	f.admin.adds = nil
	// An empty (non-null) assignment reaches Admin as a manual assignment
	// of zero lists; validateOnly reaches it as DryRun.
	f.call(cpReq(1, 0, true, cpTopic{name: "foo", count: 2, asg: [][]int32{}}))
	if a := f.admin.adds[0]; a.Assignment == nil || len(a.Assignment) != 0 || !a.DryRun {
		t.Errorf("Admin saw %+v", a)
	}
}

func TestCreatePartitionsNotControllerAndTimeout(t *testing.T) {
	v := withTopics(baseView(), onlineTopic("foo", 1, []int32{1}))
	v.Active = false
	f := newFixture(t, v)
	sameWire(t, f.call(cpReq(0, 1000, false, cpTopic{name: "foo", count: 2}, cpTopic{name: "foo", count: 2})),
		cpResp(cpResult("foo", 41, nil)))

	for _, tc := range []struct {
		name         string
		timeoutMs    int32
		validateOnly bool
		publish      bool
		want         int16
	}{
		{"waits for leaders", 10000, false, true, 0},
		{"expires", 50, false, false, 7},
		{"validateOnly never times out", 0, true, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, withTopics(baseView(), onlineTopic("foo", 1, []int32{1})))
			f.admin.publish = tc.publish
			got := f.call(cpReq(2, tc.timeoutMs, tc.validateOnly, cpTopic{name: "foo", count: 4})).(*kmsg.CreatePartitionsResponse)
			if got.Topics[0].ErrorCode != tc.want {
				t.Errorf("result %+v, want %d", got.Topics[0], tc.want)
			}
		})
	}
}
