package handler

// AlterPartitionReassignments (key 45), v0, on the active controller only
// (reference apis.md §8.1).
//
// Behaviour:
//  1. No ALTER on the cluster: top-level CLUSTER_AUTHORIZATION_FAILED, and
//     every partition with it.
//  2. Not the active controller: top-level NOT_CONTROLLER with its default
//     message, no partitions.
//  3. Each partition, in Kafka's order: a target of no replicas, a
//     replica listed twice, a negative id, or a broker that is not
//     registered is INVALID_REPLICA_ASSIGNMENT with Kafka's messages; a
//     partition the controller does not know (or of a topic being
//     deleted) is UNKNOWN_TOPIC_OR_PARTITION, "The partition does not
//     exist."; a cancel (null replicas) of a partition that is not moving
//     is NO_REASSIGNMENT_IN_PROGRESS.
//  4. The moves that pass are requested through Admin in one write, after
//     the partition limits (the replicas brokers would gain count against
//     max.broker.partitions); the cancels in another. A refusal of either
//     write answers all of its partitions. The answer comes once the
//     request is recorded; the controller carries the moves out (the
//     request's timeout is ignored, as in Kafka's ZooKeeper mode).
//
// When the Elector is kzadmind's controller (it implements Reassigner),
// steps 2–4 are its: the request goes through the controller's event loop
// as in Kafka, without the legacy znode, cancels included. Otherwise the
// handler records moves in Kafka's legacy /admin/reassign_partitions
// znode, which Kafka's ZooKeeper-mode controller and kzadmin's both carry
// out; while one such request is in flight, another is answered
// REASSIGNMENT_IN_PROGRESS.
//
// Version notes: v0 only (Kafka 3.9's ZooKeeper brokers); v1's
// AllowReplicationFactorChange is not served.

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/znodes"
)

func (h *Handlers) alterPartitionReassignments(ctx context.Context, req *wire.Request,
	r *kmsg.AlterPartitionAssignmentsRequest) kmsg.Response {
	resp := h.alterReassignments(ctx, req, r)
	resp.ErrorMessage = emptyUnlessFailed(resp.ErrorCode, resp.ErrorMessage)
	return resp
}

// emptyUnlessFailed is a top-level error message as Kafka's reassignment
// APIs send it: their response data starts with an empty message, which
// only a top-level error replaces.
func emptyUnlessFailed(code int16, msg *string) *string {
	if code == 0 && msg == nil {
		return strp("")
	}
	return msg
}

func (h *Handlers) alterReassignments(ctx context.Context, req *wire.Request,
	r *kmsg.AlterPartitionAssignmentsRequest) *kmsg.AlterPartitionAssignmentsResponse {
	resp := r.ResponseKind().(*kmsg.AlterPartitionAssignmentsResponse)
	targets, order := reassignTargets(r)
	v := h.cluster.View()
	switch {
	case !h.allows(ctx, req, OpAlter, ClusterResource()):
		e := withDefault(kerr.ClusterAuthorizationFailed.Code)
		resp.ErrorCode, resp.ErrorMessage = e.code, e.msg
		resp.Topics = reassignResults(order, func(tp) apiError { return e })
		return resp
	case h.reassigner() != nil:
		// The controller runs API reassignments itself, as Kafka's does:
		// validation, limits, cancellation and the flow, without the
		// legacy znode.
		out, err := h.reassigner().AlterPartitionReassignments(ctx, r)
		if err != nil {
			e := withDefault(kerr.UnknownServerError.Code)
			resp.ErrorCode, resp.ErrorMessage = e.code, e.msg
			resp.Topics = reassignResults(order, func(tp) apiError { return e })
			return resp
		}
		return out
	case !v.Active:
		e := withDefault(kerr.NotController.Code)
		resp.ErrorCode, resp.ErrorMessage = e.code, e.msg
		return resp
	}
	results := h.reassignThroughZnode(ctx, v, targets, order)
	resp.Topics = reassignResults(order, func(k tp) apiError { return results[k] })
	return resp
}

// reassignTargets is each partition's target replicas (nil to cancel), and
// the partitions in request order. A partition listed twice keeps its last
// target, as Kafka's map does.
func reassignTargets(r *kmsg.AlterPartitionAssignmentsRequest) (map[tp][]int32, []tp) {
	targets := map[tp][]int32{}
	var order []tp
	for _, t := range r.Topics {
		for _, p := range t.Partitions {
			k := tp{t.Topic, p.Partition}
			if _, dup := targets[k]; !dup {
				order = append(order, k)
			}
			targets[k] = p.Replicas
		}
	}
	return targets, order
}

// reassignThroughZnode checks each partition against the view and starts or
// cancels the valid ones through the Admin (the legacy znode), when the
// controller does not run API reassignments itself.
func (h *Handlers) reassignThroughZnode(ctx context.Context, v *View, targets map[tp][]int32, order []tp) map[tp]apiError {
	results := map[tp]apiError{}
	var moves []znodes.ReassignmentEntry
	var cancels []znodes.TopicPartition
	for _, k := range order {
		replicas := targets[k]
		if e := checkMove(v, k, replicas); e.code != 0 {
			results[k] = e
		} else if replicas == nil {
			cancels = append(cancels, znodes.TopicPartition{Topic: k.topic, Partition: k.partition})
		} else {
			moves = append(moves, znodes.ReassignmentEntry{Topic: k.topic, Partition: k.partition, Replicas: replicas})
		}
	}
	if len(moves) > 0 {
		_, err := h.admin.StartReassignment(ctx, moves, false)
		for _, m := range moves {
			results[tp{m.Topic, m.Partition}] = h.errorOf(err)
		}
	}
	if len(cancels) > 0 {
		_, err := h.admin.CancelReassignments(ctx, cancels, false)
		for _, c := range cancels {
			results[tp{c.Topic, c.Partition}] = h.errorOf(err)
		}
	}
	return results
}

// checkMove makes the per-partition checks of step 3 against the view.
func checkMove(v *View, k tp, replicas []int32) apiError {
	invalid := func(format string, args ...any) apiError {
		return newAPIError(kerr.InvalidReplicaAssignment.Code, fmt.Sprintf(format, args...))
	}
	if replicas != nil {
		if len(replicas) == 0 {
			return invalid("Empty replica list specified in partition reassignment.")
		}
		if _, dup := firstDup(replicas); dup {
			return invalid("Duplicate replica ids in partition reassignment replica list: %s", listText(replicas))
		}
		for _, b := range replicas {
			if b < 0 {
				return invalid("Invalid broker id in replica list: %s", listText(replicas))
			}
		}
		for _, b := range replicas {
			if _, ok := v.Broker(b); !ok {
				live := make([]int32, len(v.Brokers))
				for i, br := range v.Brokers {
					live[i] = br.ID
				}
				return invalid("Replica assignment has brokers that are not alive. Replica list: %s, live broker list: %s",
					listText(replicas), setText(live))
			}
		}
	}
	t := v.Live(k.topic)
	if t == nil || k.partition < 0 || int(k.partition) >= len(t.Partitions) {
		return newAPIError(kerr.UnknownTopicOrPartition.Code, "The partition does not exist.")
	}
	p := t.Partitions[k.partition]
	if replicas == nil && len(p.Adding) == 0 && len(p.Removing) == 0 {
		return withDefault(kerr.NoReassignmentInProgress.Code)
	}
	return errNone
}

func firstDup(ids []int32) (int32, bool) {
	seen := map[int32]bool{}
	for _, id := range ids {
		if seen[id] {
			return id, true
		}
		seen[id] = true
	}
	return 0, false
}

// listText renders a target's replicas as Kafka's API path prints them
// (a Scala buffer): "ArrayBuffer(1, 2)".
func listText(ids []int32) string { return "ArrayBuffer(" + joinIDs(ids) + ")" }

// setText renders broker ids as Scala prints a small set: "Set(1, 2)".
func setText(ids []int32) string { return "Set(" + joinIDs(slices.Sorted(slices.Values(ids))) + ")" }

func joinIDs(ids []int32) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	return strings.Join(s, ", ")
}

// reassignResults groups results by topic in request order.
func reassignResults(order []tp, result func(tp) apiError) []kmsg.AlterPartitionAssignmentsResponseTopic {
	var out []kmsg.AlterPartitionAssignmentsResponseTopic
	index := map[string]int{}
	for _, k := range order {
		i, ok := index[k.topic]
		if !ok {
			i = len(out)
			index[k.topic] = i
			rt := kmsg.NewAlterPartitionAssignmentsResponseTopic()
			rt.Topic = k.topic
			out = append(out, rt)
		}
		e := result(k)
		rp := kmsg.NewAlterPartitionAssignmentsResponseTopicPartition()
		rp.Partition, rp.ErrorCode, rp.ErrorMessage = k.partition, e.code, e.msg
		out[i].Partitions = append(out[i].Partitions, rp)
	}
	return out
}

// Reassigner runs AlterPartitionReassignments in the controller; when the
// Elector implements it, the handler hands API reassignments over instead
// of writing /admin/reassign_partitions.
type Reassigner interface {
	AlterPartitionReassignments(ctx context.Context, req *kmsg.AlterPartitionAssignmentsRequest) (*kmsg.AlterPartitionAssignmentsResponse, error)
}

func (h *Handlers) reassigner() Reassigner {
	r, _ := h.elector.(Reassigner)
	return r
}
