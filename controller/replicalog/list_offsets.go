package replicalog

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/internal/kafkaconn"
)

// Asking a stock broker with ListOffsets (key 2).
//
// Kafka 3.9's handler reads from any replica, not only the leader, when the
// replica id is -2 (ListOffsetsRequest.DEBUGGING_REPLICA_ID:
// fetchOnlyFromLeader = replicaId != -2), and with a replica id other
// than -1 it applies no isolation level, so LATEST is the local log end
// offset, not the high watermark. integration/replicalogreal checks this
// against real Kafka 3.9 brokers, including for a partition that has no
// leader.
//
// The epoch in the answer (v4+) is NOT the epoch of the replica's last
// record: a broker answers LATEST with the partition's current leader
// epoch, the one it learnt from its last LeaderAndIsr (or -1 if it never
// applied one). A controlled shutdown, an ISR shrink or an election bumps
// that epoch on the replicas told, so a replica with a shorter log can
// report a higher epoch than one with a longer log. Comparing those epochs
// would prefer the shorter log, the very thing unclean recovery must not
// do. So this path reports LastEpoch -1 (unknown), and the recovery
// compares log end offsets for stock brokers (election.PickRecoveryLeader
// ignores epochs unless every answer has one). Nothing a 3.9 follower
// serves gives its last written epoch: OffsetForLeaderEpoch is leader-only.
// Our simulator's GetReplicaLogInfo does give it.

const (
	// debuggingReplicaID lets a follower answer from its own log.
	debuggingReplicaID int32 = -2
	// latestTimestamp asks for the log end offset.
	latestTimestamp int64 = -1
)

// listOffsets asks for parts with ListOffsets at version, in pieces of
// PartitionsPerRequest. Partitions without a topic name cannot be named
// in ListOffsets and are answered UNKNOWN_TOPIC_OR_PARTITION unasked.
func (p *prober) listOffsets(ctx context.Context, c *kafkaconn.Conn, version int16, parts []Partition, got answers) error {
	named := make([]Partition, 0, len(parts))
	for _, part := range parts {
		if part.Topic == "" {
			got[part] = unanswered(part, kerr.UnknownTopicOrPartition.Code)
			continue
		}
		named = append(named, part)
	}
	for _, chunk := range chunks(named, p.opts.PartitionsPerRequest) {
		resp, err := c.RoundTrip(ctx, listOffsetsRequest(version, chunk))
		if err != nil {
			return err
		}
		recordListOffsets(resp.(*kmsg.ListOffsetsResponse), chunk, got)
	}
	return nil
}

// listOffsetsRequest asks for LATEST of parts as the debugging replica,
// grouped by topic in first-seen order.
func listOffsetsRequest(version int16, parts []Partition) *kmsg.ListOffsetsRequest {
	req := kmsg.NewPtrListOffsetsRequest()
	req.Version = version
	req.ReplicaID = debuggingReplicaID
	index := map[string]int{}
	for _, part := range parts {
		i, ok := index[part.Topic]
		if !ok {
			i = len(req.Topics)
			index[part.Topic] = i
			rt := kmsg.NewListOffsetsRequestTopic()
			rt.Topic = part.Topic
			req.Topics = append(req.Topics, rt)
		}
		rp := kmsg.NewListOffsetsRequestTopicPartition()
		rp.Partition, rp.Timestamp, rp.CurrentLeaderEpoch = part.Index, latestTimestamp, -1
		req.Topics[i].Partitions = append(req.Topics[i].Partitions, rp)
	}
	return req
}

// recordListOffsets stores the answers for asked in got; a partition the
// answer leaves out is UNKNOWN_SERVER_ERROR.
func recordListOffsets(resp *kmsg.ListOffsetsResponse, asked []Partition, got answers) {
	type key struct {
		topic     string
		partition int32
	}
	byKey := map[key]kmsg.ListOffsetsResponseTopicPartition{}
	for _, t := range resp.Topics {
		for _, rp := range t.Partitions {
			byKey[key{t.Topic, rp.Partition}] = rp
		}
	}
	for _, part := range asked {
		rp, ok := byKey[key{part.Topic, part.Index}]
		switch {
		case !ok:
			got[part] = unanswered(part, kerr.UnknownServerError.Code)
		case rp.ErrorCode != 0:
			got[part] = unanswered(part, rp.ErrorCode)
		default:
			// rp.LeaderEpoch is the replica's current leader epoch, not
			// its last record's (see above): unknown.
			got[part] = Info{Partition: part, LogEndOffset: rp.Offset, LastEpoch: -1}
		}
	}
}
