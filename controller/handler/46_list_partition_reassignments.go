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
//
// The answer is read after the controller has finished every event
// queued before the request (Synchronizer), as Kafka's controller answers
// it from its event queue: a reassignment seen done in ZooKeeper is never
// listed as running. When that takes longer than the request's timeout
// the answer is a top-level REQUEST_TIMED_OUT, as Kafka documents; a
// timeout of zero or less answers from the current view at once.

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/wire"
)

func (h *Handlers) listPartitionReassignments(ctx context.Context, req *wire.Request,
	r *kmsg.ListPartitionReassignmentsRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.ListPartitionReassignmentsResponse)
	resp.ErrorMessage = strp("") // replaced by a top-level error, as in Kafka
	if !h.allows(ctx, req, OpDescribe, ClusterResource()) {
		e := withDefault(kerr.ClusterAuthorizationFailed.Code)
		resp.ErrorCode, resp.ErrorMessage = e.code, e.msg
		return resp
	}
	v, code := h.syncedView(ctx, r.TimeoutMillis)
	if code != 0 {
		e := withDefault(code)
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

// syncedView returns the view once the controller has caught up with its
// own writes (see listPartitionReassignments), or the error code to
// answer: NOT_CONTROLLER when this node is not (or stops being) the
// active controller, REQUEST_TIMED_OUT when catching up outlasts
// timeoutMs.
func (h *Handlers) syncedView(ctx context.Context, timeoutMs int32) (*View, int16) {
	v := h.cluster.View()
	if !v.Active {
		return v, kerr.NotController.Code
	}
	s, ok := h.cluster.(Synchronizer)
	if !ok || timeoutMs <= 0 {
		return v, 0
	}
	sctx, cancel := context.WithTimeout(ctx, time.Duration(timeoutMs)*time.Millisecond)
	defer cancel()
	if err := s.Sync(sctx); err != nil {
		if sctx.Err() != nil {
			return v, kerr.RequestTimedOut.Code
		}
		return v, kerr.NotController.Code
	}
	if v = h.cluster.View(); !v.Active {
		return v, kerr.NotController.Code
	}
	return v, 0
}
