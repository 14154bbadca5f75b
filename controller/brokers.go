package controller

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/kzadmin/kzadmin/controller/brokerchan"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// brokerDiff is how the registered brokers changed between two reads.
type brokerDiff struct {
	// New are registered now and were not before.
	New []int32
	// Dead were registered and are no longer.
	Dead []int32
	// Bounced are registered under a larger czxid than before: they
	// restarted between two watch firings.
	Bounced []int32
}

// diffBrokers compares the known brokers with a fresh read (Kafka's
// BrokerChange arithmetic). Every list is ascending.
func diffBrokers(known, cur map[int32]brokerchan.Broker) brokerDiff {
	var d brokerDiff
	for _, id := range slices.Sorted(maps.Keys(cur)) {
		old, ok := known[id]
		switch {
		case !ok:
			d.New = append(d.New, id)
		case cur[id].Epoch > old.Epoch:
			d.Bounced = append(d.Bounced, id)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(known)) {
		if _, ok := cur[id]; !ok {
			d.Dead = append(d.Dead, id)
		}
	}
	return d
}

// onBrokerChange handles a change of /brokers/ids's children.
func (c *Controller) onBrokerChange(ls *leaderState) error {
	cur, err := c.readBrokers(ls.ctx, ls)
	if err != nil {
		return err
	}
	cc := ls.cc
	d := diffBrokers(cc.brokers, cur)
	if len(d.New)+len(d.Dead)+len(d.Bounced) == 0 {
		return nil
	}
	c.log.Info().Ints32("new", d.New).Ints32("dead", d.Dead).Ints32("bounced", d.Bounced).Msg("broker change")
	for _, id := range append(slices.Clone(d.New), d.Bounced...) {
		c.addChannel(ls, cur[id])
	}
	for _, id := range d.Dead {
		ls.chans.RemoveBroker(id)
	}
	c.markAllDirty(ls) // replicas' online status changes in every topic they host
	if len(d.New) > 0 {
		for _, id := range d.New {
			cc.brokers[id] = cur[id]
		}
		if err := c.onBrokerStartup(ls, d.New); err != nil {
			return err
		}
	}
	if len(d.Bounced) > 0 {
		for _, id := range d.Bounced {
			delete(cc.brokers, id)
		}
		if err := c.onBrokerFailure(ls, d.Bounced); err != nil {
			return err
		}
		for _, id := range d.Bounced {
			cc.brokers[id] = cur[id]
		}
		if err := c.onBrokerStartup(ls, d.Bounced); err != nil {
			return err
		}
	}
	if len(d.Dead) > 0 {
		for _, id := range d.Dead {
			delete(cc.brokers, id)
		}
		return c.onBrokerFailure(ls, d.Dead)
	}
	return nil
}

// onBrokerStartup tells the cluster about new brokers and brings their
// replicas online (reference §2.1).
func (c *Controller) onBrokerStartup(ls *leaderState, ids []int32) error {
	cc := ls.cc
	for _, id := range ids {
		delete(cc.offlineDirs, id)
	}
	var existing []int32
	for _, id := range cc.brokerIDs() {
		if !slices.Contains(ids, id) {
			existing = append(existing, id)
		}
	}
	// The old brokers learn about the new ones; the new ones get everything.
	c.sendUpdateMetadata(ls, existing)
	c.sendUpdateMetadata(ls, ids, cc.partitionsWithLeaders()...)
	c.replicasToOnline(ls, cc.replicasOnBrokers(ids))
	if _, err := c.triggerOnline(ls); err != nil {
		return err
	}
	if err := c.resumeReassignmentsOn(ls, ids); err != nil {
		return err
	}
	return c.deletionBrokersStarted(ls, ids)
}

// onBrokerFailure handles brokers whose registration went away.
func (c *Controller) onBrokerFailure(ls *leaderState, ids []int32) error {
	for _, id := range ids {
		delete(ls.cc.offlineDirs, id)
		delete(ls.cc.shuttingDown, id)
	}
	return c.onReplicasBecomeOffline(ls, ls.cc.replicasOnBrokers(ids))
}

// onReplicasBecomeOffline moves leadership off offline replicas and takes
// them out of the ISRs (reference §2.1; also used for failed log dirs).
func (c *Controller) onReplicasBecomeOffline(ls *leaderState, replicas []replicaKey) error {
	cc := ls.cc
	var keep []replicaKey
	for _, rk := range replicas {
		if !cc.deleting[rk.tp.Topic] {
			keep = append(keep, rk)
		}
	}
	c.partitionsToOffline(ls, cc.partitionsWithOfflineLeader())
	elected, err := c.triggerOnline(ls)
	if err != nil {
		return err
	}
	if err := c.replicasToOffline(ls, keep); err != nil {
		return err
	}
	if err := c.deletionReplicasOffline(ls, replicas); err != nil {
		return err
	}
	if len(keep) == 0 && elected == 0 {
		c.sendUpdateMetadata(ls, cc.brokerIDs())
	}
	return nil
}

// onBrokerModification handles a data change of /brokers/ids/<id>: new
// endpoints are propagated; anything else waits for a re-registration.
func (c *Controller) onBrokerModification(ls *leaderState, id int32) error {
	data, stat, err := ls.watches.get(ls.ctx, c.zk, znodes.BrokerIDPath(id))
	if errors.Is(err, zkadmin.ErrNoNode) {
		return nil // deregistered: BrokerChange handles it
	}
	if err != nil {
		return fmt.Errorf("read broker %d: %w", id, err)
	}
	old, ok := ls.cc.brokers[id]
	if !ok || stat.Czxid != old.Epoch {
		return nil // not known yet, or re-registered: BrokerChange handles it
	}
	reg, err := znodes.DecodeBrokerRegistration(id, data)
	if err != nil {
		c.log.Error().Err(err).Msg("ignoring a broker registration that does not decode")
		return nil
	}
	if slices.Equal(old.Endpoints, reg.Endpoints) {
		return nil
	}
	c.log.Info().Int32("broker", id).Msg("broker endpoints changed")
	b := old
	b.Endpoints = reg.Endpoints
	ls.cc.brokers[id] = b
	c.addChannel(ls, b)
	c.viewDirty = true
	c.sendUpdateMetadata(ls, ls.cc.brokerIDs())
	return nil
}
