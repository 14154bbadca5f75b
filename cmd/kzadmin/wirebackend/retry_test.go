package wirebackend

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
)

func testBackend(onRetry func(int, error)) *Backend {
	return &Backend{opts: Options{RetryBackoff: time.Millisecond, OnRetry: onRetry}}
}

func TestRetryUntilSuccess(t *testing.T) {
	var retried []int
	b := testBackend(func(n int, err error) { retried = append(retried, n) })
	tries := 0
	err := b.retry(context.Background(), func(context.Context) error {
		tries++
		if tries < 3 {
			return codeError("t", kerr.NotController.Code, nil)
		}
		return nil
	})
	if err != nil || tries != 3 || len(retried) != 2 {
		t.Fatalf("err %v after %d tries, retries %v", err, tries, retried)
	}
}

func TestRetryClassification(t *testing.T) {
	b := testBackend(nil)
	limit := "WILL_EXCEED_PARTITION_LIMITS: the cluster would have 9 partitions"
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"not controller", codeError("t", kerr.NotController.Code, nil), true},
		{"throttled", codeError("t", kerr.ThrottlingQuotaExceeded.Code, nil), true},
		{"connection cut", io.EOF, true},
		{"timed out: the change was made", codeError("t", kerr.RequestTimedOut.Code, nil), false},
		{"topic exists", codeError("t", kerr.TopicAlreadyExists.Code, nil), false},
		{"unknown topic: the controller knows", topicError("t", kerr.UnknownTopicOrPartition.Code, nil), false},
		{"preferred leader not available", codeError("t-0", kerr.PreferredLeaderNotAvailable.Code, nil), false},
		{"limit, policy code", codeError("t", kerr.PolicyViolation.Code, &limit), false},
		{"limit, seed code 88", codeError("t", 88, &limit), false},
		{"deadline", context.DeadlineExceeded, false},
		{"other", errors.New("boom"), false},
	} {
		if got := b.retriable(tc.err); got != tc.want {
			t.Errorf("%s: retriable %v, want %v", tc.name, got, tc.want)
		}
	}
}

// The seed's code 88 keeps its limit meaning, not kerr's.
func TestPartitionLimitError(t *testing.T) {
	limit := "WILL_EXCEED_PARTITION_LIMITS: creating topic 'big' ..."
	for code, name := range map[int16]string{44: "POLICY_VIOLATION", 88: "WILL_EXCEED_PARTITION_LIMITS"} {
		var be *backend.Error
		if !errors.As(codeError("big", code, &limit), &be) || be.Name != name || be.Reason != "PartitionLimit" ||
			be.Message != limit || be.Error() != limit {
			t.Errorf("code %d: %+v", code, be)
		}
	}
}

func TestRetryGivesUpWithTheLastError(t *testing.T) {
	b := testBackend(nil)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := b.retry(ctx, func(context.Context) error { return codeError("t", kerr.NotController.Code, nil) })
	var gave *GaveUpError
	var be *backend.Error
	if !errors.As(err, &gave) || !errors.As(err, &be) || be.Code != kerr.NotController.Code || gave.Tries < 2 {
		t.Fatalf("err %v", err)
	}
}

func TestTopicErrorMessages(t *testing.T) {
	var be *backend.Error
	if !errors.As(topicError("x", kerr.UnknownTopicOrPartition.Code, nil), &be) || be.Error() != "Topic 'x' does not exist." ||
		be.Reason != "UnknownTopic" || be.Name != "UNKNOWN_TOPIC_OR_PARTITION" {
		t.Fatalf("%+v", be)
	}
	msg := "Topic 'x' is marked for deletion."
	if !errors.As(topicError("x", kerr.TopicAlreadyExists.Code, &msg), &be) || be.Reason != "MarkedForDeletion" {
		t.Fatalf("%+v", be)
	}
	if !errors.As(codeError("t-0", kerr.NotController.Code, nil), &be) ||
		be.Error() != "t-0: This is not the correct controller for this cluster." {
		t.Fatalf("%q", be.Error())
	}
}
