package znodes

import (
	"errors"
	"strings"
)

// ErrNoData is wrapped by a *DecodeError when a znode that must carry a
// payload has null or zero-length data. Kafka creates container and marker
// znodes with null data, so callers reading such paths usually want to branch
// on it with errors.Is.
var ErrNoData = errors.New("znode has no data")

// DecodeError reports a payload that Kafka would reject, or that this package
// refuses because Kafka never writes it. It names the znode (a concrete path
// such as "/brokers/topics/foo", or a path template such as
// "/isr_change_notification/isr_change_<seq>" when the decoder was not given
// the variable parts) and the offending JSON field.
//
// Field is a JSON path: object keys are quoted and joined by dots, array
// positions are written in brackets, e.g. `"partitions"."0"[1]`. It is empty
// when the payload as a whole is at fault (no data, invalid JSON, not an
// object).
type DecodeError struct {
	Znode  string
	Field  string
	Reason string
	// Err is the underlying cause when there is one (a JSON syntax error,
	// ErrNoData); nil otherwise.
	Err error
}

// Error formats the error as
// `znode /brokers/topics/foo: field "partitions"."0": want array of integers, got string`.
func (e *DecodeError) Error() string {
	var b strings.Builder
	b.WriteString("znode ")
	b.WriteString(e.Znode)
	if e.Field != "" {
		b.WriteString(": field ")
		b.WriteString(e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Reason)
	return b.String()
}

// Unwrap returns the underlying cause, so errors.Is(err, ErrNoData) works.
func (e *DecodeError) Unwrap() error { return e.Err }

// InvalidTopicError is returned by ValidateTopicName and
// CheckTopicCollision. Its message is Kafka's InvalidTopicException message,
// so it can be sent to clients verbatim with INVALID_TOPIC_EXCEPTION (17).
type InvalidTopicError struct {
	Topic   string
	Message string
}

func (e *InvalidTopicError) Error() string { return e.Message }
