package brokerchan

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/config"
)

// TestSelfRack: the controller, listed among UpdateMetadata's live
// brokers, takes the rack of the lowest broker id when every broker has a
// rack (otherwise a broker's auto-creation fails in Kafka's AdminUtils),
// keeps a rack of its own, and stays without one when no broker, or only
// some, have a rack.
func TestSelfRack(t *testing.T) {
	r := func(s string) *string { return &s }
	tests := []struct {
		name  string
		racks map[int32]*string
		self  *string
		want  *string
	}{
		{"all racked", map[int32]*string{3: r("r3"), 1: r("r1"), 2: r("r2")}, nil, r("r1")},
		{"none racked", map[int32]*string{1: nil, 2: nil}, nil, nil},
		{"mixed", map[int32]*string{1: r("r1"), 2: nil}, nil, nil},
		{"own rack kept", map[int32]*string{1: r("r1")}, r("ctl"), r("ctl")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := newFakeView()
			for id, rack := range tc.racks {
				v.addBroker(id, 100+int64(id), rack)
			}
			self := selfBroker()
			self.Rack = tc.self
			b := NewBatch(Config{IBP: config.IBPLatest, ControllerID: testControllerID, Self: self}, v)
			b.AddUpdateMetadata([]int32{1})
			reqs := emit(t, b)
			um := reqs[0].Msg.(*kmsg.UpdateMetadataRequest)
			last := um.LiveBrokers[len(um.LiveBrokers)-1]
			if last.ID != testControllerID || !sameRack(last.Rack, tc.want) {
				t.Fatalf("controller listed as %d rack %v, want %d rack %v", last.ID, deref(last.Rack), testControllerID, deref(tc.want))
			}
			if self.Rack != tc.self {
				t.Fatal("the batch changed Config.Self")
			}
		})
	}
}

func sameRack(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
