package config

import (
	"encoding/base64"
	"fmt"
	"math"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/kzadmin/kzadmin/internal/logging"
)

func identityKeys() []keySpec {
	nodeID := int32Key("node.id",
		"The controller's id. It must not equal any broker's id: the daemon refuses to start if it does.",
		false, 0, math.MaxInt32, func(c *Config) *int32 { return &c.NodeID })
	nodeID.check = func(c Config) string {
		if c.NodeID < 0 {
			return "must be at least 0 (an id no broker uses)"
		}
		return ""
	}
	return []keySpec{
		nodeID,
		{
			name: "cluster.id",
			doc:  "The id the cluster must have in /cluster/id (22-character URL-safe base64 UUID). Empty: whatever is there.",
			get:  func(c Config) string { return c.ClusterID },
			set: func(c *Config, s string) error {
				c.ClusterID = strings.TrimSpace(s)
				return nil
			},
			check: func(c Config) string {
				if c.ClusterID == "" {
					return ""
				}
				b, err := base64.RawURLEncoding.DecodeString(c.ClusterID)
				if err != nil || len(b) != 16 {
					return "must be a Kafka cluster id: 22 characters of URL-safe base64 encoding 16 bytes"
				}
				return ""
			},
		},
		boolKey("kzadmin.dev", "Dev mode: local ZooKeeper allowed, node.id defaults to 3000, console logs.",
			false, func(c *Config) *bool { return &c.Dev }),
	}
}

func zooKeeperKeys() []keySpec {
	connect := keySpec{
		name: "zookeeper.connect",
		doc:  "ZooKeeper servers and optional chroot: host:port,host:port/chroot. Required outside dev mode.",
		get:  func(c Config) string { return c.ZooKeeper.Connect.String() },
		set: func(c *Config, s string) error {
			z, err := ParseZKConnect(s)
			c.ZooKeeper.Connect = z
			return err
		},
		check: func(c Config) string {
			if len(c.ZooKeeper.Connect.Servers) == 0 && !c.Dev {
				return "required outside dev mode: give host:port[,host:port...][/chroot]"
			}
			if err := c.ZooKeeper.Connect.validate(); err != nil {
				return err.Error()
			}
			return ""
		},
	}
	return []keySpec{
		connect,
		durationKey("zookeeper.session.timeout.ms", "ZooKeeper session timeout; a dead controller is noticed after it.",
			false, time.Millisecond, 32, 1, func(c *Config) *time.Duration { return &c.ZooKeeper.SessionTimeout }),
		durationKey("zookeeper.connection.timeout.ms", "Wait for a ZooKeeper connection; 0 means zookeeper.session.timeout.ms.",
			false, time.Millisecond, 32, 0, func(c *Config) *time.Duration { return &c.ZooKeeper.ConnectionTimeout }),
		boolKey("zookeeper.set.acl", "Put ZooKeeper ACLs on the znodes kzadmin creates.",
			false, func(c *Config) *bool { return &c.ZooKeeper.SetACL }),
		int32Key("zookeeper.max.in.flight.requests", "Pipelined ZooKeeper requests in flight at most.",
			false, 1, math.MaxInt32, func(c *Config) *int32 { return &c.ZooKeeper.MaxInFlightRequests }),
	}
}

func listenerKeys() []keySpec {
	ibp := keySpec{
		name: "inter.broker.protocol.version",
		doc:  "Kafka version whose inter-broker protocol the controller speaks (0.8.0 to 3.9, or e.g. 2.7-IV2). Match the brokers.",
		get:  func(c Config) string { return c.InterBrokerProtocolVersion.String() },
		set: func(c *Config, s string) error {
			v, err := ParseIBP(strings.TrimSpace(s))
			c.InterBrokerProtocolVersion = v
			return err
		},
		check: func(c Config) string {
			if !c.InterBrokerProtocolVersion.Valid() {
				return fmt.Sprintf("must be a Kafka version from %s to %s", IBP0_8_0, IBPLatest)
			}
			return ""
		},
	}
	return []keySpec{
		{
			name: "listeners",
			doc:  "Addresses the Kafka protocol listener binds: NAME://host:port, comma-separated.",
			get:  func(c Config) string { return formatListeners(c.Listeners) },
			set: func(c *Config, s string) error {
				ls, err := ParseListeners(s)
				c.Listeners = ls
				return err
			},
		},
		{
			name: "advertised.listeners",
			doc:  "Addresses published to brokers and clients. Empty: listeners.",
			get:  func(c Config) string { return formatListeners(c.AdvertisedListeners) },
			set: func(c *Config, s string) error {
				ls, err := ParseListeners(s)
				c.AdvertisedListeners = ls
				return err
			},
		},
		{
			name: "listener.security.protocol.map",
			doc:  "Security protocol of each listener name: NAME:PROTOCOL, comma-separated.",
			get:  func(c Config) string { return formatSecurityProtocolMap(c.ListenerSecurityProtocolMap) },
			set: func(c *Config, s string) error {
				m, err := ParseSecurityProtocolMap(s)
				c.ListenerSecurityProtocolMap = m
				return err
			},
		},
		{
			name: "inter.broker.listener.name",
			doc:  "Listener brokers and the controller use between them. Empty: PLAINTEXT.",
			get:  func(c Config) string { return c.InterBrokerListenerName },
			set: func(c *Config, s string) error {
				c.InterBrokerListenerName = strings.ToUpper(strings.TrimSpace(s))
				return nil
			},
		},
		{
			name: "control.plane.listener.name",
			doc:  "Listener for controller traffic between the controller and brokers (KIP-291). Empty: the inter-broker listener.",
			get:  func(c Config) string { return c.ControlPlaneListenerName },
			set: func(c *Config, s string) error {
				c.ControlPlaneListenerName = strings.ToUpper(strings.TrimSpace(s))
				return nil
			},
		},
		ibp,
	}
}

func topicKeys() []keySpec {
	codes := keySpec{
		name: "partition.limits.error.code",
		typ:  "SHORT",
		doc:  "Error code for requests over a partition limit: 44 (POLICY_VIOLATION) or 88 (the seed's WILL_EXCEED_PARTITION_LIMITS).",
		get:  func(c Config) string { return formatInt(int64(c.PartitionLimitsErrorCode)) },
		set: func(c *Config, s string) error {
			n, err := parseInt(s, 16)
			c.PartitionLimitsErrorCode = int16(n)
			return err
		},
		check: func(c Config) string {
			if c.PartitionLimitsErrorCode != ErrCodePolicyViolation && c.PartitionLimitsErrorCode != ErrCodeSeedPartitionLimits {
				return "must be 44 (POLICY_VIOLATION) or 88 (WILL_EXCEED_PARTITION_LIMITS)"
			}
			return ""
		},
	}
	return []keySpec{
		boolKey("delete.topic.enable", "Allow topic deletion.", false, func(c *Config) *bool { return &c.DeleteTopicEnable }),
		boolKey("auto.create.topics.enable", "Create unknown topics named in Metadata requests.",
			false, func(c *Config) *bool { return &c.AutoCreateTopicsEnable }),
		int32Key("num.partitions", "Partitions of a topic created without a count.",
			false, 1, math.MaxInt32, func(c *Config) *int32 { return &c.NumPartitions }),
		int32Key("default.replication.factor", "Replication factor of a topic created without one.",
			false, 1, math.MaxInt16, func(c *Config) *int32 { return &c.DefaultReplicationFactor }),
		int32Key("offsets.topic.num.partitions", "Partitions of __consumer_offsets when Metadata auto-creates it.",
			false, 1, math.MaxInt32, func(c *Config) *int32 { return &c.InternalTopics.OffsetsPartitions }),
		int32Key("offsets.topic.replication.factor", "Replication factor of __consumer_offsets when Metadata auto-creates it.",
			false, 1, math.MaxInt16, func(c *Config) *int32 { return &c.InternalTopics.OffsetsReplicationFactor }),
		int32Key("offsets.topic.segment.bytes", "segment.bytes of __consumer_offsets when Metadata auto-creates it.",
			false, 1, math.MaxInt32, func(c *Config) *int32 { return &c.InternalTopics.OffsetsSegmentBytes }),
		int32Key("transaction.state.log.num.partitions", "Partitions of __transaction_state when Metadata auto-creates it.",
			false, 1, math.MaxInt32, func(c *Config) *int32 { return &c.InternalTopics.TransactionPartitions }),
		int32Key("transaction.state.log.replication.factor", "Replication factor of __transaction_state when Metadata auto-creates it.",
			false, 1, math.MaxInt16, func(c *Config) *int32 { return &c.InternalTopics.TransactionReplicationFactor }),
		int32Key("transaction.state.log.min.isr", "min.insync.replicas of __transaction_state when Metadata auto-creates it.",
			false, 1, math.MaxInt32, func(c *Config) *int32 { return &c.InternalTopics.TransactionMinISR }),
		int32Key("transaction.state.log.segment.bytes", "segment.bytes of __transaction_state when Metadata auto-creates it.",
			false, 1, math.MaxInt32, func(c *Config) *int32 { return &c.InternalTopics.TransactionSegmentBytes }),
		int32Key("max.broker.partitions", "Most partition replicas one broker may host (2147483647: no limit).",
			true, 0, math.MaxInt32, func(c *Config) *int32 { return &c.MaxBrokerPartitions }),
		int32Key("max.partitions", "Most partitions in the cluster (2147483647: no limit).",
			true, 0, math.MaxInt32, func(c *Config) *int32 { return &c.MaxPartitions }),
		codes,
	}
}

func leaderKeys() []keySpec {
	strategy := keySpec{
		name: "unclean.recovery.strategy", dynamic: true,
		doc: "Unclean recovery (KIP-966): None, Balanced or Aggressive (any case).",
		get: func(c Config) string { return string(c.UncleanRecoveryStrategy) },
		set: func(c *Config, s string) error {
			st, ok := ParseUncleanRecoveryStrategy(s)
			if !ok {
				return errorf("%s", allowedStrategies())
			}
			c.UncleanRecoveryStrategy = st
			return nil
		},
		check: func(c Config) string {
			if !c.UncleanRecoveryStrategy.Valid() {
				return allowedStrategies()
			}
			return ""
		},
	}
	return []keySpec{
		boolKey("unclean.leader.election.enable", "Elect a leader outside the ISR when no ISR member is alive.",
			true, func(c *Config) *bool { return &c.UncleanLeaderElectionEnable }),
		strategy,
		boolKey("unclean.recovery.manager.enabled", "Use the unclean recovery manager instead of a random live replica.",
			true, func(c *Config) *bool { return &c.UncleanRecoveryManagerEnabled }),
		durationKey("unclean.recovery.timeout.ms", "How long unclean recovery waits for replicas to answer.",
			true, time.Millisecond, 64, 1, func(c *Config) *time.Duration { return &c.UncleanRecoveryTimeout }),
		boolKey("eligible.leader.replicas.enable",
			"Keep KIP-966 eligible leader replicas (ELR) in the partition state znodes and elect from them after the ISR.",
			false, func(c *Config) *bool { return &c.EligibleLeaderReplicasEnable }),
		int32Key("min.insync.replicas", "Cluster default of the topic config; with ELR, replicas leaving an ISR smaller than it become eligible leaders.",
			true, 1, math.MaxInt32, func(c *Config) *int32 { return &c.MinInsyncReplicas }),
		boolKey("kzadmin.warm.standby", "A standby controller keeps the cluster loaded by watching, so taking over needs no full reload.",
			false, func(c *Config) *bool { return &c.WarmStandby }),
		boolKey("kzadmin.controller.reclaim.from.brokers",
			"A standby takes /controller back from a Kafka broker that won it (the broker resigns); with a growing backoff.",
			false, func(c *Config) *bool { return &c.ReclaimFromBrokers }),
		boolKey("auto.leader.rebalance.enable", "Move leadership back to preferred replicas.",
			true, func(c *Config) *bool { return &c.AutoLeaderRebalanceEnable }),
		int32Key("leader.imbalance.per.broker.percentage", "Imbalance (percent of a broker's preferred partitions) that triggers a rebalance.",
			true, 0, 100, func(c *Config) *int32 { return &c.LeaderImbalancePerBrokerPercentage }),
		durationKey("leader.imbalance.check.interval.seconds", "Seconds between leader imbalance checks.",
			false, time.Second, 64, 1, func(c *Config) *time.Duration { return &c.LeaderImbalanceCheckInterval }),
		durationKey("controller.socket.timeout.ms", "Wait for a connection to a broker.",
			false, time.Millisecond, 32, 1, func(c *Config) *time.Duration { return &c.ControllerSocketTimeout }),
		durationKey("request.timeout.ms", "Wait for a broker's response.",
			false, time.Millisecond, 32, 1, func(c *Config) *time.Duration { return &c.RequestTimeout }),
	}
}

func serviceKeys() []keySpec {
	return []keySpec{
		{
			name: "kzadmin.http.listen",
			doc:  "host:port of the HTTP server for metrics, health and status. Empty disables it.",
			get:  func(c Config) string { return c.HTTPListen },
			set: func(c *Config, s string) error {
				c.HTTPListen = strings.TrimSpace(s)
				return nil
			},
			check: func(c Config) string { return checkHostPort(c.HTTPListen) },
		},
		{
			name: "log.level",
			doc:  "Log level: " + strings.Join(logging.Levels(), ", ") + ".",
			get:  func(c Config) string { return c.LogLevel },
			set: func(c *Config, s string) error {
				c.LogLevel = strings.ToLower(strings.TrimSpace(s))
				return nil
			},
			check: func(c Config) string {
				if _, err := logging.ParseLevel(c.LogLevel); err != nil {
					return "must be one of " + strings.Join(logging.Levels(), ", ")
				}
				return ""
			},
		},
		{
			name: "log.format",
			doc:  "Log format: json or console (the dev-mode default).",
			get:  func(c Config) string { return c.LogFormat },
			set: func(c *Config, s string) error {
				c.LogFormat = strings.ToLower(strings.TrimSpace(s))
				return nil
			},
			check: func(c Config) string {
				if _, err := logging.ParseFormat(c.LogFormat); err != nil || c.LogFormat == "" {
					return "must be one of " + strings.Join(logging.Formats(), ", ")
				}
				return ""
			},
		},
	}
}

// checkHostPort accepts "" or host:port with a numeric port. An empty host
// binds every interface.
func checkHostPort(s string) string {
	if s == "" {
		return ""
	}
	_, port, err := net.SplitHostPort(s)
	if err != nil {
		return "must be host:port (empty host: every interface), or empty to disable"
	}
	if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		return "port must be between 0 and 65535"
	}
	return ""
}
