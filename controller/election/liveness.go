package election

// Liveness is the slice of the controller context that elections read. The
// context answers each question from maps it already keeps, so implementing
// it costs nothing per election.
type Liveness interface {
	// Registered reports whether /brokers/ids/<broker> exists and the broker
	// is feature-compatible: live or shutting down.
	Registered(broker int32) bool
	// ShuttingDown reports whether the broker sent ControlledShutdown and is
	// still registered.
	ShuttingDown(broker int32) bool
	// OfflineDir reports whether the broker reported tp on a failed log
	// directory (KAFKA_STORAGE_ERROR in a LeaderAndIsr response).
	OfflineDir(broker int32, tp TopicPartition) bool
}

// BrokerLive is Kafka's isLiveBroker: registered and not shutting down.
func BrokerLive(l Liveness, broker int32) bool {
	return l.Registered(broker) && !l.ShuttingDown(broker)
}

// ReplicaOnline is Kafka's isReplicaOnline: the broker is live (not shutting
// down) and tp is not on one of its failed log directories. This is the
// eligibility test of every election except controlled shutdown.
func ReplicaOnline(l Liveness, broker int32, tp TopicPartition) bool {
	return BrokerLive(l, broker) && !l.OfflineDir(broker, tp)
}

// ReplicaReachable is isReplicaOnline(includeShuttingDownBrokers = true):
// registered, possibly shutting down, and not on a failed log directory.
// Controlled shutdown uses it for leader candidates and recipients, because a
// shutting-down broker still takes requests.
func ReplicaReachable(l Liveness, broker int32, tp TopicPartition) bool {
	return l.Registered(broker) && !l.OfflineDir(broker, tp)
}

// Snapshot is a plain-map Liveness for tests and for callers that build a
// view once. The zero value has no broker registered.
type Snapshot struct {
	// Brokers holds every registered broker, shutting down or not.
	Brokers map[int32]bool
	// Shutdown holds brokers in controlled shutdown.
	Shutdown map[int32]bool
	// OfflineDirs maps a broker to the partitions on its failed directories.
	OfflineDirs map[int32]map[TopicPartition]bool
}

// Registered implements Liveness.
func (s Snapshot) Registered(broker int32) bool { return s.Brokers[broker] }

// ShuttingDown implements Liveness. Only registered brokers count, as in
// Kafka, where a broker leaves the shutting-down set when its znode goes.
func (s Snapshot) ShuttingDown(broker int32) bool {
	return s.Brokers[broker] && s.Shutdown[broker]
}

// OfflineDir implements Liveness.
func (s Snapshot) OfflineDir(broker int32, tp TopicPartition) bool {
	return s.OfflineDirs[broker][tp]
}

// NewSnapshot registers the given brokers, none shutting down.
func NewSnapshot(brokers ...int32) Snapshot {
	s := Snapshot{
		Brokers:     make(map[int32]bool, len(brokers)),
		Shutdown:    map[int32]bool{},
		OfflineDirs: map[int32]map[TopicPartition]bool{},
	}
	for _, b := range brokers {
		s.Brokers[b] = true
	}
	return s
}

// WithShutdown marks brokers as shutting down. It mutates s's maps, which a
// test builds once; it returns s for chaining.
func (s Snapshot) WithShutdown(brokers ...int32) Snapshot {
	if s.Shutdown == nil {
		s.Shutdown = map[int32]bool{}
	}
	for _, b := range brokers {
		s.Shutdown[b] = true
	}
	return s
}

// WithOfflineDir marks tp as on a failed directory of broker. It mutates s's
// maps and returns s for chaining.
func (s Snapshot) WithOfflineDir(broker int32, tp TopicPartition) Snapshot {
	if s.OfflineDirs == nil {
		s.OfflineDirs = map[int32]map[TopicPartition]bool{}
	}
	if s.OfflineDirs[broker] == nil {
		s.OfflineDirs[broker] = map[TopicPartition]bool{}
	}
	s.OfflineDirs[broker][tp] = true
	return s
}
