package wirebackend

import (
	"context"
	"fmt"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
	"github.com/kzadmin/kzadmin/znodes"
)

// limitReached is the code of seed 003's REQUEST_LIMIT_REACHED. The seed
// names the error ("InvalidRequestError REQUEST_LIMIT_REACHED") without a
// code of its own, and DescribeTopicPartitions answers carry no message,
// so a topic answered INVALID_REQUEST beside topics that were served is
// taken as over the server's per-request limit and asked for again. When
// every topic of an answer is INVALID_REQUEST, the request itself was
// refused (a bad cursor): that is an error.
var limitReached = kerr.InvalidRequest.Code

// pager describes topics with DescribeTopicPartitions, splitting long
// topic lists into requests of perRequest names and following each
// request's cursor page by page.
type pager struct {
	send       requestor
	perRequest int
	pageSize   int32
}

// described accumulates the topics of one description.
type described struct {
	topics  map[string]*backend.Topic
	missing []string
	// requests counts the requests made (for tests and figures).
	requests int
}

func newDescribed() *described { return &described{topics: map[string]*backend.Topic{}} }

// sorted returns the topics found, by name.
func (d *described) sorted() []*backend.Topic {
	out := make([]*backend.Topic, 0, len(d.topics))
	for _, t := range d.topics {
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b *backend.Topic) int { return cmpString(a.Name, b.Name) })
	return out
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// all describes every topic: an empty topic list, paged by the cursor.
func (p pager) all(ctx context.Context) (*described, error) {
	d := newDescribed()
	_, err := p.pages(ctx, d, nil)
	return d, err
}

// named describes the named topics (sorted and deduplicated), in pieces
// of perRequest names; topics over a server's per-request limit go first
// into the next piece.
func (p pager) named(ctx context.Context, names []string) (*described, error) {
	d := newDescribed()
	queue := slices.Compact(slices.Sorted(slices.Values(names)))
	for len(queue) > 0 {
		piece := queue[:min(p.perRequest, len(queue))]
		limited, err := p.pages(ctx, d, piece)
		if err != nil {
			return nil, err
		}
		if len(limited) == len(piece) {
			return nil, fmt.Errorf("DescribeTopicPartitions served none of %d topics (all over the request limit)", len(piece))
		}
		queue = append(limited, queue[len(piece):]...)
	}
	return d, nil
}

// pages runs one request (nil names: all topics) and the requests its
// cursor leads to, merging the answers into d. It returns the topics
// answered REQUEST_LIMIT_REACHED.
func (p pager) pages(ctx context.Context, d *described, names []string) ([]string, error) {
	var cursor *kmsg.DescribeTopicPartitionsRequestCursor
	var limited []string
	for {
		req := kmsg.NewPtrDescribeTopicPartitionsRequest()
		req.ResponsePartitionLimit = p.pageSize
		req.Cursor = cursor
		req.Topics = []kmsg.DescribeTopicPartitionsRequestTopic{}
		for _, n := range names {
			// A continued request names the cursor's topic and those
			// after it: the earlier ones are done.
			if cursor == nil || n >= cursor.Topic {
				rt := kmsg.NewDescribeTopicPartitionsRequestTopic()
				rt.Topic = n
				req.Topics = append(req.Topics, rt)
			}
		}
		d.requests++
		resp, err := responseAs[*kmsg.DescribeTopicPartitionsResponse](p.send(ctx, req))
		if err != nil {
			return nil, err
		}
		served, lim, err := d.merge(resp, names != nil)
		if err != nil {
			return nil, err
		}
		limited = append(limited, lim...)
		next := resp.NextCursor
		if next == nil {
			return limited, nil
		}
		if served == 0 && cursor != nil && next.Topic == cursor.Topic && next.Partition == cursor.Partition {
			return nil, fmt.Errorf("DescribeTopicPartitions made no progress at topic %s partition %d", next.Topic, next.Partition)
		}
		cursor = &kmsg.DescribeTopicPartitionsRequestCursor{Topic: next.Topic, Partition: next.Partition}
	}
}

// merge adds one answer to d: the partitions served (a topic cut short by
// the previous page continues), the unknown topics, and the topics that
// failed. It returns how many partitions and topics were served and the
// topics over the request limit.
func (d *described) merge(resp *kmsg.DescribeTopicPartitionsResponse, named bool) (int, []string, error) {
	served, refused := 0, 0
	var limited []string
	for _, rt := range resp.Topics {
		if rt.ErrorCode == limitReached {
			refused++
		}
	}
	if refused > 0 && refused == len(resp.Topics) {
		return 0, nil, topicError(deref(resp.Topics[0].Topic), limitReached, nil)
	}
	for i := range resp.Topics {
		rt := &resp.Topics[i]
		name := deref(rt.Topic)
		switch {
		case rt.ErrorCode == limitReached:
			limited = append(limited, name)
			continue
		case rt.ErrorCode == kerr.UnknownTopicOrPartition.Code:
			d.missing = append(d.missing, name)
			served++
			continue
		case rt.ErrorCode != 0 && !named:
			continue // all topics: nothing to report about a topic not asked for
		}
		served++
		t := d.topic(name, rt)
		if rt.ErrorCode != 0 {
			t.Err = topicError(name, rt.ErrorCode, nil)
			continue
		}
		for _, rp := range rt.Partitions {
			served++
			t.Partitions = append(t.Partitions, backend.Partition{ID: rp.Partition, Leader: rp.LeaderID,
				LeaderEpoch: rp.LeaderEpoch, Replicas: rp.Replicas, ISR: rp.ISR,
				ELR: nonEmpty(rp.EligibleLeaderReplicas), LastKnownELR: nonEmpty(rp.LastKnownELR)})
		}
	}
	return served, limited, nil
}

// topic returns the entry for name, created from the answer's topic fields.
func (d *described) topic(name string, rt *kmsg.DescribeTopicPartitionsResponseTopic) *backend.Topic {
	if t, ok := d.topics[name]; ok {
		return t
	}
	t := &backend.Topic{Name: name, Internal: rt.IsInternal || znodes.IsInternalTopic(name)}
	if id := znodes.UUID(rt.TopicID); !id.IsZero() {
		t.ID = id.String()
	}
	d.topics[name] = t
	return t
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// nonEmpty maps the empty lists the wire sends for "no ELR" to nil, as
// the ZooKeeper backend has them.
func nonEmpty(s []int32) []int32 {
	if len(s) == 0 {
		return nil
	}
	return s
}
