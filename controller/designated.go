package controller

import (
	"context"
	"errors"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/election"
)

// Designated elections: ElectLeaders v3's DesiredLeaders (seed 003), the
// operator's manual election of KIP-966. The rules are
// election.chooseDesignated's (controller/election/designated.go): a live
// assigned replica; cleanly from the ISR, or from the ELR when no ISR
// member is online; outside both only when neither has an online member,
// which is the manual unclean recovery (RECOVERING, ELR cleared,
// UncleanLeaderElectionsPerSec), whatever the topic's unclean settings.
//
// Per-partition answers, as Kafka's ElectLeaders gives them:
//
//	UNKNOWN_TOPIC_OR_PARTITION      the partition does not exist
//	INVALID_TOPIC_EXCEPTION         its topic is being deleted
//	INVALID_REPLICA_ASSIGNMENT      the desired leader is not a replica
//	ELECTION_NOT_NEEDED             it already leads, online
//	ELIGIBLE_LEADERS_NOT_AVAILABLE  no state yet, the desired leader is not
//	                                live, or a cleaner leader exists
//	                                (the message says which)
//	0                               elected

// ElectDesiredLeaders runs ElectLeaders with v3's desired leaders:
// desired[topic][i] is the leader wanted for the i-th partition listed for
// topic in req. Topics without desired leaders get req's election type.
// It implements handler.DesiredElector.
func (c *Controller) ElectDesiredLeaders(ctx context.Context, req *kmsg.ElectLeadersRequest,
	desired map[string][]int32) (*kmsg.ElectLeadersResponse, error) {
	ev := &electLeadersEvent{req: req, desired: desired, reply: make(chan *kmsg.ElectLeadersResponse, 1)}
	if !c.queue.push(ev) {
		return electLeadersNotController(req), nil
	}
	return wait(ctx, ev.reply)
}

// designation is one partition and the leader wanted for it.
type designation struct {
	tp     TopicPartition
	leader int32
}

// splitDesired separates the topics with desired leaders from the rest.
// plain is nil when nothing is left for a typed election (note that a nil
// Topics would mean every partition). A partition listed twice keeps its
// first desired leader.
func splitDesired(req *kmsg.ElectLeadersRequest, desired map[string][]int32) (*kmsg.ElectLeadersRequest, []designation) {
	if len(desired) == 0 {
		return req, nil
	}
	rest := *req
	rest.Topics = nil
	var out []designation
	seen := map[TopicPartition]bool{}
	for _, t := range req.Topics {
		d, ok := desired[t.Topic]
		if !ok {
			rest.Topics = append(rest.Topics, t)
			continue
		}
		for i, p := range t.Partitions {
			tp := TopicPartition{Topic: t.Topic, Partition: p}
			if i >= len(d) || seen[tp] {
				continue // the handler checked the lengths; a repeated topic entry may not match
			}
			seen[tp] = true
			out = append(out, designation{tp: tp, leader: d[i]})
		}
	}
	if len(rest.Topics) == 0 {
		return nil, out
	}
	return &rest, out
}

// electDesignated answers the partitions that need no election, then
// elects the rest, one batch per desired leader (the strategy names it).
func (c *Controller) electDesignated(ls *leaderState, ds []designation, results map[TopicPartition]electResult) error {
	byLeader := c.classifyDesignated(ls, ds, results)
	for _, leader := range sortedKeys(byLeader) {
		tps := byLeader[leader]
		failed, err := c.partitionsToOnline(ls, tps, election.Designated(leader))
		if err != nil {
			return err
		}
		var elected []TopicPartition
		for _, tp := range tps {
			ferr := failed[tp]
			var ee *election.ElectionError
			switch {
			case ferr == nil:
				results[tp] = electResult{}
				elected = append(elected, tp)
			case errors.As(ferr, &ee) && ee.Reason == election.ReasonDesiredNotReplica:
				results[tp] = electResult{code: kerr.InvalidReplicaAssignment.Code, msg: ferr.Error()}
			default:
				results[tp] = electResult{code: kerr.EligibleLeadersNotAvailable.Code, msg: ferr.Error()}
			}
		}
		c.endRecoveries(ls, elected)
	}
	return nil
}

// classifyDesignated answers what the context already decides and groups
// the partitions to elect by desired leader.
func (c *Controller) classifyDesignated(ls *leaderState, ds []designation,
	results map[TopicPartition]electResult) map[int32][]TopicPartition {
	cc := ls.cc
	byLeader := map[int32][]TopicPartition{}
	for _, d := range ds {
		p := cc.partition(d.tp)
		if r, ok := electionRefused(cc, d.tp, p); ok {
			results[d.tp] = r
			continue
		}
		if p.lead == nil {
			// Not initialized yet: its first leader is the controller's
			// choice (a New partition's first online replica).
			results[d.tp] = electResult{code: kerr.EligibleLeadersNotAvailable.Code,
				msg: "LeaderAndIsr information doesn't exist for partition " + d.tp.String()}
			continue
		}
		switch election.CheckDesignated(cc, d.tp, p.assign.Replicas, p.lead.Leader, d.leader) {
		case election.DesignatedNotReplica:
			results[d.tp] = electResult{code: kerr.InvalidReplicaAssignment.Code,
				msg: designatedNotReplica(d, p.assign.Replicas)}
		case election.DesignatedNotNeeded:
			results[d.tp] = electionNotNeeded
		default:
			byLeader[d.leader] = append(byLeader[d.leader], d.tp)
		}
	}
	return byLeader
}

func designatedNotReplica(d designation, replicas []int32) string {
	return (&election.ElectionError{Partition: d.tp, Strategy: election.Designated(d.leader),
		Reason: election.ReasonDesiredNotReplica, Candidates: slices.Clone(replicas)}).Error()
}

// endRecoveries drops the unclean recovery sessions of partitions an
// operator has just given a leader: their answers would be dropped anyway
// (the partition is no longer leaderless), but a Balanced session would
// otherwise count as in progress until its timeout.
func (c *Controller) endRecoveries(ls *leaderState, tps []TopicPartition) {
	rs := ls.recovery
	if rs == nil || len(tps) == 0 {
		return
	}
	for _, tp := range tps {
		delete(rs.sessions, tp)
	}
	c.elrMetrics.inProgress.Set(float64(len(rs.sessions)))
}
