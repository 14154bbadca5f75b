package controller

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// electLeadersEvent is an ElectLeaders request waiting for the loop.
// desired holds v3's desired leaders by topic (designated.go), nil for a
// plain election.
type electLeadersEvent struct {
	req     *kmsg.ElectLeadersRequest
	desired map[string][]int32
	reply   chan *kmsg.ElectLeadersResponse
}

func (*electLeadersEvent) state() State { return StateManualLeaderBalance }

func (e *electLeadersEvent) preempt() { e.reply <- electLeadersNotController(e.req) }

// electLeadersNotController answers NOT_CONTROLLER for every requested
// partition, and at the top level (v1+) when all partitions were asked for.
func electLeadersNotController(req *kmsg.ElectLeadersRequest) *kmsg.ElectLeadersResponse {
	resp := req.ResponseKind().(*kmsg.ElectLeadersResponse)
	if req.Topics == nil {
		resp.ErrorCode = kerr.NotController.Code
		return resp
	}
	results := map[TopicPartition]electResult{}
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			results[TopicPartition{Topic: t.Topic, Partition: p}] = electResult{code: kerr.NotController.Code}
		}
	}
	resp.Topics = electLeadersTopics(results)
	return resp
}

// electResult is one partition's outcome.
type electResult struct {
	code int16
	msg  string
}

// electionNotNeeded is ELECTION_NOT_NEEDED with the message Kafka sends
// (ApiError's default text for the code).
var electionNotNeeded = electResult{code: kerr.ElectionNotNeeded.Code, msg: "Leader election not needed for topic partition."}

// onElectLeaders is Kafka's ReplicaLeaderElection for an admin client
// (reference §2.7), plus the designated elections of v3's desired leaders
// (designated.go). Kafka's broker holds the response until its metadata
// shows the new leaders; here it is sent right after the UpdateMetadata.
func (c *Controller) onElectLeaders(e *electLeadersEvent) error {
	ls := c.leader
	if ls == nil {
		e.reply <- electLeadersNotController(e.req)
		return nil
	}
	plain, designated := splitDesired(e.req, e.desired)
	results := map[TopicPartition]electResult{}
	var err error
	if plain != nil {
		err = c.electByType(ls, plain, results)
	}
	if err == nil && len(designated) > 0 {
		err = c.electDesignated(ls, designated, results)
	}
	if err != nil {
		e.reply <- electLeadersNotController(e.req)
		return err
	}
	resp := e.req.ResponseKind().(*kmsg.ElectLeadersResponse)
	resp.Topics = electLeadersTopics(results)
	e.reply <- resp
	return nil
}

// electByType runs a PREFERRED or UNCLEAN election: PREFERRED elects the
// first assigned replica if it is live and in the ISR; UNCLEAN runs the
// offline strategy with unclean election allowed. Results go to results.
func (c *Controller) electByType(ls *leaderState, req *kmsg.ElectLeadersRequest, results map[TopicPartition]electResult) error {
	typ := election.PreferredElection
	if req.Version >= 1 {
		typ = election.ElectionType(req.ElectionType)
	}
	electable := c.classifyElection(ls, req, typ, results)
	failed, err := c.partitionsToOnline(ls, electable, election.StrategyFor(typ, true))
	if err != nil {
		return err
	}
	for _, tp := range electable {
		ferr := failed[tp]
		switch {
		case ferr == nil:
			results[tp] = electResult{}
		case typ == election.UncleanElection:
			results[tp] = electResult{code: kerr.EligibleLeadersNotAvailable.Code, msg: ferr.Error()}
		default:
			results[tp] = electResult{code: kerr.PreferredLeaderNotAvailable.Code, msg: ferr.Error()}
		}
	}
	return nil
}

// classifyElection answers the partitions that need no election and
// returns those that do. With no topics listed, every partition is
// considered but those of topics whose deletion has started, and
// ELECTION_NOT_NEEDED is left out of the answer, as Kafka's broker does. A partition listed twice is elected once: Kafka makes a set
// of the request's partitions.
func (c *Controller) classifyElection(ls *leaderState, req *kmsg.ElectLeadersRequest, typ election.ElectionType,
	results map[TopicPartition]electResult) []TopicPartition {
	cc := ls.cc
	all := req.Topics == nil
	var asked []TopicPartition
	if all {
		// Kafka lists the answering broker's metadata cache, which drops
		// a topic as soon as its deletion starts; a topic queued but not
		// started yet is still there, and answered "being deleted".
		for _, tp := range cc.sortedPartitions() {
			if ls.del == nil || !ls.del.mgr.Started(tp.Topic) {
				asked = append(asked, tp)
			}
		}
	}
	seen := map[TopicPartition]bool{}
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			tp := TopicPartition{Topic: t.Topic, Partition: p}
			if !seen[tp] {
				seen[tp] = true
				asked = append(asked, tp)
			}
		}
	}
	var electable []TopicPartition
	for _, tp := range asked {
		p := cc.partition(tp)
		if r, ok := electionRefused(cc, tp, p); ok {
			results[tp] = r
			continue
		}
		if election.ElectionNeeded(typ, cc, p.assign.Replicas, leaderOf(p)) {
			electable = append(electable, tp)
		} else if !all {
			results[tp] = electionNotNeeded
		}
	}
	return electable
}

// electionRefused answers a partition no election may touch: unknown, or
// of a topic being deleted.
func electionRefused(cc *clusterContext, tp TopicPartition, p *partition) (electResult, bool) {
	switch {
	case p == nil:
		// Kafka's text, which its own tests match.
		return electResult{code: kerr.UnknownTopicOrPartition.Code, msg: "The partition does not exist."}, true
	case cc.deleting[tp.Topic]:
		return electResult{code: kerr.InvalidTopicException.Code, msg: "The topic is being deleted"}, true
	}
	return electResult{}, false
}

func leaderOf(p *partition) int32 {
	if p.lead == nil {
		return election.NoLeader
	}
	return p.lead.Leader
}

// electLeadersTopics groups results by topic, sorted.
func electLeadersTopics(results map[TopicPartition]electResult) []kmsg.ElectLeadersResponseTopic {
	byTopic := map[string][]int32{}
	for tp := range results {
		byTopic[tp.Topic] = append(byTopic[tp.Topic], tp.Partition)
	}
	var out []kmsg.ElectLeadersResponseTopic
	for _, name := range slices.Sorted(maps.Keys(byTopic)) {
		rt := kmsg.NewElectLeadersResponseTopic()
		rt.Topic = name
		parts := byTopic[name]
		slices.Sort(parts)
		for _, p := range parts {
			r := results[TopicPartition{Topic: name, Partition: p}]
			rp := kmsg.NewElectLeadersResponseTopicPartition()
			rp.Partition, rp.ErrorCode = p, r.code
			if r.msg != "" {
				msg := r.msg
				rp.ErrorMessage = &msg
			}
			rt.Partitions = append(rt.Partitions, rp)
		}
		out = append(out, rt)
	}
	return out
}

// onPreferredElectionZnode handles /admin/preferred_replica_election (the
// legacy tool's request): elect the preferred leader of the listed
// partitions that need it, then delete the znode. The exists watch, armed
// here, fires on the deletion and again on the next creation.
func (c *Controller) onPreferredElectionZnode(ls *leaderState) error {
	path := znodes.PreferredReplicaElectionPath
	ok, err := ls.watches.exists(ls.ctx, c.zk, path)
	if err != nil || !ok {
		return err
	}
	data, _, err := c.zk.Get(ls.ctx, path)
	if errors.Is(err, zkadmin.ErrNoNode) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	pre, err := znodes.DecodePreferredReplicaElection(data)
	if err != nil {
		c.log.Error().Err(err).Msg("ignoring a preferred replica election request that does not decode")
	}
	var tps []TopicPartition
	for _, zp := range pre.Partitions {
		tp := TopicPartition{Topic: zp.Topic, Partition: zp.Partition}
		p := ls.cc.partition(tp)
		if p == nil || ls.cc.deleting[tp.Topic] || slices.Contains(tps, tp) ||
			!election.ElectionNeeded(election.PreferredElection, ls.cc, p.assign.Replicas, leaderOf(p)) {
			continue
		}
		tps = append(tps, tp)
	}
	if len(tps) > 0 {
		failed, err := c.partitionsToOnline(ls, tps, election.Preferred())
		if err != nil {
			return err
		}
		c.log.Info().Int("elected", len(tps)-len(failed)).Int("failed", len(failed)).Msg("preferred replica election")
	}
	res, err := c.fencedWrite(ls.ctx, ls, []zkadmin.Op{zkadmin.DeleteOp(path, zkadmin.AnyVersion)})
	if err != nil {
		return err
	}
	if res[0].Err != nil && !errors.Is(res[0].Err, zkadmin.ErrNoNode) {
		c.log.Error().Err(res[0].Err).Msg("delete " + path)
	}
	return nil
}

// rebalanceEvent is the auto leader rebalance timer firing.
type rebalanceEvent struct{ gen *leaderState }

func (*rebalanceEvent) state() State { return StateAutoLeaderBalance }

// scheduleRebalance arms the next auto leader rebalance check.
func (c *Controller) scheduleRebalance(ls *leaderState, after time.Duration) {
	if !c.conf.AutoLeaderRebalanceEnable {
		return
	}
	ls.rebalance = time.AfterFunc(after, func() { c.queue.push(&rebalanceEvent{gen: ls}) })
}

// onAutoRebalance is Kafka's checkAndTriggerAutoLeaderRebalance: per
// preferred broker whose share of partitions led elsewhere exceeds
// leader.imbalance.per.broker.percentage, elect the preferred leaders that
// can be elected, one batch per broker. The next check is always scheduled.
func (c *Controller) onAutoRebalance(e *rebalanceEvent) error {
	ls := c.leader
	if ls == nil || e.gen != ls {
		return nil
	}
	defer func() {
		if c.leader == ls {
			c.scheduleRebalance(ls, c.conf.LeaderImbalanceCheckInterval)
		}
	}()
	pct := int(c.conf.LeaderImbalancePerBrokerPercentage)
	for _, bi := range election.CheckImbalance(ls.cc, pct, c.rebalancePartitions(ls)) {
		if len(bi.Candidates) == 0 {
			continue
		}
		c.log.Info().Int32("broker", bi.Broker).Float64("ratio", bi.Ratio).Int("partitions", len(bi.Candidates)).
			Msg("auto leader rebalance")
		if _, err := c.partitionsToOnline(ls, bi.Candidates, election.Preferred()); err != nil {
			return err
		}
	}
	return nil
}

// rebalancePartitions lists every partition as the rebalance check and the
// imbalance metric see it.
func (c *Controller) rebalancePartitions(ls *leaderState) []election.RebalancePartition {
	var out []election.RebalancePartition
	for _, tp := range ls.cc.sortedPartitions() {
		p := ls.cc.partition(tp)
		out = append(out, election.RebalancePartition{
			Partition: tp, Assignment: p.assign, Current: p.lead, TopicDeleting: ls.cc.deleting[tp.Topic],
		})
	}
	return out
}
