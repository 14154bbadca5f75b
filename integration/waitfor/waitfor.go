// Package waitfor is how the integration tests wait: they poll a condition
// with a deadline instead of sleeping, so that a slow machine makes a test
// slower, never wrong.
package waitfor

import (
	"context"
	"fmt"
	"time"
)

// Until calls check at once and then every interval until it returns nil,
// for at most timeout (and never past ctx). The error wraps the context's
// and names check's last failure.
func Until(ctx context.Context, timeout, interval time.Duration, check func() error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		err := check()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last: %v)", ctx.Err(), err)
		case <-tick.C:
		}
	}
}
