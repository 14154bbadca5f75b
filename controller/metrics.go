package controller

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the controller's Prometheus collectors, named after Kafka's
// JMX beans: kafka.controller:type=KafkaController,name=X becomes
// kafka_controller_KafkaController_X, and type=ControllerStats likewise.
// Kafka's rate-and-time meters are histograms in milliseconds and its
// per-second meters are counters (Prometheus derives the rates).
type metrics struct {
	active           prometheus.Gauge
	offline          prometheus.Gauge
	imbalance        prometheus.Gauge
	topics           prometheus.Gauge
	partitions       prometheus.Gauge
	state            prometheus.Gauge
	leaderElection   prometheus.Histogram
	topicChange      prometheus.Histogram
	uncleanElections prometheus.Counter
	queueTime        prometheus.Histogram
	queueSize        prometheus.GaugeFunc
}

func newMetrics(reg prometheus.Registerer, queue *eventQueue) (*metrics, error) {
	gauge := func(name, help string) prometheus.Gauge {
		return prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: "kafka_controller", Subsystem: "KafkaController", Name: name, Help: help})
	}
	m := &metrics{
		active:     gauge("ActiveControllerCount", "1 when this node is the active controller, else 0."),
		offline:    gauge("OfflinePartitionsCount", "Partitions in the OfflinePartition state (topics whose deletion has started excepted)."),
		imbalance:  gauge("PreferredReplicaImbalanceCount", "Partitions whose leader is not their preferred replica."),
		topics:     gauge("GlobalTopicCount", "Topics known to the active controller."),
		partitions: gauge("GlobalPartitionCount", "Partitions with leadership known to the active controller."),
		state:      gauge("ControllerState", "What the controller event loop is doing (Kafka's ControllerState values; 0 idle)."),
		leaderElection: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: "kafka_controller", Subsystem: "ControllerStats", Name: "LeaderElectionRateAndTimeMs",
			Help:    "Time to process broker change events (Kafka's leader election timer), in milliseconds.",
			Buckets: prometheus.ExponentialBuckets(1, 2, 16),
		}),
		topicChange: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: "kafka_controller", Subsystem: "ControllerStats", Name: "TopicChangeRateAndTimeMs",
			Help:    "Time to process topic change events, a create's multi among them, in milliseconds.",
			Buckets: prometheus.ExponentialBuckets(0.125, 2, 18),
		}),
		uncleanElections: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: "kafka_controller", Subsystem: "ControllerStats", Name: "UncleanLeaderElectionsPerSec",
			Help: "Unclean leader elections (a counter: rate() gives Kafka's per-second meter).",
		}),
		queueTime: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: "kafka_controller", Subsystem: "ControllerEventManager", Name: "EventQueueTimeMs",
			Help:    "Time events waited in the controller's queue before the loop took them, in milliseconds.",
			Buckets: prometheus.ExponentialBuckets(0.125, 2, 18),
		}),
		queueSize: prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Namespace: "kafka_controller", Subsystem: "ControllerEventManager", Name: "EventQueueSize",
			Help: "Events waiting in the controller's queue.",
		}, func() float64 { return float64(queue.len()) }),
	}
	if reg == nil {
		return m, nil
	}
	for _, col := range []prometheus.Collector{m.active, m.offline, m.imbalance, m.topics, m.partitions,
		m.state, m.leaderElection, m.topicChange, m.uncleanElections, m.queueTime, m.queueSize} {
		if err := reg.Register(col); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// observe records an event's processing time in its state's timer. Kafka
// times broker changes as LeaderElectionRateAndTimeMs, and topic changes
// (with kzadmin's create multis) as TopicChangeRateAndTimeMs.
func (m *metrics) observe(s State, d time.Duration) {
	ms := float64(d) / float64(time.Millisecond)
	switch s {
	case StateBrokerChange:
		m.leaderElection.Observe(ms)
	case StateTopicChange:
		m.topicChange.Observe(ms)
	}
}

func (m *metrics) elected() { m.active.Set(1) }

// resigned zeroes what only an active controller reports, as Kafka does.
func (m *metrics) resigned() {
	m.active.Set(0)
	m.offline.Set(0)
	m.imbalance.Set(0)
	m.topics.Set(0)
	m.partitions.Set(0)
}
