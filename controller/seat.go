package controller

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// Winning and keeping the controller seat against Kafka brokers.
//
// Every ZooKeeper-mode Kafka broker also runs a controller that competes
// for /controller whenever it falls vacant. A broker that wins stays
// controller until it dies, so a drop-in controller that merely takes part
// in the race silently stops being the controller now and then. Two things
// keep the seat with kzadmind:
//
//  1. A one-round-trip election (the fast path). Between the deletion of
//     /controller and its election multi a broker makes several
//     sequential round trips (Reelect: re-watch and re-read /controller,
//     read it again in elect(), read /controller_epoch). This node keeps /controller_epoch's value and version current
//     (epochCache: read with a data watch whenever /controller changes),
//     so on the deletion it sends the create-and-bump multi at once. A
//     BADVERSION or NODEEXISTS falls back to the careful path (lost-reply
//     check, then Kafka's elect()). The watch left by the epoch read is
//     also the warm standby's barrier (standby.go): the multi succeeds
//     only if the epoch did not change since that read, so the watch
//     fires from the multi's own bump, exactly as the barrier needs.
//
//  2. Reclaiming the seat from a broker (seat_reclaim.go), a documented
//     difference from Kafka: when /controller names a registered broker
//     that is not a kzadmind node, a standby replaces it.
//
// The fencing is Kafka's throughout: whichever path wins, the zkVersion of
// /controller_epoch returned by the winning multi fences every later write.

// seatState is the election bookkeeping that outlives leaderships. Owned
// by the loop goroutine, except stats (atomic, read by tests).
type seatState struct {
	epoch epochCache
	// holder is /controller as last read (czxid 0: absent or unknown).
	holder seatHolder
	// reclaim is the reclaim schedule (seat_reclaim.go).
	reclaim reclaimState
	// calls counts this election's ZooKeeper round trips (see seatCall).
	calls   int
	stats   seatStats
	metrics *seatMetrics
}

// seatStats are figures about the last election this node won, for tests
// and logs.
type seatStats struct {
	// lastWinCalls is the ZooKeeper round trips from the event that
	// started the election to the winning multi's reply, inclusive.
	lastWinCalls atomic.Int64
	// fastWins counts elections won by the fast path.
	fastWins atomic.Int64
	// reclaims counts reclaims this node won.
	reclaims atomic.Int64
}

// seatHolder is /controller as last read.
type seatHolder struct {
	id    int32
	czxid int64 // tells holders apart: Kafka never rewrites /controller
	// kraft: a KRaft controller holds the seat (a ZooKeeper-to-KRaft
	// migration); it is never reclaimed from.
	kraft bool
}

// seatCall counts one ZooKeeper round trip of the current election.
func (c *Controller) seatCall() { c.seat.calls++ }

// electFast handles the deletion of /controller while this node stands
// by. With the epoch known and its watch unfired, the election multi goes
// out first; otherwise, or when it loses, the careful path runs (Kafka's
// Reelect: maybeResign, then elect).
func (c *Controller) electFast(ctx context.Context) error {
	if c.leader != nil || !c.seat.epoch.armed() {
		return c.maybeResignAndElect(ctx)
	}
	c.setActiveID(-1)
	cur := c.seat.epoch.current()
	sess := c.zk.Session()
	epoch, zkVersion, err := c.registerController(ctx, cur)
	if errors.Is(err, errLostElection) {
		// Someone else won, or the cached epoch was stale: Kafka's elect()
		// sorts it out (and re-arms the /controller watch).
		c.log.Info().Msg("fast controller election lost; re-reading the seat")
		return c.elect(ctx)
	}
	if err != nil {
		return fmt.Errorf("controller election: %w", err)
	}
	c.seat.stats.fastWins.Add(1)
	c.seat.metrics.fastWins.Inc()
	if _, err := c.ctrlWatch.exists(ctx, c.zk, znodes.ControllerPath); err != nil {
		// The seat is won; only the watch is missing, without which this
		// node would not see /controller go. A later re-read arms it.
		c.log.Warn().Err(err).Msg("watch /controller after the election; retrying")
		time.AfterFunc(electRetryBackoff, func() { c.queue.push(&startupEvent{}) })
	}
	return c.becomeController(ctx, epoch, zkVersion, sess, "fast path")
}

// becomeController takes over after a won election: the warm standby's
// context or a cold failover.
func (c *Controller) becomeController(ctx context.Context, epoch, zkVersion int32, sess *zkadmin.Session, how string) error {
	c.seat.stats.lastWinCalls.Store(int64(c.seat.calls))
	barrier := c.seat.epoch.takeWatch()
	c.seat.epoch.set(epoch, zkVersion, nil)
	c.seat.reclaim.cancel()
	c.setActiveID(c.nodeID)
	c.log.Info().Int32("epoch", epoch).Int32("epoch_zk_version", zkVersion).Str("how", how).
		Int("zk_round_trips", c.seat.calls).Msg("elected controller")
	ls, err := c.leaderStateFor(ctx, epoch, zkVersion, sess, barrier)
	if err != nil {
		return err
	}
	c.leader = ls
	c.metrics.elected()
	c.publishStatus()
	if err := c.onControllerFailover(ls); err != nil {
		if errors.Is(err, zkadmin.ErrControllerMoved) {
			return err
		}
		c.log.Error().Err(err).Msg("controller failover failed; giving up the seat")
		c.triggerControllerMove(ctx, "failover failed")
	}
	return nil
}
