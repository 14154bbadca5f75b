package controller

import (
	"crypto/rand"
	"fmt"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// benchLayout writes topics × parts partitions (replication factor 3 over
// brokers 1–3, leader the first replica) with their state znodes, as a
// running cluster leaves them, and returns the state znode paths.
func benchLayout(b *testing.B, zk *zkadmin.Client, topics, parts int) []string {
	b.Helper()
	ctx := testCtx(b)
	var ops []zkadmin.Op
	var states []string
	for ti := range topics {
		name := fmt.Sprintf("t%04d", ti)
		a := znodes.TopicAssignment{Partitions: map[int32][]int32{}}
		for p := range parts {
			a.Partitions[int32(p)] = []int32{int32(1 + (ti+p)%3), int32(1 + (ti+p+1)%3), int32(1 + (ti+p+2)%3)}
		}
		id, _ := znodes.NewTopicID(rand.Reader)
		a.TopicID = id
		data, _ := a.Encode()
		ops = append(ops, zkadmin.CreateOp(znodes.TopicPath(name), data, zkadmin.Persistent),
			zkadmin.CreateOp(znodes.PartitionsPath(name), nil, zkadmin.Persistent))
		for p := range parts {
			r := a.Partitions[int32(p)]
			st, _ := znodes.PartitionState{Leader: r[0], ISR: r, ControllerEpoch: 1}.Encode()
			path := znodes.PartitionStatePath(name, int32(p))
			ops = append(ops, zkadmin.CreateOp(znodes.PartitionPath(name, int32(p)), nil, zkadmin.Persistent),
				zkadmin.CreateOp(path, st, zkadmin.Persistent))
			states = append(states, path)
		}
	}
	if _, err := zk.MultiBatched(ctx, ops, zkadmin.BatchOptions{StopOnError: true, MaxInFlight: 1}); err != nil {
		b.Fatalf("write layout: %v", err)
	}
	return states
}

// BenchmarkFailover measures, at 10k partitions on three simulated
// brokers: the cold failover (controller start to ready: election, every
// read, full LeaderAndIsr and UpdateMetadata queued), against the raw
// pipelined getData of the same topic and state znodes in the same run;
// then leader re-election after a broker dies (the BrokerChange event's
// processing time, Kafka's LeaderElectionRateAndTimeMs).
//
//	go test -run '^$' -bench Failover -benchtime 1x ./controller/
func BenchmarkFailover(b *testing.B) {
	const topics, parts = 200, 50
	for range b.N {
		b.StopTimer()
		chroot := testChroot(b)
		obs := connectZK(b, chroot, "", 0)
		states := benchLayout(b, obs, topics, parts)
		paths := append([]string(nil), states...)
		for ti := range topics {
			paths = append(paths, znodes.TopicPath(fmt.Sprintf("t%04d", ti)))
		}
		start := time.Now()
		for _, r := range obs.GetMany(testCtx(b), paths, 0) {
			if r.Err != nil {
				b.Fatal(r.Err)
			}
		}
		raw := time.Since(start)
		b.StartTimer()

		start = time.Now()
		sc := startSimIn(b, chroot, obs, nodeOpts{}, nil, 1, 2, 3)
		cold := time.Since(start)
		b.ReportMetric(float64(cold.Milliseconds()), "cold-failover-ms")
		b.ReportMetric(float64(raw.Milliseconds()), "raw-getdata-ms")
		b.ReportMetric(float64(cold)/float64(raw), "cold/raw")

		before := metricSum(b, sc.ctl, "kafka_controller_ControllerStats_LeaderElectionRateAndTimeMs")
		start = time.Now()
		sc.sim.Broker(1).Kill()
		waitFor(b, "no partition led by broker 1", func() bool {
			for _, tv := range sc.ctl.c.Snapshot().Topics {
				for _, pv := range tv.Partitions {
					if pv.Leader == 1 {
						return false
					}
				}
			}
			return true
		})
		b.ReportMetric(float64(time.Since(start).Milliseconds()), "broker-death-to-leaders-ms")
		b.ReportMetric(metricSum(b, sc.ctl, "kafka_controller_ControllerStats_LeaderElectionRateAndTimeMs")-before,
			"broker-change-event-ms")
		b.ReportMetric(float64(len(states)), "partitions")
	}
}

// metricSum reads a histogram's sum from the node's registry.
func metricSum(t testing.TB, n *node, name string) float64 {
	t.Helper()
	mfs, err := n.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name && len(mf.GetMetric()) > 0 {
			return mf.GetMetric()[0].GetHistogram().GetSampleSum()
		}
	}
	t.Fatalf("metric %s not found", name)
	return 0
}
