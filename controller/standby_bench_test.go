package controller

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// BenchmarkTakeover measures, at 10k partitions (200 topics × 50) on
// three simulated brokers, how long a standby takes to become the ready
// controller once the active one is gone: from the deletion of /controller
// (seen by an observer session) until the standby publishes its first
// active snapshot (the failover done: context loaded, every broker's
// requests queued, leaderless partitions handled). "cold" is Kafka's
// standby, which reads everything then; "warm" is Config.WarmStandby. The
// raw pipelined getData of the same topic and state znodes, in the same
// run, is the baseline; warm-load-ms is what the warm standby spent
// loading beforehand.
//
//	go test -run '^$' -bench Takeover -benchtime 1x ./controller/
func BenchmarkTakeover(b *testing.B) {
	for _, warm := range []bool{false, true} {
		name := "cold"
		if warm {
			name = "warm"
		}
		b.Run(name, func(b *testing.B) {
			for range b.N {
				benchTakeover(b, warm, 200, 50)
			}
		})
	}
}

func benchTakeover(b *testing.B, warm bool, topics, parts int) {
	b.StopTimer()
	chroot := testChroot(b)
	obs := connectZK(b, chroot, "", 0)
	paths := benchLayout(b, obs, topics, parts)
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
	sc := startSimIn(b, chroot, obs, nodeOpts{}, nil, 1, 2, 3)
	start = time.Now()
	logs := &syncBuffer{}
	standby := startNode(b, chroot, nodeOpts{id: 101, warm: warm, logLevel: zerolog.InfoLevel, logTo: logs})
	waitFor(b, "standby ready to take over", func() bool {
		st := standby.c.Status()
		return st.ActiveControllerID == 100 && (!warm || st.Warm)
	})
	loaded := time.Since(start)
	_, _, gone, err := obs.ExistsW(testCtx(b), znodes.ControllerPath)
	if err != nil {
		b.Fatal(err)
	}

	b.StartTimer()
	go sc.ctl.stop()
	ev := <-gone
	noticed := time.Now()
	if ev.Type != zkadmin.EventNodeDeleted {
		b.Fatalf("/controller watch: %v", ev)
	}
	v, err := standby.c.WaitSnapshot(testCtx(b), func(v *MetadataView) bool { return v.Active })
	took := time.Since(noticed)
	b.StopTimer()
	if err != nil || len(v.Topics) != topics {
		b.Fatalf("takeover: %v, %d topics", err, len(v.Topics))
	}
	if promoted := strings.Contains(logs.String(), "warm standby promoted"); promoted != warm {
		b.Fatalf("warm %v, promoted %v", warm, promoted)
	}
	b.ReportMetric(float64(took.Milliseconds()), "takeover-ms")
	b.ReportMetric(float64(raw.Milliseconds()), "raw-getdata-ms")
	if warm {
		b.ReportMetric(float64(loaded.Milliseconds()), "warm-load-ms")
	}
	b.ReportMetric(float64(topics*parts), "partitions")
}
