package config

// Kafka 3.9's broker config names, as facts: which names a Kafka broker
// knows, and which of them it lets AlterConfigs and
// IncrementalAlterConfigs change at run time, cluster-wide
// (/config/brokers/<default>) or per broker (/config/brokers/<id>).
// kzadmind answers the alter APIs as a Kafka broker would, and the
// kzadmin CLI refuses what kafka-configs --zookeeper refuses, so both
// need Kafka's lists rather than kzadmin's own keys (keydefs.go).
//
// Transcribed from Kafka 3.9 (and checked against the kafka_2.13-3.9.1
// jar's KafkaConfig.configNames, DynamicBrokerConfig.AllDynamicConfigs and
// dynamicConfigUpdateModes):
//   - kafkaBrokerConfigNames: KafkaConfig.configNames, the names of
//     AbstractKafkaConfig.CONFIG_DEF (server/src/main/java/org/apache/
//     kafka/server/config/AbstractKafkaConfig.java and the *Configs
//     classes it merges; core/src/main/scala/kafka/server/KafkaConfig.scala).
//   - kafkaClusterWideConfigNames and kafkaPerBrokerConfigNames:
//     DynamicBrokerConfig.AllDynamicConfigs (core/src/main/scala/kafka/
//     server/DynamicBrokerConfig.scala: SslConfigs.RECONFIGURABLE_CONFIGS,
//     LogCleaner.ReconfigurableConfigs in core/src/main/scala/kafka/log/
//     LogCleaner.scala, DynamicLogConfig, DynamicThreadPool,
//     metric.reporters, DynamicListenerConfig, SocketServer's
//     ReconfigurableConfigs in core/src/main/scala/kafka/network/
//     SocketServer.scala, DynamicProducerStateManagerConfig and
//     DynamicRemoteLogConfig), split by its PerBrokerConfigs: the SSL and
//     listener configs but max.connections, max.connection.creation.rate
//     and num.network.threads.
//   - kafkaListenerSecurityConfigNames: SslConfigs.RECONFIGURABLE_CONFIGS
//     (clients/src/main/java/org/apache/kafka/common/config/SslConfigs.java),
//     which a broker takes only with a listener prefix.
//   - kafkaPasswordConfigNames: DynamicBrokerConfig.DynamicPasswordConfigs,
//     the dynamic configs of type PASSWORD.
//   - kafkaListConfigNames: the configs of type LIST, which
//     IncrementalAlterConfigs may APPEND to and SUBTRACT from.
//
// The three broker quota configs (QuotaConfigs.brokerQuotaConfigs:
// leader.replication.throttled.rate, ...) are dynamic too, but KafkaConfig
// does not define them: to these checks they are custom configs, which a
// broker accepts (their values are checked: kafkabroker_types.go).
//
// Sizes: 328 known, of which 89 dynamic (52 cluster-wide, 37 per broker).

// kafkaBrokerConfigNames is KafkaConfig.configNames.
var kafkaBrokerConfigNames = []string{
	"advertised.listeners", "alter.config.policy.class.name", "alter.log.dirs.replication.quota.window.num",
	"alter.log.dirs.replication.quota.window.size.seconds", "authorizer.class.name", "auto.create.topics.enable",
	"auto.include.jmx.reporter", "auto.leader.rebalance.enable", "background.threads",
	"broker.heartbeat.interval.ms", "broker.id", "broker.id.generation.enable", "broker.rack",
	"broker.session.timeout.ms", "client.quota.callback.class", "compression.gzip.level", "compression.lz4.level",
	"compression.type", "compression.zstd.level", "connection.failed.authentication.delay.ms",
	"connections.max.idle.ms", "connections.max.reauth.ms", "control.plane.listener.name",
	"controlled.shutdown.enable", "controlled.shutdown.max.retries", "controlled.shutdown.retry.backoff.ms",
	"controller.listener.names", "controller.quorum.append.linger.ms", "controller.quorum.bootstrap.servers",
	"controller.quorum.election.backoff.max.ms", "controller.quorum.election.timeout.ms",
	"controller.quorum.fetch.timeout.ms", "controller.quorum.request.timeout.ms",
	"controller.quorum.retry.backoff.ms", "controller.quorum.voters", "controller.quota.window.num",
	"controller.quota.window.size.seconds", "controller.socket.timeout.ms", "create.topic.policy.class.name",
	"default.replication.factor", "delegation.token.expiry.check.interval.ms", "delegation.token.expiry.time.ms",
	"delegation.token.master.key", "delegation.token.max.lifetime.ms", "delegation.token.secret.key",
	"delete.records.purgatory.purge.interval.requests", "delete.topic.enable", "early.start.listeners",
	"eligible.leader.replicas.enable", "fetch.max.bytes", "fetch.purgatory.purge.interval.requests",
	"group.consumer.assignors", "group.consumer.heartbeat.interval.ms", "group.consumer.max.heartbeat.interval.ms",
	"group.consumer.max.session.timeout.ms", "group.consumer.max.size", "group.consumer.migration.policy",
	"group.consumer.min.heartbeat.interval.ms", "group.consumer.min.session.timeout.ms",
	"group.consumer.session.timeout.ms", "group.coordinator.append.linger.ms", "group.coordinator.new.enable",
	"group.coordinator.rebalance.protocols", "group.coordinator.threads", "group.initial.rebalance.delay.ms",
	"group.max.session.timeout.ms", "group.max.size", "group.min.session.timeout.ms",
	"group.share.delivery.count.limit", "group.share.enable", "group.share.heartbeat.interval.ms",
	"group.share.max.groups", "group.share.max.heartbeat.interval.ms", "group.share.max.record.lock.duration.ms",
	"group.share.max.session.timeout.ms", "group.share.max.size", "group.share.min.heartbeat.interval.ms",
	"group.share.min.record.lock.duration.ms", "group.share.min.session.timeout.ms",
	"group.share.partition.max.record.locks", "group.share.record.lock.duration.ms",
	"group.share.session.timeout.ms", "initial.broker.registration.timeout.ms", "inter.broker.listener.name",
	"inter.broker.protocol.version", "kafka.metrics.polling.interval.secs", "kafka.metrics.reporters",
	"leader.imbalance.check.interval.seconds", "leader.imbalance.per.broker.percentage",
	"listener.security.protocol.map", "listeners", "log.cleaner.backoff.ms", "log.cleaner.dedupe.buffer.size",
	"log.cleaner.delete.retention.ms", "log.cleaner.enable", "log.cleaner.io.buffer.load.factor",
	"log.cleaner.io.buffer.size", "log.cleaner.io.max.bytes.per.second", "log.cleaner.max.compaction.lag.ms",
	"log.cleaner.min.cleanable.ratio", "log.cleaner.min.compaction.lag.ms", "log.cleaner.threads",
	"log.cleanup.policy", "log.dir", "log.dir.failure.timeout.ms", "log.dirs", "log.flush.interval.messages",
	"log.flush.interval.ms", "log.flush.offset.checkpoint.interval.ms", "log.flush.scheduler.interval.ms",
	"log.flush.start.offset.checkpoint.interval.ms", "log.index.interval.bytes", "log.index.size.max.bytes",
	"log.initial.task.delay.ms", "log.local.retention.bytes", "log.local.retention.ms",
	"log.message.downconversion.enable", "log.message.format.version", "log.message.timestamp.after.max.ms",
	"log.message.timestamp.before.max.ms", "log.message.timestamp.difference.max.ms", "log.message.timestamp.type",
	"log.preallocate", "log.retention.bytes", "log.retention.check.interval.ms", "log.retention.hours",
	"log.retention.minutes", "log.retention.ms", "log.roll.hours", "log.roll.jitter.hours", "log.roll.jitter.ms",
	"log.roll.ms", "log.segment.bytes", "log.segment.delete.delay.ms", "max.connection.creation.rate",
	"max.connections", "max.connections.per.ip", "max.connections.per.ip.overrides",
	"max.incremental.fetch.session.cache.slots", "max.request.partition.size.limit", "message.max.bytes",
	"metadata.log.dir", "metadata.log.max.record.bytes.between.snapshots", "metadata.log.max.snapshot.interval.ms",
	"metadata.log.segment.bytes", "metadata.log.segment.min.bytes", "metadata.log.segment.ms",
	"metadata.max.idle.interval.ms", "metadata.max.retention.bytes", "metadata.max.retention.ms",
	"metric.reporters", "metrics.num.samples", "metrics.recording.level", "metrics.sample.window.ms",
	"min.insync.replicas", "node.id", "num.io.threads", "num.network.threads", "num.partitions",
	"num.recovery.threads.per.data.dir", "num.replica.alter.log.dirs.threads", "num.replica.fetchers",
	"offset.metadata.max.bytes", "offsets.commit.required.acks", "offsets.commit.timeout.ms",
	"offsets.load.buffer.size", "offsets.retention.check.interval.ms", "offsets.retention.minutes",
	"offsets.topic.compression.codec", "offsets.topic.num.partitions", "offsets.topic.replication.factor",
	"offsets.topic.segment.bytes", "password.encoder.cipher.algorithm", "password.encoder.iterations",
	"password.encoder.key.length", "password.encoder.keyfactory.algorithm", "password.encoder.old.secret",
	"password.encoder.secret", "principal.builder.class", "process.roles",
	"producer.id.expiration.check.interval.ms", "producer.id.expiration.ms",
	"producer.purgatory.purge.interval.requests", "queued.max.request.bytes", "queued.max.requests",
	"quota.window.num", "quota.window.size.seconds", "remote.fetch.max.wait.ms",
	"remote.log.index.file.cache.total.size.bytes", "remote.log.manager.copier.thread.pool.size",
	"remote.log.manager.copy.max.bytes.per.second", "remote.log.manager.copy.quota.window.num",
	"remote.log.manager.copy.quota.window.size.seconds", "remote.log.manager.expiration.thread.pool.size",
	"remote.log.manager.fetch.max.bytes.per.second", "remote.log.manager.fetch.quota.window.num",
	"remote.log.manager.fetch.quota.window.size.seconds", "remote.log.manager.task.interval.ms",
	"remote.log.manager.task.retry.backoff.max.ms", "remote.log.manager.task.retry.backoff.ms",
	"remote.log.manager.task.retry.jitter", "remote.log.manager.thread.pool.size",
	"remote.log.metadata.custom.metadata.max.bytes", "remote.log.metadata.manager.class.name",
	"remote.log.metadata.manager.class.path", "remote.log.metadata.manager.impl.prefix",
	"remote.log.metadata.manager.listener.name", "remote.log.reader.max.pending.tasks",
	"remote.log.reader.threads", "remote.log.storage.manager.class.name", "remote.log.storage.manager.class.path",
	"remote.log.storage.manager.impl.prefix", "remote.log.storage.system.enable", "replica.fetch.backoff.ms",
	"replica.fetch.max.bytes", "replica.fetch.min.bytes", "replica.fetch.response.max.bytes",
	"replica.fetch.wait.max.ms", "replica.high.watermark.checkpoint.interval.ms", "replica.lag.time.max.ms",
	"replica.selector.class", "replica.socket.receive.buffer.bytes", "replica.socket.timeout.ms",
	"replication.quota.window.num", "replication.quota.window.size.seconds", "request.timeout.ms",
	"reserved.broker.max.id", "sasl.client.callback.handler.class", "sasl.enabled.mechanisms", "sasl.jaas.config",
	"sasl.kerberos.kinit.cmd", "sasl.kerberos.min.time.before.relogin", "sasl.kerberos.principal.to.local.rules",
	"sasl.kerberos.service.name", "sasl.kerberos.ticket.renew.jitter", "sasl.kerberos.ticket.renew.window.factor",
	"sasl.login.callback.handler.class", "sasl.login.class", "sasl.login.connect.timeout.ms",
	"sasl.login.read.timeout.ms", "sasl.login.refresh.buffer.seconds", "sasl.login.refresh.min.period.seconds",
	"sasl.login.refresh.window.factor", "sasl.login.refresh.window.jitter", "sasl.login.retry.backoff.max.ms",
	"sasl.login.retry.backoff.ms", "sasl.mechanism.controller.protocol", "sasl.mechanism.inter.broker.protocol",
	"sasl.oauthbearer.clock.skew.seconds", "sasl.oauthbearer.expected.audience",
	"sasl.oauthbearer.expected.issuer", "sasl.oauthbearer.jwks.endpoint.refresh.ms",
	"sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms", "sasl.oauthbearer.jwks.endpoint.retry.backoff.ms",
	"sasl.oauthbearer.jwks.endpoint.url", "sasl.oauthbearer.scope.claim.name", "sasl.oauthbearer.sub.claim.name",
	"sasl.oauthbearer.token.endpoint.url", "sasl.server.callback.handler.class", "sasl.server.max.receive.size",
	"security.inter.broker.protocol", "security.providers", "server.max.startup.time.ms",
	"socket.connection.setup.timeout.max.ms", "socket.connection.setup.timeout.ms", "socket.listen.backlog.size",
	"socket.receive.buffer.bytes", "socket.request.max.bytes", "socket.send.buffer.bytes", "ssl.allow.dn.changes",
	"ssl.allow.san.changes", "ssl.cipher.suites", "ssl.client.auth", "ssl.enabled.protocols",
	"ssl.endpoint.identification.algorithm", "ssl.engine.factory.class", "ssl.key.password",
	"ssl.keymanager.algorithm", "ssl.keystore.certificate.chain", "ssl.keystore.key", "ssl.keystore.location",
	"ssl.keystore.password", "ssl.keystore.type", "ssl.principal.mapping.rules", "ssl.protocol", "ssl.provider",
	"ssl.secure.random.implementation", "ssl.trustmanager.algorithm", "ssl.truststore.certificates",
	"ssl.truststore.location", "ssl.truststore.password", "ssl.truststore.type", "telemetry.max.bytes",
	"transaction.abort.timed.out.transaction.cleanup.interval.ms", "transaction.max.timeout.ms",
	"transaction.partition.verification.enable", "transaction.remove.expired.transaction.cleanup.interval.ms",
	"transaction.state.log.load.buffer.size", "transaction.state.log.min.isr",
	"transaction.state.log.num.partitions", "transaction.state.log.replication.factor",
	"transaction.state.log.segment.bytes", "transactional.id.expiration.ms", "unclean.leader.election.enable",
	"unclean.leader.election.interval.ms", "unstable.api.versions.enable", "unstable.feature.versions.enable",
	"zookeeper.clientCnxnSocket", "zookeeper.connect", "zookeeper.connection.timeout.ms",
	"zookeeper.max.in.flight.requests", "zookeeper.metadata.migration.enable",
	"zookeeper.metadata.migration.min.batch.size", "zookeeper.session.timeout.ms", "zookeeper.set.acl",
	"zookeeper.ssl.cipher.suites", "zookeeper.ssl.client.enable", "zookeeper.ssl.crl.enable",
	"zookeeper.ssl.enabled.protocols", "zookeeper.ssl.endpoint.identification.algorithm",
	"zookeeper.ssl.keystore.location", "zookeeper.ssl.keystore.password", "zookeeper.ssl.keystore.type",
	"zookeeper.ssl.ocsp.enable", "zookeeper.ssl.protocol", "zookeeper.ssl.truststore.location",
	"zookeeper.ssl.truststore.password", "zookeeper.ssl.truststore.type",
}

// kafkaClusterWideConfigNames are the dynamic configs a broker takes at
// the cluster-wide default as well as per broker.
var kafkaClusterWideConfigNames = []string{
	"background.threads", "compression.gzip.level", "compression.lz4.level", "compression.type",
	"compression.zstd.level", "log.cleaner.backoff.ms", "log.cleaner.dedupe.buffer.size",
	"log.cleaner.delete.retention.ms", "log.cleaner.io.buffer.load.factor", "log.cleaner.io.buffer.size",
	"log.cleaner.io.max.bytes.per.second", "log.cleaner.max.compaction.lag.ms", "log.cleaner.min.cleanable.ratio",
	"log.cleaner.min.compaction.lag.ms", "log.cleaner.threads", "log.cleanup.policy",
	"log.flush.interval.messages", "log.flush.interval.ms", "log.index.interval.bytes", "log.index.size.max.bytes",
	"log.local.retention.bytes", "log.local.retention.ms", "log.message.downconversion.enable",
	"log.message.timestamp.after.max.ms", "log.message.timestamp.before.max.ms",
	"log.message.timestamp.difference.max.ms", "log.message.timestamp.type", "log.preallocate",
	"log.retention.bytes", "log.retention.ms", "log.roll.jitter.ms", "log.roll.ms", "log.segment.bytes",
	"log.segment.delete.delay.ms", "max.connection.creation.rate", "max.connections", "max.connections.per.ip",
	"max.connections.per.ip.overrides", "message.max.bytes", "metric.reporters", "min.insync.replicas",
	"num.io.threads", "num.network.threads", "num.recovery.threads.per.data.dir", "num.replica.fetchers",
	"producer.id.expiration.ms", "remote.fetch.max.wait.ms", "remote.log.index.file.cache.total.size.bytes",
	"remote.log.manager.copy.max.bytes.per.second", "remote.log.manager.fetch.max.bytes.per.second",
	"transaction.partition.verification.enable", "unclean.leader.election.enable",
}

// kafkaPerBrokerConfigNames are the dynamic configs a broker takes only
// per broker (DynamicBrokerConfig.PerBrokerConfigs).
var kafkaPerBrokerConfigNames = []string{
	"advertised.listeners", "listener.security.protocol.map", "listeners", "principal.builder.class",
	"sasl.enabled.mechanisms", "sasl.jaas.config", "sasl.kerberos.kinit.cmd",
	"sasl.kerberos.min.time.before.relogin", "sasl.kerberos.principal.to.local.rules",
	"sasl.kerberos.service.name", "sasl.kerberos.ticket.renew.jitter", "sasl.kerberos.ticket.renew.window.factor",
	"sasl.login.refresh.buffer.seconds", "sasl.login.refresh.min.period.seconds",
	"sasl.login.refresh.window.factor", "sasl.login.refresh.window.jitter", "sasl.mechanism.inter.broker.protocol",
	"ssl.cipher.suites", "ssl.client.auth", "ssl.enabled.protocols", "ssl.endpoint.identification.algorithm",
	"ssl.engine.factory.class", "ssl.key.password", "ssl.keymanager.algorithm", "ssl.keystore.certificate.chain",
	"ssl.keystore.key", "ssl.keystore.location", "ssl.keystore.password", "ssl.keystore.type", "ssl.protocol",
	"ssl.provider", "ssl.secure.random.implementation", "ssl.trustmanager.algorithm",
	"ssl.truststore.certificates", "ssl.truststore.location", "ssl.truststore.password", "ssl.truststore.type",
}

// kafkaListenerSecurityConfigNames are DynamicBrokerConfig's
// DynamicSecurityConfigs, dynamic only with a listener prefix.
var kafkaListenerSecurityConfigNames = []string{
	"ssl.key.password", "ssl.keystore.certificate.chain", "ssl.keystore.key", "ssl.keystore.location",
	"ssl.keystore.password", "ssl.keystore.type", "ssl.truststore.certificates", "ssl.truststore.location",
	"ssl.truststore.password", "ssl.truststore.type",
}

// kafkaClusterLevelListenerConfigNames are the listener configs a
// broker takes with a listener prefix at the cluster-wide default too
// (DynamicBrokerConfig.ClusterLevelListenerConfigs).
var kafkaClusterLevelListenerConfigNames = []string{"max.connection.creation.rate", "max.connections", "num.network.threads"}

// kafkaPasswordConfigNames are DynamicBrokerConfig's
// DynamicPasswordConfigs. A name ending in one of them is a password
// config to Kafka (DynamicBrokerConfig.isPasswordConfig).
var kafkaPasswordConfigNames = []string{
	"sasl.jaas.config", "ssl.key.password", "ssl.keystore.certificate.chain", "ssl.keystore.key",
	"ssl.keystore.password", "ssl.truststore.certificates", "ssl.truststore.password",
}

// kafkaListConfigNames are the broker configs of type LIST.
var kafkaListConfigNames = []string{
	"controller.quorum.bootstrap.servers", "controller.quorum.voters", "group.consumer.assignors",
	"group.coordinator.rebalance.protocols", "kafka.metrics.reporters", "log.cleanup.policy", "metric.reporters",
	"process.roles", "sasl.enabled.mechanisms", "sasl.kerberos.principal.to.local.rules",
	"sasl.oauthbearer.expected.audience", "ssl.cipher.suites", "ssl.enabled.protocols",
	"zookeeper.ssl.cipher.suites", "zookeeper.ssl.enabled.protocols",
}

// kafkaDynamicListDefaults are the defaults of the dynamic LIST configs,
// which APPEND and SUBTRACT start from when nothing is set.
var kafkaDynamicListDefaults = map[string]string{
	"log.cleanup.policy":                     "delete",
	"metric.reporters":                       "",
	"sasl.enabled.mechanisms":                "GSSAPI",
	"sasl.kerberos.principal.to.local.rules": "DEFAULT",
	"ssl.cipher.suites":                      "",
	"ssl.enabled.protocols":                  "TLSv1.2,TLSv1.3",
}
