package handler

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

type move struct {
	topic     string
	partition int32
	replicas  []int32 // nil: cancel
}

func aprReq(moves ...move) *kmsg.AlterPartitionAssignmentsRequest {
	r := kmsg.NewPtrAlterPartitionAssignmentsRequest()
	for _, m := range moves {
		if len(r.Topics) == 0 || r.Topics[len(r.Topics)-1].Topic != m.topic {
			t := kmsg.NewAlterPartitionAssignmentsRequestTopic()
			t.Topic = m.topic
			r.Topics = append(r.Topics, t)
		}
		p := kmsg.NewAlterPartitionAssignmentsRequestTopicPartition()
		p.Partition, p.Replicas = m.partition, m.replicas
		t := &r.Topics[len(r.Topics)-1]
		t.Partitions = append(t.Partitions, p)
	}
	return r
}

func aprSummary(r *kmsg.AlterPartitionAssignmentsResponse) []string {
	out := []string{fmt.Sprintf("top=%d:%s", r.ErrorCode, ptr(r.ErrorMessage))}
	for _, t := range r.Topics {
		for _, p := range t.Partitions {
			out = append(out, fmt.Sprintf("%s-%d:%d:%s", t.Topic, p.Partition, p.ErrorCode, ptr(p.ErrorMessage)))
		}
	}
	return out
}

// reassignView: foo-1 is moving from [2] to [3] (adding 3, removing 2).
func reassignView() *View {
	foo := onlineTopic("foo", 1, []int32{1}, []int32{2, 3})
	foo.Partitions[1].Adding, foo.Partitions[1].Removing = []int32{3}, []int32{2}
	gone := onlineTopic("gone", 2, []int32{1})
	gone.Deleting = true
	return withTopics(baseView(), foo, gone)
}

func TestAlterPartitionReassignments(t *testing.T) {
	f := newFixture(t, reassignView())
	got := f.call(aprReq(
		move{"foo", 0, []int32{}},
		move{"foo", 1, nil},
		move{"foo", 2, []int32{1}},
		move{"foo", 0, []int32{2, 3}}, // a partition listed twice keeps its last target
		move{"bar", 3, []int32{}},
		move{"bar", 0, []int32{1, 1}},
		move{"bar", 1, []int32{-1}},
		move{"bar", 2, []int32{1, 9}},
		move{"gone", 0, []int32{1}},
		move{"gone", 1, nil},
	)).(*kmsg.AlterPartitionAssignmentsResponse)
	want := []string{
		"top=0:",
		"foo-0:0:<nil>",
		"foo-1:0:<nil>",
		"foo-2:3:The partition does not exist.",
		"bar-3:39:Empty replica list specified in partition reassignment.",
		"bar-0:39:Duplicate replica ids in partition reassignment replica list: ArrayBuffer(1, 1)",
		"bar-1:39:Invalid broker id in replica list: ArrayBuffer(-1)",
		"bar-2:39:Replica assignment has brokers that are not alive. Replica list: ArrayBuffer(1, 9), live broker list: Set(1, 2, 3)",
		"gone-0:3:The partition does not exist.",
		"gone-1:3:The partition does not exist.",
	}
	if s := aprSummary(got); !reflect.DeepEqual(s, want) {
		t.Errorf("got  %q\nwant %q", s, want)
	}
	if len(f.admin.moves) != 1 || !reflect.DeepEqual(f.admin.moves[0], []znodes.ReassignmentEntry{{Topic: "foo", Partition: 0, Replicas: []int32{2, 3}}}) {
		t.Errorf("moves %+v", f.admin.moves)
	}
	if len(f.admin.cancels) != 1 || f.admin.cancels[0][0] != (znodes.TopicPartition{Topic: "foo", Partition: 1}) {
		t.Errorf("cancels %+v", f.admin.cancels)
	}
	// Cancelling what is not moving; a refused write answers all its moves.
	f.admin.moveErr = &zkadmin.AdminError{Kind: zkadmin.KindPartitionLimit, Code: 44, Message: "WILL_EXCEED_PARTITION_LIMITS: x"}
	got = f.call(aprReq(move{"foo", 0, nil}, move{"foo", 1, []int32{1, 2}})).(*kmsg.AlterPartitionAssignmentsResponse)
	want = []string{"top=0:", "foo-0:85:No partition reassignment is in progress.", "foo-1:44:WILL_EXCEED_PARTITION_LIMITS: x"}
	if s := aprSummary(got); !reflect.DeepEqual(s, want) {
		t.Errorf("got  %q\nwant %q", s, want)
	}
}

func TestReassignmentsWholeRequestErrors(t *testing.T) {
	inactive := reassignView()
	inactive.Active = false
	f := newFixture(t, inactive)
	got := f.call(aprReq(move{"foo", 0, []int32{1}})).(*kmsg.AlterPartitionAssignmentsResponse)
	if s := aprSummary(got); !reflect.DeepEqual(s, []string{"top=41:This is not the correct controller for this cluster."}) {
		t.Errorf("alter, not controller: %q", s)
	}
	lr := f.call(kmsg.NewPtrListPartitionReassignmentsRequest()).(*kmsg.ListPartitionReassignmentsResponse)
	if lr.ErrorCode != 41 || lr.ErrorMessage == nil {
		t.Errorf("list, not controller: %+v", lr)
	}

	denied := newFixture(t, reassignView(), func(o *Options) {
		o.Authorizer = denyAuthz{deny(OpAlter, ClusterResourceName): true, deny(OpDescribe, ClusterResourceName): true}
	})
	got = denied.call(aprReq(move{"foo", 0, []int32{1}})).(*kmsg.AlterPartitionAssignmentsResponse)
	if s := aprSummary(got); len(s) != 2 || got.ErrorCode != 31 || got.Topics[0].Partitions[0].ErrorCode != 31 {
		t.Errorf("alter, denied: %q", s)
	}
	if lr := denied.call(kmsg.NewPtrListPartitionReassignmentsRequest()).(*kmsg.ListPartitionReassignmentsResponse); lr.ErrorCode != 31 {
		t.Errorf("list, denied: %+v", lr)
	}
	if len(denied.admin.moves) != 0 {
		t.Errorf("moves %+v", denied.admin.moves)
	}
}

func TestListPartitionReassignments(t *testing.T) {
	f := newFixture(t, reassignView())
	want := kmsg.NewPtrListPartitionReassignmentsResponse()
	want.ErrorMessage = sp("") // Kafka's default, kept when nothing failed
	rt := kmsg.NewListPartitionReassignmentsResponseTopic()
	rt.Topic = "foo"
	rp := kmsg.NewListPartitionReassignmentsResponseTopicPartition()
	rp.Partition, rp.Replicas, rp.AddingReplicas, rp.RemovingReplicas = 1, []int32{2, 3}, []int32{3}, []int32{2}
	rt.Partitions = append(rt.Partitions, rp)
	want.Topics = append(want.Topics, rt)
	sameWire(t, f.call(kmsg.NewPtrListPartitionReassignmentsRequest()), want)

	r := kmsg.NewPtrListPartitionReassignmentsRequest()
	asked := kmsg.NewListPartitionReassignmentsRequestTopic()
	asked.Topic, asked.Partitions = "foo", []int32{0, 1, 7}
	r.Topics = append(r.Topics, asked)
	sameWire(t, f.call(r), want)
	asked.Partitions = []int32{0}
	r.Topics = []kmsg.ListPartitionReassignmentsRequestTopic{asked}
	none := kmsg.NewPtrListPartitionReassignmentsResponse()
	none.ErrorMessage = sp("")
	sameWire(t, f.call(r), none)
}
