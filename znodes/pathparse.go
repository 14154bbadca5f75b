package znodes

import (
	"fmt"
	"strconv"
	"strings"
)

// parseJavaInt parses s the way Java's Integer.parseInt / Long.parseLong do
// for ASCII input: an optional sign followed by at least one decimal digit,
// leading zeros allowed, range checked. Kafka uses these on child names.
func parseJavaInt(s string, bits int) (int64, error) {
	digits := s
	if strings.HasPrefix(digits, "+") || strings.HasPrefix(digits, "-") {
		digits = digits[1:]
	}
	if digits == "" {
		return 0, fmt.Errorf("%q is not a decimal number", clip(s))
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, fmt.Errorf("%q is not a decimal number", clip(s))
		}
	}
	// strconv rejects a leading '+' only for unsigned parsing; ParseInt
	// accepts "+5" and leading zeros, matching Java.
	v, err := strconv.ParseInt(s, 10, bits)
	if err != nil {
		return 0, fmt.Errorf("%q is out of range for a %d-bit integer", clip(s), bits)
	}
	return v, nil
}

// ParseBrokerID parses a child name of /brokers/ids. Kafka requires every
// child to parse as an int (Integer.parseInt), and so do we.
func ParseBrokerID(name string) (int32, error) {
	v, err := parseJavaInt(name, 32)
	if err != nil {
		return 0, fmt.Errorf("broker id child %s: %w", BrokerIDsPath, err)
	}
	return int32(v), nil
}

// ParsePartitionID parses a child name of /brokers/topics/<t>/partitions.
func ParsePartitionID(name string) (int32, error) {
	v, err := parseJavaInt(name, 32)
	if err != nil {
		return 0, fmt.Errorf("partition child: %w", err)
	}
	return int32(v), nil
}

// ParseSequentialChild returns the sequence number of a sequential child
// such as "isr_change_0000000012" (prefix IsrChangePrefix). Kafka parses the
// text after the prefix with Long.parseLong; a child that does not have the
// prefix or a numeric suffix aborts Kafka's processing of the whole
// directory, so callers should treat an error here as a foreign znode.
func ParseSequentialChild(prefix, name string) (int64, error) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return 0, fmt.Errorf("sequential child %q: want prefix %q", clip(name), prefix)
	}
	v, err := parseJavaInt(rest, 64)
	if err != nil {
		return 0, fmt.Errorf("sequential child %q: %w", clip(name), err)
	}
	return v, nil
}

// SequentialChildName formats the name ZooKeeper gives the child created
// with seq: prefix + 10-digit zero-padded counter.
func SequentialChildName(prefix string, seq int32) string {
	return fmt.Sprintf("%s%010d", prefix, seq)
}

// ParseTopicPath recognises /brokers/topics/<topic> and returns the topic.
func ParseTopicPath(path string) (string, bool) {
	rest, ok := strings.CutPrefix(path, TopicsPath+"/")
	if !ok || rest == "" || strings.Contains(rest, "/") {
		return "", false
	}
	return rest, true
}

// ParsePartitionStatePath recognises /brokers/topics/<t>/partitions/<p>/state.
func ParsePartitionStatePath(path string) (TopicPartition, bool) {
	rest, ok := strings.CutPrefix(path, TopicsPath+"/")
	if !ok {
		return TopicPartition{}, false
	}
	parts := strings.Split(rest, "/")
	if len(parts) != 4 || parts[0] == "" || parts[1] != "partitions" || parts[3] != "state" {
		return TopicPartition{}, false
	}
	p, err := ParsePartitionID(parts[2])
	if err != nil {
		return TopicPartition{}, false
	}
	return TopicPartition{Topic: parts[0], Partition: p}, true
}

// ParseBrokerIDPath recognises /brokers/ids/<id>.
func ParseBrokerIDPath(path string) (int32, bool) {
	rest, ok := strings.CutPrefix(path, BrokerIDsPath+"/")
	if !ok || strings.Contains(rest, "/") {
		return 0, false
	}
	id, err := ParseBrokerID(rest)
	return id, err == nil
}

// ParseDeleteTopicPath recognises /admin/delete_topics/<topic>.
func ParseDeleteTopicPath(path string) (string, bool) {
	rest, ok := strings.CutPrefix(path, DeleteTopicsPath+"/")
	if !ok || rest == "" || strings.Contains(rest, "/") {
		return "", false
	}
	return rest, true
}

// ParseConfigEntityPath recognises /config/<type>/<name>, including the
// user+client form /config/users/<u>/clients/<c> (name "<u>/clients/<c>").
// The change-notification parent /config/changes is not an entity.
func ParseConfigEntityPath(path string) (entityType, entityName string, ok bool) {
	rest, ok := strings.CutPrefix(path, ConfigPath+"/")
	if !ok {
		return "", "", false
	}
	entityType, entityName, ok = strings.Cut(rest, "/")
	if !ok || !contains(ConfigEntityTypes(), entityType) || entityName == "" {
		return "", "", false
	}
	if strings.Contains(entityName, "/") {
		if _, _, ok := ParseUserClientEntityName(entityName); entityType != EntityUsers || !ok {
			return "", "", false
		}
	}
	return entityType, entityName, true
}
