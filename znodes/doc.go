// Package znodes is Kafka's ZooKeeper data model: every znode path Kafka
// (ZooKeeper mode, 0.8 through 3.9) uses, and a typed payload with Decode
// and Encode for every znode that carries data. It is pure: no I/O, no
// ZooKeeper client, no package-level mutable state.
//
// # Paths
//
// Fixed paths are constants (ControllerPath, TopicsPath, ...); variable ones
// have builders (TopicPath, PartitionStatePath, BrokerIDPath,
// ConfigEntityPath, ...) and, where a watcher must go back from a path or a
// child name to ids, parsers (ParseBrokerID, ParsePartitionID,
// ParseSequentialChild, ParsePartitionStatePath, ...).
// TopLevelPersistentPaths lists what a broker creates at start-up.
// Container and marker znodes carry null data: write a nil slice, never an
// empty one.
//
// # Payloads
//
// Each payload type X has DecodeX(..., data []byte) (X, error) and
// (X) Encode() ([]byte, error). Decoders whose znode path carries ids take
// them first (DecodeTopicAssignment(topic, data)) and name the concrete path
// in errors. Encoders write the newest format Kafka 3.x brokers read (topic
// assignment v3, partition state v1, /controller v2, broker registration v5,
// config change notification v2) as compact JSON with Kafka's escaping and,
// where Kafka's own order is deterministic, Kafka's key order, so output
// matches Kafka's byte for byte. Decoders read every version Kafka wrote.
// A Version field reports the version read; Encode ignores it unless
// documented otherwise (FinalizedFeatures).
//
// # Strictness
//
// Decoders apply Kafka's reader rules: integers must be integral JSON numbers
// within range (1.0, "1" and 2^31 are rejected where Kafka reads an int),
// strings must be JSON strings (config values, timestamps, block bounds),
// required fields must be present, and nothing panics on any input. Fields
// Kafka does not read are optional, but when present they must have the type
// Kafka writes. Malformed UTF-8 and trailing garbage are rejected. A few
// places where Kafka is lenient on malformed data (for example an
// unparsable topic assignment meaning "no partitions", or an unparsable
// config entity meaning "no overrides") report a *DecodeError instead, so
// that the caller decides.
//
// Unknown top-level fields are ignored on read but preserved, in the Unknown
// map of the payloads that get rewritten (topic assignment, partition state,
// entity config, broker registration, feature), and re-emitted by Encode in
// key order after the known fields. The exceptions are the znodes Kafka
// parses with Jackson databind, /admin/reassign_partitions and the extended
// ACL change events, where an unknown key invalidates the payload.
//
// # Errors
//
// Every decode failure is a *DecodeError naming the znode and the JSON field,
// e.g. `znode /brokers/topics/foo: field "partitions"."0": want array of
// integers, got string`. Null or zero-length data wraps ErrNoData.
//
// # Topic names
//
// ValidateTopicName, CheckTopicCollision and IsInternalTopic implement
// Kafka's topic naming rules with Kafka's messages (*InvalidTopicError).
package znodes
