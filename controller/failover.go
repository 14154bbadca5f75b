package controller

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// onControllerFailover takes over as the active controller, in Kafka's
// order as far as it matters (reference §1.4): the /feature znode; the
// log-dir and ISR change notifications deleted (isr_notify.go); brokers
// (with their epochs), topics (with ids) and every partition state, read
// pipelined and arming the watches (a promoted warm standby has them
// already: standby.go), and the deletion markers (their topics queued);
// then the brokers are told, first the live broker list, then full
// LeaderAndIsr and UpdateMetadata through the replica state machine; then
// leaderless partitions get leaders; then reassignments (the legacy znode,
// then those in progress) and topic deletions resume; then pending
// preferred elections run and the rebalance timer starts.
func (c *Controller) onControllerFailover(ls *leaderState) error {
	ctx, cc := ls.ctx, ls.cc
	start := time.Now()
	c.setupFeatures(ctx)
	if err := c.clearNotifications(ls); err != nil {
		return err
	}
	if err := c.loadConfigChanges(ls); err != nil { // config_watch.go
		return err
	}
	load := c.loadClusterContext
	if ls.preloaded { // a warm standby's context (standby.go)
		load = c.finishPreloaded
	}
	if err := load(ls); err != nil {
		return err
	}
	if err := c.loadDeletions(ls); err != nil {
		return err
	}
	loaded := time.Since(start)
	for _, id := range cc.brokerIDs() {
		c.addChannel(ls, cc.brokers[id])
	}
	c.markAllDirty(ls)
	c.sendUpdateMetadata(ls, cc.brokerIDs())
	if err := c.startReplicaStateMachine(ls); err != nil {
		return err
	}
	if err := c.startPartitionStateMachine(ls); err != nil {
		return err
	}
	if err := c.initReassignments(ls); err != nil {
		return err
	}
	if err := c.startDeletions(ls); err != nil {
		return err
	}
	if err := c.onPreferredElectionZnode(ls); err != nil {
		return err
	}
	c.scheduleRebalance(ls, c.firstRebalanceDelay())
	c.startTokenExpiry(ls)
	ls.ready = true
	// Ready is published by afterEvent, after this event's view: a client
	// that waits for Ready must find the loaded cluster in the snapshot.
	c.viewDirty = true
	c.log.Info().Int("brokers", len(cc.brokers)).Int("topics", len(cc.topics)).
		Dur("load", loaded).Dur("total", time.Since(start)).Msg("controller failover complete")
	return nil
}

// loadClusterContext reads brokers (with their epochs), topics (giving
// those without one an id) and every partition state into the context,
// pipelined, arming the broker and topic watches.
func (c *Controller) loadClusterContext(ls *leaderState) error {
	ctx, cc := ls.ctx, ls.cc
	reads, err := c.readBrokersAndTopics(ls)
	if err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(reads)) {
		// Only the topic id is fixed here: existing partitions keep their
		// replicas whatever they are.
		a, err := c.prepareTopic(ls, name, reads[name], []int32{})
		if err != nil {
			return err
		}
		cc.putTopic(name, a)
	}
	return c.loadLeadership(ctx, ls)
}

// startReplicaStateMachine classifies every replica (OnlineReplica when
// online, else ReplicaDeletionIneligible), then sends every live broker
// LeaderAndIsr for all it hosts (and everyone UpdateMetadata for every
// partition), then takes the offline replicas out of the ISRs.
func (c *Controller) startReplicaStateMachine(ls *leaderState) error {
	tps := ls.cc.sortedPartitions()
	// Sized for RF 3, so that 100k partitions do not regrow the list a
	// few dozen times.
	online := make([]replicaKey, 0, 3*len(tps))
	var offline []replicaKey
	for _, tp := range tps {
		p := ls.cc.partition(tp)
		for _, r := range p.assign.Replicas {
			s := election.InitialReplicaState(ls.cc, tp, r)
			p.setReplicaState(r, s)
			if s == election.OnlineReplica {
				online = append(online, replicaKey{tp, r})
			} else {
				offline = append(offline, replicaKey{tp, r})
			}
		}
	}
	c.replicasToOnline(ls, online)
	return c.replicasToOffline(ls, offline)
}

// startPartitionStateMachine classifies every partition (New without
// leadership, Online with an online leader, else Offline; an unreadable
// state znode counts as Offline) and elects leaders where needed.
func (c *Controller) startPartitionStateMachine(ls *leaderState) error {
	for _, t := range ls.cc.topics {
		for id, p := range t.parts {
			tp := TopicPartition{Topic: t.name, Partition: id}
			s := election.InitialPartitionState(ls.cc, tp, p.lead)
			if p.stateErr != nil {
				s = election.OfflinePartition
			}
			c.setPartitionState(tp, p, s)
		}
	}
	_, err := c.triggerOnline(ls)
	return err
}

func (c *Controller) firstRebalanceDelay() time.Duration {
	if c.cfg.FirstRebalanceDelay > 0 {
		return c.cfg.FirstRebalanceDelay
	}
	return DefaultFirstRebalanceDelay
}

// setupFeatures is Kafka's maybeSetupFeatureVersioning for a controller
// that finalizes no features: IBP 2.7+ makes /feature Enabled (with no
// features, the only safe choice: brokers exit on a feature they do not
// support), older IBPs make it Disabled. It is not fenced, as in Kafka,
// and failures are only logged.
func (c *Controller) setupFeatures(ctx context.Context) {
	want := znodes.FinalizedFeatures{Version: 1, Status: znodes.FeatureEnabled}
	if c.conf.InterBrokerProtocolVersion.AtLeast(config.IBP3_3_IV0) {
		want.Version = 2
	}
	if !c.ibp.FeatureVersioningSupported() {
		want.Status = znodes.FeatureDisabled
	}
	data, stat, err := c.zk.Get(ctx, znodes.FeaturePath)
	if errors.Is(err, zkadmin.ErrNoNode) {
		enc, _ := want.Encode()
		if _, err := c.zk.Create(ctx, znodes.FeaturePath, enc, zkadmin.Persistent); err != nil && !errors.Is(err, zkadmin.ErrNodeExists) {
			c.log.Error().Err(err).Msg("create /feature")
		}
		return
	}
	if err != nil {
		c.log.Error().Err(err).Msg("read /feature")
		return
	}
	cur, err := znodes.DecodeFinalizedFeatures(data)
	if err != nil {
		c.log.Error().Err(err).Msg("unparsable /feature left alone")
		return
	}
	next := cur
	switch {
	case want.Status == znodes.FeatureDisabled &&
		(cur.Status != znodes.FeatureDisabled || len(cur.Features) > 0 || cur.Version != want.Version):
		// Kafka rewrites unless the whole node, JSON version included, is
		// already what it wants.
		next = want
	case want.Status == znodes.FeatureEnabled && cur.Status == znodes.FeatureDisabled:
		next = want
	case want.Status == znodes.FeatureEnabled && cur.Version != want.Version:
		next.Version = want.Version
	default:
		return
	}
	enc, err := next.Encode()
	if err == nil {
		_, err = c.zk.Set(ctx, znodes.FeaturePath, enc, stat.Version)
	}
	if err != nil {
		c.log.Error().Err(err).Msg("update /feature")
	}
}

// readBrokersAndTopics reads the registered brokers into the context and
// every topic's assignment, arming the broker and topic watches; it is the
// first step of both a failover load and a warm standby's load.
func (c *Controller) readBrokersAndTopics(ls *leaderState) (map[string]topicRead, error) {
	brokers, err := c.readBrokers(ls.ctx, ls)
	if err != nil {
		return nil, err
	}
	ls.cc.brokers = brokers
	names, err := ls.watches.children(ls.ctx, c.zk, znodes.TopicsPath)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", znodes.TopicsPath, err)
	}
	return c.readTopics(ls.ctx, ls, names)
}
