package controller

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// Reclaiming the seat from a Kafka broker (config
// kzadmin.controller.reclaim.from.brokers, on by default).
//
// When /controller names an id registered in /brokers/ids that no running
// kzadmind publishes under PeerDirPath (and the registration is not a
// KRaft controller's, during a migration), a standby takes the seat back
// with one multi: delete /controller (conditional on the version read), create
// it for this node, and bump /controller_epoch (conditional on the version
// cached before /controller was read). The broker sees /controller
// deleted, re-reads it, finds another id and resigns (Kafka's Reelect:
// maybeResign, then elect, which does nothing while the seat is taken),
// which is Kafka's own documented way to move the controller. Doing the
// delete and the create in one multi leaves the seat vacant at no moment,
// so no other broker can race for it, and the epoch bump fences whatever
// the broker was still writing.
//
// Why the epoch version guards the delete: Kafka never rewrites
// /controller, so its version is 0 for every holder; but every election
// bumps /controller_epoch in the multi that creates /controller. The epoch
// version was read before /controller, so the multi can only succeed if
// the holder read is still the holder.
//
// Several kzadmind standbys: each sends the multi; the version checks let
// exactly one succeed, and the others then read /controller naming a
// kzadmind node and stand by. A failed multi costs one round trip, so no
// further coordination (such as letting only the lowest node id act) is
// needed, and none can go wrong when that node has reclaiming disabled.
//
// Fights: reclaims are paced by reclaimBackoff (the first at once, then
// 1 s, 2 s, ... up to 30 s apart while brokers keep taking the seat back),
// logged, and counted in SeatReclaimsPerSec.

// PeerDirPath is where each running kzadmind publishes an ephemeral znode
// named by its node.id (the daemon's controller directory). A controller
// listed there is never reclaimed from.
const PeerDirPath = "/kzadmin/controllers"

// reclaimState is the reclaim schedule. Owned by the loop goroutine.
type reclaimState struct {
	backoff reclaimBackoff
	// considered is the czxid of the last /controller holder evaluated,
	// so that re-reads of the same holder do not schedule again.
	considered int64
	// pending is the czxid of the holder a reclaim is scheduled against.
	pending int64
	timer   *time.Timer
}

func (r *reclaimState) cancel() {
	if r.timer != nil {
		r.timer.Stop()
		r.timer = nil
	}
	r.pending = 0
}

// reclaimEvent is a scheduled reclaim of the seat from the broker holder
// whose /controller has czxid.
type reclaimEvent struct {
	czxid int64
	id    int32
}

func (*reclaimEvent) state() State { return StateControllerChange }

// considerReclaim runs after /controller was read: when it names a Kafka
// broker and reclaiming is on, it schedules a reclaim (at once, or after
// the backoff).
func (c *Controller) considerReclaim(ctx context.Context) {
	h, r := c.seat.holder, &c.seat.reclaim
	if c.leader != nil || h.id < 0 || h.id == c.nodeID || h.czxid == 0 || h.czxid == r.considered {
		return
	}
	r.considered = h.czxid
	r.cancel() // a reclaim scheduled against an earlier holder
	if h.kraft {
		c.log.Info().Int32("holder", h.id).Msg("a KRaft controller holds /controller; standing by (never reclaimed)")
		return
	}
	broker, err := c.isKafkaBroker(ctx, h.id)
	if err != nil {
		if ctx.Err() == nil {
			c.log.Warn().Err(err).Int32("holder", h.id).Msg("cannot tell whether a broker holds /controller; re-reading")
			r.considered = 0
			time.AfterFunc(electRetryBackoff, func() { c.queue.push(&startupEvent{}) })
		}
		return
	}
	if !broker {
		return
	}
	if !c.conf.ReclaimFromBrokers {
		c.log.Info().Int32("holder", h.id).
			Msg("a Kafka broker holds /controller; standing by (kzadmin.controller.reclaim.from.brokers=false)")
		return
	}
	delay := r.backoff.delay(time.Now())
	c.log.Warn().Int32("holder", h.id).Dur("after", delay).Msg("a Kafka broker holds /controller; reclaiming it")
	r.pending = h.czxid
	ev := &reclaimEvent{czxid: h.czxid, id: h.id}
	if delay <= 0 {
		c.queue.push(ev)
		return
	}
	r.timer = time.AfterFunc(delay, func() { c.queue.push(ev) })
}

// isKafkaBroker reports whether id is a registered broker and not a
// running kzadmind.
func (c *Controller) isKafkaBroker(ctx context.Context, id int32) (bool, error) {
	c.seatCall()
	registered, _, err := c.zk.Exists(ctx, znodes.BrokerIDPath(id))
	if err != nil || !registered {
		return false, err
	}
	c.seatCall()
	peer, _, err := c.zk.Exists(ctx, znodes.JoinPath(PeerDirPath, strconv.Itoa(int(id))))
	if err != nil {
		return false, fmt.Errorf("check %s: %w", PeerDirPath, err)
	}
	return !peer, nil
}

// onReclaim carries out a scheduled reclaim. A lost multi is retried once
// with a fresh epoch (the cached one may have been stale); after that the
// holder is evaluated again, under the backoff.
func (c *Controller) onReclaim(ctx context.Context, e *reclaimEvent) error {
	r := &c.seat.reclaim
	if e.czxid != r.pending || c.leader != nil || !c.conf.ReclaimFromBrokers {
		return nil
	}
	r.pending, r.timer = 0, nil
	for range 2 {
		done, err := c.reclaimOnce(ctx, e)
		if err != nil {
			// Evaluate the holder afresh on the next read, which a
			// transient failure schedules (nothing else may fire).
			r.considered = 0
			return c.retryIfTransient(err)
		}
		if done {
			return nil
		}
		c.seat.epoch.forget()
	}
	r.considered = 0
	return c.maybeResign(ctx)
}

// reclaimOnce tries the reclaim multi once. done is false when it lost
// without the holder having changed (worth one more try).
func (c *Controller) reclaimOnce(ctx context.Context, e *reclaimEvent) (done bool, err error) {
	cur, err := c.armedEpoch(ctx) // before /controller: see the type comment
	if err != nil {
		return true, fmt.Errorf("reclaim the controller seat: %w", err)
	}
	c.seatCall()
	data, stat, err := c.zk.Get(ctx, znodes.ControllerPath)
	switch {
	case errors.Is(err, zkadmin.ErrNoNode):
		return true, c.elect(ctx) // vacant now: an ordinary election
	case err != nil:
		return true, fmt.Errorf("reclaim: read %s: %w", znodes.ControllerPath, err)
	case stat.Czxid != e.czxid:
		return true, nil // a new holder; its watch firing evaluates it
	}
	if reg, derr := znodes.DecodeControllerRegistration(data); derr != nil || reg.BrokerID != e.id {
		return true, nil
	}
	sess := c.zk.Session()
	c.seat.reclaim.backoff.attempted(time.Now())
	epoch, zkVersion, err := c.registerController(ctx, cur, zkadmin.DeleteOp(znodes.ControllerPath, stat.Version))
	if errors.Is(err, errLostElection) {
		c.seat.metrics.reclaim(false)
		c.log.Info().Int32("holder", e.id).Msg("reclaim of /controller lost; re-reading")
		return false, nil
	}
	if err != nil {
		return true, fmt.Errorf("reclaim the controller seat: %w", err)
	}
	c.seat.metrics.reclaim(true)
	c.seat.stats.reclaims.Add(1)
	// broker_held: from the broker's /controller creation (ZooKeeper's
	// clock) to the reclaim.
	c.log.Warn().Int32("from_broker", e.id).Int32("epoch", epoch).Dur("broker_held", time.Since(stat.Created())).
		Int("zk_round_trips", c.seat.calls).Msg("reclaimed /controller from a Kafka broker")
	return true, c.becomeController(ctx, epoch, zkVersion, sess, "reclaimed from broker "+strconv.Itoa(int(e.id)))
}
