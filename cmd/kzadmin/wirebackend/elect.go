package wirebackend

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
)

// defaultElectionTimeout is ElectLeaders' default TimeoutMs.
const defaultElectionTimeout = time.Minute

// ElectLeaders sends ElectLeaders (v2, or v3 with desired leaders for a
// designated election; elect_designated.go) and reports what the controller did: partitions
// elected, partitions whose leader was already the right one, and
// refusals, which make the error. Without partitions every partition is
// asked for, and the answer lists only those elected or refused.
func (b *Backend) ElectLeaders(ctx context.Context, req backend.ElectionRequest) (*backend.ElectionResult, error) {
	if req.DryRun {
		return nil, noDryRun("elect", "ElectLeaders")
	}
	if req.Type == backend.Designated {
		return b.electDesignated(ctx, req)
	}
	kreq := kmsg.NewPtrElectLeadersRequest()
	switch req.Type {
	case backend.Preferred:
		kreq.ElectionType = 0
	case backend.Unclean:
		kreq.ElectionType = 1
	default:
		return nil, &UsageError{Msg: fmt.Sprintf("unknown election type %q", req.Type)}
	}
	kreq.Topics = electionTopics(req.Partitions)
	return b.sendElection(ctx, req, kreq, &kreq.TimeoutMillis, b.request)
}

// sendElection sends an election request (kreq, whose TimeoutMillis is
// timeout) through send, with retries, and reads what the controller did.
// The request's timeout is the ctx's time left (the default without a
// deadline), capped by the one asked for.
func (b *Backend) sendElection(ctx context.Context, req backend.ElectionRequest, kreq kmsg.Request, timeout *int32,
	send func(context.Context, kmsg.Request) (kmsg.Response, error)) (*backend.ElectionResult, error) {
	var resp *kmsg.ElectLeadersResponse
	err := b.retry(ctx, func(ctx context.Context) error {
		*timeout = timeoutMillis(ctx, defaultElectionTimeout)
		if req.Timeout > 0 {
			*timeout = min(*timeout, int32(req.Timeout/time.Millisecond))
		}
		var err error
		if resp, err = responseAs[*kmsg.ElectLeadersResponse](send(ctx, kreq)); err != nil {
			return err
		}
		if resp.ErrorCode != 0 {
			return codeError("", resp.ErrorCode, nil)
		}
		return allRefused(resp)
	})
	if err != nil {
		return nil, err
	}
	return electionResult(req.Type, resp)
}

// electionTopics groups the partitions by topic, in the order given; nil
// (every partition) stays nil, which the wire sends as null.
func electionTopics(tps []backend.TopicPartition) []kmsg.ElectLeadersRequestTopic {
	if tps == nil {
		return nil
	}
	out := []kmsg.ElectLeadersRequestTopic{}
	index := map[string]int{}
	for _, tp := range tps {
		i, ok := index[tp.Topic]
		if !ok {
			i = len(out)
			index[tp.Topic] = i
			rt := kmsg.NewElectLeadersRequestTopic()
			rt.Topic = tp.Topic
			out = append(out, rt)
		}
		out[i].Partitions = append(out[i].Partitions, tp.Partition)
	}
	return out
}

// allRefused returns the refusal when every partition got the same
// retriable code (a node that is not the controller answers each listed
// partition NOT_CONTROLLER), so the request is tried again.
func allRefused(resp *kmsg.ElectLeadersResponse) error {
	var code int16
	n := 0
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if p.ErrorCode == 0 || (n > 0 && p.ErrorCode != code) {
				return nil
			}
			code = p.ErrorCode
			n++
		}
	}
	if n == 0 || !retriableCodes[code] {
		return nil
	}
	return codeError("", code, nil)
}

func electionResult(typ backend.ElectionType, resp *kmsg.ElectLeadersResponse) (*backend.ElectionResult, error) {
	out := &backend.ElectionResult{}
	var notNeeded []string
	var failed []error
	topics := slices.Clone(resp.Topics)
	slices.SortFunc(topics, func(a, b kmsg.ElectLeadersResponseTopic) int { return strings.Compare(a.Topic, b.Topic) })
	for _, t := range topics {
		parts := slices.Clone(t.Partitions)
		slices.SortFunc(parts, func(a, b kmsg.ElectLeadersResponseTopicPartition) int { return int(a.Partition - b.Partition) })
		for _, p := range parts {
			tp := backend.TopicPartition{Topic: t.Topic, Partition: p.Partition}
			switch p.ErrorCode {
			case 0:
				out.Elected = append(out.Elected, tp)
			case kerr.ElectionNotNeeded.Code:
				notNeeded = append(notNeeded, tp.String())
			default:
				failed = append(failed, codeError(tp.String(), p.ErrorCode, p.ErrorMessage))
			}
		}
	}
	out.Requested = out.Elected
	if len(notNeeded) > 0 {
		out.Notes = append(out.Notes, "Valid replica already elected for partitions "+strings.Join(notNeeded, ","))
	}
	if len(out.Elected)+len(notNeeded)+len(failed) == 0 {
		if typ == backend.Preferred {
			out.Notes = append(out.Notes, "Every partition is led by its preferred replica; nothing to elect.")
		} else {
			out.Notes = append(out.Notes, "No offline partition; nothing to elect.")
		}
	}
	return out, partitionFailures(failed, nil, "election")
}
