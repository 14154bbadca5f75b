package config

// The type and validator of each config a Kafka 3.9 broker checks the
// value of when AlterConfigs, IncrementalAlterConfigs or kafka-configs
// --zookeeper change its dynamic configs: DynamicConfig.Broker's ConfigDef
// (core/src/main/scala/kafka/server/DynamicConfig.scala), which is
// QuotaConfigs.brokerQuotaConfigs (the three broker quota configs, which
// KafkaConfig does not define) followed by the definitions KafkaConfig
// gives the 89 names of DynamicBrokerConfig.AllDynamicConfigs
// (kafkabroker_names.go). Facts transcribed from Kafka 3.9's definitions:
//   - server-common/src/main/java/org/apache/kafka/server/config/QuotaConfigs.java
//   - storage/src/main/java/org/apache/kafka/storage/internals/log/LogConfig.java
//     (SERVER_CONFIG_DEF: the log.* names of ServerLogConfigs) and CleanerConfig.java
//   - storage/src/main/java/org/apache/kafka/server/log/remote/storage/RemoteLogManagerConfig.java
//   - server/src/main/java/org/apache/kafka/server/config/ServerConfigs.java,
//     ReplicationConfigs.java; server/src/main/java/org/apache/kafka/network/SocketServerConfigs.java;
//     server/src/main/java/org/apache/kafka/server/metrics/MetricConfigs.java
//   - transaction-coordinator/src/main/java/org/apache/kafka/coordinator/transaction/TransactionLogConfigs.java
//   - clients/src/main/java/org/apache/kafka/common/config/internals/BrokerSecurityConfigs.java
//     (the broker's SSL and SASL definitions, which carry no validators
//     where the clients' do) and SslConfigs.java, SaslConfigs.java
//   - clients/src/main/java/org/apache/kafka/common/record/CompressionType.java
//     (the compression level validators)
//
// The rows are in the order ConfigDef.parse checks them, which decides
// the message when several values are bad: the quota configs, then
// KafkaConfig's definitions filtered through a java.util.HashMap (of 128
// buckets), so by bucket of the name's hash. That order was read from the
// kafka_2.13-3.9.1 jar (DynamicConfig.Broker.configKeys), as were the
// types and validators, which agree with the sources above. No dynamic
// broker config has a validator other than a range, a list of valid
// strings (ValidString for a STRING, ValidList for each item of a LIST)
// and GZIP's level validator.
//
// Size: 92 rows, 3 quota configs + 89 dynamic configs.

// kafkaType is a ConfigDef.Type.
type kafkaType uint8

const (
	kafkaBoolean kafkaType = iota + 1
	kafkaString
	kafkaInt
	kafkaShort
	kafkaLong
	kafkaDouble
	kafkaList
	kafkaClass
	kafkaPassword
)

// kafkaCheck is a ConfigDef validator as data. The zero value checks
// nothing.
type kafkaCheck struct {
	// min and max bound a number (ConfigDef.Range, inclusive), when set.
	min, max *int64
	// in lists the valid strings (ConfigDef.ValidString, or ValidList for
	// each item of a LIST), case-sensitive.
	in []string
	// gzip is CompressionType.GZIP's level validator: 1 to 9, or -1.
	gzip bool
}

var noCheck = kafkaCheck{}

// gzipLevel is CompressionType.GZIP.levelValidator.
var gzipLevel = kafkaCheck{gzip: true}

func atLeast(min int64) kafkaCheck { return kafkaCheck{min: &min} }

func between(min, max int64) kafkaCheck { return kafkaCheck{min: &min, max: &max} }

func validIn(valid ...string) kafkaCheck { return kafkaCheck{in: valid} }

// kafkaConfigDef is one config's definition: its name, type and validator.
type kafkaConfigDef struct {
	name  string
	typ   kafkaType
	check kafkaCheck
}

// kafkaDynamicBrokerConfigDefs is DynamicConfig.Broker's ConfigDef, in
// its parse order.
var kafkaDynamicBrokerConfigDefs = []kafkaConfigDef{
	{"leader.replication.throttled.rate", kafkaLong, atLeast(0)},
	{"follower.replication.throttled.rate", kafkaLong, atLeast(0)},
	{"replica.alter.log.dirs.io.max.bytes.per.second", kafkaLong, atLeast(0)},
	{"metric.reporters", kafkaList, noCheck},
	{"log.cleaner.min.compaction.lag.ms", kafkaLong, atLeast(0)},
	{"log.flush.interval.messages", kafkaLong, atLeast(1)},
	{"log.local.retention.ms", kafkaLong, atLeast(-2)},
	{"principal.builder.class", kafkaClass, noCheck},
	{"log.flush.interval.ms", kafkaLong, noCheck},
	{"log.cleaner.io.buffer.size", kafkaInt, atLeast(0)},
	{"ssl.engine.factory.class", kafkaClass, noCheck},
	{"sasl.kerberos.ticket.renew.window.factor", kafkaDouble, noCheck},
	{"min.insync.replicas", kafkaInt, atLeast(1)},
	{"ssl.truststore.certificates", kafkaPassword, noCheck},
	{"num.recovery.threads.per.data.dir", kafkaInt, atLeast(1)},
	{"ssl.keystore.type", kafkaString, noCheck},
	{"compression.lz4.level", kafkaInt, between(1, 17)},
	{"log.cleanup.policy", kafkaList, validIn("compact", "delete")},
	{"transaction.partition.verification.enable", kafkaBoolean, noCheck},
	{"sasl.mechanism.inter.broker.protocol", kafkaString, noCheck},
	{"ssl.truststore.password", kafkaPassword, noCheck},
	{"log.roll.jitter.ms", kafkaLong, noCheck},
	{"sasl.kerberos.principal.to.local.rules", kafkaList, noCheck},
	{"log.preallocate", kafkaBoolean, noCheck},
	{"max.connections.per.ip", kafkaInt, atLeast(0)},
	{"ssl.endpoint.identification.algorithm", kafkaString, noCheck},
	{"background.threads", kafkaInt, atLeast(1)},
	{"message.max.bytes", kafkaInt, atLeast(0)},
	{"num.io.threads", kafkaInt, atLeast(1)},
	{"sasl.login.refresh.buffer.seconds", kafkaShort, noCheck},
	{"remote.log.manager.fetch.max.bytes.per.second", kafkaLong, atLeast(1)},
	{"max.connection.creation.rate", kafkaInt, atLeast(0)},
	{"remote.log.index.file.cache.total.size.bytes", kafkaLong, atLeast(1)},
	{"ssl.truststore.type", kafkaString, noCheck},
	{"log.index.interval.bytes", kafkaInt, atLeast(0)},
	{"log.cleaner.backoff.ms", kafkaLong, atLeast(0)},
	{"log.segment.bytes", kafkaInt, atLeast(14)},
	{"ssl.truststore.location", kafkaString, noCheck},
	{"ssl.keystore.password", kafkaPassword, noCheck},
	{"log.message.timestamp.after.max.ms", kafkaLong, atLeast(0)},
	{"log.segment.delete.delay.ms", kafkaLong, atLeast(0)},
	{"log.cleaner.max.compaction.lag.ms", kafkaLong, atLeast(1)},
	{"num.replica.fetchers", kafkaInt, noCheck},
	{"log.message.timestamp.before.max.ms", kafkaLong, atLeast(0)},
	{"compression.type", kafkaString, validIn("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer")},
	{"log.retention.ms", kafkaLong, noCheck},
	{"max.connections.per.ip.overrides", kafkaString, noCheck},
	{"log.message.timestamp.difference.max.ms", kafkaLong, atLeast(0)},
	{"sasl.login.refresh.window.factor", kafkaDouble, noCheck},
	{"sasl.login.refresh.min.period.seconds", kafkaShort, noCheck},
	{"ssl.client.auth", kafkaString, validIn("required", "requested", "none")},
	{"log.cleaner.delete.retention.ms", kafkaLong, atLeast(0)},
	{"log.cleaner.threads", kafkaInt, atLeast(0)},
	{"sasl.kerberos.kinit.cmd", kafkaString, noCheck},
	{"ssl.secure.random.implementation", kafkaString, noCheck},
	{"log.cleaner.io.max.bytes.per.second", kafkaDouble, noCheck},
	{"log.cleaner.min.cleanable.ratio", kafkaDouble, between(0, 1)},
	{"sasl.kerberos.service.name", kafkaString, noCheck},
	{"sasl.kerberos.ticket.renew.jitter", kafkaDouble, noCheck},
	{"ssl.trustmanager.algorithm", kafkaString, noCheck},
	{"log.local.retention.bytes", kafkaLong, atLeast(-2)},
	{"log.retention.bytes", kafkaLong, noCheck},
	{"num.network.threads", kafkaInt, atLeast(1)},
	{"ssl.key.password", kafkaPassword, noCheck},
	{"sasl.jaas.config", kafkaPassword, noCheck},
	{"log.message.timestamp.type", kafkaString, validIn("CreateTime", "LogAppendTime")},
	{"ssl.keystore.key", kafkaPassword, noCheck},
	{"sasl.kerberos.min.time.before.relogin", kafkaLong, noCheck},
	{"compression.gzip.level", kafkaInt, gzipLevel},
	{"max.connections", kafkaInt, atLeast(0)},
	{"compression.zstd.level", kafkaInt, between(-131072, 22)},
	{"log.message.downconversion.enable", kafkaBoolean, noCheck},
	{"listener.security.protocol.map", kafkaString, noCheck},
	{"ssl.protocol", kafkaString, noCheck},
	{"ssl.keystore.certificate.chain", kafkaPassword, noCheck},
	{"listeners", kafkaString, noCheck},
	{"ssl.enabled.protocols", kafkaList, noCheck},
	{"ssl.provider", kafkaString, noCheck},
	{"ssl.keystore.location", kafkaString, noCheck},
	{"producer.id.expiration.ms", kafkaInt, atLeast(1)},
	{"log.roll.ms", kafkaLong, noCheck},
	{"ssl.cipher.suites", kafkaList, noCheck},
	{"sasl.enabled.mechanisms", kafkaList, noCheck},
	{"unclean.leader.election.enable", kafkaBoolean, noCheck},
	{"log.cleaner.io.buffer.load.factor", kafkaDouble, noCheck},
	{"remote.log.manager.copy.max.bytes.per.second", kafkaLong, atLeast(1)},
	{"log.index.size.max.bytes", kafkaInt, atLeast(4)},
	{"ssl.keymanager.algorithm", kafkaString, noCheck},
	{"remote.fetch.max.wait.ms", kafkaInt, atLeast(1)},
	{"advertised.listeners", kafkaString, noCheck},
	{"sasl.login.refresh.window.jitter", kafkaDouble, noCheck},
	{"log.cleaner.dedupe.buffer.size", kafkaLong, noCheck},
}
