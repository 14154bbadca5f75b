package dropin

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/controller"
	"github.com/kzadmin/kzadmin/internal/daemon"
)

// Node ids of the kzadmind instances the later steps start: never a
// broker's id, and none reused, so that each log file is one instance's.
const (
	warmChildID int32 = 3003 // child, active until killed with SIGKILL
	warmID      int32 = 3004 // in-process warm standby that takes over from it
	pausedID    int32 = 3005 // child, SIGSTOPped while active
	successorID int32 = 3006 // in-process, takes over from the paused one
)

// active returns the in-process kzadmind that is the active controller
// between steps (the first one, or the standby that took over last).
func (s *dropin) active() *daemon.Daemon {
	if s.first != nil {
		return s.first
	}
	return s.standby
}

// handOverToChild starts a kzadmind child with node id id and stops the
// in-process active controller cleanly, so that the child takes over at
// once (it can then be killed or paused); it waits until every broker
// follows the child. The brokers contend for the released seat too
// (wonOrReclaim).
func (s *dropin) handOverToChild(t *testing.T, ctx context.Context, id int32) *child {
	t.Helper()
	h := s.h
	ch := h.startChild(t, ctx, id)
	began := time.Now()
	if err := s.active().Stop(ctx); err != nil {
		t.Fatal(err)
	}
	s.first, s.standby = nil, nil
	h.waitSeat(t, ctx, began, id)
	h.waitBrokersFollow(t, ctx, id)
	t.Logf("handed over to kzadmind child %d: every broker followed after %s", id, since(began))
	return ch
}

// signal sends sig to the child process.
func (c *child) signal(sig syscall.Signal) error {
	if err := c.cmd.Process.Signal(sig); err != nil {
		return fmt.Errorf("signal %v to kzadmind child %d: %w", sig, c.id, err)
	}
	return nil
}

// waitStatus waits until cond accepts the in-process kzadmind's status.
func waitStatus(t *testing.T, ctx context.Context, d *daemon.Daemon, what string, cond func(controller.Status) bool) {
	t.Helper()
	err := pollUntil(ctx, time.Minute, 5*time.Millisecond, func() error {
		if st := d.Controller().Status(); !cond(st) {
			return fmt.Errorf("status %+v", st)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}
