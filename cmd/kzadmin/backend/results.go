package backend

import (
	"fmt"
	"strings"
)

// Write is one ZooKeeper write a request made (or, dry run, would make).
// A Kafka-protocol backend makes none.
type Write struct {
	// Op is create, set, delete or check.
	Op   string `json:"op"`
	Path string `json:"path"`
	// Version is the version a set, delete or check expects; -1 for any
	// version or a create.
	Version int32 `json:"version"`
	// Mode is the create mode (persistent, persistent-sequential).
	Mode string `json:"mode,omitempty"`
	// Data is the payload; nil for ZooKeeper's null.
	Data *string `json:"data"`
}

// Writes are the writes of one request: applied together (one ZooKeeper
// multi), or not at all.
type Writes struct {
	DryRun bool    `json:"dry_run"`
	Ops    []Write `json:"writes,omitempty"`
	// Attempts counts the tries, more than 1 when concurrent writers won
	// races first.
	Attempts int `json:"attempts,omitempty"`
}

// CreateTopicResult is what CreateTopic did.
type CreateTopicResult struct {
	Writes
	TopicID    string    `json:"topic_id,omitempty"`
	Assignment [][]int32 `json:"assignment"`
}

// CreatePartitionsResult is what CreatePartitions did.
type CreatePartitionsResult struct {
	Writes
	Previous int32     `json:"previous_partitions"`
	Added    [][]int32 `json:"added"`
}

// DeleteTopicResult is what DeleteTopic did.
type DeleteTopicResult struct {
	Writes
	AlreadyMarked bool `json:"already_marked"`
}

// AlterConfigsResult is what AlterConfigs did.
type AlterConfigsResult struct {
	Writes
	Before map[string]string `json:"before"`
	After  map[string]string `json:"after"`
}

// ReassignResult is what StartReassignment or CancelReassignments did.
type ReassignResult struct {
	Writes
	// Current are the replicas before (a rollback plan).
	Current   []Reassignment   `json:"current"`
	Requested []Reassignment   `json:"requested"`
	NotActive []TopicPartition `json:"not_active,omitempty"`
}

// ElectionResult is what ElectLeaders did. Requested lists the partitions
// an election was asked for; Elected, where the backend waited, those that
// got a leader.
type ElectionResult struct {
	Writes
	Requested []TopicPartition `json:"requested"`
	Elected   []TopicPartition `json:"elected,omitempty"`
	// Notes explain what the backend did beyond the writes.
	Notes []string `json:"notes,omitempty"`
}

// Error is a refused request: Kafka's error code and name and a message
// naming the resource and the reason.
type Error struct {
	Resource string
	Code     int16
	Name     string
	// Reason refines the code where one code covers several cases, e.g.
	// "MarkedForDeletion" (code 36, like an existing topic).
	Reason  string
	Message string
	Err     error
}

// Error is the message, prefixed with the resource when the message does
// not name it already.
func (e *Error) Error() string {
	if e.Resource == "" || strings.Contains(e.Message, e.Resource) {
		return e.Message
	}
	return fmt.Sprintf("%s: %s", e.Resource, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// ErrorName returns Kafka's name for an error code.
func ErrorName(code int16) string {
	if n, ok := errorNames[code]; ok {
		return n
	}
	return fmt.Sprintf("ERROR_%d", code)
}

var errorNames = map[int16]string{
	-1: "UNKNOWN_SERVER_ERROR",
	3:  "UNKNOWN_TOPIC_OR_PARTITION",
	17: "INVALID_TOPIC_EXCEPTION",
	36: "TOPIC_ALREADY_EXISTS",
	37: "INVALID_PARTITIONS",
	38: "INVALID_REPLICATION_FACTOR",
	39: "INVALID_REPLICA_ASSIGNMENT",
	40: "INVALID_CONFIG",
	42: "INVALID_REQUEST",
	44: "POLICY_VIOLATION",
	60: "REASSIGNMENT_IN_PROGRESS",
	85: "NO_REASSIGNMENT_IN_PROGRESS",
	88: "WILL_EXCEED_PARTITION_LIMITS",
}
