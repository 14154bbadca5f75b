package controller

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// BenchmarkTakeover measures, at 10k partitions by default
// (-bench.partitions or KZADMIN_BENCH_PARTITIONS for more) on three
// simulated brokers, how long a standby takes to become the ready
// controller once the active one is gone: from the deletion of
// /controller (seen by an observer session: "kill noticed") until the
// standby publishes its first active snapshot (the failover done: context
// loaded, every broker's requests queued, leaderless partitions handled).
// "cold" is Kafka's standby, which reads everything then; "warm" is
// Config.WarmStandby. The raw pipelined getData of the same topic and
// state znodes, in the same run, is the baseline; warm-load-ms is what the
// warm standby spent loading beforehand; stop-to-ready-ms also counts the
// old controller's resignation.
//
//	go test -run '^$' -bench Takeover -benchtime 1x ./controller/
//	go test -run '^$' -bench Takeover/warm -benchtime 1x -timeout 30m ./controller/ -args -bench.partitions=100000
func BenchmarkTakeover(b *testing.B) {
	for _, warm := range []bool{false, true} {
		name := "cold"
		if warm {
			name = "warm"
		}
		b.Run(name, func(b *testing.B) {
			for range b.N {
				benchTakeover(b, warm, benchSize(b))
			}
		})
	}
}

func benchTakeover(b *testing.B, warm bool, topics int) {
	b.StopTimer()
	n := topics * benchPartsPerTopic
	chroot := testChroot(b)
	obs := connectZK(b, chroot, "", benchSessionTimeout)
	states, data := benchLayout(b, obs, topics)
	raw, _ := rawBaselines(b, obs, topics, states, data)
	startBenchBrokers(b, chroot)
	active := startNode(b, chroot, benchNodeOpts(100, false, nil))
	benchWait(b, benchDeadline(n), "controller ready", func() bool { return active.c.Status().Ready })
	start := time.Now()
	logs := &syncBuffer{}
	standby := startNode(b, chroot, benchNodeOpts(101, warm, logs))
	benchWait(b, benchDeadline(n), "standby ready to take over", func() bool {
		st := standby.c.Status()
		return st.ActiveControllerID == 100 && (!warm || st.Warm)
	})
	loaded := time.Since(start)
	_, _, gone, err := obs.ExistsW(testCtx(b), znodes.ControllerPath)
	if err != nil {
		b.Fatal(err)
	}

	b.StartTimer()
	stopped := time.Now()
	go active.stop()
	ev := <-gone
	noticed := time.Now()
	if ev.Type != zkadmin.EventNodeDeleted {
		b.Fatalf("/controller watch: %v", ev)
	}
	ctx, cancel := context.WithTimeout(context.Background(), benchDeadline(n))
	defer cancel()
	v, err := standby.c.WaitSnapshot(ctx, func(v *MetadataView) bool { return v.Active })
	ready := time.Now()
	b.StopTimer()
	if err != nil || v.Topics.Len() != topics {
		b.Fatalf("takeover: %v, %d topics", err, v.Topics.Len())
	}
	if promoted := strings.Contains(logs.String(), "warm standby promoted"); promoted != warm {
		b.Fatalf("warm %v, promoted %v", warm, promoted)
	}
	b.ReportMetric(float64(ready.Sub(noticed).Milliseconds()), "noticed-to-ready-ms")
	b.ReportMetric(float64(ready.Sub(stopped).Milliseconds()), "stop-to-ready-ms")
	b.ReportMetric(float64(raw.Milliseconds()), "raw-getdata-ms")
	if warm {
		b.ReportMetric(float64(loaded.Milliseconds()), "warm-load-ms")
	}
	b.ReportMetric(float64(n), "partitions")
	b.Logf("load average at the end: %s", loadAverage())
}
