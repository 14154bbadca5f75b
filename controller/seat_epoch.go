package controller

import (
	"context"
	"errors"
	"fmt"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// epochRead is /controller_epoch's value and zkVersion.
type epochRead struct {
	epoch, version int32
}

// epochCache is /controller_epoch as this node last read it, with the data
// watch that read left. While the watch has not fired, the value is
// current as far as this node can know, so an election can send its multi
// without reading first. A stale value costs nothing but a failed multi
// (BADVERSION): the cache only saves round trips, it decides nothing.
type epochCache struct {
	known bool
	cur   epochRead
	// watch is the data watch left by the read of cur; nil when none is
	// outstanding (or it was handed to a warm standby's promotion).
	watch <-chan zkadmin.Event
}

// armed reports whether the value is known and its watch has not fired.
// A watch that fired is dropped (its value is stale).
func (e *epochCache) armed() bool {
	if !e.known || e.watch == nil {
		return false
	}
	select {
	case <-e.watch:
		e.watch = nil
		return false
	default:
		return true
	}
}

func (e *epochCache) current() epochRead { return e.cur }

func (e *epochCache) set(epoch, version int32, watch <-chan zkadmin.Event) {
	e.known, e.cur, e.watch = true, epochRead{epoch, version}, watch
}

// takeWatch hands the watch over (the warm standby's barrier).
func (e *epochCache) takeWatch() <-chan zkadmin.Event {
	w := e.watch
	e.watch = nil
	return w
}

// forget drops the value (an election lost on it: it is stale).
func (e *epochCache) forget() { *e = epochCache{} }

// readEpoch reads /controller_epoch with a data watch into the cache,
// creating it with "0" when absent (a NODEEXISTS on create means someone
// else did: read again). The watch is the warm standby's barrier when the
// election that follows succeeds with this version.
func (c *Controller) readEpoch(ctx context.Context) (epochRead, error) {
	for range 3 {
		c.seatCall()
		data, stat, ch, err := c.zk.GetW(ctx, znodes.ControllerEpochPath)
		if err == nil {
			epoch, err := znodes.DecodeControllerEpoch(data)
			if err != nil {
				return epochRead{}, fmt.Errorf("decode %s: %w", znodes.ControllerEpochPath, err)
			}
			c.seat.epoch.set(epoch, stat.Version, ch)
			return c.seat.epoch.current(), nil
		}
		if !errors.Is(err, zkadmin.ErrNoNode) {
			return epochRead{}, fmt.Errorf("read %s: %w", znodes.ControllerEpochPath, err)
		}
		c.seatCall()
		_, err = c.zk.Create(ctx, znodes.ControllerEpochPath, znodes.EncodeControllerEpoch(0), zkadmin.Persistent)
		if err != nil && !errors.Is(err, zkadmin.ErrNodeExists) {
			return epochRead{}, fmt.Errorf("create %s: %w", znodes.ControllerEpochPath, err)
		}
	}
	return epochRead{}, fmt.Errorf("%s keeps disappearing", znodes.ControllerEpochPath)
}

// armedEpoch returns the cached epoch when its watch is armed, and reads
// it afresh otherwise.
func (c *Controller) armedEpoch(ctx context.Context) (epochRead, error) {
	if c.seat.epoch.armed() {
		return c.seat.epoch.current(), nil
	}
	return c.readEpoch(ctx)
}

// refreshEpoch re-reads the epoch after /controller changed, unless the
// cached value is still watched: then the next deletion of /controller
// can be answered with the election multi alone. A failure only costs
// the fast path, so it is logged, not returned.
func (c *Controller) refreshEpoch(ctx context.Context) {
	if _, err := c.armedEpoch(ctx); err != nil && ctx.Err() == nil {
		c.log.Debug().Err(err).Msg("controller epoch not cached; the next election reads it first")
	}
}
