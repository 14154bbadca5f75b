package wire

import (
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kversion"
)

// TestKafkaZKBrokerVersionsMatchKversion checks the hand-written table
// against franz-go's independent record of Kafka 3.9 ZK brokers.
func TestKafkaZKBrokerVersionsMatchKversion(t *testing.T) {
	ours := KafkaZKBrokerVersions()
	want := map[int16]int16{}
	kversion.V3_9_0().EachMaxKeyVersion(func(k, v int16) { want[k] = v })
	if len(ours) != len(want) {
		t.Errorf("%d keys, kversion has %d", len(ours), len(want))
	}
	for _, vr := range ours {
		if max, ok := want[vr.Key]; !ok || vr.Min != 0 || vr.Max != max {
			t.Errorf("key %d: ours %d-%d, kversion 0-%d (known %v)", vr.Key, vr.Min, vr.Max, max, ok)
		}
	}
	if !slices.IsSortedFunc(ours, func(a, b VersionRange) int { return int(a.Key) - int(b.Key) }) {
		t.Error("table not sorted by key")
	}
}

func TestDefaultZKBrokerVersionsAdditions(t *testing.T) {
	def := DefaultZKBrokerVersions()
	kafka := KafkaZKBrokerVersions()
	if len(def) != len(kafka)+1 {
		t.Fatalf("%d entries, want Kafka's %d plus DescribeTopicPartitions", len(def), len(kafka))
	}
	for _, vr := range kafka {
		got, ok := ZKBrokerRange(vr.Key)
		want := vr
		if vr.Key == 43 {
			want.Max = 3
		}
		if !ok || got != want {
			t.Errorf("ZKBrokerRange(%d) = %v %v, want %v", vr.Key, got, ok, want)
		}
	}
	if got, ok := ZKBrokerRange(75); !ok || got != (VersionRange{75, 0, 0}) {
		t.Errorf("ZKBrokerRange(75) = %v %v", got, ok)
	}
	if _, ok := ZKBrokerRange(70); ok {
		t.Error("ZKBrokerRange(70) found")
	}
}

// TestDefaultZKBrokerVersionsRegistrable shows every range in the table can
// be registered, kmsg decoding all of it but ElectLeaders v3.
func TestDefaultZKBrokerVersionsRegistrable(t *testing.T) {
	m := NewMux()
	for _, vr := range DefaultZKBrokerVersions() {
		if vr.Key == apiVersionsKey {
			continue
		}
		r := Route{VersionRange: vr, Handler: nopHandler()}
		if vr.Key == 43 {
			r.Decoders = map[int16]Decoder{3: rawDecoder()}
		}
		if err := m.Register(r); err != nil {
			t.Errorf("register %v: %v", vr, err)
		}
	}
	if got, want := m.APIs(), DefaultZKBrokerVersions(); !slices.Equal(got, want) {
		t.Errorf("APIs %v\nwant %v", got, want)
	}
}
