package handler

// ElectLeaders (key 43), v0-3, on the active controller only (reference
// apis.md §7; v3 from seed 003).
//
// Behaviour:
//  1. No ALTER on the cluster: CLUSTER_AUTHORIZATION_FAILED at the top
//     (v1+) and for every listed partition, message null.
//  2. An ElectionType other than PREFERRED (0) and UNCLEAN (1): INVALID_REQUEST
//     at the top and for every listed partition (Kafka fails the whole
//     request with UNKNOWN_SERVER_ERROR; apis.md recommends this).
//  3. Not the active controller: NOT_CONTROLLER for every listed
//     partition, and at the top when all partitions were asked for (Kafka
//     would list its cache's partitions; a standby's view has none).
//  4. Otherwise the Elector (the controller) answers each partition as
//     Kafka does: UNKNOWN_TOPIC_OR_PARTITION, INVALID_TOPIC_EXCEPTION for a
//     topic queued for deletion (an all-partitions request leaves out the
//     topics whose deletion has started, as Kafka's metadata cache drops
//     them), ELECTION_NOT_NEEDED (left out of all-partitions answers), PREFERRED_LEADER_NOT_AVAILABLE, ELIGIBLE_LEADERS_NOT_AVAILABLE,
//     or 0. A partition answered 0 is then awaited until the controller's
//     view shows it with a new leader epoch, within TimeoutMs; past it,
//     REQUEST_TIMED_OUT.
//
// Version notes: v0 is always PREFERRED and has no top-level error (it
// cannot signal a denied request at all). v1+ ElectionType and the
// top-level ErrorCode. v2+ flexible. v3 (kzadmin's own codec,
// ElectLeadersV3Request) adds per-topic DesiredLeaders, matched to the
// listed partitions by index: a list of another length answers
// INVALID_REQUEST for the topic's partitions; desired leaders go to a
// DesiredElector, and without one answer INVALID_REQUEST. A v3 request
// without desired leaders is a v2 request.

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/wire"
)

func (h *Handlers) electLeadersRoute() wire.Route {
	vr, _ := wire.ZKBrokerRange(43)
	return wire.Route{VersionRange: vr, Handler: wire.HandlerFunc(h.electLeaders),
		Decoders: map[int16]wire.Decoder{electLeadersV3: electLeadersV3Decoder()}}
}

// tp names a partition.
type tp struct {
	topic     string
	partition int32
}

func (h *Handlers) electLeaders(ctx context.Context, req *wire.Request) (kmsg.Response, error) {
	var kreq *kmsg.ElectLeadersRequest
	var desired map[string][]int32
	switch b := req.Body.(type) {
	case *kmsg.ElectLeadersRequest:
		kreq = b
	case *ElectLeadersV3Request:
		kreq = b.v2()
		for _, t := range b.Topics {
			if t.DesiredLeaders != nil {
				if desired == nil {
					desired = map[string][]int32{}
				}
				desired[t.Topic] = t.DesiredLeaders
			}
		}
	default:
		return nil, fmt.Errorf("ElectLeaders: unexpected body %T", req.Body)
	}
	resp := h.elect(ctx, req, kreq, desired)
	resp.Version = req.Version
	return resp, nil
}

// elect answers a request (desired holds v3's desired leaders by topic).
func (h *Handlers) elect(ctx context.Context, req *wire.Request, kreq *kmsg.ElectLeadersRequest,
	desired map[string][]int32) *kmsg.ElectLeadersResponse {
	listed := listedPartitions(kreq)
	failAll := func(e apiError) *kmsg.ElectLeadersResponse {
		resp := kreq.ResponseKind().(*kmsg.ElectLeadersResponse)
		resp.ErrorCode = e.code
		resp.Topics = electResults(listed, func(tp) apiError { return apiError{code: e.code, msg: e.msg} })
		return resp
	}
	v := h.cluster.View()
	switch {
	case !h.allows(ctx, req, OpAlter, ClusterResource()):
		return failAll(codeOnly(kerr.ClusterAuthorizationFailed.Code))
	case kreq.Version >= 1 && kreq.ElectionType != 0 && kreq.ElectionType != 1:
		return failAll(newAPIError(kerr.InvalidRequest.Code, fmt.Sprintf("Unknown election type %d", kreq.ElectionType)))
	case !v.Active:
		resp := failAll(codeOnly(kerr.NotController.Code))
		if kreq.Topics != nil {
			resp.ErrorCode = 0
		}
		return resp
	}
	refused, kreq, desired := h.checkDesired(kreq, desired)
	before := leaderEpochs(v)
	resp := kreq.ResponseKind().(*kmsg.ElectLeadersResponse)
	if kreq.Topics == nil || len(kreq.Topics) > 0 {
		var err error
		if de, ok := h.elector.(DesiredElector); ok && len(desired) > 0 {
			resp, err = de.ElectDesiredLeaders(ctx, kreq, desired)
		} else {
			resp, err = h.elector.ElectLeaders(ctx, kreq)
		}
		if err != nil {
			return failAll(h.errorOf(err))
		}
		if resp == nil {
			return failAll(codeOnly(kerr.UnknownServerError.Code))
		}
	}
	h.awaitElected(ctx, kreq.TimeoutMillis, resp, before)
	if len(refused) > 0 {
		mergeElectResults(resp, refused)
	}
	return resp
}

// checkDesired separates v3 topics whose desired leaders cannot be served
// (wrong length, or no DesiredElector) and returns their partitions'
// errors with the request and desired leaders left to elect.
func (h *Handlers) checkDesired(kreq *kmsg.ElectLeadersRequest, desired map[string][]int32) (
	map[tp]apiError, *kmsg.ElectLeadersRequest, map[string][]int32) {
	if len(desired) == 0 {
		return nil, kreq, nil
	}
	_, canDesire := h.elector.(DesiredElector)
	refused := map[tp]apiError{}
	rest := *kreq
	rest.Topics = []kmsg.ElectLeadersRequestTopic{}
	keep := map[string][]int32{}
	for _, t := range kreq.Topics {
		d, ok := desired[t.Topic]
		var e apiError
		switch {
		case !ok:
		case len(d) != len(t.Partitions):
			e = newAPIError(kerr.InvalidRequest.Code, "DesiredLeaders must have one entry per listed partition.")
		case !canDesire:
			e = newAPIError(kerr.InvalidRequest.Code, "This controller cannot elect desired leaders.")
		default:
			keep[t.Topic] = d
		}
		if e.code == 0 {
			rest.Topics = append(rest.Topics, t)
			continue
		}
		for _, p := range t.Partitions {
			refused[tp{t.Topic, p}] = e
		}
	}
	return refused, &rest, keep
}

// listedPartitions returns the partitions a request lists, deduplicated.
func listedPartitions(r *kmsg.ElectLeadersRequest) []tp {
	seen := map[tp]bool{}
	var out []tp
	for _, t := range r.Topics {
		for _, p := range t.Partitions {
			if k := (tp{t.Topic, p}); !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}

// electResults groups per-partition results by topic, sorted.
func electResults(parts []tp, result func(tp) apiError) []kmsg.ElectLeadersResponseTopic {
	byTopic := map[string][]int32{}
	for _, p := range parts {
		byTopic[p.topic] = append(byTopic[p.topic], p.partition)
	}
	var out []kmsg.ElectLeadersResponseTopic
	for _, name := range slices.Sorted(maps.Keys(byTopic)) {
		rt := kmsg.NewElectLeadersResponseTopic()
		rt.Topic = name
		ps := byTopic[name]
		slices.Sort(ps)
		for _, p := range ps {
			e := result(tp{name, p})
			rp := kmsg.NewElectLeadersResponseTopicPartition()
			rp.Partition, rp.ErrorCode, rp.ErrorMessage = p, e.code, e.msg
			rt.Partitions = append(rt.Partitions, rp)
		}
		out = append(out, rt)
	}
	return out
}

// mergeElectResults adds refused partitions to an elector's response.
func mergeElectResults(resp *kmsg.ElectLeadersResponse, refused map[tp]apiError) {
	results := map[tp]apiError{}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			results[tp{t.Topic, p.Partition}] = apiError{code: p.ErrorCode, msg: p.ErrorMessage}
		}
	}
	maps.Copy(results, refused)
	resp.Topics = electResults(slices.Collect(maps.Keys(results)), func(k tp) apiError { return results[k] })
}

// leaderEpochs records every partition's leader epoch.
func leaderEpochs(v *View) map[tp]int32 {
	out := map[tp]int32{}
	for name, t := range v.Topics.All() {
		for _, p := range t.Partitions {
			out[tp{name, p.Partition}] = p.LeaderEpoch
		}
	}
	return out
}

// awaitElected waits until every partition answered 0 shows a newer
// leader epoch with a leader in the view, and answers REQUEST_TIMED_OUT for
// those that do not in time.
func (h *Handlers) awaitElected(ctx context.Context, timeoutMs int32, resp *kmsg.ElectLeadersResponse, before map[tp]int32) {
	var elected []tp
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if p.ErrorCode == 0 {
				elected = append(elected, tp{t.Topic, p.Partition})
			}
		}
	}
	if len(elected) == 0 {
		return
	}
	done := func(v *View, k tp) bool {
		t := v.Topic(k.topic)
		if t == nil || int(k.partition) >= len(t.Partitions) || k.partition < 0 {
			return false
		}
		p := t.Partitions[k.partition]
		return p.Leader >= 0 && p.LeaderEpoch > before[k]
	}
	v := h.await(ctx, max(timeoutMs, 1), func(v *View) bool {
		for _, k := range elected {
			if !done(v, k) {
				return false
			}
		}
		return true
	})
	for i := range resp.Topics {
		for j := range resp.Topics[i].Partitions {
			p := &resp.Topics[i].Partitions[j]
			if p.ErrorCode == 0 && !done(v, tp{resp.Topics[i].Topic, p.Partition}) {
				p.ErrorCode, p.ErrorMessage = kerr.RequestTimedOut.Code, nil
			}
		}
	}
}
