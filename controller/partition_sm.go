package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller/brokerchan"
	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// maxElectionRounds bounds the re-read-and-retry loop of one election call
// when state znodes keep changing under it (BADVERSION). Kafka loops
// without bound.
const maxElectionRounds = 16

// errUnknownPartition: a state change for a partition with no assignment.
var errUnknownPartition = errors.New("unknown partition")

// partitionsToOnline is the partition state machine's handleStateChanges
// to OnlinePartition, one request batch: New partitions are initialized,
// Online and Offline ones elect with strategy s. It returns the partitions
// that did not get a leader, with why. The error is set only when the
// controller must stop (moved, or ZooKeeper unusable); nothing is sent then.
func (c *Controller) partitionsToOnline(ls *leaderState, tps []TopicPartition, s election.Strategy) (map[TopicPartition]error, error) {
	failed := map[TopicPartition]error{}
	var toInit, toElect []TopicPartition
	for _, tp := range tps {
		p := ls.cc.partition(tp)
		if p == nil {
			failed[tp] = errUnknownPartition
			continue
		}
		switch election.ToOnline(p.state) {
		case election.OnlineInitialize:
			toInit = append(toInit, tp)
		case election.OnlineElect:
			toElect = append(toElect, tp)
		default:
			failed[tp] = election.CheckPartitionTransition(tp, p.state, election.OnlinePartition)
		}
	}
	b := c.newBatch(ls)
	if err := c.initializePartitions(ls, b, toInit, failed); err != nil {
		return failed, err
	}
	if err := c.electLeaders(ls, b, toElect, s, failed); err != nil {
		return failed, err
	}
	c.send(ls, b)
	c.launchRecoveries(ls)
	for tp, err := range failed {
		c.log.Debug().Err(err).Str("partition", tp.String()).Str("strategy", s.String()).Msg("partition not online")
	}
	return failed, nil
}

// triggerOnline is Kafka's triggerOnlinePartitionStateChange: every New or
// Offline partition (topics queued for deletion excepted) goes Online with
// the offline strategy. It returns how many got a leader.
func (c *Controller) triggerOnline(ls *leaderState) (int, error) {
	tps := ls.cc.partitionsWhere(func(tp TopicPartition, p *partition) bool {
		return election.NeedsOnlineTrigger(p.state, ls.cc.deleting[tp.Topic])
	})
	if len(tps) == 0 {
		return 0, nil
	}
	failed, err := c.partitionsToOnline(ls, tps, election.Offline(false))
	if n := len(failed); n > 0 && err == nil {
		c.log.Warn().Int("partitions", n).Msg("partitions left without a leader")
	}
	return len(tps) - len(failed), err
}

// partitionsToOffline moves partitions to OfflinePartition (state only).
func (c *Controller) partitionsToOffline(ls *leaderState, tps []TopicPartition) {
	for _, tp := range tps {
		p := ls.cc.partition(tp)
		if p == nil || !election.ValidPartitionTransition(p.state, election.OfflinePartition) {
			continue
		}
		c.setPartitionState(tp, p, election.OfflinePartition)
	}
}

func (c *Controller) setPartitionState(tp TopicPartition, p *partition, s election.PartitionState) {
	if p.state != s {
		p.state = s
		c.markDirty(tp)
	}
}

// initializePartitions is New → Online: the first online replica leads,
// the online replicas form the ISR, and the state znode is created (with
// its parents) under the fence.
func (c *Controller) initializePartitions(ls *leaderState, b *brokerchan.Batch, tps []TopicPartition,
	failed map[TopicPartition]error) error {
	tps = slices.Clone(tps)
	sortPartitions(tps) // one partitions container per topic, in initWrites
	plans, err := planInit(c.env(ls), tps, func(tp TopicPartition) []int32 {
		return ls.cc.partition(tp).assign.Replicas
	}, failed)
	if err != nil || len(plans) == 0 {
		return err
	}
	res, err := c.initWrites(ls, plans)
	if err != nil {
		return err
	}
	c.applyInit(ls, b, plans, res, failed)
	return nil
}

// planInit decides the initial leadership of tps (sorted by topic), each
// of whose replicas replicasOf gives; a partition with no online replica
// goes to failed.
func planInit(env election.Env, tps []TopicPartition, replicasOf func(TopicPartition) []int32,
	failed map[TopicPartition]error) ([]initPlan, error) {
	var plans []initPlan
	for _, tp := range tps {
		lai, recipients, err := election.InitialLeaderAndIsr(env, tp, replicasOf(tp))
		if err != nil {
			failed[tp] = err
			continue
		}
		data, err := encodeState(lai, nil)
		if err != nil {
			return nil, err
		}
		plans = append(plans, initPlan{tp, lai, recipients, data})
	}
	return plans, nil
}

// applyInit records the plans whose state znode was written (res[i], in
// the order of plans) in the context, Online, and adds their LeaderAndIsr
// (isNew) to b; the others go to failed.
func (c *Controller) applyInit(ls *leaderState, b *brokerchan.Batch, plans []initPlan, res []zkadmin.OpResult,
	failed map[TopicPartition]error) {
	for i, pl := range plans {
		if res[i].Err != nil {
			failed[pl.tp] = fmt.Errorf("create %s: %w", res[i].Path, res[i].Err)
			continue
		}
		p := ls.cc.partition(pl.tp)
		c.setLeadership(ls, pl.tp, pl.lai)
		c.setPartitionState(pl.tp, p, election.OnlinePartition)
		b.AddLeaderAndIsr(pl.recipients, pl.tp, pl.lai, p.assign, true)
	}
}

// initPlan is one partition's initial leadership and its encoded state.
type initPlan struct {
	tp         TopicPartition
	lai        election.LeaderAndIsr
	recipients []int32
	state      []byte
}

// initWrites creates the znodes of the plans (sorted by topic) and returns
// each state znode's result, in the order of plans; the error is set only
// when the controller must stop.
//
// Each topic's znodes go as one run, its partitions container then each
// partition's znode and state, in one multi with other topics' runs, so a
// new topic costs one round trip. A run that fails (a container left from
// an earlier topic of the name, say) is rolled back whole, and its topics
// are then written level by level: containers, then partitions, then
// states, each level in batched multis, where a container that exists
// already does not stop what is below it.
func (c *Controller) initWrites(ls *leaderState, plans []initPlan) ([]zkadmin.OpResult, error) {
	ops, runStart, stateAt := initOps(plans)
	opts := ls.fenced()
	opts.KeepWithPrevious = func(i int) bool { return !runStart[i] }
	res, err := c.zk.MultiBatched(ls.ctx, ops, opts)
	if errors.Is(err, zkadmin.ErrControllerMoved) {
		return nil, err
	}
	out := make([]zkadmin.OpResult, len(plans))
	var redo []int
	for i := range plans {
		out[i] = res[stateAt[i]]
		if out[i].Err != nil {
			redo = append(redo, i)
		}
	}
	if len(redo) == 0 {
		return out, nil
	}
	var topicOps, partOps, stateOps []zkadmin.Op
	for k, i := range redo {
		pl := plans[i]
		if k == 0 || plans[redo[k-1]].tp.Topic != pl.tp.Topic {
			topicOps = append(topicOps, zkadmin.CreateOp(znodes.PartitionsPath(pl.tp.Topic), nil, zkadmin.Persistent))
		}
		partOps = append(partOps, zkadmin.CreateOp(znodes.PartitionPath(pl.tp.Topic, pl.tp.Partition), nil, zkadmin.Persistent))
		stateOps = append(stateOps, zkadmin.CreateOp(znodes.PartitionStatePath(pl.tp.Topic, pl.tp.Partition), pl.state, zkadmin.Persistent))
	}
	for _, level := range [][]zkadmin.Op{topicOps, partOps} {
		if _, err := c.fencedWrite(ls.ctx, ls, level); err != nil {
			return nil, err // a container that failed shows up as the state create failing
		}
	}
	states, err := c.fencedWrite(ls.ctx, ls, stateOps)
	if err != nil {
		return nil, err
	}
	var exist []int
	for k, i := range redo {
		out[i] = states[k]
		if errors.Is(out[i].Err, zkadmin.ErrNodeExists) {
			exist = append(exist, i)
		}
	}
	c.adoptStates(ls, plans, exist, out)
	return out, nil
}

// adoptStates takes the state znodes found to exist already for plans[i],
// i in idx, as those partitions' initial state (plans[i].lai, out[i]
// cleared). A state znode lives under its topic's znode, so it was written
// for this topic: by a create whose reply was lost (CommitCreates), or by
// a controller that stopped half-way; a failover would load it the same
// way. What cannot be read stays failed.
func (c *Controller) adoptStates(ls *leaderState, plans []initPlan, idx []int, out []zkadmin.OpResult) {
	if len(idx) == 0 {
		return
	}
	tps := make([]TopicPartition, len(idx))
	for k, i := range idx {
		tps[k] = plans[i].tp
	}
	reads, err := c.readStates(ls.ctx, tps)
	if err != nil {
		c.log.Warn().Err(err).Int("partitions", len(idx)).Msg("could not read the state znodes found at creation")
		return
	}
	for k, i := range idx {
		if r := reads[k]; r.lai != nil && r.err == nil {
			plans[i].lai = *r.lai
			out[i] = zkadmin.OpResult{Path: out[i].Path}
			c.log.Info().Str("partition", plans[i].tp.String()).Int32("leader", r.lai.Leader).
				Msg("new partition's state znode already written; taking it")
		}
	}
}

// initOps are the znodes of plans (sorted by topic) as one run per topic:
// its partitions container, then each partition's znode and state.
// runStart[i] marks ops[i] as the start of a run, and stateAt[k] is the
// index of plans[k]'s state create.
func initOps(plans []initPlan) (ops []zkadmin.Op, runStart []bool, stateAt []int) {
	stateAt = make([]int, len(plans))
	for i, pl := range plans {
		if i == 0 || plans[i-1].tp.Topic != pl.tp.Topic {
			ops = append(ops, zkadmin.CreateOp(znodes.PartitionsPath(pl.tp.Topic), nil, zkadmin.Persistent))
			runStart = append(runStart, true)
		}
		ops = append(ops,
			zkadmin.CreateOp(znodes.PartitionPath(pl.tp.Topic, pl.tp.Partition), nil, zkadmin.Persistent),
			zkadmin.CreateOp(znodes.PartitionStatePath(pl.tp.Topic, pl.tp.Partition), pl.state, zkadmin.Persistent))
		runStart = append(runStart, false, false)
		stateAt[i] = len(ops) - 1
	}
	return ops, runStart, stateAt
}

// electLeaders is Kafka's electLeaderForPartitions: take the current
// states (see currentStates), decide with the strategy, write each new
// state conditionally on its version, and retry the partitions whose znode
// changed meanwhile after reading them fresh.
func (c *Controller) electLeaders(ls *leaderState, b *brokerchan.Batch, tps []TopicPartition, s election.Strategy,
	failed map[TopicPartition]error) error {
	env := c.env(ls)
	unclean := map[string]uncleanSetting{}
	settings := settingsCache{}
	for round := 0; len(tps) > 0; round++ {
		if round == maxElectionRounds {
			for _, tp := range tps {
				failed[tp] = fmt.Errorf("partition %s: state znode kept changing during the election", tp)
			}
			return nil
		}
		reads, err := c.currentStates(ls, tps, round == 0)
		if err != nil {
			return err
		}
		var inputs []election.PartitionInput
		var unknown []stateRead
		for i, tp := range tps {
			if reads[i].err != nil {
				failed[tp] = reads[i].err
				continue
			}
			in := election.PartitionInput{Partition: tp, Assignment: ls.cc.partition(tp).assign, Current: reads[i].lai}
			if c.needsTopicSettings() {
				if err := c.fillTopicSettings(ls, &in, settings); err != nil {
					failed[tp] = err
					continue
				}
			} else if s.Kind == election.OfflineKind && election.NeedsUncleanConfig(ls.cc, s.AllowUnclean, in) {
				u := c.uncleanFor(ls.ctx, tp.Topic, unclean)
				if u.err != nil {
					failed[tp] = u.err
					continue
				}
				in.UncleanEnabled = u.enabled
			}
			inputs, unknown = append(inputs, in), append(unknown, reads[i])
		}
		results := election.ElectLeaders(env, s, inputs)
		c.noteRecoveries(ls, inputs, results)
		retry, err := c.applyElections(ls, b, results, unknown, failed)
		if err != nil {
			return err
		}
		tps = retry
	}
	return nil
}

// applyElections writes the successful decisions and applies the written
// ones to the context and the batch. It returns the partitions to retry.
func (c *Controller) applyElections(ls *leaderState, b *brokerchan.Batch, results []election.Result, reads []stateRead,
	failed map[TopicPartition]error) ([]TopicPartition, error) {
	var ops []zkadmin.Op
	var idx []int
	for i, r := range results {
		if r.Err != nil {
			failed[r.Partition] = r.Err
			continue
		}
		data, err := encodeState(r.LeaderAndIsr, reads[i].unknown)
		if err != nil {
			failed[r.Partition] = err
			continue
		}
		ops = append(ops, zkadmin.SetOp(znodes.PartitionStatePath(r.Partition.Topic, r.Partition.Partition), data,
			r.LeaderAndIsr.PartitionEpoch))
		idx = append(idx, i)
	}
	res, err := c.fencedWrite(ls.ctx, ls, ops)
	if err != nil {
		return nil, err
	}
	var retry []TopicPartition
	for j, i := range idx {
		r := results[i]
		switch {
		case errors.Is(res[j].Err, zkadmin.ErrBadVersion):
			retry = append(retry, r.Partition)
		case res[j].Err != nil:
			failed[r.Partition] = fmt.Errorf("write %s: %w", res[j].Path, res[j].Err)
		default:
			lai := r.LeaderAndIsr
			lai.PartitionEpoch = res[j].Stat.Version
			p := ls.cc.partition(r.Partition)
			c.setLeadership(ls, r.Partition, lai)
			p.unknown = reads[i].unknown
			c.setPartitionState(r.Partition, p, election.OnlinePartition)
			b.AddLeaderAndIsr(r.Recipients, r.Partition, lai, p.assign, false)
			if r.FromELR {
				c.elrMetrics.fromELR.Inc()
			}
			if r.Unclean {
				c.metrics.uncleanElections.Inc()
				c.log.Warn().Str("partition", r.Partition.String()).Int32("leader", lai.Leader).
					Msg("unclean leader election: data loss possible")
			}
		}
	}
	return retry, nil
}

// uncleanSetting is a topic's effective unclean.leader.election.enable.
type uncleanSetting struct {
	enabled bool
	err     error
}

// UncleanLeaderElectionKey is the topic config that allows unclean
// elections.
const UncleanLeaderElectionKey = "unclean.leader.election.enable"

// uncleanFor returns the topic's effective unclean.leader.election.enable:
// the override in /config/topics/<t>, else the cluster setting. Kafka reads
// it from ZooKeeper only for partitions with no live ISR member; cache
// holds the answers within one election call.
func (c *Controller) uncleanFor(ctx context.Context, name string, cache map[string]uncleanSetting) uncleanSetting {
	if u, ok := cache[name]; ok {
		return u
	}
	u := uncleanSetting{enabled: c.electionConf().UncleanLeaderElectionEnable}
	data, _, err := c.zk.Get(ctx, znodes.ConfigEntityPath("topics", name))
	switch {
	case errors.Is(err, zkadmin.ErrNoNode):
	case err != nil:
		u.err = fmt.Errorf("read config of topic %s: %w", name, err)
	default:
		cfg, err := znodes.DecodeEntityConfig("topics", name, data)
		if err != nil {
			u.err = err
		} else if v, ok := cfg.Config[UncleanLeaderElectionKey]; ok {
			u.enabled = strings.EqualFold(config.JavaTrim(v), "true")
		}
	}
	cache[name] = u
	return u
}

// sortPartitions orders partitions by topic, then partition.
func sortPartitions(tps []TopicPartition) {
	slices.SortFunc(tps, func(a, b TopicPartition) int {
		if c := strings.Compare(a.Topic, b.Topic); c != 0 {
			return c
		}
		return int(a.Partition - b.Partition)
	})
}
