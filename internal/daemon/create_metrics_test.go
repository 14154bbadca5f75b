package daemon

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/kzadmin/kzadmin/zkadmin"
)

func TestCreateRoundMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := newCreateRoundMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	m.observe(zkadmin.CreateRoundTiming{Topics: 3, Preread: true, Read: time.Millisecond, Plan: time.Millisecond, Commit: 5 * time.Millisecond})
	m.observe(zkadmin.CreateRoundTiming{Topics: 1, Read: time.Millisecond, Plan: time.Millisecond}) // refused: no commit
	if got := testutil.ToFloat64(m.preread.WithLabelValues("preread")); got != 1 {
		t.Errorf("rounds on a pre-read: %v", got)
	}
	if got := testutil.ToFloat64(m.preread.WithLabelValues("fresh")); got != 1 {
		t.Errorf("rounds read afresh: %v", got)
	}
	if n := testutil.CollectAndCount(m.phases, "kzadmin_create_round_phase_seconds"); n != 3 {
		t.Errorf("%d phase series, want read, plan and commit", n)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "kzadmin_create_round_phase_seconds" {
			continue
		}
		for _, s := range f.GetMetric() {
			want := uint64(2)
			if s.GetLabel()[0].GetValue() == "commit" {
				want = 1
			}
			if got := s.GetHistogram().GetSampleCount(); got != want {
				t.Errorf("phase %s: %d observations, want %d", s.GetLabel()[0].GetValue(), got, want)
			}
		}
	}
}
