package waitfor

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestUntilReturnsOnSuccess(t *testing.T) {
	n := 0
	err := Until(context.Background(), time.Minute, time.Millisecond, func() error {
		if n++; n < 3 {
			return errors.New("not yet")
		}
		return nil
	})
	if err != nil || n != 3 {
		t.Fatalf("Until = %v after %d checks; want nil after 3", err, n)
	}
}

func TestUntilNamesTheLastFailure(t *testing.T) {
	err := Until(context.Background(), 20*time.Millisecond, time.Millisecond, func() error { return errors.New("still down") })
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "still down") {
		t.Fatalf("Until = %v; want the deadline and the last failure", err)
	}
}
