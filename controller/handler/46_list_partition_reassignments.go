package handler

// ListPartitionReassignments (key 46), v0, on the active controller only
// (reference apis.md §8.2).
//
// Behaviour: no DESCRIBE on the cluster is a top-level
// CLUSTER_AUTHORIZATION_FAILED; not the active controller a top-level
// NOT_CONTROLLER with its default message. Otherwise the partitions the
// controller's view shows moving (adding or removing replicas), all of
// them for a null topic list, else those listed; partitions that are
// unknown or not moving are silently left out, so the usual answer is
// empty. Replicas is the full current set, the replicas being added
// included. Topics and partitions are sorted.

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/wire"
)

func (h *Handlers) listPartitionReassignments(ctx context.Context, req *wire.Request,
	r *kmsg.ListPartitionReassignmentsRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.ListPartitionReassignmentsResponse)
	resp.ErrorMessage = strp("") // replaced by a top-level error, as in Kafka
	v := h.cluster.View()
	switch {
	case !h.allows(ctx, req, OpDescribe, ClusterResource()):
		e := withDefault(kerr.ClusterAuthorizationFailed.Code)
		resp.ErrorCode, resp.ErrorMessage = e.code, e.msg
		return resp
	case !v.Active:
		e := withDefault(kerr.NotController.Code)
		resp.ErrorCode, resp.ErrorMessage = e.code, e.msg
		return resp
	}
	wanted := func(string, int32) bool { return true }
	if r.Topics != nil {
		asked := map[tp]bool{}
		for _, t := range r.Topics {
			for _, p := range t.Partitions {
				asked[tp{t.Topic, p}] = true
			}
		}
		wanted = func(topic string, p int32) bool { return asked[tp{topic, p}] }
	}
	for _, name := range v.SortedTopics() {
		t := v.Topics.Get(name)
		rt := kmsg.NewListPartitionReassignmentsResponseTopic()
		rt.Topic = name
		for _, p := range t.Partitions {
			if (len(p.Adding) == 0 && len(p.Removing) == 0) || !wanted(name, p.Partition) {
				continue
			}
			rp := kmsg.NewListPartitionReassignmentsResponseTopicPartition()
			rp.Partition, rp.Replicas = p.Partition, orEmpty(p.Replicas)
			rp.AddingReplicas, rp.RemovingReplicas = orEmpty(p.Adding), orEmpty(p.Removing)
			rt.Partitions = append(rt.Partitions, rp)
		}
		if len(rt.Partitions) > 0 {
			resp.Topics = append(resp.Topics, rt)
		}
	}
	return resp
}
