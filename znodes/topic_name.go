package znodes

import (
	"strconv"
	"strings"
	"unicode/utf16"
)

// MaxTopicNameLength is Kafka's limit on topic name length, in Java chars.
const MaxTopicNameLength = 249

// Internal and reserved topic names.
const (
	// GroupMetadataTopic holds consumer group offsets and metadata.
	GroupMetadataTopic = "__consumer_offsets"
	// TransactionStateTopic holds the transaction log.
	TransactionStateTopic = "__transaction_state"
	// ShareGroupStateTopic is KIP-932's share-group state topic. Kafka
	// 3.9's Topic.isInternal already counts it (3.7 and 3.8 did not).
	ShareGroupStateTopic = "__share_group_state"
	// ClusterMetadataTopic is KRaft's metadata log; CreateTopics refuses it
	// with INVALID_REQUEST. It is not an internal topic in ZK mode.
	ClusterMetadataTopic = "__cluster_metadata"
)

// InternalTopics returns the topics Kafka 3.9 reports as internal
// (Topic.isInternal).
func InternalTopics() []string {
	return []string{GroupMetadataTopic, TransactionStateTopic, ShareGroupStateTopic}
}

// IsInternalTopic reports whether Kafka 3.9 treats name as an internal
// topic (the IsInternal of Metadata and DescribeTopicPartitions).
func IsInternalTopic(name string) bool {
	return name == GroupMetadataTopic || name == TransactionStateTopic || name == ShareGroupStateTopic
}

// ValidateTopicName applies Kafka's Topic.validate and returns an
// *InvalidTopicError carrying Kafka 3.x's exact message, or nil.
func ValidateTopicName(name string) error {
	reason := ""
	switch {
	case name == "":
		reason = "the empty string is not allowed"
	case name == "." || name == "..":
		reason = "'" + name + "' is not allowed"
	case javaLength(name) > MaxTopicNameLength:
		reason = "the length of '" + name + "' is longer than the max allowed length " + strconv.Itoa(MaxTopicNameLength)
	case !legalTopicChars(name):
		reason = "'" + name + "' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"
	default:
		return nil
	}
	return invalidTopic(name, "Topic name is invalid: "+reason)
}

func invalidTopic(name, msg string) error { return &InvalidTopicError{Topic: name, Message: msg} }

// javaLength counts UTF-16 code units, as Java's String.length does, so the
// length check fires before the character check exactly when Kafka's does.
func javaLength(s string) int {
	// Invalid UTF-8 bytes range over as U+FFFD, one unit each.
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

func legalTopicChars(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '.' || c == '_' || c == '-'
		if !ok {
			return false
		}
	}
	return true
}

// HasCollisionChars reports whether name contains '.' or '_', the two
// characters that collide in metric names.
func HasCollisionChars(name string) bool { return strings.ContainsAny(name, "._") }

// UnifyCollisionChars maps a topic name to its collision form by replacing
// every '.' with '_'. Two topics collide when their forms are equal.
func UnifyCollisionChars(name string) string { return strings.ReplaceAll(name, ".", "_") }

// TopicsCollide reports whether a and b are equal after unifying '.' and '_'.
func TopicsCollide(a, b string) bool { return UnifyCollisionChars(a) == UnifyCollisionChars(b) }

// CollidingTopics returns the topics in existing, in their given order, that
// collide with name without being equal to it. Kafka reports an exact
// duplicate as TopicExistsException instead, so callers check that first.
func CollidingTopics(name string, existing []string) []string {
	if !HasCollisionChars(name) {
		return nil
	}
	var out []string
	for _, t := range existing {
		if t != name && TopicsCollide(name, t) {
			out = append(out, t)
		}
	}
	return out
}

// CheckTopicCollision returns Kafka's InvalidTopicException message
// "Topic 'x' collides with existing topics: a_b, ..." as an
// *InvalidTopicError when name collides with any of existing, else nil.
func CheckTopicCollision(name string, existing []string) error {
	c := CollidingTopics(name, existing)
	if len(c) == 0 {
		return nil
	}
	return invalidTopic(name, "Topic '"+name+"' collides with existing topics: "+strings.Join(c, ", "))
}
