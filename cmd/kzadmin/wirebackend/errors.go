package wirebackend

import (
	"errors"
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
	"github.com/kzadmin/kzadmin/zkadmin"
)

// UsageError is a request the wire protocol cannot make as asked (a dry
// run of an API without validateOnly, a placement switch the API lacks).
// Nothing was sent; the CLI exits 2 for it.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// UsageError marks the error for the CLI.
func (e *UsageError) UsageError() bool { return true }

// noDryRun refuses --dry-run for an API without validateOnly.
func noDryRun(command, api string) error {
	return &UsageError{Msg: fmt.Sprintf("--dry-run is not available for %s with --bootstrap-server: %s has no "+
		"validateOnly; use --zookeeper to see the znode writes it would make", command, api)}
}

// partitionLimitPrefix starts the message of a partition-limit refusal,
// whatever its code (POLICY_VIOLATION, or the seed's 88).
const partitionLimitPrefix = "WILL_EXCEED_PARTITION_LIMITS:"

// codeError turns a Kafka error code and its (nullable) message into the
// *backend.Error the CLI prints, nil for code 0. A null message takes the
// text kzadmin's ZooKeeper backend gives for the same refusal where there
// is one, else Kafka's default text. Err is the kerr error, which the
// retry loop consults; a partition-limit refusal carries none, since the
// seed's code 88 is UNSTABLE_OFFSET_COMMIT to kerr, which is retriable.
func codeError(resource string, code int16, msg *string) error {
	if code == 0 {
		return nil
	}
	ke, known := knownError(code)
	text := ""
	if msg != nil {
		text = *msg
	}
	if text == "" {
		text = defaultMessage(code, ke)
	}
	e := &backend.Error{Resource: resource, Code: code, Name: backend.ErrorName(code), Reason: reason(code, text),
		Message: text}
	switch {
	case strings.HasPrefix(text, partitionLimitPrefix):
		if code != kerr.PolicyViolation.Code {
			e.Name = "WILL_EXCEED_PARTITION_LIMITS"
		} else {
			e.Name = kerr.PolicyViolation.Message
		}
	case known:
		e.Name, e.Err = ke.Message, ke
	}
	return e
}

// knownError is kerr's error for code, if kerr knows the code.
func knownError(code int16) (*kerr.Error, bool) {
	ke := kerr.TypedErrorForCode(code)
	if ke == nil || (ke == kerr.UnknownServerError && code != kerr.UnknownServerError.Code) {
		return nil, false
	}
	return ke, true
}

// defaultMessage is the message for a refusal the wire answers without
// one: Kafka's default text for the code.
func defaultMessage(code int16, ke *kerr.Error) string {
	if ke != nil {
		return ke.Description
	}
	return fmt.Sprintf("error code %d", code)
}

// topicError is codeError for a topic's result: an unknown topic without a
// message is said the way the ZooKeeper backend says it.
func topicError(topic string, code int16, msg *string) error {
	if code == kerr.UnknownTopicOrPartition.Code && (msg == nil || *msg == "") {
		text := fmt.Sprintf("Topic '%s' does not exist.", topic)
		msg = &text
	}
	return codeError(topic, code, msg)
}

// reason is the refusal's kind in the ZooKeeper backend's terms
// (zkadmin's ErrorKind names), so that the CLI branches the same way (for
// example --if-not-exists on TopicExists).
func reason(code int16, msg string) string {
	if strings.HasPrefix(msg, partitionLimitPrefix) {
		return zkadmin.KindPartitionLimit.String()
	}
	switch code {
	case kerr.UnknownTopicOrPartition.Code:
		return zkadmin.KindUnknownTopic.String()
	case kerr.InvalidTopicException.Code:
		return zkadmin.KindInvalidTopic.String()
	case kerr.TopicAlreadyExists.Code:
		if strings.Contains(msg, "marked for deletion") {
			return zkadmin.KindMarkedForDeletion.String()
		}
		return zkadmin.KindTopicExists.String()
	case kerr.InvalidPartitions.Code:
		return zkadmin.KindInvalidPartitions.String()
	case kerr.InvalidReplicationFactor.Code:
		return zkadmin.KindInvalidReplicationFactor.String()
	case kerr.InvalidReplicaAssignment.Code:
		return zkadmin.KindInvalidReplicaAssignment.String()
	case kerr.InvalidConfig.Code:
		return zkadmin.KindInvalidConfig.String()
	case kerr.InvalidRequest.Code:
		return zkadmin.KindInvalidRequest.String()
	case kerr.ReassignmentInProgress.Code:
		return zkadmin.KindReassignmentInProgress.String()
	case kerr.NoReassignmentInProgress.Code:
		return zkadmin.KindNoReassignmentInProgress.String()
	}
	return ""
}

// kadmError converts an error kadm returns for a whole request (a
// *kadm.ErrAndMessage, a kerr error, an *kadm.AuthError) into a
// *backend.Error about resource; others pass through.
func kadmError(resource string, err error) error {
	var em *kadm.ErrAndMessage
	if errors.As(err, &em) {
		var ke *kerr.Error
		if errors.As(em.Err, &ke) {
			return codeError(resource, ke.Code, &em.ErrMessage)
		}
	}
	var ke *kerr.Error
	if errors.As(err, &ke) {
		return codeError(resource, ke.Code, nil)
	}
	return err
}

// unsupported reports kgo's refusal to send a request the node does not
// advertise (or the client was capped below): kgo keeps these errors
// unexported, so their text is matched.
func unsupported(err error) bool {
	if err == nil {
		return false
	}
	s := err.Error()
	return strings.Contains(s, "broker is too old") || strings.Contains(s, "request key is unknown")
}
