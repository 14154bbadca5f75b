package handler

// DeleteTopics (key 20), v0-6, on the active controller only (reference
// apis.md §5).
//
// Behaviour, one result per request entry, in request order:
//  1. Not the active controller: every entry NOT_CONTROLLER, name and id
//     echoed.
//  2. delete.topic.enable=false: every entry TOPIC_DELETION_DISABLED (v3+)
//     or INVALID_REQUEST (v0-2).
//  3. v6: an entry with both a name and an id makes the whole request
//     INVALID_REQUEST.
//  4. Per entry: an id not in the controller's view is UNKNOWN_TOPIC_ID
//     (name null); an id-based entry the principal may not DESCRIBE is
//     TOPIC_AUTHORIZATION_FAILED with the name nulled; no DELETE is
//     TOPIC_AUTHORIZATION_FAILED; a topic not in the view, or already
//     queued for deletion (it looks gone, as in Metadata), is
//     UNKNOWN_TOPIC_OR_PARTITION. Names are not validated: a bad one is
//     just unknown. Internal topics are not protected, as in Kafka 3.9.
//  5. Otherwise Admin queues the topic for deletion (/admin/delete_topics),
//     once per topic. A topic named by several entries (the same name
//     twice, or a v6 name and the id of the same topic) gets the outcome
//     of its deletion (REQUEST_TIMED_OUT, or Admin's error) on the first
//     of them only; the later ones that pass step 4 answer 0 whatever
//     happens. Kafka does the same: it keeps the results in a collection
//     keyed by name and updates the first match.
//
// Timeout: with every entry failed, or timeout <= 0, the answer is
// immediate, and queued topics get REQUEST_TIMED_OUT (their deletion still
// happens). Otherwise the request waits until the controller's view no
// longer shows the topic as live (its deletion started, which is when
// Kafka's brokers drop it too); REQUEST_TIMED_OUT at the deadline.
//
// Version notes: v1+ ThrottleMillis; v4+ flexible; v5+ ErrorMessage, which
// ZooKeeper-mode Kafka always leaves null, and so do we; v6 Topics with
// names or ids replace TopicNames, and each result carries the topic id.

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller"
	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/mutationquota"
	"github.com/kzadmin/kzadmin/znodes"
)

func (h *Handlers) deleteTopics(ctx context.Context, req *wire.Request, r *kmsg.DeleteTopicsRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.DeleteTopicsResponse)
	entries := deleteEntries(r)
	resp.Topics = entries
	v := h.cluster.View()
	setAll := func(code int16) kmsg.Response {
		for i := range resp.Topics {
			resp.Topics[i].ErrorCode = code
		}
		return resp
	}
	switch {
	case !v.Active:
		return setAll(kerr.NotController.Code)
	case !h.cfg.DeleteTopicEnable && r.Version >= 3:
		return setAll(kerr.TopicDeletionDisabled.Code)
	case !h.cfg.DeleteTopicEnable:
		return setAll(kerr.InvalidRequest.Code)
	}
	for _, e := range entries {
		if e.Topic != nil && e.TopicID != [16]byte{} {
			return setAll(kerr.InvalidRequest.Code)
		}
	}
	queued := h.queueDeletions(ctx, req, r.Version, v, resp)
	if len(queued) == 0 {
		return resp
	}
	// Gone: not live, or live again under another id (re-created).
	gone := func(v *View, i int) bool {
		t := v.Live(*resp.Topics[i].Topic)
		return t == nil || t.ID != queued[i]
	}
	v = h.await(ctx, r.TimeoutMillis, func(v *View) bool {
		for i := range queued {
			if !gone(v, i) {
				return false
			}
		}
		return true
	})
	for i := range queued {
		if r.TimeoutMillis <= 0 || !gone(v, i) {
			resp.Topics[i].ErrorCode = kerr.RequestTimedOut.Code
		}
	}
	return resp
}

// deleteEntries builds the results with the request's names and ids.
func deleteEntries(r *kmsg.DeleteTopicsRequest) []kmsg.DeleteTopicsResponseTopic {
	var out []kmsg.DeleteTopicsResponseTopic
	if r.Version < 6 {
		for _, name := range r.TopicNames {
			rt := kmsg.NewDeleteTopicsResponseTopic()
			rt.Topic = strp(name)
			out = append(out, rt)
		}
		return out
	}
	for _, t := range r.Topics {
		rt := kmsg.NewDeleteTopicsResponseTopic()
		rt.Topic, rt.TopicID = t.Topic, t.TopicID
		out = append(out, rt)
	}
	return out
}

// queueDeletions checks every entry and queues each topic that passes,
// once (steps 4-5 of the file comment). It returns, by entry index, the
// id of the topic queued for the entries that carry the outcome of a
// deletion: the first entry naming each topic.
func (h *Handlers) queueDeletions(ctx context.Context, req *wire.Request, version int16, v *View,
	resp *kmsg.DeleteTopicsResponse) map[int]znodes.UUID {
	results := resp.Topics
	queued := map[int]znodes.UUID{}
	handled := map[string]bool{} // names handed to Admin
	// KIP-599: each topic takes its partitions from the requester's quota
	// before it is queued, as Kafka's ZkAdminManager.deleteTopics does.
	var q *mutationquota.Quota
	looked := false
	defer func() { resp.ThrottleMillis = max(resp.ThrottleMillis, throttleOf(q)) }()
	for i := range results {
		t := h.checkDelete(ctx, req, v, &results[i])
		if t == nil || handled[t.Name] {
			continue
		}
		handled[t.Name] = true
		if !looked {
			q, looked = h.mutationQuota(ctx, req, version, deleteTopicsStrictFrom), true
		}
		if err := q.Record(len(t.Partitions)); err != nil {
			results[i].ErrorCode = h.errorOf(err).code
			continue
		}
		if _, err := h.admin.MarkTopicForDeletion(ctx, t.Name, false); err != nil {
			results[i].ErrorCode = h.errorOf(err).code
			continue
		}
		queued[i] = t.ID
	}
	return queued
}

// checkDelete answers one entry's checks (step 4 of the file comment) and
// returns the live topic it may delete, nil if none. Like Kafka's
// ZooKeeper mode it does not fill in the id of a name-based entry.
func (h *Handlers) checkDelete(ctx context.Context, req *wire.Request, v *View, rt *kmsg.DeleteTopicsResponseTopic) *controller.TopicView {
	byID := rt.Topic == nil
	var t *controller.TopicView
	if byID {
		if rt.TopicID == [16]byte{} {
			// Neither a name nor an id: Kafka's unresolved-id check needs a
			// non-zero id, and a null name is never authorized.
			rt.ErrorCode = kerr.TopicAuthorizationFailed.Code
			return nil
		}
		if t = v.TopicByID(znodes.UUID(rt.TopicID)); t == nil {
			rt.ErrorCode = kerr.UnknownTopicID.Code
			return nil
		}
		rt.Topic = strp(t.Name)
		if !h.allows(ctx, req, OpDescribe, TopicResource(t.Name)) {
			rt.Topic, rt.ErrorCode = nil, kerr.TopicAuthorizationFailed.Code
			return nil
		}
	}
	name := *rt.Topic
	if !h.allows(ctx, req, OpDelete, TopicResource(name)) {
		rt.ErrorCode = kerr.TopicAuthorizationFailed.Code
		return nil
	}
	live := v.Live(name)
	if live == nil {
		rt.ErrorCode = kerr.UnknownTopicOrPartition.Code
	}
	return live
}

// await waits up to timeoutMs (nothing when <= 0) for a view satisfying
// cond, and returns the view to judge the outcome by: that one, or the
// latest. It also stops when this node stops being the active
// controller; the next one finishes the job. Once cond holds, it waits
// for the brokers to have heard of that view too (awaitPropagated).
func (h *Handlers) await(ctx context.Context, timeoutMs int32, cond func(*View) bool) *View {
	if timeoutMs <= 0 {
		return h.cluster.View()
	}
	wctx, cancel := context.WithTimeout(ctx, time.Duration(timeoutMs)*time.Millisecond)
	defer cancel()
	v, err := h.cluster.WaitView(wctx, func(v *View) bool { return !v.Active || cond(v) })
	if err == nil && v.Active {
		h.awaitPropagated(wctx, v)
	}
	return v
}

// maxPropagationWait caps awaitPropagated: a broker that died without
// leaving ZooKeeper yet never answers, and a client should not wait for
// the session timeout to learn that its topic was created.
const maxPropagationWait = time.Second

// awaitPropagated waits, up to maxPropagationWait, until every broker has
// answered the UpdateMetadata that carried what v shows, when the Cluster
// can tell (Propagator). Kafka's controller is a broker and answers once
// its own cache has the change, which it learns from the same request as
// the others; kzadmind's view is complete before any broker has heard, so
// without this a client asking another broker right after the answer is
// told the topic does not exist (reference/users-and-peers.md, pain 7).
// It waits for every broker, which Kafka does not. Past the cap it
// answers anyway: the change is made.
func (h *Handlers) awaitPropagated(ctx context.Context, v *View) {
	p, ok := h.cluster.(Propagator)
	if !ok {
		return
	}
	pctx, cancel := context.WithTimeout(ctx, maxPropagationWait)
	defer cancel()
	if err := p.WaitPropagated(pctx, v); err != nil {
		h.log.Debug().Err(err).Msg("answering before every broker has answered the UpdateMetadata")
	}
}
