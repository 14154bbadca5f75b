package controller

import (
	"errors"
	"fmt"
	"slices"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// ISR change notifications (reference §2.8). Partition leaders on an IBP
// below 2.7-IV2 do not send AlterPartition: they write the new ISR into
// the state znode themselves, conditional on the version they learnt from
// LeaderAndIsr, and batch the partitions they changed into sequential
// /isr_change_notification/isr_change_<seq> znodes. The controller watches
// the children, re-reads the named partitions' state znodes into its
// context, tells every broker with UpdateMetadata, completes the
// reassignments whose target is now in sync, and deletes the
// notifications it processed. The notifications are re-read triggers: the
// state znodes, not the notifications, are the truth, so processing one
// twice does no harm. Kafka handles them whatever its own IBP (a cluster
// in the middle of an upgrade has brokers of both kinds), and so does this
// controller.
//
// The same reading and deleting serve the log-dir failure notifications
// (logdir_notify.go).

// notification is one child of a notification directory as read.
type notification struct {
	name string // the child's name, e.g. isr_change_0000000012
	path string
	data []byte
	// err is set when the znode could not be read (other than gone, or a
	// transient failure, which fails the whole read).
	err error
}

// notificationChildren lists dir's children, arming the child watch, and
// returns the paths of those named prefix<seq>. Kafka builds the paths
// from the sequence number after the prefix, so a child without it is
// none of its business either: it is logged and left alone.
func (c *Controller) notificationChildren(ls *leaderState, dir, prefix string) ([]string, []string, error) {
	names, err := ls.watches.children(ls.ctx, c.zk, dir)
	if errors.Is(err, zkadmin.ErrNoNode) {
		// Brokers and the controller create the directory; until then
		// there is nothing to do (and no watch is left, as in Kafka).
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("list %s: %w", dir, err)
	}
	slices.Sort(names) // sequence order: the order they were posted
	var keep, paths []string
	for _, name := range names {
		if _, err := znodes.ParseSequentialChild(prefix, name); err != nil {
			c.log.Warn().Str("znode", dir+"/"+name).Msg("ignoring a notification znode not named " + prefix + "<seq>")
			continue
		}
		keep, paths = append(keep, name), append(paths, dir+"/"+name)
	}
	return keep, paths, nil
}

// readNotifications lists and reads the notifications under dir, pipelined.
// One that disappeared meanwhile is left out; one that cannot be read is
// returned with err set, so that it is reported and deleted like an
// undecodable one. A transient failure fails the whole read, and nothing
// is deleted: the event is retried.
func (c *Controller) readNotifications(ls *leaderState, dir, prefix string) ([]notification, error) {
	names, paths, err := c.notificationChildren(ls, dir, prefix)
	if err != nil || len(paths) == 0 {
		return nil, err
	}
	var out []notification
	for i, r := range c.zk.GetMany(ls.ctx, paths, c.inFlight) {
		switch {
		case errors.Is(r.Err, zkadmin.ErrNoNode):
		case r.Err != nil && transient(r.Err):
			return nil, fmt.Errorf("read %s: %w", r.Path, r.Err)
		case r.Err != nil:
			out = append(out, notification{name: names[i], path: paths[i], err: fmt.Errorf("read %s: %w", r.Path, r.Err)})
		default:
			out = append(out, notification{name: names[i], path: paths[i], data: r.Data})
		}
	}
	return out, nil
}

// deleteNotifications deletes processed notifications, any version, fenced
// by the controller epoch (as Kafka's deleteIsrChangeNotifications and
// deleteLogDirEventNotifications). One already gone is fine; one that
// could not be deleted for a transient reason fails the call, so that the
// event is retried (processing again is harmless); other failures are
// logged.
func (c *Controller) deleteNotifications(ls *leaderState, paths []string) error {
	ops := make([]zkadmin.Op, len(paths))
	for i, p := range paths {
		ops[i] = zkadmin.DeleteOp(p, zkadmin.AnyVersion)
	}
	res, err := c.fencedWrite(ls.ctx, ls, ops)
	if err != nil {
		return fmt.Errorf("delete notifications: %w", err)
	}
	var retry error
	for _, r := range res {
		switch {
		case r.Err == nil || errors.Is(r.Err, zkadmin.ErrNoNode):
		case transient(r.Err):
			retry = fmt.Errorf("delete %s: %w", r.Path, r.Err)
		default:
			c.log.Error().Err(r.Err).Str("znode", r.Path).Msg("cannot delete a processed notification")
		}
	}
	return retry
}

// clearNotifications is failover steps 3 and 4: delete every log-dir event
// and ISR change notification, which arms both child watches. Nothing is
// lost: the failover reads every state znode (a warm standby watched them
// all), and sends every live broker LeaderAndIsr for all its replicas, to
// which a broker with a failed log directory answers KAFKA_STORAGE_ERROR.
func (c *Controller) clearNotifications(ls *leaderState) error {
	dirs := []struct{ dir, prefix string }{
		{znodes.LogDirEventNotificationPath, znodes.LogDirEventPrefix},
		{znodes.IsrChangeNotificationPath, znodes.IsrChangePrefix},
	}
	for _, d := range dirs {
		_, paths, err := c.notificationChildren(ls, d.dir, d.prefix)
		if err != nil {
			return err
		}
		if len(paths) == 0 {
			continue
		}
		c.log.Info().Str("dir", d.dir).Int("count", len(paths)).Msg("deleting notifications left from before the failover")
		if err := c.deleteNotifications(ls, paths); err != nil {
			return err
		}
	}
	return nil
}

// notificationPaths returns the paths of ns.
func notificationPaths(ns []notification) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.path
	}
	return out
}

// onIsrChangeNotification is Kafka's processIsrChangeNotification: read
// the notifications, refresh the named partitions, delete the
// notifications. A malformed notification is logged and deleted, and the
// others are processed (Kafka deletes it too, but a malformed one that is
// valid JSON there aborts the whole batch). The notifications are kept
// when processing failed for a transient reason or the controller moved,
// so that the retried event sees them again.
func (c *Controller) onIsrChangeNotification(ls *leaderState) error {
	ns, err := c.readNotifications(ls, znodes.IsrChangeNotificationPath, znodes.IsrChangePrefix)
	if err != nil || len(ns) == 0 {
		return err
	}
	tps := c.decodeIsrChanges(ns)
	err = c.refreshIsr(ls, tps)
	if err != nil && (transient(err) || errors.Is(err, zkadmin.ErrControllerMoved)) {
		return err
	}
	return errors.Join(err, c.deleteNotifications(ls, notificationPaths(ns)))
}

// decodeIsrChanges returns the partitions the notifications name, each
// once, in the order first named.
func (c *Controller) decodeIsrChanges(ns []notification) []TopicPartition {
	var out []TopicPartition
	seen := map[TopicPartition]bool{}
	for _, n := range ns {
		err := n.err
		var dec znodes.IsrChangeNotification
		if err == nil {
			dec, err = znodes.DecodeIsrChangeNotification(n.name, n.data)
		}
		if err != nil {
			c.log.Error().Err(err).Str("znode", n.path).Msg("malformed ISR change notification skipped and deleted")
			continue
		}
		for _, p := range dec.Partitions {
			tp := TopicPartition{Topic: p.Topic, Partition: p.Partition}
			if !seen[tp] {
				seen[tp] = true
				out = append(out, tp)
			}
		}
	}
	return out
}

// refreshIsr is Kafka's updateLeaderAndIsrCache for the notified
// partitions, then UpdateMetadata for them to every registered broker, then
// maybeCompleteReassignment for those being reassigned. Partitions the
// context does not know are skipped: their topic is new (its watch brings
// it, state included) or gone. A state znode that is missing or does not
// decode leaves the cached leadership as it was, with an error logged for
// the latter.
func (c *Controller) refreshIsr(ls *leaderState, tps []TopicPartition) error {
	cc := ls.cc
	var known []TopicPartition
	for _, tp := range tps {
		if cc.partition(tp) != nil {
			known = append(known, tp)
			continue
		}
		c.log.Debug().Str("partition", tp.String()).Msg("ISR change notified for a partition the controller does not know")
	}
	if len(known) == 0 {
		return nil
	}
	reads, err := c.readStates(ls.ctx, known)
	if err != nil {
		return err
	}
	var reassigning []apEntry
	for i, tp := range known {
		r := reads[i]
		switch {
		case r.err != nil:
			c.log.Error().Err(r.err).Str("partition", tp.String()).Msg("ISR change: state znode unreadable; cached state kept")
			continue
		case r.lai == nil:
			continue
		}
		p := cc.partition(tp)
		p.unknown = r.unknown
		c.setLeadership(ls, tp, *r.lai)
		if p.assign.IsBeingReassigned() {
			reassigning = append(reassigning, apEntry{name: tp.Topic, partition: tp.Partition})
		}
	}
	c.log.Debug().Int("partitions", len(known)).Msg("ISR changes from ZooKeeper refreshed")
	c.sendUpdateMetadata(ls, cc.brokerIDs(), known...)
	// apEntry is the AlterPartition path's record of a successful ISR
	// change; completion only needs the partition's name.
	return c.completeReassignmentsAfterIsrChange(ls, reassigning)
}
