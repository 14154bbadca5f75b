package config

import (
	"math"
	"time"
)

// Unlimited is the value of max.partitions and max.broker.partitions that
// sets no limit (Kafka's int32 maximum, as KIP-578 proposed).
const Unlimited int32 = math.MaxInt32

// DevNodeID is the node.id Load gives a dev-mode controller that sets none.
// Kafka numbers brokers without a broker.id from 1001 up, so a small dev
// cluster never reaches it. Real deployments must set node.id.
const DevNodeID int32 = 3000

// Partition-limit error codes allowed in partition.limits.error.code (design
// brief §3).
const (
	// ErrCodePolicyViolation is POLICY_VIOLATION, the default: clients know
	// it, and the message names the limit.
	ErrCodePolicyViolation int16 = 44
	// ErrCodeSeedPartitionLimits is the code KIP-578 proposed for
	// WILL_EXCEED_PARTITION_LIMITS. Real Kafka later gave 88 to
	// UNSTABLE_OFFSET_COMMIT, so clients misread it.
	ErrCodeSeedPartitionLimits int16 = 88
)

// Config is kzadmin's whole configuration. Each field documents its Kafka
// key. Durations are held as time.Duration; their keys keep Kafka's units
// (.ms or .seconds). Build one with Default or Load, and check it with
// Validate. Treat a Config as a value: WithDynamic returns a new one.
//
// Security settings (TLS, SASL, the authorizer, ZooKeeper digest) are kept
// as given in Props, by Kafka's names, for the security package to read.
type Config struct {
	// NodeID (node.id) is the controller's id. It must be >= 0 and must not
	// equal any broker's id; the daemon checks that against
	// /brokers/ids at start and refuses to run on a collision.
	NodeID int32
	// ClusterID (cluster.id), when set, is the id the cluster must have in
	// /cluster/id: a 22-character URL-safe base64 UUID, as Kafka writes.
	ClusterID string
	// Dev (kzadmin.dev) runs the daemon in dev mode: it may start its own
	// ZooKeeper, node.id defaults to DevNodeID and logs default to console.
	Dev bool

	// ZooKeeper holds the zookeeper.* keys.
	ZooKeeper ZooKeeper

	// Listeners (listeners) are the addresses the controller's Kafka
	// protocol listener binds, e.g. PLAINTEXT://:9092.
	Listeners []Listener
	// AdvertisedListeners (advertised.listeners) are the addresses the
	// controller publishes to brokers and clients. Empty means Listeners.
	AdvertisedListeners []Listener
	// ListenerSecurityProtocolMap (listener.security.protocol.map) maps
	// listener names to security protocols.
	ListenerSecurityProtocolMap map[string]SecurityProtocol
	// InterBrokerListenerName (inter.broker.listener.name) is the listener
	// brokers use to reach the controller and the controller uses to reach
	// brokers. Empty means PLAINTEXT, as in Kafka.
	InterBrokerListenerName string
	// ControlPlaneListenerName (control.plane.listener.name), when set, is
	// the listener the controller and the brokers use between them for
	// controller traffic (LeaderAndIsr, UpdateMetadata, StopReplica one
	// way; AlterPartition and the like the other), in place of the
	// inter-broker listener, as in Kafka's ZooKeeper mode (KIP-291).
	ControlPlaneListenerName string
	// InterBrokerProtocolVersion (inter.broker.protocol.version), default
	// 3.9 (= 3.9-IV0).
	InterBrokerProtocolVersion IBP

	// DeleteTopicEnable (delete.topic.enable): deletion requests are
	// refused when false.
	DeleteTopicEnable bool
	// AutoCreateTopicsEnable (auto.create.topics.enable): Metadata requests
	// for unknown topics create them.
	AutoCreateTopicsEnable bool
	// NumPartitions (num.partitions) for topics created without a count.
	NumPartitions int32
	// DefaultReplicationFactor (default.replication.factor) for topics
	// created without one. At most 32767, the wire's int16.
	DefaultReplicationFactor int32

	// InternalTopics are the counts and configs Metadata's auto-creation
	// gives Kafka's internal topics, from the broker keys Kafka's own
	// auto-creation reads (offsets.topic.*, transaction.state.log.*).
	InternalTopics InternalTopics

	// MaxBrokerPartitions (max.broker.partitions) caps the replicas one
	// broker may host. Unlimited by default. Dynamic.
	MaxBrokerPartitions int32
	// MaxPartitions (max.partitions) caps the partitions in the cluster.
	// Unlimited by default. Dynamic.
	MaxPartitions int32
	// PartitionLimitsErrorCode (partition.limits.error.code) is the error
	// code for a request that would exceed a limit: 44 or 88.
	PartitionLimitsErrorCode int16

	// UncleanLeaderElectionEnable (unclean.leader.election.enable): elect a
	// replica outside the ISR when none inside is alive. Dynamic.
	UncleanLeaderElectionEnable bool
	// UncleanRecoveryStrategy (unclean.recovery.strategy, KIP-966). Dynamic.
	UncleanRecoveryStrategy UncleanRecoveryStrategy
	// UncleanRecoveryManagerEnabled (unclean.recovery.manager.enabled): use
	// the recovery manager rather than a random live replica. Dynamic.
	UncleanRecoveryManagerEnabled bool
	// UncleanRecoveryTimeout (unclean.recovery.timeout.ms): how long the
	// recovery manager waits for replicas to answer. Dynamic.
	UncleanRecoveryTimeout time.Duration
	// EligibleLeaderReplicasEnable (eligible.leader.replicas.enable): the
	// controller keeps KIP-966's eligible leader replicas in the partition
	// state znodes and elects from them after the ISR. kzadmin's switch for
	// what KRaft gates with the eligible.leader.replicas.version feature.
	// Off by default: the controller then writes no ELR fields, exactly as
	// Kafka's ZooKeeper controller.
	EligibleLeaderReplicasEnable bool
	// MinInsyncReplicas (min.insync.replicas) is the cluster default of the
	// topic config; with ELR enabled, an ISR smaller than it (capped at the
	// replication factor) puts the replicas leaving it into the ELR.
	// Dynamic.
	MinInsyncReplicas int32

	// WarmStandby (kzadmin.warm.standby) makes a standby controller keep
	// brokers, topics and partition states loaded by watching what the
	// active controller writes, so that taking over costs no full reload.
	// Kafka's standbys hold nothing. Off by default: each warm standby
	// re-reads every state znode the active controller writes.
	WarmStandby bool
	// ReclaimFromBrokers (kzadmin.controller.reclaim.from.brokers) makes a
	// standby take the controller seat back when a Kafka broker holds it:
	// every ZooKeeper-mode broker also competes for /controller, and one
	// that wins would otherwise stay controller until it dies. The standby
	// replaces the broker's /controller in one multi conditional on the
	// versions it read (the broker resigns, as it does when /controller is
	// deleted), with a backoff that grows while brokers keep taking the
	// seat back. A difference from Kafka, where any broker may stay
	// controller; on by default, since a drop-in controller that silently
	// stops being the controller is not one.
	ReclaimFromBrokers bool
	// AutoLeaderRebalanceEnable (auto.leader.rebalance.enable) moves
	// leadership back to preferred replicas. Dynamic here, static in Kafka.
	AutoLeaderRebalanceEnable bool
	// LeaderImbalancePerBrokerPercentage
	// (leader.imbalance.per.broker.percentage): a broker is rebalanced when
	// more than this share of its preferred partitions is led elsewhere.
	// Dynamic here, static in Kafka.
	LeaderImbalancePerBrokerPercentage int32
	// LeaderImbalanceCheckInterval (leader.imbalance.check.interval.seconds).
	LeaderImbalanceCheckInterval time.Duration

	// ControllerSocketTimeout (controller.socket.timeout.ms) bounds the
	// controller's wait to connect to a broker.
	ControllerSocketTimeout time.Duration
	// RequestTimeout (request.timeout.ms) bounds the controller's wait for a
	// broker's response.
	RequestTimeout time.Duration

	// DelegationTokenMaxLifetime (delegation.token.max.lifetime.ms) caps
	// a delegation token's life; DelegationTokenExpiryTime
	// (delegation.token.expiry.time.ms) is how long a new or renewed one
	// lives by default; DelegationTokenExpiryCheckInterval
	// (delegation.token.expiry.check.interval.ms) is how often the active
	// controller removes expired tokens. Tokens are on when
	// delegation.token.secret.key (Props) is set; see DelegationTokenSecret.
	DelegationTokenMaxLifetime         time.Duration
	DelegationTokenExpiryTime          time.Duration
	DelegationTokenExpiryCheckInterval time.Duration

	// ControllerQuotaWindowNum (controller.quota.window.num) and
	// ControllerQuotaWindowSize (controller.quota.window.size.seconds)
	// size the controller mutation quota's buckets (KIP-599): rate ×
	// num × size seconds partitions.
	ControllerQuotaWindowNum  int32
	ControllerQuotaWindowSize time.Duration

	// HTTPListen (kzadmin.http.listen) is the host:port of the HTTP server
	// for metrics, health and the status page. Empty disables it.
	HTTPListen string
	// LogLevel (log.level): trace, debug, info, warn, error, fatal, panic
	// or disabled.
	LogLevel string
	// LogFormat (log.format): json or console.
	LogFormat string

	// Props holds the security keys as given (file, environment or
	// flags): ssl.*, sasl.*, authorizer.class.name, super.users,
	// allow.everyone.if.no.acl.found, connection.failed.authentication
	// .delay.ms, kzadmin.zookeeper.digest, and every listener-prefixed
	// listener.name.<l>.<key> from the file. Unset keys are absent. Read it
	// with Property; treat it as read-only (setters copy it).
	Props map[string]string
}

// ZooKeeper holds the zookeeper.* keys.
type ZooKeeper struct {
	// Connect (zookeeper.connect), "host:port,host:port/chroot". Required
	// outside dev mode.
	Connect ZKConnect
	// SessionTimeout (zookeeper.session.timeout.ms). The ensemble bounds
	// it to [2, 20] ticks when the session is made.
	SessionTimeout time.Duration
	// ConnectionTimeout (zookeeper.connection.timeout.ms) bounds the wait
	// for a connection. Zero means SessionTimeout, as in Kafka.
	ConnectionTimeout time.Duration
	// SetACL (zookeeper.set.acl) puts ACLs on the znodes kzadmin creates.
	SetACL bool
	// MaxInFlightRequests (zookeeper.max.in.flight.requests) caps pipelined
	// requests, as Kafka's ZooKeeper client does.
	MaxInFlightRequests int32
}

// EffectiveConnectionTimeout returns ConnectionTimeout, or SessionTimeout when
// it is zero.
func (z ZooKeeper) EffectiveConnectionTimeout() time.Duration {
	if z.ConnectionTimeout == 0 {
		return z.SessionTimeout
	}
	return z.ConnectionTimeout
}

// Default returns the defaults: Kafka 3.9's for Kafka's keys. It does not
// pass Validate on its own, because node.id and zookeeper.connect have no
// default outside dev mode.
func Default() Config {
	return Config{
		NodeID: -1,
		ZooKeeper: ZooKeeper{
			SessionTimeout:      18000 * time.Millisecond,
			MaxInFlightRequests: 10,
		},
		Listeners:                   []Listener{{Name: "PLAINTEXT", Port: 9092}},
		ListenerSecurityProtocolMap: DefaultSecurityProtocolMap(),
		InterBrokerProtocolVersion:  IBPLatest,
		DeleteTopicEnable:           true,
		AutoCreateTopicsEnable:      true,
		NumPartitions:               1,
		DefaultReplicationFactor:    1,
		InternalTopics: InternalTopics{
			OffsetsPartitions: 50, OffsetsReplicationFactor: 3, OffsetsSegmentBytes: 100 << 20,
			TransactionPartitions: 50, TransactionReplicationFactor: 3, TransactionMinISR: 2,
			TransactionSegmentBytes: 100 << 20,
		},
		MaxBrokerPartitions:                Unlimited,
		MaxPartitions:                      Unlimited,
		PartitionLimitsErrorCode:           ErrCodePolicyViolation,
		UncleanRecoveryStrategy:            RecoveryBalanced,
		UncleanRecoveryTimeout:             300000 * time.Millisecond,
		MinInsyncReplicas:                  1,
		AutoLeaderRebalanceEnable:          true,
		ReclaimFromBrokers:                 true,
		LeaderImbalancePerBrokerPercentage: 10,
		LeaderImbalanceCheckInterval:       300 * time.Second,
		ControllerSocketTimeout:            30000 * time.Millisecond,
		RequestTimeout:                     30000 * time.Millisecond,
		DelegationTokenMaxLifetime:         7 * 24 * time.Hour,
		DelegationTokenExpiryTime:          24 * time.Hour,
		DelegationTokenExpiryCheckInterval: time.Hour,
		ControllerQuotaWindowNum:           11,
		ControllerQuotaWindowSize:          time.Second,
		HTTPListen:                         "127.0.0.1:9644",
		LogLevel:                           "info",
		LogFormat:                          "json",
	}
}

// EffectiveAdvertisedListeners returns AdvertisedListeners, or Listeners when
// none are set.
func (c Config) EffectiveAdvertisedListeners() []Listener {
	if len(c.AdvertisedListeners) == 0 {
		return c.Listeners
	}
	return c.AdvertisedListeners
}

// ControllerToBrokerListenerName is the listener the controller connects
// to brokers on: control.plane.listener.name when set, else the
// inter-broker listener, as Kafka's ControllerChannelManager picks it.
// LeaderAndIsr still lists leaders on the inter-broker listener.
func (c Config) ControllerToBrokerListenerName() string {
	if c.ControlPlaneListenerName != "" {
		return c.ControlPlaneListenerName
	}
	return c.EffectiveInterBrokerListenerName()
}

// EffectiveInterBrokerListenerName returns InterBrokerListenerName, or
// PLAINTEXT when it is empty (Kafka's security.inter.broker.protocol
// default).
func (c Config) EffectiveInterBrokerListenerName() string {
	if c.InterBrokerListenerName == "" {
		return string(ProtocolPlaintext)
	}
	return c.InterBrokerListenerName
}

// InternalTopics is what a Kafka broker's auto-creation gives the
// internal topics (Kafka 3.9's defaults in Default).
type InternalTopics struct {
	// OffsetsPartitions, OffsetsReplicationFactor and OffsetsSegmentBytes
	// are offsets.topic.num.partitions, offsets.topic.replication.factor
	// and offsets.topic.segment.bytes, for __consumer_offsets.
	OffsetsPartitions, OffsetsReplicationFactor, OffsetsSegmentBytes int32
	// TransactionPartitions, TransactionReplicationFactor,
	// TransactionMinISR and TransactionSegmentBytes are
	// transaction.state.log.num.partitions, .replication.factor, .min.isr
	// and .segment.bytes, for __transaction_state.
	TransactionPartitions, TransactionReplicationFactor, TransactionMinISR, TransactionSegmentBytes int32
}
