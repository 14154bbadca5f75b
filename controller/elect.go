package controller

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// readControllerID reads /controller and re-arms its exists watch: -1 when
// it is absent or unparsable (Kafka's getControllerId returns None then).
// It records the holder (for reclaiming) and, when another node holds the
// seat, makes sure the epoch is cached with a watch, so that the seat's
// next vacancy is answered with the election multi alone (seat.go).
func (c *Controller) readControllerID(ctx context.Context) (int32, error) {
	c.seatCall()
	if _, err := c.ctrlWatch.exists(ctx, c.zk, znodes.ControllerPath); err != nil {
		return -1, fmt.Errorf("watch %s: %w", znodes.ControllerPath, err)
	}
	c.seatCall()
	data, stat, err := c.zk.Get(ctx, znodes.ControllerPath)
	c.seat.holder = seatHolder{id: -1}
	if errors.Is(err, zkadmin.ErrNoNode) {
		return -1, nil
	}
	if err != nil {
		return -1, fmt.Errorf("read %s: %w", znodes.ControllerPath, err)
	}
	reg, err := znodes.DecodeControllerRegistration(data)
	if err != nil {
		c.log.Error().Err(err).Msg("unparsable /controller; treating the seat as empty")
		return -1, nil
	}
	if reg.KRaftControllerEpoch > znodes.NoKRaftControllerEpoch {
		c.log.Warn().Int32("kraft_epoch", reg.KRaftControllerEpoch).Msg("a KRaft controller holds /controller")
	}
	c.seat.holder = seatHolder{id: reg.BrokerID, czxid: stat.Czxid,
		kraft: reg.KRaftControllerEpoch > znodes.NoKRaftControllerEpoch}
	if reg.BrokerID != c.nodeID {
		c.refreshEpoch(ctx)
	}
	return reg.BrokerID, nil
}

// elect is Kafka's elect(): if the seat is empty, win /controller and bump
// /controller_epoch in one multi, then take over. If a Kafka broker holds
// the seat, a reclaim may be scheduled (seat_reclaim.go).
func (c *Controller) elect(ctx context.Context) error {
	id, err := c.readControllerID(ctx)
	c.setActiveID(id)
	if err != nil {
		return err
	}
	if id != -1 {
		c.considerReclaim(ctx)
		return nil
	}
	sess := c.zk.Session()
	cur, err := c.armedEpoch(ctx)
	if err != nil {
		return fmt.Errorf("controller election: %w", err)
	}
	epoch, zkVersion, err := c.registerController(ctx, cur)
	if errors.Is(err, errLostElection) {
		c.log.Info().Msg("another node won the controller election")
		return c.maybeResign(ctx)
	}
	if err != nil {
		return fmt.Errorf("controller election: %w", err)
	}
	return c.becomeController(ctx, epoch, zkVersion, sess, "election")
}

// errLostElection: the multi failed because another node registered first
// or bumped the epoch.
var errLostElection = errors.New("lost the controller election")

// registerController is KafkaZkClient.registerControllerAndIncrementControllerEpoch:
// one multi creating the ephemeral /controller and setting
// /controller_epoch to cur.epoch+1 conditionally on cur.version, after the
// ops in pre (a reclaim's delete of the broker's /controller). It returns
// the new epoch and the zkVersion that fences every later write.
func (c *Controller) registerController(ctx context.Context, cur epochRead, pre ...zkadmin.Op) (int32, int32, error) {
	next := cur.epoch + 1
	reg, err := znodes.NewControllerRegistration(c.nodeID, time.Now()).Encode()
	if err != nil {
		return 0, 0, err
	}
	ops := make([]zkadmin.Op, 0, len(pre)+2)
	ops = append(ops, pre...)
	ops = append(ops,
		zkadmin.CreateOp(znodes.ControllerPath, reg, zkadmin.Ephemeral),
		zkadmin.SetOp(znodes.ControllerEpochPath, znodes.EncodeControllerEpoch(next), cur.version))
	c.seatCall()
	res, err := c.zk.Multi(ctx, ops...)
	if err == nil {
		return next, res[len(res)-1].Stat.Version, nil
	}
	if !errors.Is(err, zkadmin.ErrNodeExists) && !errors.Is(err, zkadmin.ErrBadVersion) &&
		!errors.Is(err, zkadmin.ErrNoNode) && !errors.Is(err, zkadmin.ErrConnectionLoss) {
		return 0, 0, err
	}
	// Our own earlier attempt may have landed (a lost reply): we won if
	// /controller names us and the epoch is the one we wrote.
	version, won, cerr := c.checkRegistered(ctx, next)
	if cerr != nil {
		return 0, 0, cerr
	}
	if !won {
		c.seat.epoch.forget() // stale, or someone else's now
		return 0, 0, errLostElection
	}
	return next, version, nil
}

// checkRegistered reports whether /controller names this node (created by
// this session) and /controller_epoch holds epoch, with its version.
func (c *Controller) checkRegistered(ctx context.Context, epoch int32) (int32, bool, error) {
	c.seatCall()
	data, stat, err := c.zk.Get(ctx, znodes.ControllerPath)
	if errors.Is(err, zkadmin.ErrNoNode) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	reg, err := znodes.DecodeControllerRegistration(data)
	if err != nil || reg.BrokerID != c.nodeID || stat.EphemeralOwner != c.zk.SessionID() {
		return 0, false, nil
	}
	c.seatCall()
	data, stat, err = c.zk.Get(ctx, znodes.ControllerEpochPath)
	if err != nil {
		return 0, false, err
	}
	cur, err := znodes.DecodeControllerEpoch(data)
	if err != nil || cur != epoch {
		return 0, false, nil
	}
	return stat.Version, true, nil
}

// maybeResign is Kafka's maybeResign: re-read /controller (re-arming the
// watch) and resign if this node was active and no longer is.
func (c *Controller) maybeResign(ctx context.Context) error {
	wasActive := c.leader != nil
	id, err := c.readControllerID(ctx)
	if err != nil {
		return err
	}
	c.setActiveID(id)
	if wasActive && id != c.nodeID {
		c.resign(fmt.Sprintf("/controller now names %d", id))
	}
	c.considerReclaim(ctx)
	return nil
}

// maybeResignAndElect handles the deletion of /controller and a new
// session: Kafka's Reelect and RegisterBrokerAndReelect.
func (c *Controller) maybeResignAndElect(ctx context.Context) error {
	if err := c.maybeResign(ctx); err != nil {
		return err
	}
	return c.elect(ctx)
}

// onSessionExpired handles the Expire event: the ephemeral /controller
// went with the session, and so did every watch.
func (c *Controller) onSessionExpired() error {
	c.setActiveID(-1)
	c.ctrlWatch.reset()
	c.seat.epoch.forget()
	c.seat.reclaim.cancel()
	c.seat.holder, c.seat.reclaim.considered = seatHolder{id: -1}, 0
	c.resign("ZooKeeper session expired")
	return nil
}

// onControllerMoved handles a fenced write that found /controller_epoch at
// another version: another controller was elected, so nothing this node
// writes can land any more. Unlike Kafka, which resigns only once
// /controller names someone else, resign at once; and if /controller still
// names this node (someone bumped the epoch without taking the seat),
// release it so that a fresh election can run.
func (c *Controller) onControllerMoved(ctx context.Context, cause error) {
	c.log.Warn().Err(cause).Msg("controller moved")
	c.resign("controller epoch changed")
	c.releaseControllerZnode(ctx)
	if err := c.maybeResign(ctx); err != nil {
		c.log.Error().Err(err).Msg("re-read /controller")
	}
}

// triggerControllerMove is Kafka's triggerControllerMove: resign and delete
// /controller so that another node (or this one) tries again.
func (c *Controller) triggerControllerMove(ctx context.Context, reason string) {
	c.resign(reason)
	c.releaseControllerZnode(ctx)
}

// releaseControllerZnode deletes /controller if it is this session's
// registration of this node, conditionally on its version, so that it can
// never delete a successor's.
func (c *Controller) releaseControllerZnode(ctx context.Context) {
	data, stat, err := c.zk.Get(ctx, znodes.ControllerPath)
	if err != nil {
		if !errors.Is(err, zkadmin.ErrNoNode) {
			c.log.Error().Err(err).Msg("read /controller to release it")
		}
		return
	}
	reg, err := znodes.DecodeControllerRegistration(data)
	if err != nil || reg.BrokerID != c.nodeID || stat.EphemeralOwner != c.zk.SessionID() {
		return
	}
	if err := c.zk.Delete(ctx, znodes.ControllerPath, stat.Version); err != nil && !errors.Is(err, zkadmin.ErrNoNode) {
		c.log.Error().Err(err).Msg("delete /controller")
		return
	}
	c.log.Info().Msg("released /controller")
}

// setActiveID records the id /controller names.
func (c *Controller) setActiveID(id int32) {
	if c.activeID != id {
		c.activeID = id
		c.viewDirty = true
	}
}
