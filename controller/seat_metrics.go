package controller

import "github.com/prometheus/client_golang/prometheus"

// seatMetrics count what this node did to win the controller seat. The
// names are kzadmin's, in Kafka's style under ControllerStats.
type seatMetrics struct {
	reclaims *prometheus.CounterVec
	fastWins prometheus.Counter
}

func newSeatMetrics(reg prometheus.Registerer) (*seatMetrics, error) {
	m := &seatMetrics{
		reclaims: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "kafka_controller", Subsystem: "ControllerStats", Name: "SeatReclaimsPerSec",
			Help: "Attempts to take /controller back from a Kafka broker (kzadmin.controller.reclaim.from.brokers), by result (won, lost).",
		}, []string{"result"}),
		fastWins: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: "kafka_controller", Subsystem: "ControllerStats", Name: "FastElectionsPerSec",
			Help: "Controller elections won with the election multi alone, sent as /controller was deleted.",
		}),
	}
	if reg == nil {
		return m, nil
	}
	for _, col := range []prometheus.Collector{m.reclaims, m.fastWins} {
		if err := reg.Register(col); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (m *seatMetrics) reclaim(won bool) {
	result := "lost"
	if won {
		result = "won"
	}
	m.reclaims.WithLabelValues(result).Inc()
}
