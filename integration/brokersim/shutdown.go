package brokersim

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ControlledShutdownError reports a controlled shutdown that did not
// complete within its attempts; the broker then stopped anyway, as Kafka's
// does ("proceeding to do an unclean shutdown").
type ControlledShutdownError struct {
	Attempts int
	// Remaining are the partitions the last answer still listed.
	Remaining []TopicPartition
	// Err is the last attempt's failure.
	Err error
}

func (e *ControlledShutdownError) Error() string {
	if len(e.Remaining) > 0 {
		return fmt.Sprintf("controlled shutdown failed after %d attempts: %d partitions remaining (%v)",
			e.Attempts, len(e.Remaining), e.Remaining[0])
	}
	return fmt.Sprintf("controlled shutdown failed after %d attempts: %v", e.Attempts, e.Err)
}

func (e *ControlledShutdownError) Unwrap() error { return e.Err }

// Shutdown stops the broker the way a Kafka broker does on SIGTERM: it
// sends ControlledShutdown v3 (broker id and epoch) to the controller,
// repeating after Options.ControlledShutdownBackoff until the controller
// answers NONE with no remaining partitions or
// Options.ControlledShutdownMaxRetries attempts are spent, while it keeps
// serving the controller's LeaderAndIsr, UpdateMetadata and StopReplica.
// Then it closes the listener and the ZooKeeper session, which deletes its
// registration. A paused broker is resumed first. The error is a
// *ControlledShutdownError when the controlled part did not complete (the
// broker is stopped all the same), ctx's error if ctx ended first, and
// ErrNotRunning if the broker was not running.
func (b *Broker) Shutdown(ctx context.Context) error {
	return b.ShutdownWhen(ctx, nil)
}

// ShutdownWhen is Shutdown, but after the controlled shutdown it keeps
// serving until beforeStop (when not nil) returns. A real broker's own
// shutdown usually gives the controller time to deliver what it sent in
// answer (StopReplica for the replicas the broker follows), and nothing
// guarantees it; a test that checks those requests waits for them here.
// beforeStop's error is returned if the shutdown itself succeeded.
func (b *Broker) ShutdownWhen(ctx context.Context, beforeStop func(context.Context) error) error {
	b.lifeMu.Lock()
	defer b.lifeMu.Unlock()
	inc := b.inc
	if inc == nil {
		return ErrNotRunning
	}
	b.mu.Lock()
	b.status = ShuttingDown
	b.bumpLocked()
	b.mu.Unlock()
	b.Resume()
	err := b.controlledShutdown(ctx)
	if err == nil && beforeStop != nil {
		err = beforeStop(ctx)
	}
	b.halt(inc, false)
	if err != nil {
		b.log.Warn().Err(err).Msg("broker shut down uncleanly")
		return err
	}
	b.log.Info().Msg("broker shut down after controlled shutdown")
	return nil
}

func (b *Broker) controlledShutdown(ctx context.Context) error {
	attempts := b.set.ControlledShutdownMaxRetries
	var last error
	var remaining []TopicPartition
	for i := 1; i <= attempts; i++ {
		remaining, last = b.controlledShutdownOnce(ctx)
		if last == nil && len(remaining) == 0 {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		b.log.Info().Err(last).Int("remaining", len(remaining)).Int("attempt", i).Msg("controlled shutdown not complete")
		if i < attempts && !sleepCtx(ctx, b.set.ControlledShutdownBackoff) {
			return ctx.Err()
		}
	}
	return &ControlledShutdownError{Attempts: attempts, Remaining: remaining, Err: last}
}

// controlledShutdownOnce is one attempt on a fresh connection, with no
// version discovery (Kafka hard-codes v3 from IBP 2.4-IV1).
func (b *Broker) controlledShutdownOnce(ctx context.Context) ([]TopicPartition, error) {
	b.mu.Lock()
	_, addr := b.controllerLocked()
	epoch := b.epoch
	b.mu.Unlock()
	if addr == "" {
		return nil, errNoController
	}
	cc, err := b.dialController(ctx, addr, false)
	if err != nil {
		return nil, err
	}
	defer cc.Close()
	req := kmsg.NewPtrControlledShutdownRequest()
	req.Version, req.BrokerID, req.BrokerEpoch = 3, b.id, epoch
	b.countSent(req.Key())
	resp, err := cc.RoundTrip(ctx, req)
	if err != nil {
		return nil, err
	}
	r := resp.(*kmsg.ControlledShutdownResponse)
	if err := kerr.ErrorForCode(r.ErrorCode); err != nil {
		return nil, fmt.Errorf("ControlledShutdown: %w", err)
	}
	var remaining []TopicPartition
	for _, p := range r.PartitionsRemaining {
		remaining = append(remaining, TopicPartition{p.Topic, p.Partition})
	}
	return remaining, nil
}
