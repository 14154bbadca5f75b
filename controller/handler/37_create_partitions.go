package handler

// CreatePartitions (key 37), v0-3, on the active controller only
// (reference apis.md §6).
//
// Behaviour, per topic (Count is the new total):
//  1. Not the active controller: every topic NOT_CONTROLLER.
//  2. A name given more than once gets one result, INVALID_REQUEST
//     "Duplicate topic in request.", and is not processed.
//  3. No ALTER on the topic: TOPIC_AUTHORIZATION_FAILED, "The topic
//     authorization is failed."
//  4. Queued for deletion: INVALID_TOPIC_EXCEPTION, "The topic is queued
//     for deletion." (Kafka's ZooKeeper-mode code).
//  5. Admin does the rest in Kafka's order and with its messages: the
//     topic exists and has no reassignment in progress, Count grows, a
//     manual assignment names only registered brokers ("Unknown broker(s)
//     in replica assignment: 12, 13.") and has one list per new partition (a non-null empty Assignment is a manual
//     assignment of zero lists, which fails; null means automatic
//     placement continuing the topic's layout), each list valid and of the
//     topic's replication factor; then the partition limits, all before
//     any write. validateOnly writes nothing.
//
// Results are in request order (Kafka's come from a map, in no order).
// Timeout: as CreateTopics: <= 0 answers REQUEST_TIMED_OUT for what was
// written; otherwise the request waits until every partition, old and new,
// has a leader and an ISR in the controller's view.
//
// Version notes: v2+ flexible; v3 may answer THROTTLING_QUOTA_EXCEEDED in
// Kafka, which kzadmin has no quotas to return.

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/mutationquota"
	"github.com/kzadmin/kzadmin/zkadmin"
)

func (h *Handlers) createPartitions(ctx context.Context, req *wire.Request, r *kmsg.CreatePartitionsRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.CreatePartitionsResponse)
	v := h.cluster.View()
	counts := map[string]int{}
	for _, t := range r.Topics {
		counts[t.Topic]++
	}
	type added struct {
		idx   int
		total int
	}
	var written []added
	answered := map[string]bool{}
	// KIP-599: the requester's quota, read when a topic first gets past
	// its checks; each takes its new partitions from it before its write.
	var q *mutationquota.Quota
	looked := false
	quota := func() *mutationquota.Quota {
		if !looked && !r.ValidateOnly {
			q, looked = h.mutationQuota(ctx, req, r.Version, createPartitionsStrictFrom), true
		}
		return q
	}
	defer func() { resp.ThrottleMillis = max(resp.ThrottleMillis, throttleOf(q)) }()
	for i := range r.Topics {
		t := &r.Topics[i]
		if answered[t.Topic] {
			continue
		}
		answered[t.Topic] = true
		rt := kmsg.NewCreatePartitionsResponseTopic()
		rt.Topic = t.Topic
		e := h.createPartitionsOne(ctx, req, r, v, t, counts[t.Topic], quota)
		rt.ErrorCode, rt.ErrorMessage = e.code, e.msg
		if e.code == 0 && !r.ValidateOnly {
			written = append(written, added{idx: len(resp.Topics), total: int(t.Count)})
		}
		resp.Topics = append(resp.Topics, rt)
	}
	if len(written) == 0 {
		return resp
	}
	online := func(v *View, a added) bool {
		t := v.Live(resp.Topics[a.idx].Topic)
		return t != nil && partitionsOnline(t, a.total)
	}
	v = h.await(ctx, r.TimeoutMillis, func(v *View) bool {
		for _, a := range written {
			if !online(v, a) {
				return false
			}
		}
		return true
	})
	for _, a := range written {
		if r.TimeoutMillis <= 0 || !online(v, a) {
			resp.Topics[a.idx].ErrorCode = kerr.RequestTimedOut.Code
		}
	}
	return resp
}

// createPartitionsOne answers one topic (steps 1-6 of the file comment).
func (h *Handlers) createPartitionsOne(ctx context.Context, req *wire.Request, r *kmsg.CreatePartitionsRequest,
	v *View, t *kmsg.CreatePartitionsRequestTopic, entries int, quota func() *mutationquota.Quota) apiError {
	switch {
	case !v.Active:
		return codeOnly(kerr.NotController.Code)
	case entries > 1:
		return newAPIError(kerr.InvalidRequest.Code, "Duplicate topic in request.")
	case !h.allows(ctx, req, OpAlter, TopicResource(t.Topic)):
		return newAPIError(kerr.TopicAuthorizationFailed.Code, "The topic authorization is failed.")
	}
	if vt := v.Topic(t.Topic); vt != nil && vt.Deleting {
		return newAPIError(kerr.InvalidTopicException.Code, "The topic is queued for deletion.")
	}
	areq := zkadmin.AddPartitionsRequest{Topic: t.Topic, Total: t.Count, DryRun: r.ValidateOnly, Admit: admit(quota())}
	if t.Assignment != nil {
		areq.Assignment = make([][]int32, len(t.Assignment))
		for i, a := range t.Assignment {
			areq.Assignment[i] = a.Replicas
			if areq.Assignment[i] == nil {
				areq.Assignment[i] = []int32{}
			}
		}
	}
	if _, err := h.admin.AddPartitions(ctx, areq); err != nil {
		return h.errorOf(err)
	}
	return errNone
}
