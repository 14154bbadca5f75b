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
	v, tps := benchView(100, 10_000)
	b.Run("Build", func(b *testing.B) { benchElection(b, v, tps, false) })
	b.Run("Encode", func(b *testing.B) { benchElection(b, v, tps, true) })
}

// BenchmarkBatchFailover100k is the failover's full LeaderAndIsr and
// UpdateMetadata at the takeover benchmark's size: 100k partitions, RF 3,
// 3 brokers. PerReplica adds one broker per call, as the replica state
// machine does replica by replica; Reversed adds the partitions in
// descending order (the slow path: a sort and merge per list).
func BenchmarkBatchFailover100k(b *testing.B) {
	v, tps := benchView(3, 100_000)
	b.Run("PerPartition", func(b *testing.B) { benchElection(b, v, tps, false) })
	b.Run("PerReplica", func(b *testing.B) { benchPerReplica(b, v, tps) })
	rev := make([]election.TopicPartition, len(tps))
	for i, x := range tps {
		rev[len(tps)-1-i] = x
	}
	b.Run("Reversed", func(b *testing.B) { benchPerReplica(b, v, rev) })
}

// benchView registers brokers 1..brokers and lays out n partitions, 100
// per topic, RF 3, round robin, led by their first replica.
func benchView(brokers, n int) (*fakeView, []election.TopicPartition) {
	v := newFakeView()
	for id := int32(1); id <= int32(brokers); id++ {
		v.addBroker(id, int64(id), nil)
	}
	tps := make([]election.TopicPartition, 0, n)
	for i := range n {
		x := tp(fmt.Sprintf("topic-%05d", i/100), int32(i%100))
		r := []int32{int32(i%brokers + 1), int32((i+1)%brokers + 1), int32((i+2)%brokers + 1)}
		v.addPartition(x, r, &election.LeaderAndIsr{Leader: r[0], LeaderEpoch: 3, ISR: r, PartitionEpoch: 4})
		tps = append(tps, x)
	}
	return v, tps
}

func benchElection(b *testing.B, v *fakeView, tps []election.TopicPartition, encode bool) {
	var buf []byte
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

func benchPerReplica(b *testing.B, v *fakeView, tps []election.TopicPartition) {
	b.ReportAllocs()
	for b.Loop() {
		batch := NewBatch(Config{IBP: config.IBPLatest, ControllerID: 1000}, v)
		for _, x := range tps {
			l, _ := v.Leadership(x)
			a := election.ReplicaAssignment{Replicas: v.replicas[x]}
			for _, r := range a.Replicas {
				batch.AddLeaderAndIsr([]int32{r}, x, l, a, false)
			}
		}
		if _, err := batch.Emit(5); err != nil {
			b.Fatal(err)
		}
	}
}
