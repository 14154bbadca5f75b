package replicalog

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kzadmin/kzadmin/internal/kafkaconn"
)

// tpID keys a partition by topic id, as GetReplicaLogInfo answers.
type tpID struct {
	id        [16]byte
	partition int32
}

// logInfo asks with GetReplicaLogInfo, PartitionsPerRequest partitions at
// a time. Partitions answered REQUEST_LIMIT_REACHED (the server's limit
// is lower than ours) go to the front of the next request; when an answer
// served none of them, the prober pauses before asking again and gives up
// after LimitRetries such answers in a row.
func (p *prober) logInfo(ctx context.Context, c *kafkaconn.Conn, brokerID int32, parts []Partition, got answers) error {
	pending := parts
	stalls := 0
	for len(pending) > 0 {
		n := min(len(pending), p.opts.PartitionsPerRequest)
		chunk, rest := pending[:n], pending[n:]
		resp, err := c.RoundTrip(ctx, logInfoRequest(brokerID, chunk))
		if err != nil {
			return err
		}
		limited := recordLogInfo(resp.(*GetReplicaLogInfoResponse), chunk, got)
		switch {
		case len(limited) < len(chunk):
			stalls = 0
		case stalls >= p.opts.LimitRetries:
			// Served nothing LimitRetries+1 times in a row: keep the code.
			limited, stalls = nil, 0
		default:
			stalls++
			if err := pause(ctx, p.opts.RetryBackoff); err != nil {
				return fmt.Errorf("GetReplicaLogInfo to %s: %w", c.Addr(), err)
			}
		}
		pending = append(limited[:len(limited):len(limited)], rest...)
	}
	return nil
}

// logInfoRequest asks for parts, grouped by topic id in first-seen order.
func logInfoRequest(brokerID int32, parts []Partition) *GetReplicaLogInfoRequest {
	req := &GetReplicaLogInfoRequest{BrokerID: brokerID, Topics: []GetReplicaLogInfoRequestTopic{}}
	index := map[[16]byte]int{}
	for _, part := range parts {
		i, ok := index[part.TopicID]
		if !ok {
			i = len(req.Topics)
			index[part.TopicID] = i
			req.Topics = append(req.Topics, GetReplicaLogInfoRequestTopic{TopicID: part.TopicID})
		}
		req.Topics[i].Partitions = append(req.Topics[i].Partitions, part.Index)
	}
	return req
}

// recordLogInfo stores the answers for asked in got and returns the
// partitions answered REQUEST_LIMIT_REACHED, which are not stored. A
// whole-request error is every partition's; a partition the answer leaves
// out is UNKNOWN_SERVER_ERROR.
func recordLogInfo(resp *GetReplicaLogInfoResponse, asked []Partition, got answers) []Partition {
	byKey := map[tpID]GetReplicaLogInfoResponsePartition{}
	for _, t := range resp.Topics {
		for _, rp := range t.Partitions {
			byKey[tpID{t.TopicID, rp.Partition}] = rp
		}
	}
	var limited []Partition
	for _, part := range asked {
		rp, ok := byKey[tpID{part.TopicID, part.Index}]
		switch {
		case resp.ErrorCode != 0:
			got[part] = unanswered(part, resp.ErrorCode)
		case !ok:
			got[part] = unanswered(part, kerr.UnknownServerError.Code)
		case rp.ErrorCode == RequestLimitReachedCode:
			limited = append(limited, part)
			got[part] = unanswered(part, RequestLimitReachedCode)
		case rp.ErrorCode != 0:
			got[part] = unanswered(part, rp.ErrorCode)
		default:
			got[part] = Info{Partition: part, LogEndOffset: rp.LogEndOffset, LastEpoch: rp.LastWrittenLeaderEpoch}
		}
	}
	return limited
}
