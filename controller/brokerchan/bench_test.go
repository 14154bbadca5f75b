package brokerchan

import (
	"fmt"
	"testing"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller/election"
)

// BenchmarkBatchElection10k is the broker traffic of re-electing 10k
// partitions (RF 3) on a 100-broker cluster: LeaderAndIsr to 3 replicas
// each plus UpdateMetadata for all to every broker. Build only builds the
// requests; Encode also encodes them into one reused buffer, as a channel
// does (in the daemon the 100 channels encode in parallel).
func BenchmarkBatchElection10k(b *testing.B) {
	b.Run("Build", func(b *testing.B) { benchElection(b, false) })
	b.Run("Encode", func(b *testing.B) { benchElection(b, true) })
}

func benchElection(b *testing.B, encode bool) {
	var buf []byte
	v := newFakeView()
	for id := int32(1); id <= 100; id++ {
		v.addBroker(id, int64(id), nil)
	}
	var tps []election.TopicPartition
	for i := range 10_000 {
		x := tp(fmt.Sprintf("topic-%d", i/100), int32(i%100))
		r := []int32{int32(i%100 + 1), int32((i+1)%100 + 1), int32((i+2)%100 + 1)}
		v.addPartition(x, r, &election.LeaderAndIsr{Leader: r[0], LeaderEpoch: 3, ISR: r, PartitionEpoch: 4})
		tps = append(tps, x)
	}
	b.ReportAllocs()
	for b.Loop() {
		batch := NewBatch(Config{IBP: config.IBPLatest, ControllerID: 1000}, v)
		for _, x := range tps {
			l, _ := v.Leadership(x)
			batch.AddLeaderAndIsr(v.replicas[x], x, l, election.ReplicaAssignment{Replicas: v.replicas[x]}, false)
		}
		reqs, err := batch.Emit(5)
		if err != nil {
			b.Fatal(err)
		}
		if encode {
			n := 0
			for _, r := range reqs {
				buf = r.Msg.AppendTo(buf[:0])
				n += len(buf)
			}
			b.ReportMetric(float64(n)/1e6, "MB-encoded")
		}
	}
}
