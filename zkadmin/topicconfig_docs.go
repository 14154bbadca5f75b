package zkadmin

// Doc is the config's documentation, as DescribeConfigs (v3+) returns it
// when asked to include documentation. kzadmin writes its own: the text
// says what the config does, in the project's words, not Kafka's.
func (d TopicConfigDef) Doc() string { return topicConfigDoc(d.Name) }

// topicConfigDoc is the documentation of each topic config kzadmin knows;
// "" for any other name.
func topicConfigDoc(name string) string {
	switch name {
	case "cleanup.policy":
		return `How old log segments are discarded: "delete" removes segments past the retention time or size, ` +
			`"compact" keeps the latest record of each key. Both may be listed.`
	case "compression.gzip.level":
		return "The gzip level when compression.type is gzip: 1 (fastest) to 9 (smallest), or -1 for the codec's default."
	case "compression.lz4.level":
		return "The lz4 level when compression.type is lz4, from 1 to 17."
	case "compression.type":
		return "The codec the broker stores the topic's record batches with: uncompressed, gzip, snappy, lz4 or zstd; " +
			`"producer" keeps the codec each producer used.`
	case "compression.zstd.level":
		return "The zstd level when compression.type is zstd, from -131072 to 22."
	case "delete.retention.ms":
		return "On a compacted topic, how long a tombstone (a record with a null value) stays after the cleaner reaches it, " +
			"so that a consumer reading from the start still sees the delete."
	case "file.delete.delay.ms":
		return "How long a segment taken out of the log waits before its files are removed from disk."
	case "flush.messages":
		return "Forces an fsync of the log every this many appended records. The default never forces one: " +
			"the operating system flushes, and replication gives durability."
	case "flush.ms":
		return "Forces an fsync of the log once this many milliseconds have passed since the last one. " +
			"The default never forces one."
	case "follower.replication.throttled.replicas":
		return `The replicas whose fetching is throttled on the follower's side, as partition:broker pairs, or "*" for all; ` +
			"reassignment tools set it."
	case "index.interval.bytes":
		return "How many bytes of log go between two entries of the offset index: smaller makes the index denser and seeks shorter."
	case "leader.replication.throttled.replicas":
		return `The replicas whose replication is throttled on the leader's side, as partition:broker pairs, or "*" for all; ` +
			"reassignment tools set it."
	case "local.retention.bytes":
		return "With tiered storage, how large a partition's local log may grow before its oldest segments go from local disk; " +
			"-2 means retention.bytes."
	case "local.retention.ms":
		return "With tiered storage, how long a segment stays on local disk; -2 means retention.ms."
	case "max.compaction.lag.ms":
		return "The longest a record may wait to be compacted: past it, its segment is compacted even below min.cleanable.dirty.ratio."
	case "max.message.bytes":
		return "The largest record batch, after compression, the broker accepts for the topic."
	case "message.downconversion.enable":
		return "Whether the broker converts record batches to an older format for consumers fetching with old request versions."
	case "message.format.version":
		return "Deprecated: the record format version. Brokers on inter-broker protocol 3.0 or later ignore it."
	case "message.timestamp.after.max.ms":
		return "With CreateTime, how far ahead of the broker's clock a record's timestamp may be before the batch is refused."
	case "message.timestamp.before.max.ms":
		return "With CreateTime, how far behind the broker's clock a record's timestamp may be before the batch is refused."
	case "message.timestamp.difference.max.ms":
		return "Deprecated for message.timestamp.before.max.ms and message.timestamp.after.max.ms: " +
			"how far a record's timestamp may be from the broker's clock."
	case "message.timestamp.type":
		return "The timestamp records carry: CreateTime, set by the producer, or LogAppendTime, set by the broker as it appends."
	case "min.cleanable.dirty.ratio":
		return "The share of a compacted log not yet compacted (dirty) at which the cleaner takes it up."
	case "min.compaction.lag.ms":
		return "The least time a record stays in the log before it can be compacted away, so that consumers see every update within it."
	case "min.insync.replicas":
		return "With acks=all, how many in-sync replicas must have a write for it to succeed; " +
			"with fewer, producers get NOT_ENOUGH_REPLICAS."
	case "preallocate":
		return "Whether the broker allocates a new segment's file at its full size when it creates it."
	case "remote.log.copy.disable":
		return "With tiered storage, stops copying segments to remote storage; those already copied stay readable."
	case "remote.log.delete.on.disable":
		return "Whether turning remote.storage.enable off deletes the topic's segments in remote storage."
	case "remote.storage.enable":
		return "Whether the topic uses tiered storage: closed segments are copied to remote storage."
	case "retention.bytes":
		return "With the delete policy, how large a partition's log may grow before its oldest segments are deleted; -1 for no limit."
	case "retention.ms":
		return "With the delete policy, how long records are kept before their segments are deleted; -1 for no limit."
	case "segment.bytes":
		return "How large a segment file may grow before the log rolls to a new one."
	case "segment.index.bytes":
		return "The size of the offset index file each segment starts with."
	case "segment.jitter.ms":
		return "Up to this much, at random, is taken off segment.ms, so that partitions do not all roll at once."
	case "segment.ms":
		return "How long after its first record a segment is rolled even when not full, so that retention and compaction reach it."
	case "unclean.leader.election.enable":
		return "Whether a replica outside the ISR may become leader when no in-sync replica is left, at the risk of losing acknowledged records."
	case "unclean.recovery.strategy":
		return "kzadmin's KIP-966 recovery of a partition with no ISR or ELR member left: None elects nobody, " +
			"Balanced waits for the last replicas to report their logs and elects the longest, " +
			"Aggressive elects the longest among the live replicas that answer."
	}
	return ""
}
