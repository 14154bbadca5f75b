package zkadmin

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kzadmin/kzadmin/placement"
)

// ErrorKind says why an admin operation was refused, so that callers (the
// CLI now, the wire API later) branch without parsing messages.
type ErrorKind int

// The kinds of admin errors. Each has a sentinel (ErrTopicExists, ...) that
// errors.Is matches against any *AdminError of that kind.
const (
	KindUnknownTopic ErrorKind = iota + 1
	KindInvalidTopic
	KindTopicExists
	KindMarkedForDeletion
	KindInvalidPartitions
	KindInvalidReplicationFactor
	KindInvalidReplicaAssignment
	KindInvalidConfig
	KindInvalidRequest
	KindPartitionLimit
	KindReassignmentInProgress
	KindNoReassignmentInProgress
	KindElectionInProgress
	// KindMalformed: a znode the operation must rewrite or rely on does not
	// decode. kzadmin never rewrites what it cannot read.
	KindMalformed
	// KindConflict: concurrent writers kept changing the znodes involved
	// until the retry budget ran out.
	KindConflict
	// KindAdminOperation is Kafka's AdminOperationException: a refusal with
	// no error code of its own (mixed rack information, ...).
	KindAdminOperation
)

var kindNames = map[ErrorKind]string{
	KindUnknownTopic:             "UnknownTopic",
	KindInvalidTopic:             "InvalidTopic",
	KindTopicExists:              "TopicExists",
	KindMarkedForDeletion:        "MarkedForDeletion",
	KindInvalidPartitions:        "InvalidPartitions",
	KindInvalidReplicationFactor: "InvalidReplicationFactor",
	KindInvalidReplicaAssignment: "InvalidReplicaAssignment",
	KindInvalidConfig:            "InvalidConfig",
	KindInvalidRequest:           "InvalidRequest",
	KindPartitionLimit:           "PartitionLimit",
	KindReassignmentInProgress:   "ReassignmentInProgress",
	KindNoReassignmentInProgress: "NoReassignmentInProgress",
	KindElectionInProgress:       "ElectionInProgress",
	KindMalformed:                "Malformed",
	KindConflict:                 "Conflict",
	KindAdminOperation:           "AdminOperation",
}

func (k ErrorKind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("ErrorKind(%d)", int(k))
}

// Kafka error codes the admin operations answer with (reference/znodes.md
// §5). CodePartitionLimit is kzadmin's default for WILL_EXCEED_PARTITION_
// LIMITS (POLICY_VIOLATION, design brief §3); config.Config's
// PartitionLimitsErrorCode may ask a wire handler for 88 instead.
const (
	CodeUnknownServerError       int16 = -1
	CodeUnknownTopicOrPartition  int16 = 3
	CodeInvalidTopic             int16 = 17
	CodeTopicAlreadyExists       int16 = 36
	CodeInvalidPartitions        int16 = 37
	CodeInvalidReplicationFactor int16 = 38
	CodeInvalidReplicaAssignment int16 = 39
	CodeInvalidConfig            int16 = 40
	CodeInvalidRequest           int16 = 42
	CodePolicyViolation          int16 = 44
	CodeReassignmentInProgress   int16 = 60
	CodeNoReassignmentInProgress int16 = 85
	// The client quota and SCRAM credential APIs' codes.
	CodeUnsupportedSaslMechanism int16 = 33
	CodeUnsupportedVersion       int16 = 35
	CodeResourceNotFound         int16 = 91
	CodeDuplicateResource        int16 = 92
	CodeUnacceptableCredential   int16 = 93
	CodePartitionLimit                 = CodePolicyViolation
)

// defaultCodes is the Kafka code of each kind where the operation does not
// choose another (a marked topic is 36 on create but 17 on add partitions).
var defaultCodes = map[ErrorKind]int16{
	KindUnknownTopic:             CodeUnknownTopicOrPartition,
	KindInvalidTopic:             CodeInvalidTopic,
	KindTopicExists:              CodeTopicAlreadyExists,
	KindMarkedForDeletion:        CodeTopicAlreadyExists,
	KindInvalidPartitions:        CodeInvalidPartitions,
	KindInvalidReplicationFactor: CodeInvalidReplicationFactor,
	KindInvalidReplicaAssignment: CodeInvalidReplicaAssignment,
	KindInvalidConfig:            CodeInvalidConfig,
	KindInvalidRequest:           CodeInvalidRequest,
	KindPartitionLimit:           CodePartitionLimit,
	KindReassignmentInProgress:   CodeReassignmentInProgress,
	KindNoReassignmentInProgress: CodeNoReassignmentInProgress,
}

// AdminError is a refused admin operation. Message is what Kafka would put
// in the exception (or, for kzadmin's own checks, a sentence in that
// style), fit to send to a client verbatim; it names the topic where Kafka's
// does. Resource is the topic (or config entity, or "cluster") concerned.
type AdminError struct {
	Kind     ErrorKind
	Code     int16 // Kafka error code for a wire response
	Resource string
	Message  string
	// Err is the cause when there is one: a *placement.LimitError for
	// KindPartitionLimit, a *znodes.DecodeError for KindMalformed, ...
	Err error
}

func (e *AdminError) Error() string { return e.Message }
func (e *AdminError) Unwrap() error { return e.Err }

// Is matches the kind sentinels, so errors.Is(err, ErrTopicExists) works.
func (e *AdminError) Is(target error) bool {
	s, ok := target.(*kindSentinel)
	return ok && s.kind == e.Kind
}

type kindSentinel struct{ kind ErrorKind }

func (s *kindSentinel) Error() string { return "zkadmin: " + s.kind.String() }

// Sentinels for errors.Is; each matches every *AdminError of its kind.
var (
	ErrUnknownTopic             error = &kindSentinel{KindUnknownTopic}
	ErrInvalidTopic             error = &kindSentinel{KindInvalidTopic}
	ErrTopicExists              error = &kindSentinel{KindTopicExists}
	ErrMarkedForDeletion        error = &kindSentinel{KindMarkedForDeletion}
	ErrInvalidPartitions        error = &kindSentinel{KindInvalidPartitions}
	ErrInvalidReplicationFactor error = &kindSentinel{KindInvalidReplicationFactor}
	ErrInvalidReplicaAssignment error = &kindSentinel{KindInvalidReplicaAssignment}
	ErrInvalidConfig            error = &kindSentinel{KindInvalidConfig}
	ErrInvalidRequest           error = &kindSentinel{KindInvalidRequest}
	ErrPartitionLimit           error = &kindSentinel{KindPartitionLimit}
	ErrReassignmentInProgress   error = &kindSentinel{KindReassignmentInProgress}
	ErrNoReassignmentInProgress error = &kindSentinel{KindNoReassignmentInProgress}
	ErrElectionInProgress       error = &kindSentinel{KindElectionInProgress}
	ErrMalformed                error = &kindSentinel{KindMalformed}
	ErrConflict                 error = &kindSentinel{KindConflict}
	ErrAdminOperation           error = &kindSentinel{KindAdminOperation}
)

// adminErr builds an AdminError with the kind's default code.
func adminErr(kind ErrorKind, resource, format string, args ...any) *AdminError {
	code, ok := defaultCodes[kind]
	if !ok {
		code = CodeUnknownServerError
	}
	return &AdminError{Kind: kind, Code: code, Resource: resource, Message: fmt.Sprintf(format, args...)}
}

// withCode overrides the Kafka code where the operation differs from the
// kind's default.
func (e *AdminError) withCode(code int16) *AdminError {
	e.Code = code
	return e
}

// limitErr turns placement's LimitError into an AdminError whose message
// still starts with WILL_EXCEED_PARTITION_LIMITS: and also says what was
// being done, e.g. "WILL_EXCEED_PARTITION_LIMITS: creating topic 'foo' (3
// partitions): broker 2 would host 11 partition replicas, above
// max.broker.partitions=10 (it hosts 8 now)".
func limitErr(resource, doing string, le *placement.LimitError) *AdminError {
	detail := strings.TrimSpace(strings.TrimPrefix(le.Error(), placement.LimitErrorPrefix))
	return &AdminError{Kind: KindPartitionLimit, Code: CodePartitionLimit, Resource: resource,
		Message: placement.LimitErrorPrefix + " " + doing + ": " + detail, Err: le}
}

// fromPlacement maps a placement failure (Kafka's exceptions and messages)
// onto an AdminError; doing describes the operation for limit errors.
func fromPlacement(resource, doing string, err error) error {
	var le *placement.LimitError
	if errors.As(err, &le) {
		return limitErr(resource, doing, le)
	}
	var pe *placement.Error
	if !errors.As(err, &pe) {
		return err
	}
	kind := KindAdminOperation
	switch pe.Kind {
	case placement.InvalidPartitions:
		kind = KindInvalidPartitions
	case placement.InvalidReplicationFactor:
		kind = KindInvalidReplicationFactor
	case placement.InvalidReplicaAssignment:
		kind = KindInvalidReplicaAssignment
	}
	e := adminErr(kind, resource, "%s", pe.Msg)
	e.Err = pe
	return e
}

// malformed reports a znode kzadmin cannot decode and so will not rewrite.
func malformed(resource, doing string, cause error) *AdminError {
	e := adminErr(KindMalformed, resource, "cannot %s: %v (kzadmin does not rewrite a znode it cannot read; "+
		"fix or remove it first)", doing, cause)
	e.Err = cause
	return e
}
