package controller

import "github.com/prometheus/client_golang/prometheus"

// elrMetrics are KIP-966's controller metrics. ElectionFromEligibleLeader
// ReplicasPerSec is Kafka's name (a counter here, as the other PerSec
// meters); the gauges and the recovery counters are kzadmin's, named in
// Kafka's style under the same KafkaController and ControllerStats types.
type elrMetrics struct {
	fromELR       prometheus.Counter
	withELR       prometheus.Gauge
	withLastKnown prometheus.Gauge
	recoveries    prometheus.Counter
	recovered     prometheus.Counter
	inProgress    prometheus.Gauge
}

func newELRMetrics(reg prometheus.Registerer) (*elrMetrics, error) {
	gauge := func(name, help string) prometheus.Gauge {
		return prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: "kafka_controller", Subsystem: "KafkaController", Name: name, Help: help})
	}
	counter := func(name, help string) prometheus.Counter {
		return prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: "kafka_controller", Subsystem: "ControllerStats", Name: name, Help: help})
	}
	m := &elrMetrics{
		fromELR: counter("ElectionFromEligibleLeaderReplicasPerSec",
			"Leaders elected from the eligible leader replicas (KIP-966)."),
		withELR: gauge("PartitionsWithEligibleLeaderReplicasCount",
			"Partitions whose state holds eligible leader replicas."),
		withLastKnown: gauge("PartitionsWithLastKnownEligibleLeaderReplicasCount",
			"Partitions whose state holds last-known eligible leader replicas."),
		recoveries: counter("UncleanRecoveriesStartedPerSec",
			"Partitions for which unclean recovery asked the replicas for their logs."),
		recovered: counter("UncleanRecoveryElectionsPerSec",
			"Leaders elected by unclean recovery (also counted in UncleanLeaderElectionsPerSec)."),
		inProgress: gauge("UncleanRecoveriesInProgressCount",
			"Partitions whose unclean recovery is waiting for replica answers."),
	}
	if reg == nil {
		return m, nil
	}
	for _, col := range []prometheus.Collector{m.fromELR, m.withELR, m.withLastKnown, m.recoveries, m.recovered,
		m.inProgress} {
		if err := reg.Register(col); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// reset zeroes what only an active controller reports.
func (m *elrMetrics) reset() {
	m.withELR.Set(0)
	m.withLastKnown.Set(0)
	m.inProgress.Set(0)
}
