package controller

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// Topic config keys the ELR and unclean recovery decisions read, besides
// UncleanLeaderElectionKey.
const (
	MinInsyncReplicasKey       = "min.insync.replicas"
	UncleanRecoveryStrategyKey = "unclean.recovery.strategy"
)

// topicSettings are one topic's effective settings for elections and ISR
// writes: its /config/topics/<t> overrides over the controller's config.
type topicSettings struct {
	unclean  bool
	minISR   int32 // configured min.insync.replicas, before the RF cap
	recovery election.RecoveryMode
	err      error
}

// settingsCache holds the settings read within one decision call, so each
// topic's config znode is read once per call.
type settingsCache map[string]topicSettings

// elrOn reports whether eligible.leader.replicas.enable is set.
func (c *Controller) elrOn() bool { return c.conf.EligibleLeaderReplicasEnable }

// needsTopicSettings reports whether decisions read topic configs at all
// beyond Kafka's unclean check: only with ELR or the recovery manager on,
// so the default configuration does exactly Kafka's reads.
func (c *Controller) needsTopicSettings() bool {
	return c.conf.EligibleLeaderReplicasEnable || c.electionConf().UncleanRecoveryManagerEnabled
}

// topicSettingsFor reads the topic's overrides once per cache. A read that
// fails fails the partitions of that topic, as Kafka's unclean check does.
func (c *Controller) topicSettingsFor(ctx context.Context, name string, cache settingsCache) topicSettings {
	if s, ok := cache[name]; ok {
		return s
	}
	cfg := map[string]string{}
	data, _, err := c.zk.Get(ctx, znodes.ConfigEntityPath("topics", name))
	switch {
	case errors.Is(err, zkadmin.ErrNoNode):
		err = nil
	case err != nil:
		err = fmt.Errorf("read config of topic %s: %w", name, err)
	default:
		var ec znodes.EntityConfig
		if ec, err = znodes.DecodeEntityConfig("topics", name, data); err == nil {
			cfg = ec.Config
		}
	}
	s := resolveTopicSettings(c.electionConf(), cfg)
	s.err = err
	cache[name] = s
	return s
}

// resolveTopicSettings merges a topic's overrides over the controller's
// config. Unreadable override values fall back to the cluster's, as a
// broker ignores an invalid dynamic config.
//
// The recovery mode follows KIP-966: with unclean.recovery.manager.enabled
// off, Kafka's classic unclean election (RecoveryOff). On, the topic's
// unclean.recovery.strategy wins when set; otherwise the cluster's
// strategy, raised from Balanced to Aggressive when the effective
// unclean.leader.election.enable is true (KIP-966 maps true to Aggressive;
// false keeps the configured strategy, so it never weakens None).
func resolveTopicSettings(conf config.Config, cfg map[string]string) topicSettings {
	s := topicSettings{unclean: conf.UncleanLeaderElectionEnable, minISR: conf.MinInsyncReplicas}
	if v, ok := cfg[UncleanLeaderElectionKey]; ok {
		s.unclean = strings.EqualFold(config.JavaTrim(v), "true")
	}
	if v, ok := cfg[MinInsyncReplicasKey]; ok {
		if n, ok := config.ParseJavaInteger(v, 32); ok && n >= 1 {
			s.minISR = int32(n)
		}
	}
	if !conf.UncleanRecoveryManagerEnabled {
		return s
	}
	strategy := conf.UncleanRecoveryStrategy
	if s.unclean && strategy == config.RecoveryBalanced {
		strategy = config.RecoveryAggressive
	}
	if v, ok := cfg[UncleanRecoveryStrategyKey]; ok {
		if st, ok := config.ParseUncleanRecoveryStrategy(v); ok {
			strategy = st
		}
	}
	switch strategy {
	case config.RecoveryNone:
		s.recovery = election.RecoveryNone
	case config.RecoveryAggressive:
		s.recovery = election.RecoveryAggressive
	default:
		s.recovery = election.RecoveryBalanced
	}
	return s
}

// elrParams returns NextELR's parameters for tp. With ELR disabled it does
// no I/O and the parameters clear the ELR fields, so nothing is written
// that Kafka's ZooKeeper controller would not write.
func (c *Controller) elrParams(ls *leaderState, tp TopicPartition, cache settingsCache) (election.ELRParams, error) {
	p := ls.cc.partition(tp)
	if !c.elrOn() || p == nil {
		return election.ELRParams{}, nil
	}
	s := c.topicSettingsFor(ls.ctx, tp.Topic, cache)
	if s.err != nil {
		return election.ELRParams{}, s.err
	}
	return election.ELRParams{
		Enabled:  true,
		MinISR:   election.EffectiveMinISR(s.minISR, len(p.assign.Replicas)),
		Replicas: p.assign.Replicas,
	}, nil
}

// withELR applies election.NextELR to a state about to be written by a
// decision other than an election (elections apply it themselves).
func (c *Controller) withELR(ls *leaderState, tp TopicPartition, prev *election.LeaderAndIsr,
	next election.LeaderAndIsr, cache settingsCache) (election.LeaderAndIsr, error) {
	params, err := c.elrParams(ls, tp, cache)
	if err != nil {
		return next, err
	}
	return election.NextELR(prev, next, params), nil
}

// fillTopicSettings sets an election input's unclean setting, min ISR and
// recovery mode from the topic's settings.
func (c *Controller) fillTopicSettings(ls *leaderState, in *election.PartitionInput, cache settingsCache) error {
	s := c.topicSettingsFor(ls.ctx, in.Partition.Topic, cache)
	if s.err != nil {
		return s.err
	}
	in.UncleanEnabled, in.Recovery = s.unclean, s.recovery
	in.MinISR = election.EffectiveMinISR(s.minISR, len(in.Assignment.Replicas))
	return nil
}
