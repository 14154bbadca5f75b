package handler

import (
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestDescribeTopicPartitionsELR: the view's ELR and last-known ELR are
// answered as they are, and as empty lists (never null) when the view
// has none, as a KRaft broker answers with ELR disabled.
func TestDescribeTopicPartitionsELR(t *testing.T) {
	top := onlineTopic("elr", 1, []int32{1, 2, 3}, []int32{2, 3, 1})
	top.Partitions[0].Leader, top.Partitions[0].ISR = -1, []int32{1}
	top.Partitions[0].ELR, top.Partitions[0].LastKnownELR = []int32{2}, []int32{3}
	f := newFixture(t, withTopics(baseView(), top))
	got := f.call(dtpReq(100, nil, "elr")).(*kmsg.DescribeTopicPartitionsResponse)
	ps := got.Topics[0].Partitions
	if len(ps) != 2 {
		t.Fatalf("%d partitions", len(ps))
	}
	if !slices.Equal(ps[0].EligibleLeaderReplicas, []int32{2}) || !slices.Equal(ps[0].LastKnownELR, []int32{3}) || ps[0].LeaderID != -1 {
		t.Fatalf("partition 0: %+v", ps[0])
	}
	if ps[1].EligibleLeaderReplicas == nil || len(ps[1].EligibleLeaderReplicas) != 0 || ps[1].LastKnownELR == nil || len(ps[1].LastKnownELR) != 0 {
		t.Fatalf("partition 1 without ELR: %+v", ps[1])
	}
	// On the wire, too, an empty list is not null.
	enc := got.AppendTo(nil)
	dec := kmsg.NewPtrDescribeTopicPartitionsResponse()
	if err := dec.ReadFrom(enc); err != nil {
		t.Fatal(err)
	}
	if p := dec.Topics[0].Partitions[1]; p.EligibleLeaderReplicas == nil || p.LastKnownELR == nil {
		t.Fatalf("decoded partition 1: %+v", p)
	}
}
