package znodes_test

import (
	"fmt"
	"testing"

	"github.com/kzadmin/kzadmin/znodes"
)

// The controller decodes every partition state and topic assignment at
// failover; these benchmarks give the per-znode cost.

func BenchmarkDecodePartitionState(b *testing.B) {
	data := []byte(`{"controller_epoch":7,"leader":1,"version":1,"leader_epoch":0,"isr":[1,2,3]}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := znodes.DecodePartitionState("t", 0, data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodePartitionState(b *testing.B) {
	s := znodes.PartitionState{Leader: 1, ISR: []int32{1, 2, 3}, ControllerEpoch: 7}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Encode(); err != nil {
			b.Fatal(err)
		}
	}
}

func benchAssignment(partitions int) znodes.TopicAssignment {
	a := znodes.TopicAssignment{Partitions: make(map[int32][]int32, partitions)}
	for p := 0; p < partitions; p++ {
		a.Partitions[int32(p)] = []int32{int32(p % 100), int32((p + 1) % 100), int32((p + 2) % 100)}
	}
	return a
}

func BenchmarkDecodeTopicAssignment(b *testing.B) {
	for _, n := range []int{1, 100, 1000} {
		data, err := benchAssignment(n).Encode()
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("partitions=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := znodes.DecodeTopicAssignment("t", data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkEncodeTopicAssignment(b *testing.B) {
	a := benchAssignment(1000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := a.Encode(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeBrokerRegistration(b *testing.B) {
	data := []byte(`{"version":5,"host":"b1.example.com","port":9092,"jmx_port":-1,"timestamp":"1700000000123",` +
		`"endpoints":["PLAINTEXT://b1.example.com:9092","INTERNAL://b1.example.com:9093"],` +
		`"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT","INTERNAL":"SASL_SSL"},"rack":"us-east-1a","features":{}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := znodes.DecodeBrokerRegistration(1, data); err != nil {
			b.Fatal(err)
		}
	}
}
