package wirebackend

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// retry runs op until it succeeds, fails with an error that is not
// retriable, or ctx ends; between tries it backs off, doubling from
// Options.RetryBackoff up to MaxRetryBackoff. When ctx ends first, the
// last error is returned (wrapped in *GaveUpError), since it says more
// than "deadline exceeded".
func (b *Backend) retry(ctx context.Context, op func(context.Context) error) error {
	backoff := b.opts.RetryBackoff
	for attempt := 1; ; attempt++ {
		err := op(ctx)
		if err == nil || !b.retriable(err) {
			return err
		}
		if b.opts.OnRetry != nil {
			b.opts.OnRetry(attempt, err)
		}
		t := time.NewTimer(backoff)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return &GaveUpError{Tries: attempt, Last: err, Cause: ctx.Err()}
		}
		backoff = min(2*backoff, MaxRetryBackoff)
	}
}

// GaveUpError is a retriable failure that lasted until the command's time
// limit.
type GaveUpError struct {
	Tries int
	Last  error
	Cause error
}

func (e *GaveUpError) Error() string {
	return fmt.Sprintf("%v (still failing after %d tries: %v)", e.Last, e.Tries, e.Cause)
}

func (e *GaveUpError) Unwrap() error { return e.Last }

// retriableCodes are the Kafka error codes worth another try of an admin
// request: a node that is not (or no longer) the controller, a quota that
// lets the request through later, a connection lost on the server's side.
// kerr calls more codes retriable (UNKNOWN_TOPIC_OR_PARTITION, for
// metadata still propagating; REQUEST_TIMED_OUT), but the controller's
// answer to an admin request is final on those: an unknown topic is
// unknown, and REQUEST_TIMED_OUT says the change was made but not finished
// in time, so repeating it would only fail.
var retriableCodes = map[int16]bool{
	kerr.NotController.Code:           true,
	kerr.ThrottlingQuotaExceeded.Code: true,
	kerr.NetworkException.Code:        true,
}

// retriable says whether trying again may succeed:
//   - a Kafka error code in retriableCodes;
//   - what kgo calls a retriable broker error: a connection cut, or a
//     controller not known yet (Metadata names none, or one that is not
//     among its brokers, as while a controller is being elected);
//   - a failed dial, once the cluster has answered before: a node went
//     away (a controller failing over). Before that it is most likely a
//     wrong address, reported at once.
func (b *Backend) retriable(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var ke *kerr.Error
	if errors.As(err, &ke) {
		return retriableCodes[ke.Code]
	}
	if kgo.IsRetryableBrokerErr(err) {
		return true
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Op == "dial" {
		return b.hasReached()
	}
	return false
}
