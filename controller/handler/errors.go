package handler

import (
	"context"
	"errors"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kzadmin/kzadmin/zkadmin"
)

// apiError is Kafka's ApiError: a code and a nullable message.
type apiError struct {
	code int16
	msg  *string
}

var errNone = apiError{}

// newAPIError builds an error the way ApiError.fromThrowable does: the
// message is null when it equals the code's default text, and always for
// UNKNOWN_SERVER_ERROR, so that nothing internal leaks (apis.md §1.3).
func newAPIError(code int16, msg string) apiError {
	e := apiError{code: code}
	if code == kerr.UnknownServerError.Code || msg == "" {
		return e
	}
	if text, ok := defaultText(code); ok && text == msg {
		return e
	}
	e.msg = &msg
	return e
}

// kafkaTexts are Kafka's default texts (Errors) where franz-go's
// description differs: it quotes the exception's message for 29 and 30,
// spells "ID" for 53, and has no final period for 84.
var kafkaTexts = map[int16]string{
	kerr.TopicAuthorizationFailed.Code:           "Topic authorization failed.",
	kerr.GroupAuthorizationFailed.Code:           "Group authorization failed.",
	kerr.TransactionalIDAuthorizationFailed.Code: "Transactional Id authorization failed.",
	kerr.ElectionNotNeeded.Code:                  "Leader election not needed for topic partition.",
}

// defaultText is Kafka's default text for code.
func defaultText(code int16) (string, bool) {
	if text, ok := kafkaTexts[code]; ok {
		return text, true
	}
	if ke := kerr.TypedErrorForCode(code); ke != nil {
		return ke.Description, true
	}
	return "", false
}

// withDefault builds an error whose message is the code's default text
// (Kafka's new ApiError(Errors.X) without a message), which is non-null.
func withDefault(code int16) apiError {
	e := apiError{code: code}
	if msg, ok := defaultText(code); ok {
		e.msg = &msg
	}
	return e
}

// codeOnly is an error with a null message.
func codeOnly(code int16) apiError { return apiError{code: code} }

// errorOf maps an Admin error to the code and message for the client:
//   - a *zkadmin.AdminError answers its Code and Message; the partition
//     limit answers partition.limits.error.code (44 by default) with the
//     message, which starts "WILL_EXCEED_PARTITION_LIMITS:";
//   - losing the ZooKeeper connection (or the handler's context ending)
//     leaves the outcome unknown, which is what REQUEST_TIMED_OUT says:
//     the change may still land;
//   - anything else is UNKNOWN_SERVER_ERROR with no message.
func (h *Handlers) errorOf(err error) apiError {
	if err == nil {
		return errNone
	}
	if e, ok := throttledError(err); ok {
		return e
	}
	var ae *zkadmin.AdminError
	if errors.As(err, &ae) {
		code := ae.Code
		if ae.Kind == zkadmin.KindPartitionLimit {
			code = h.limitCode
		}
		return newAPIError(code, ae.Message)
	}
	if errors.Is(err, zkadmin.ErrControllerMoved) {
		return codeOnly(kerr.NotController.Code) // leadership lost mid-request
	}
	if errors.Is(err, zkadmin.ErrConnectionLoss) || errors.Is(err, zkadmin.ErrSessionExpired) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return codeOnly(kerr.RequestTimedOut.Code)
	}
	h.log.Warn().Err(err).Msg("admin operation failed")
	return codeOnly(kerr.UnknownServerError.Code)
}
