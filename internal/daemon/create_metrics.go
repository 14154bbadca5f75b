package daemon

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/kzadmin/kzadmin/mutationquota"
	"github.com/kzadmin/kzadmin/zkadmin"
)

// createRoundMetrics exports where topic creation spends its time, one
// observation per planning round of the group commit (a round may serve
// several requests): the cluster read (or the wait for the read sent
// ahead), the planning, and the multis, which include the controller's
// bookkeeping around them. A slow CreateTopics is then placed without a
// profiler: a long read points at ZooKeeper's read latency, a long plan at
// the cluster's size, a long commit at the multi and its fsync.
type createRoundMetrics struct {
	phases  *prometheus.HistogramVec
	preread *prometheus.CounterVec
}

func newCreateRoundMetrics(reg prometheus.Registerer) (*createRoundMetrics, error) {
	m := &createRoundMetrics{
		phases: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "kzadmin", Subsystem: "create_round", Name: "phase_seconds",
			Help:    "Time of each phase (read, plan, commit) of a CreateTopics planning round.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 2, 16), // 0.1 ms to about 3 s
		}, []string{"phase"}),
		preread: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "kzadmin", Subsystem: "create_round", Name: "total",
			Help: "CreateTopics planning rounds, by whether they planned on the read sent ahead (preread) or read afresh.",
		}, []string{"read"}),
	}
	for _, c := range []prometheus.Collector{m.phases, m.preread} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (m *createRoundMetrics) observe(t zkadmin.CreateRoundTiming) {
	m.phases.WithLabelValues("read").Observe(t.Read.Seconds())
	m.phases.WithLabelValues("plan").Observe(t.Plan.Seconds())
	if t.Commit > 0 {
		m.phases.WithLabelValues("commit").Observe(t.Commit.Seconds())
	}
	read := "fresh"
	if t.Preread {
		read = "preread"
	}
	m.preread.WithLabelValues(read).Inc()
}

// registerMutationQuotaMetrics exports what the controller mutation quota
// (KIP-599) let through and refused, so that an operator sees a quota
// at work without reading client errors.
func registerMutationQuotaMetrics(reg prometheus.Registerer, m *mutationquota.Manager) error {
	for _, c := range []prometheus.Collector{
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Namespace: "kzadmin", Subsystem: "controller_mutation", Name: "partitions_total",
			Help: "Partitions created, added or deleted under a controller_mutation_rate quota.",
		}, func() float64 { taken, _ := m.Counts(); return float64(taken) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Namespace: "kzadmin", Subsystem: "controller_mutation", Name: "throttled_total",
			Help: "Topics refused with THROTTLING_QUOTA_EXCEEDED by a controller_mutation_rate quota.",
		}, func() float64 { _, refused := m.Counts(); return float64(refused) }),
	} {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}
