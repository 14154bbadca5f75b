package controller

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/placement"
	"github.com/kzadmin/kzadmin/zkadmin"
)

// maxLimitFenceAttempts bounds how often an API reassignment re-reads the
// partition counts after a concurrent creator changed them.
const maxLimitFenceAttempts = 16

// AlterPartitionReassignments is Kafka's ApiPartitionReassignment
// (reference §2.6, apis.md §8.1), through the event loop and without the
// legacy znode: per partition, a target is validated (non-empty, no
// duplicate or negative id, the replicas it adds on live brokers) and
// reassigned; null Replicas cancels a reassignment in progress (back to
// the original replicas). The partitions it names leave any legacy
// znode request (the latest request wins). The answer comes once each
// reassignment has started. Not the active controller: top-level
// NOT_CONTROLLER.
//
// The partition limits (max.broker.partitions, design brief §4) apply:
// the replicas brokers would gain are counted against a fresh read of the
// cluster, and the topic znode write that starts the moves is fenced on
// that read (the version of /brokers/topics and of the dynamic limits), so
// concurrent creators never jointly overshoot. A refusal answers every
// move of the request with partition.limits.error.code. Authorization is
// the caller's. The error return is only ctx ending first.
func (c *Controller) AlterPartitionReassignments(ctx context.Context, req *kmsg.AlterPartitionAssignmentsRequest) (
	*kmsg.AlterPartitionAssignmentsResponse, error) {
	for attempt := 1; ; attempt++ {
		if !c.IsActive() {
			return alterReassignmentsNotController(req), nil
		}
		guard, err := c.reassignGuard(ctx, req)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			c.log.Warn().Err(err).Msg("AlterPartitionReassignments: reading the partition limits failed")
			return alterReassignmentsFailed(req, kerr.UnknownServerError.Code, "reading the partition limits: "+err.Error()), nil
		}
		ev := &alterReassignmentsEvent{req: req, guard: guard, lastTry: attempt == maxLimitFenceAttempts,
			reply: make(chan alterReassignmentsReply, 1)}
		if !c.queue.push(ev) {
			return alterReassignmentsNotController(req), nil
		}
		r, err := wait(ctx, ev.reply)
		if err != nil {
			return nil, err
		}
		if !r.fenceLost {
			return r.resp, nil
		}
	}
}

// limitGuard is what the API path needs to apply the partition limits:
// the limits with the counts read, and the ops that fence the write on
// that read.
type limitGuard struct {
	limits placement.Limits
	fence  *writeFence
}

// reassignGuard reads what the limits need, off the event loop: nothing
// when the request moves nothing; the dynamic limits, and when
// max.broker.partitions is set, every topic's assignment for the counts.
func (c *Controller) reassignGuard(ctx context.Context, req *kmsg.AlterPartitionAssignmentsRequest) (*limitGuard, error) {
	moves := false
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			moves = moves || p.Replicas != nil
		}
	}
	if !moves {
		return nil, nil
	}
	admin := zkadmin.NewAdmin(c.zk, zkadmin.AdminOptions{Config: &c.conf, MaxInFlight: c.inFlight})
	cl, err := admin.ReadCluster(ctx, zkadmin.ReadOptions{})
	if err != nil {
		return nil, err
	}
	if cl.Limits().MaxBrokerPartitions > 0 {
		if cl, err = admin.ReadCluster(ctx, zkadmin.ReadOptions{AllTopics: true}); err != nil {
			return nil, err
		}
	}
	g := &limitGuard{limits: cl.Limits(), fence: &writeFence{configVersion: cl.BrokerDefaultsVersion}}
	if g.limits.MaxBrokerPartitions > 0 && cl.TopicsExist {
		g.fence.topics, g.fence.topicsVersion = true, cl.TopicsVersion
	}
	return g, nil
}

// alterReassignmentsEvent is an AlterPartitionReassignments request
// waiting for the loop.
type alterReassignmentsEvent struct {
	req     *kmsg.AlterPartitionAssignmentsRequest
	guard   *limitGuard
	lastTry bool
	reply   chan alterReassignmentsReply
}

// alterReassignmentsReply is the answer, or fenceLost: read the limits
// again and retry.
type alterReassignmentsReply struct {
	resp      *kmsg.AlterPartitionAssignmentsResponse
	fenceLost bool
}

func (*alterReassignmentsEvent) state() State { return StateAlterPartitionReassignment }

func (e *alterReassignmentsEvent) preempt() {
	e.reply <- alterReassignmentsReply{resp: alterReassignmentsNotController(e.req)}
}

// onAlterReassignments is Kafka's processApiPartitionReassignment.
func (c *Controller) onAlterReassignments(e *alterReassignmentsEvent) error {
	ls := c.leader
	if ls == nil {
		e.reply <- alterReassignmentsReply{resp: alterReassignmentsNotController(e.req)}
		return nil
	}
	order, targets := reassignmentTargets(e.req)
	results := map[TopicPartition]error{}
	rs := map[TopicPartition]election.ReplicaAssignment{}
	live := ls.cc.liveBrokerIDs()
	for _, tp := range order {
		target, cur := targets[tp], c.assignmentOf(ls, tp)
		if target != nil {
			if verr := validateReassignTarget(cur, target, live); verr != nil {
				results[tp] = verr
				continue
			}
		}
		r, ok := buildReassignment(cur, target, target == nil)
		if !ok {
			results[tp] = errNoReassignment
			continue
		}
		rs[tp] = r
	}
	var fence *writeFence
	if e.guard != nil {
		fence = e.guard.fence
		if lerr := c.checkReassignLimits(ls, e.guard.limits, rs, targets); lerr != nil {
			for tp := range rs {
				if targets[tp] != nil {
					results[tp] = lerr
					delete(rs, tp)
				}
			}
		}
	}
	out, err := c.startApiReassignments(ls, rs, fence)
	if err != nil {
		e.reply <- alterReassignmentsReply{resp: alterReassignmentsNotController(e.req)}
		return err
	}
	for tp, rerr := range out {
		if !errors.Is(rerr, errLimitFenceLost) {
			continue
		}
		if !e.lastTry {
			e.reply <- alterReassignmentsReply{fenceLost: true}
			return nil
		}
		out[tp] = &reassignError{code: kerr.UnknownServerError.Code,
			msg: "Concurrent partition creations kept changing the partition counts; retry the reassignment."}
	}
	maps.Copy(results, out)
	e.reply <- alterReassignmentsReply{resp: alterReassignmentsResponse(e.req, order, results)}
	return nil
}

// startApiReassignments takes the partitions out of the legacy znode's
// request, then reassigns them.
func (c *Controller) startApiReassignments(ls *leaderState, rs map[TopicPartition]election.ReplicaAssignment,
	fence *writeFence) (map[TopicPartition]error, error) {
	if len(rs) == 0 {
		return nil, nil
	}
	err := c.removeFromZkReassignment(ls, func(tp TopicPartition, _ []int32) bool { _, ok := rs[tp]; return ok })
	if err != nil {
		return nil, err
	}
	return c.triggerReassignments(ls, rs, fence)
}

// checkReassignLimits charges each broker for the replicas the moves of
// rs add (cancels add none) against max.broker.partitions.
func (c *Controller) checkReassignLimits(ls *leaderState, limits placement.Limits,
	rs map[TopicPartition]election.ReplicaAssignment, targets map[TopicPartition][]int32) *reassignError {
	var cur, tgt [][]int32
	for _, tp := range slices.SortedFunc(maps.Keys(rs), compareTPs) {
		p := ls.cc.partition(tp)
		if targets[tp] == nil || p == nil || ls.cc.deleting[tp.Topic] {
			continue
		}
		cur, tgt = append(cur, p.assign.Replicas), append(tgt, targets[tp])
	}
	err := limits.CheckReassignment(cur, tgt)
	if err == nil {
		return nil
	}
	var le *placement.LimitError
	if !errors.As(err, &le) {
		return &reassignError{code: kerr.UnknownServerError.Code, msg: err.Error()}
	}
	detail := strings.TrimSpace(strings.TrimPrefix(le.Error(), placement.LimitErrorPrefix))
	return &reassignError{code: c.conf.PartitionLimitsErrorCode,
		msg: fmt.Sprintf("%s reassigning %d partitions: %s", placement.LimitErrorPrefix, len(tgt), detail)}
}

// reassignmentTargets lists the request's partitions in the order they
// first appear, with their targets (nil: cancel). A partition listed
// twice keeps its last target, as Kafka's map does.
func reassignmentTargets(req *kmsg.AlterPartitionAssignmentsRequest) ([]TopicPartition, map[TopicPartition][]int32) {
	var order []TopicPartition
	targets := map[TopicPartition][]int32{}
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			tp := TopicPartition{Topic: t.Topic, Partition: p.Partition}
			if _, dup := targets[tp]; !dup {
				order = append(order, tp)
			}
			targets[tp] = p.Replicas
		}
	}
	return order, targets
}

// alterReassignmentsResponse answers every partition, grouped by topic in
// request order.
func alterReassignmentsResponse(req *kmsg.AlterPartitionAssignmentsRequest, order []TopicPartition,
	results map[TopicPartition]error) *kmsg.AlterPartitionAssignmentsResponse {
	resp := req.ResponseKind().(*kmsg.AlterPartitionAssignmentsResponse)
	index := map[string]int{}
	for _, tp := range order {
		i, ok := index[tp.Topic]
		if !ok {
			i = len(resp.Topics)
			index[tp.Topic] = i
			rt := kmsg.NewAlterPartitionAssignmentsResponseTopic()
			rt.Topic = tp.Topic
			resp.Topics = append(resp.Topics, rt)
		}
		rp := kmsg.NewAlterPartitionAssignmentsResponseTopicPartition()
		rp.Partition = tp.Partition
		var re *reassignError
		if err := results[tp]; errors.As(err, &re) {
			// Kafka's ApiError without a message carries the code's default.
			msg := re.Error()
			rp.ErrorCode, rp.ErrorMessage = re.code, &msg
		} else if err != nil {
			msg := err.Error()
			rp.ErrorCode, rp.ErrorMessage = kerr.UnknownServerError.Code, &msg
		}
		resp.Topics[i].Partitions = append(resp.Topics[i].Partitions, rp)
	}
	return resp
}

// alterReassignmentsNotController is the top-level NOT_CONTROLLER answer.
func alterReassignmentsNotController(req *kmsg.AlterPartitionAssignmentsRequest) *kmsg.AlterPartitionAssignmentsResponse {
	resp := req.ResponseKind().(*kmsg.AlterPartitionAssignmentsResponse)
	resp.ErrorCode = kerr.NotController.Code
	msg := kerr.NotController.Description
	resp.ErrorMessage = &msg
	return resp
}

// alterReassignmentsFailed answers every partition with one error.
func alterReassignmentsFailed(req *kmsg.AlterPartitionAssignmentsRequest, code int16, msg string) *kmsg.AlterPartitionAssignmentsResponse {
	order, _ := reassignmentTargets(req)
	results := map[TopicPartition]error{}
	for _, tp := range order {
		results[tp] = &reassignError{code: code, msg: msg}
	}
	return alterReassignmentsResponse(req, order, results)
}
