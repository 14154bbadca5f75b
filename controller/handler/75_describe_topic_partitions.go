package handler

// DescribeTopicPartitions (key 75), v0, answered by every node from its
// View. This is seed 003's DescribeTopic (its key 69 is
// ConsumerGroupDescribe in real Kafka) in the form KIP-966 gave it; ZK
// brokers never serve it, kzadmin does (design brief §3), exactly as a
// KRaft broker does (reference apis.md §11). The seed's per-request topic
// limit becomes the response partition limit plus the cursor, which the
// Java AdminClient and kzadmin's CLI follow page by page.
//
// Behaviour:
//   - An empty topic list means all topics. The candidates are the
//     topics named at or after the cursor's topic, sorted; an explicit
//     list must contain the cursor's topic, and the cursor's partition
//     must not be negative, else the whole request is INVALID_REQUEST.
//   - Topics the principal may not DESCRIBE are left out of an all-topics
//     answer, and listed last, TOPIC_AUTHORIZATION_FAILED, in an explicit
//     one, even those after the page's end. Topics not in the view (or
//     queued for deletion) answer UNKNOWN_TOPIC_OR_PARTITION,
//     INVALID_TOPIC_EXCEPTION for a bad name, with IsInternal and the
//     authorized operations, and use none of the partition budget.
//   - The budget is max(1, min(2000, ResponsePartitionLimit)) partitions.
//     The cursor's topic starts at the cursor's partition, others at 0. A
//     topic cut short sets NextCursor to its next partition; a budget used
//     up exactly at a topic's end sets NextCursor to the next topic,
//     partition 0.
//   - Partitions always have error 0: no leader, or a leader without an
//     endpoint on this listener, shows as LeaderID -1. Replicas and ISR
//     are unfiltered; OfflineReplicas are those whose broker is gone, has
//     no endpoint on this listener, or has the replica's log dir offline.
//     ELR and LastKnownELR are empty lists until ELR is enabled.
//     TopicAuthorizedOperations is always filled in.

import (
	"context"
	"slices"
	"sort"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller"
	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/znodes"
)

// maxResponsePartitions is Kafka's max.request.partition.size.limit
// default.
const maxResponsePartitions = 2000

func (h *Handlers) describeTopicPartitions(ctx context.Context, req *wire.Request,
	r *kmsg.DescribeTopicPartitionsRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.DescribeTopicPartitionsResponse)
	v := h.cluster.View()
	names, msg := dtpCandidates(r, v)
	if msg != "" {
		e := newAPIError(kerr.InvalidRequest.Code, msg)
		for _, t := range r.Topics {
			rt := kmsg.NewDescribeTopicPartitionsResponseTopic()
			rt.Topic, rt.ErrorCode = strp(t.Topic), e.code
			resp.Topics = append(resp.Topics, rt)
		}
		return resp
	}
	// Every candidate is checked before the page is walked, as Kafka's
	// filter runs over all of them: a denied topic is answered even when
	// the page ends before its place (an all-topics request leaves it out).
	var allowed []string
	var denied []kmsg.DescribeTopicPartitionsResponseTopic
	for _, name := range names {
		switch {
		case h.allows(ctx, req, OpDescribe, TopicResource(name)):
			allowed = append(allowed, name)
		case len(r.Topics) > 0:
			rt := kmsg.NewDescribeTopicPartitionsResponseTopic()
			rt.Topic, rt.ErrorCode = strp(name), kerr.TopicAuthorizationFailed.Code
			denied = append(denied, rt)
		}
	}
	live := make(map[int32]bool, len(v.Brokers)+1)
	h.liveEndpoints(v, live)
	remaining := int(max(1, min(maxResponsePartitions, r.ResponsePartitionLimit)))
	for _, name := range allowed {
		if remaining == 0 {
			resp.NextCursor = &kmsg.DescribeTopicPartitionsResponseNextCursor{Topic: name}
			break
		}
		t := v.Live(name)
		if t == nil {
			rt := dtpMissing(name)
			rt.AuthorizedOperations = h.authorizedOps(ctx, req, TopicResource(name))
			resp.Topics = append(resp.Topics, rt)
			continue
		}
		start := 0
		if r.Cursor != nil && r.Cursor.Topic == name {
			start = int(r.Cursor.Partition)
		}
		rt, next := dtpTopic(t, start, remaining, live)
		rt.AuthorizedOperations = h.authorizedOps(ctx, req, TopicResource(name))
		resp.Topics = append(resp.Topics, rt)
		remaining -= len(rt.Partitions)
		if next >= 0 {
			resp.NextCursor = &kmsg.DescribeTopicPartitionsResponseNextCursor{Topic: name, Partition: int32(next)}
			break
		}
	}
	resp.Topics = append(resp.Topics, denied...)
	return resp
}

// dtpCandidates returns the topics to walk, sorted and starting at the
// cursor's topic, or the message of a whole-request INVALID_REQUEST.
func dtpCandidates(r *kmsg.DescribeTopicPartitionsRequest, v *View) ([]string, string) {
	from := ""
	if r.Cursor != nil {
		if r.Cursor.Partition < 0 {
			return nil, "The partition index in the cursor cannot be negative."
		}
		from = r.Cursor.Topic
	}
	var names []string
	if len(r.Topics) == 0 {
		for _, name := range v.SortedTopics() {
			if v.Live(name) != nil && name >= from {
				names = append(names, name)
			}
		}
		return names, ""
	}
	seen := map[string]bool{}
	for _, t := range r.Topics {
		if !seen[t.Topic] && t.Topic >= from {
			seen[t.Topic] = true
			names = append(names, t.Topic)
		}
	}
	if r.Cursor != nil && !seen[from] {
		return nil, "DescribeTopicPartitionsRequest topic list should contain the cursor topic: " + from
	}
	sort.Strings(names)
	return names, ""
}

func dtpMissing(name string) kmsg.DescribeTopicPartitionsResponseTopic {
	rt := kmsg.NewDescribeTopicPartitionsResponseTopic()
	rt.Topic, rt.ErrorCode = strp(name), kerr.UnknownTopicOrPartition.Code
	rt.IsInternal = znodes.IsInternalTopic(name)
	if znodes.ValidateTopicName(name) != nil {
		rt.ErrorCode = kerr.InvalidTopicException.Code
	}
	return rt
}

// dtpTopic answers at most budget partitions of t from start; next is the
// partition to continue from, -1 when t is complete.
func dtpTopic(t *controller.TopicView, start, budget int, live map[int32]bool) (kmsg.DescribeTopicPartitionsResponseTopic, int) {
	rt := kmsg.NewDescribeTopicPartitionsResponseTopic()
	rt.Topic, rt.TopicID, rt.IsInternal = strp(t.Name), t.ID, znodes.IsInternalTopic(t.Name)
	rt.Partitions = []kmsg.DescribeTopicPartitionsResponseTopicPartition{}
	end := min(len(t.Partitions), start+budget)
	for i := start; i < end; i++ {
		p := &t.Partitions[i]
		rp := kmsg.NewDescribeTopicPartitionsResponseTopicPartition()
		rp.Partition, rp.LeaderID, rp.LeaderEpoch = p.Partition, p.Leader, p.LeaderEpoch
		if !live[p.Leader] {
			rp.LeaderID = -1 // unregistered, or no endpoint on this listener
		}
		rp.Replicas, rp.ISR, rp.OfflineReplicas = orEmpty(p.Replicas), orEmpty(p.ISR), dtpOffline(p, live)
		rp.EligibleLeaderReplicas, rp.LastKnownELR = orEmpty(p.ELR), orEmpty(p.LastKnownELR)
		rt.Partitions = append(rt.Partitions, rp)
	}
	if end < len(t.Partitions) {
		return rt, end
	}
	return rt, -1
}

// dtpOffline is KRaft's offline replicas: those whose broker is gone, or
// has no endpoint on this listener, or whose log dir is offline (the
// controller's own list).
func dtpOffline(p *controller.PartitionView, live map[int32]bool) []int32 {
	out := []int32{}
	for _, r := range p.Replicas {
		if !live[r] || slices.Contains(p.Offline, r) {
			out = append(out, r)
		}
	}
	return out
}
