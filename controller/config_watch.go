package controller

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// Config changes (reference §2.13). Kafka's controller is a broker, whose
// config handler processes /config/changes: a topic override setting
// unclean.leader.election.enable=true queues TopicUncleanLeaderElectionEnable
// (that topic's New and Offline partitions go online, now allowed to elect
// uncleanly), and the cluster default turning it on queues
// UncleanLeaderElectionEnable (every such partition). kzadmin's controller
// is no broker, so it watches /config/changes itself.
//
// The notifications are re-read triggers: only the entity named matters,
// and its config is read from its own znode. They are never deleted here
// (brokers purge those older than 15 minutes), so the controller remembers
// the highest sequence it has handled and, on each firing, reads only the
// newer ones. At failover it takes the newest existing one as handled: the
// failover's elections read every config they need fresh.
//
// For each topic named (or every topic, when the cluster default changed
// an election setting), level-triggered:
//
//   - ELR (KIP-966): partitions whose ELR or last-known ELR was computed
//     under another min ISR than the topic's effective one now are written
//     with both cleared at once (a leader epoch bump, so that brokers take
//     the new partition epoch), as KRaft does on a min.insync.replicas
//     change. ELRMinISR already makes elections ignore such lists; the
//     write makes the state visible.
//   - With unclean election enabled, or the recovery manager on with
//     Balanced or Aggressive, the topic's New and Offline partitions go
//     online with the offline strategy: an unclean election, or an unclean
//     recovery (re)started. Otherwise nothing is elected.
//
// The cluster default (/config/brokers/<default>) is overlaid onto the
// static config (config.WithDynamic) at failover and on each change; every
// election decision reads that overlay (electionConf).

// StateTopicUncleanLeaderElectionEnable is Kafka's controller state 14,
// shown while config changes are handled.
const StateTopicUncleanLeaderElectionEnable State = 14

// configState is one leadership's view of the config changes.
type configState struct {
	gen     *leaderState
	lastSeq int64 // the newest notification handled; -1: none
	// conf is the static config with the cluster-wide dynamic defaults.
	conf config.Config
}

// configChange is one notification child.
type configChange struct {
	name string
	seq  int64
}

// electionConf is the config election decisions use: the static one with
// the dynamic defaults of this leadership's last read.
func (c *Controller) electionConf() config.Config {
	if s := c.configs; s != nil && c.leader != nil && s.gen == c.leader {
		return s.conf
	}
	return c.conf
}

// loadConfigChanges is the failover step that reads the dynamic defaults
// and arms the /config/changes watch, taking what exists as handled.
func (c *Controller) loadConfigChanges(ls *leaderState) error {
	conf, err := c.readDynamicDefaults(ls)
	if err != nil {
		return err
	}
	st := &configState{gen: ls, lastSeq: -1, conf: conf}
	kids, err := c.configChangeChildren(ls)
	if err != nil {
		return err
	}
	if len(kids) > 0 {
		st.lastSeq = kids[len(kids)-1].seq
	}
	c.configs = st
	return nil
}

// readDynamicDefaults reads /config/brokers/<default> and overlays it onto
// the static config. Invalid values are logged and skipped, as a broker
// does with a bad dynamic config.
func (c *Controller) readDynamicDefaults(ls *leaderState) (config.Config, error) {
	path := znodes.ConfigEntityPath(znodes.EntityBrokers, znodes.DefaultEntityName)
	data, _, err := c.zk.Get(ls.ctx, path)
	if errors.Is(err, zkadmin.ErrNoNode) {
		return c.cfg.Conf, nil
	}
	if err != nil {
		return c.cfg.Conf, fmt.Errorf("read %s: %w", path, err)
	}
	ec, err := znodes.DecodeEntityConfig(znodes.EntityBrokers, znodes.DefaultEntityName, data)
	if err != nil {
		c.log.Error().Err(err).Msg("ignoring undecodable dynamic broker defaults")
		return c.cfg.Conf, nil
	}
	conf, err := c.cfg.Conf.WithDynamic(ec.Config)
	if err != nil {
		c.log.Warn().Err(err).Msg("ignoring invalid dynamic broker defaults")
	}
	return conf, nil
}

// configChangeChildren lists the notifications in sequence order, arming
// the child watch; while /config/changes does not exist (brokers create
// it), an exists watch waits for it.
func (c *Controller) configChangeChildren(ls *leaderState) ([]configChange, error) {
	dir := znodes.ConfigChangesPath
	for range 2 {
		names, err := ls.watches.children(ls.ctx, c.zk, dir)
		if errors.Is(err, zkadmin.ErrNoNode) {
			ok, err := ls.watches.exists(ls.ctx, c.zk, dir)
			if err != nil {
				return nil, fmt.Errorf("watch %s: %w", dir, err)
			}
			if ok {
				continue // created meanwhile: list it
			}
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", dir, err)
		}
		var out []configChange
		for _, name := range names {
			if seq, err := znodes.ParseSequentialChild(znodes.ConfigChangePrefix, name); err == nil {
				out = append(out, configChange{name: name, seq: seq})
			}
		}
		slices.SortFunc(out, func(a, b configChange) int { return int(a.seq - b.seq) })
		return out, nil
	}
	return nil, nil
}

// onConfigChanges handles a firing of the /config/changes watch.
func (c *Controller) onConfigChanges(ls *leaderState) error {
	st := c.configs
	if st == nil || st.gen != ls {
		return c.loadConfigChanges(ls)
	}
	kids, err := c.configChangeChildren(ls)
	if err != nil {
		return err
	}
	var paths []string
	newest := st.lastSeq
	for _, k := range kids {
		if k.seq > st.lastSeq {
			paths = append(paths, znodes.ConfigChangePath(k.name))
			newest = k.seq
		}
	}
	if len(paths) == 0 {
		return nil
	}
	topics, defaults, err := c.readConfigChanges(ls, paths)
	if err != nil {
		return err // nothing marked handled: the retry reads them again
	}
	st.lastSeq = newest
	c.log.Info().Int64("seq", newest).Int("topics", len(topics)).Bool("broker_default", defaults).
		Msg("config change notifications handled")
	return c.applyConfigChanges(ls, st, topics, defaults)
}

// readConfigChanges reads notifications, pipelined, and returns the topics
// they name and whether one names the cluster-wide broker default. A
// notification purged meanwhile is skipped; one that does not decode is
// logged and skipped, as brokers do.
func (c *Controller) readConfigChanges(ls *leaderState, paths []string) (map[string]bool, bool, error) {
	topics, defaults := map[string]bool{}, false
	for _, r := range c.zk.GetMany(ls.ctx, paths, c.inFlight) {
		switch {
		case errors.Is(r.Err, zkadmin.ErrNoNode):
			continue
		case r.Err != nil:
			return nil, false, fmt.Errorf("read %s: %w", r.Path, r.Err)
		}
		n, err := znodes.DecodeConfigChangeNotification(r.Path[len(znodes.ConfigChangesPath)+1:], r.Data)
		if err != nil {
			c.log.Warn().Err(err).Msg("ignoring a config change notification")
			continue
		}
		switch {
		case n.EntityType == znodes.EntityTopics:
			topics[n.EntityName] = true
		case n.EntityType == znodes.EntityBrokers && n.EntityName == znodes.DefaultEntityName:
			defaults = true
		}
	}
	return topics, defaults, nil
}

// applyConfigChanges acts on the changed topics and, if the broker default
// changed an election setting, on every topic.
func (c *Controller) applyConfigChanges(ls *leaderState, st *configState, topics map[string]bool, defaults bool) error {
	all := false
	if defaults {
		conf, err := c.readDynamicDefaults(ls)
		if err != nil {
			return err
		}
		all = electionSettingsChanged(st.conf, conf)
		st.conf = conf
		if rs := ls.recovery; rs != nil && rs.clock != nil {
			rs.clock.set(conf.UncleanRecoveryTimeout) // recoveries already waiting follow it
		}
	}
	affected := func(name string) bool { return (all || topics[name]) && !ls.cc.deleting[name] }
	settings := settingsCache{}
	if err := c.clearStaleELR(ls, affected, settings); err != nil {
		return err
	}
	if all {
		if st.conf.UncleanLeaderElectionEnable || st.conf.UncleanRecoveryManagerEnabled {
			_, err := c.triggerOnline(ls)
			return err
		}
		return nil
	}
	return c.triggerTopics(ls, slices.Sorted(maps.Keys(topics)), settings)
}

// electionSettingsChanged reports whether the dynamic defaults that
// elections and the ELR read differ.
func electionSettingsChanged(a, b config.Config) bool {
	return a.UncleanLeaderElectionEnable != b.UncleanLeaderElectionEnable ||
		a.UncleanRecoveryManagerEnabled != b.UncleanRecoveryManagerEnabled ||
		a.UncleanRecoveryStrategy != b.UncleanRecoveryStrategy ||
		a.UncleanRecoveryTimeout != b.UncleanRecoveryTimeout ||
		a.MinInsyncReplicas != b.MinInsyncReplicas
}

// triggerTopics is TopicUncleanLeaderElectionEnable for each topic whose
// effective settings allow an unclean election or an unclean recovery: its
// New and Offline partitions go online with the offline strategy, in one
// batch.
func (c *Controller) triggerTopics(ls *leaderState, names []string, settings settingsCache) error {
	var tps []TopicPartition
	for _, name := range names {
		t := ls.cc.topics[name]
		if t == nil || ls.cc.deleting[name] {
			continue
		}
		s := c.topicSettingsFor(ls.ctx, name, settings)
		if s.err != nil {
			return s.err
		}
		if !s.unclean && s.recovery != election.RecoveryBalanced && s.recovery != election.RecoveryAggressive {
			continue
		}
		for id, p := range t.parts {
			if election.NeedsOnlineTrigger(p.state, false) {
				tps = append(tps, TopicPartition{Topic: name, Partition: id})
			}
		}
	}
	if len(tps) == 0 {
		return nil
	}
	sortPartitions(tps)
	failed, err := c.partitionsToOnline(ls, tps, election.Offline(false))
	if err == nil {
		c.log.Info().Int("partitions", len(tps)).Int("elected", len(tps)-len(failed)).
			Msg("topic config change: offline partitions retried")
	}
	return err
}
