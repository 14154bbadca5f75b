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
func (c *Controller) readControllerID(ctx context.Context) (int32, error) {
	if _, err := c.ctrlWatch.exists(ctx, c.zk, znodes.ControllerPath); err != nil {
		return -1, fmt.Errorf("watch %s: %w", znodes.ControllerPath, err)
	}
	data, _, err := c.zk.Get(ctx, znodes.ControllerPath)
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
	return reg.BrokerID, nil
}

// elect is Kafka's elect(): if the seat is empty, win /controller and bump
// /controller_epoch in one multi, then take over.
func (c *Controller) elect(ctx context.Context) error {
	id, err := c.readControllerID(ctx)
	c.setActiveID(id)
	if err != nil || id != -1 {
		return err
	}
	sess := c.zk.Session()
	barrier := c.warmBarrier(ctx)
	epoch, zkVersion, err := c.registerController(ctx)
	if errors.Is(err, errLostElection) {
		c.log.Info().Msg("another node won the controller election")
		return c.maybeResign(ctx)
	}
	if err != nil {
		return fmt.Errorf("controller election: %w", err)
	}
	c.setActiveID(c.nodeID)
	c.log.Info().Int32("epoch", epoch).Int32("epoch_zk_version", zkVersion).Msg("elected controller")
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

// errLostElection: the multi failed because another node registered first
// or bumped the epoch.
var errLostElection = errors.New("lost the controller election")

// registerController is KafkaZkClient.registerControllerAndIncrementControllerEpoch:
// one multi creating the ephemeral /controller and setting
// /controller_epoch to epoch+1 conditionally on its version. It returns the
// new epoch and the zkVersion that fences every later write.
func (c *Controller) registerController(ctx context.Context) (int32, int32, error) {
	cur, curVersion, err := c.readOrCreateEpoch(ctx)
	if err != nil {
		return 0, 0, err
	}
	next := cur + 1
	reg, err := znodes.NewControllerRegistration(c.nodeID, time.Now()).Encode()
	if err != nil {
		return 0, 0, err
	}
	res, err := c.zk.Multi(ctx,
		zkadmin.CreateOp(znodes.ControllerPath, reg, zkadmin.Ephemeral),
		zkadmin.SetOp(znodes.ControllerEpochPath, znodes.EncodeControllerEpoch(next), curVersion))
	if err == nil {
		return next, res[1].Stat.Version, nil
	}
	if !errors.Is(err, zkadmin.ErrNodeExists) && !errors.Is(err, zkadmin.ErrBadVersion) &&
		!errors.Is(err, zkadmin.ErrConnectionLoss) {
		return 0, 0, err
	}
	// Our own earlier attempt may have landed (a lost reply): we won if
	// /controller names us and the epoch is the one we wrote.
	version, won, cerr := c.checkRegistered(ctx, next)
	if cerr != nil {
		return 0, 0, cerr
	}
	if !won {
		return 0, 0, errLostElection
	}
	return next, version, nil
}

// checkRegistered reports whether /controller names this node (created by
// this session) and /controller_epoch holds epoch, with its version.
func (c *Controller) checkRegistered(ctx context.Context, epoch int32) (int32, bool, error) {
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

// readOrCreateEpoch reads /controller_epoch, creating it with "0" when
// absent (a NODEEXISTS on create means someone else did: read again).
func (c *Controller) readOrCreateEpoch(ctx context.Context) (int32, int32, error) {
	for range 3 {
		data, stat, err := c.zk.Get(ctx, znodes.ControllerEpochPath)
		if err == nil {
			epoch, err := znodes.DecodeControllerEpoch(data)
			if err != nil {
				return 0, 0, err
			}
			return epoch, stat.Version, nil
		}
		if !errors.Is(err, zkadmin.ErrNoNode) {
			return 0, 0, err
		}
		_, err = c.zk.Create(ctx, znodes.ControllerEpochPath, znodes.EncodeControllerEpoch(0), zkadmin.Persistent)
		if err == nil {
			return 0, 0, nil
		}
		if !errors.Is(err, zkadmin.ErrNodeExists) {
			return 0, 0, err
		}
	}
	return 0, 0, fmt.Errorf("%s keeps disappearing", znodes.ControllerEpochPath)
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
