package zkadmin

import (
	"math"
	"regexp"
	"strconv"
	"sync"

	"github.com/kzadmin/kzadmin/config"
)

// ConfigType is the type of a Kafka config (ConfigDef.Type).
type ConfigType int

// Kafka's config types that topic configs use.
const (
	TypeBoolean ConfigType = iota + 1
	TypeInt
	TypeLong
	TypeDouble
	TypeString
	TypeList
)

func (t ConfigType) String() string {
	switch t {
	case TypeBoolean:
		return "BOOLEAN"
	case TypeInt:
		return "INT"
	case TypeLong:
		return "LONG"
	case TypeDouble:
		return "DOUBLE"
	case TypeString:
		return "STRING"
	case TypeList:
		return "LIST"
	}
	return "ConfigType(" + strconv.Itoa(int(t)) + ")"
}

// TopicConfigDef is one of Kafka 3.9's topic configs (LogConfig's
// definitions): its name, type, default and validator.
type TopicConfigDef struct {
	Name    string
	Type    ConfigType
	Default string
	// BrokerSynonym is the broker config (in /config/brokers/...) that
	// gives the cluster-wide default, e.g. log.retention.ms.
	BrokerSynonym string
	min, max      *float64
	enum          []string
	// check is a validator beyond range and enum; it returns Kafka's
	// message or "".
	check func(v string) string
}

func atLeast(v float64) *float64 { return &v }

const maxLong = "9223372036854775807"

// TopicConfigDefs returns Kafka 3.9's topic configs, in name order.
func TopicConfigDefs() []TopicConfigDef {
	return []TopicConfigDef{
		{Name: "cleanup.policy", Type: TypeList, Default: "delete", BrokerSynonym: "log.cleanup.policy", enum: []string{"compact", "delete"}},
		{Name: "compression.gzip.level", Type: TypeInt, Default: "-1", BrokerSynonym: "compression.gzip.level", check: gzipLevel},
		{Name: "compression.lz4.level", Type: TypeInt, Default: "9", BrokerSynonym: "compression.lz4.level", min: atLeast(1), max: atLeast(17)},
		{Name: "compression.type", Type: TypeString, Default: "producer", BrokerSynonym: "compression.type",
			enum: []string{"uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"}},
		{Name: "compression.zstd.level", Type: TypeInt, Default: "3", BrokerSynonym: "compression.zstd.level", min: atLeast(-131072), max: atLeast(22)},
		{Name: "delete.retention.ms", Type: TypeLong, Default: "86400000", BrokerSynonym: "log.cleaner.delete.retention.ms", min: atLeast(0)},
		{Name: "file.delete.delay.ms", Type: TypeLong, Default: "60000", BrokerSynonym: "log.segment.delete.delay.ms", min: atLeast(0)},
		{Name: "flush.messages", Type: TypeLong, Default: maxLong, BrokerSynonym: "log.flush.interval.messages", min: atLeast(1)},
		{Name: "flush.ms", Type: TypeLong, Default: maxLong, BrokerSynonym: "log.flush.interval.ms", min: atLeast(0)},
		{Name: "follower.replication.throttled.replicas", Type: TypeList, Default: "", check: throttledReplicas},
		{Name: "index.interval.bytes", Type: TypeInt, Default: "4096", BrokerSynonym: "log.index.interval.bytes", min: atLeast(0)},
		{Name: "leader.replication.throttled.replicas", Type: TypeList, Default: "", check: throttledReplicas},
		{Name: "local.retention.bytes", Type: TypeLong, Default: "-2", BrokerSynonym: "log.local.retention.bytes", min: atLeast(-2)},
		{Name: "local.retention.ms", Type: TypeLong, Default: "-2", BrokerSynonym: "log.local.retention.ms", min: atLeast(-2)},
		{Name: "max.compaction.lag.ms", Type: TypeLong, Default: maxLong, BrokerSynonym: "log.cleaner.max.compaction.lag.ms", min: atLeast(1)},
		{Name: "max.message.bytes", Type: TypeInt, Default: "1048588", BrokerSynonym: "message.max.bytes", min: atLeast(0)},
		{Name: "message.downconversion.enable", Type: TypeBoolean, Default: "true", BrokerSynonym: "log.message.downconversion.enable"},
		{Name: "message.format.version", Type: TypeString, Default: "3.0-IV1", BrokerSynonym: "log.message.format.version", check: metadataVersion},
		{Name: "message.timestamp.after.max.ms", Type: TypeLong, Default: maxLong, BrokerSynonym: "log.message.timestamp.after.max.ms", min: atLeast(0)},
		{Name: "message.timestamp.before.max.ms", Type: TypeLong, Default: maxLong, BrokerSynonym: "log.message.timestamp.before.max.ms", min: atLeast(0)},
		{Name: "message.timestamp.difference.max.ms", Type: TypeLong, Default: maxLong, BrokerSynonym: "log.message.timestamp.difference.max.ms", min: atLeast(0)},
		{Name: "message.timestamp.type", Type: TypeString, Default: "CreateTime", BrokerSynonym: "log.message.timestamp.type",
			enum: []string{"CreateTime", "LogAppendTime"}},
		{Name: "min.cleanable.dirty.ratio", Type: TypeDouble, Default: "0.5", BrokerSynonym: "log.cleaner.min.cleanable.ratio", min: atLeast(0), max: atLeast(1)},
		{Name: "min.compaction.lag.ms", Type: TypeLong, Default: "0", BrokerSynonym: "log.cleaner.min.compaction.lag.ms", min: atLeast(0)},
		{Name: "min.insync.replicas", Type: TypeInt, Default: "1", BrokerSynonym: "min.insync.replicas", min: atLeast(1)},
		{Name: "preallocate", Type: TypeBoolean, Default: "false", BrokerSynonym: "log.preallocate"},
		{Name: "remote.log.copy.disable", Type: TypeBoolean, Default: "false"},
		{Name: "remote.log.delete.on.disable", Type: TypeBoolean, Default: "false"},
		{Name: "remote.storage.enable", Type: TypeBoolean, Default: "false"},
		{Name: "retention.bytes", Type: TypeLong, Default: "-1", BrokerSynonym: "log.retention.bytes"},
		{Name: "retention.ms", Type: TypeLong, Default: "604800000", BrokerSynonym: "log.retention.ms", min: atLeast(-1)},
		{Name: "segment.bytes", Type: TypeInt, Default: "1073741824", BrokerSynonym: "log.segment.bytes", min: atLeast(14)},
		{Name: "segment.index.bytes", Type: TypeInt, Default: "10485760", BrokerSynonym: "log.index.size.max.bytes", min: atLeast(4)},
		{Name: "segment.jitter.ms", Type: TypeLong, Default: "0", BrokerSynonym: "log.roll.jitter.ms", min: atLeast(0)},
		{Name: "segment.ms", Type: TypeLong, Default: "604800000", BrokerSynonym: "log.roll.ms", min: atLeast(1)},
		{Name: "unclean.leader.election.enable", Type: TypeBoolean, Default: "false", BrokerSynonym: "unclean.leader.election.enable"},
	}
}

// extensionTopicConfigDefs are topic configs kzadmin accepts beyond Kafka
// 3.9's: its controller reads them, Kafka's brokers ignore them. They are
// validated like the others but left out of TopicConfigDefs, so that a
// topic's described configs stay exactly a Kafka broker's.
func extensionTopicConfigDefs() []TopicConfigDef {
	return []TopicConfigDef{
		// KIP-966 in ZooKeeper mode: the topic's unclean recovery strategy.
		{Name: "unclean.recovery.strategy", Type: TypeString, Default: "Balanced", BrokerSynonym: "unclean.recovery.strategy",
			enum: []string{"None", "Balanced", "Aggressive"}},
	}
}

// LookupTopicConfig returns the definition of a topic config.
func LookupTopicConfig(name string) (TopicConfigDef, bool) {
	d, ok := topicConfigIndex()[name]
	return d, ok
}

// topicConfigIndex is every definition LookupTopicConfig knows, by name.
// It is built once and never changed: every create validates its topics'
// configs, and rebuilding the table for each key looked up cost more than
// the rest of a small create's planning.
var topicConfigIndex = sync.OnceValue(func() map[string]TopicConfigDef {
	defs := append(TopicConfigDefs(), extensionTopicConfigDefs()...)
	index := make(map[string]TopicConfigDef, len(defs))
	for _, d := range defs {
		index[d.Name] = d
	}
	return index
})

// gzipLevel is GzipCompression.LevelValidator: -1 (zlib's default) or 1..9.
func gzipLevel(v string) string {
	n, ok := config.ParseJavaInteger(v, 32)
	if ok && (n == -1 || (n >= 1 && n <= 9)) {
		return ""
	}
	return "Value must be between 1 and 9 or equal to -1"
}

var throttledRE = regexp.MustCompile(`^[0-9]+:[0-9]+$`)

// throttledReplicas is ThrottledReplicaListValidator: "*" alone, or a list
// of partition:broker pairs.
func throttledReplicas(v string) string {
	items := splitList(v)
	if len(items) == 1 && items[0] == "*" {
		return ""
	}
	for _, it := range items {
		if !throttledRE.MatchString(it) {
			return "must be the literal '*' or a list of replicas in the following format: " +
				"[partitionId]:[brokerId],[partitionId]:[brokerId],..."
		}
	}
	return ""
}

// metadataVersionRE accepts what MetadataVersion.fromVersionString does:
// a release ("2.8", "0.10.2") optionally with an IV suffix ("3.0-IV1").
var metadataVersionRE = regexp.MustCompile(`^(0\.8\.[0-2]|0\.9\.0|0\.1[01]\.[0-2]|[1-3]\.[0-9])(\.[0-9]+)?(-IV[0-9]+)?$`)

func metadataVersion(v string) string {
	if metadataVersionRE.MatchString(config.JavaTrim(v)) {
		return ""
	}
	return "Unknown metadata.version '" + config.JavaTrim(v) + "'"
}

// splitList is ConfigDef's LIST parsing (config.SplitKafkaList):
// trimmed, split on commas with surrounding blanks; the empty string is
// the empty list.
func splitList(v string) []string { return config.SplitKafkaList(v) }

// parseNumber is ConfigDef's INT, LONG and DOUBLE parsing (Java's, as
// the config package has it). NaN, which Kafka takes for a DOUBLE (its
// range checks compare false with it), is refused: no ratio is NaN.
func parseNumber(t ConfigType, v string) (float64, bool) {
	switch t {
	case TypeInt, TypeLong:
		n, ok := config.ParseJavaInteger(v, t.bits())
		return float64(n), ok
	case TypeDouble:
		f, ok := config.ParseJavaDouble(v)
		return f, ok && !math.IsNaN(f)
	}
	return 0, false
}

// bits is the width of an INT or LONG.
func (t ConfigType) bits() int {
	if t == TypeInt {
		return 32
	}
	return 64
}

// javaLong is a LONG value already validated (0 when it is not one).
func javaLong(v string) int64 {
	n, _ := config.ParseJavaInteger(v, 64)
	return n
}
