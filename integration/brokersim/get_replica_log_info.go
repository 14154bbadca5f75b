package brokersim

// GetReplicaLogInfo (kzadmin's key replicalog.GetReplicaLogInfoKey, v0):
// seed 003's API, which the unclean recovery manager asks each replica
// with. Stock Kafka has no such API; a simulated broker serves it and
// advertises it in ApiVersions, with the log positions a test scripts
// with SetLogEnd (the simulator has no real log).
//
// Behaviour (the codec and its response are replicalog's):
//   - BrokerId other than this broker's (or -1): INVALID_REQUEST for the
//     whole request, no partitions.
//   - A null topic list asks for every partition on "disk".
//   - At most replicalog.MaxPartitionsPerRequest partitions are served, in
//     request order; the rest are answered
//     replicalog.RequestLimitReachedCode (the seed's REQUEST_LIMIT_REACHED).
//   - A topic id no log has: UNKNOWN_TOPIC_ID. A known topic whose
//     partition is not on disk: UNKNOWN_TOPIC_OR_PARTITION. An offline log
//     directory: KAFKA_STORAGE_ERROR.
//   - Otherwise the scripted log end offset and last epoch; unscripted
//     partitions answer log end offset 0 and the leader epoch of the
//     replica's last accepted LeaderAndIsr, -1 when this run of the broker
//     has had none (as a real broker that restarts into a leaderless
//     partition answers ListOffsets; integration/replicalogreal).
//   - BrokerEpoch is the broker's epoch.

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/replicalog"
	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/znodes"
)

// logEnd is a scripted log position.
type logEnd struct {
	offset int64
	epoch  int32
}

// SetLogEnd scripts what the broker answers GetReplicaLogInfo for one
// partition: its log end offset and the epoch of its last record. The
// script survives restarts, as a log does, and is dropped when StopReplica
// deletes the partition.
func (b *Broker) SetLogEnd(topic string, partition int32, logEndOffset int64, lastEpoch int32) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.logEnds[TopicPartition{topic, partition}] = logEnd{offset: logEndOffset, epoch: lastEpoch}
}

func (b *Broker) getReplicaLogInfoRoute() wire.Route {
	return wire.Route{
		VersionRange: wire.VersionRange{Key: replicalog.GetReplicaLogInfoKey},
		Handler:      b.gate(b.handleGetReplicaLogInfo),
		Decoders:     map[int16]wire.Decoder{0: {Flexible: true, Decode: replicalog.DecodeRequest}},
	}
}

func (b *Broker) handleGetReplicaLogInfo(ctx context.Context, req *wire.Request) (kmsg.Response, error) {
	r, ok := req.Body.(*replicalog.GetReplicaLogInfoRequest)
	if !ok {
		return nil, fmt.Errorf("GetReplicaLogInfo: unexpected body %T", req.Body)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if ctx.Err() != nil {
		return nil, errStopped
	}
	b.received[replicalog.GetReplicaLogInfoKey]++
	resp := r.ResponseKind().(*replicalog.GetReplicaLogInfoResponse)
	resp.BrokerEpoch = b.epoch
	if r.BrokerID != b.id && r.BrokerID != -1 {
		resp.ErrorCode = kerr.InvalidRequest.Code
		return resp, nil
	}
	hosted := b.hostedByIDLocked()
	topics := r.Topics
	if topics == nil {
		topics = allHosted(hosted)
	}
	served := 0
	for _, t := range topics {
		rt := replicalog.GetReplicaLogInfoResponseTopic{TopicID: t.TopicID}
		for _, p := range t.Partitions {
			rp := replicalog.GetReplicaLogInfoResponsePartition{Partition: p, LastWrittenLeaderEpoch: -1, LogEndOffset: -1}
			if served >= replicalog.MaxPartitionsPerRequest {
				rp.ErrorCode = replicalog.RequestLimitReachedCode
			} else {
				b.answerLogInfoLocked(&rp, hosted, t.TopicID)
			}
			served++
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp, nil
}

// hostedByIDLocked maps each topic id on disk to its partitions by index.
func (b *Broker) hostedByIDLocked() map[znodes.UUID]map[int32]TopicPartition {
	out := map[znodes.UUID]map[int32]TopicPartition{}
	for tp, id := range b.logs.all() {
		if id.IsZero() {
			continue
		}
		if out[id] == nil {
			out[id] = map[int32]TopicPartition{}
		}
		out[id][tp.Partition] = tp
	}
	return out
}

// allHosted is the request a null topic list stands for.
func allHosted(hosted map[znodes.UUID]map[int32]TopicPartition) []replicalog.GetReplicaLogInfoRequestTopic {
	var out []replicalog.GetReplicaLogInfoRequestTopic
	for id, parts := range hosted {
		t := replicalog.GetReplicaLogInfoRequestTopic{TopicID: id}
		for p := range parts {
			t.Partitions = append(t.Partitions, p)
		}
		out = append(out, t)
	}
	return out
}

// answerLogInfoLocked fills one partition's answer.
func (b *Broker) answerLogInfoLocked(rp *replicalog.GetReplicaLogInfoResponsePartition,
	hosted map[znodes.UUID]map[int32]TopicPartition, id [16]byte) {
	parts, known := hosted[id]
	tp, onDisk := parts[rp.Partition]
	switch {
	case !known:
		rp.ErrorCode = kerr.UnknownTopicID.Code
	case !onDisk:
		rp.ErrorCode = kerr.UnknownTopicOrPartition.Code
	case b.logDirOffline:
		rp.ErrorCode = kerr.KafkaStorageError.Code
	default:
		end, scripted := b.logEnds[tp]
		if !scripted {
			end = logEnd{offset: 0, epoch: -1}
			if rep := b.replicas.at(tp); rep != nil {
				end.epoch = rep.LeaderEpoch
			}
		}
		rp.LogEndOffset, rp.LastWrittenLeaderEpoch = end.offset, end.epoch
	}
}
