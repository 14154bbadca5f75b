package brokerchan

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/election"
)

// stopReplicaRequests builds the StopReplica requests, ascending by broker
// id. From v3 a broker gets one request whose partitions carry their own
// leader epoch and delete flag. Before v3 the delete flag is per request,
// so a broker gets up to two: the delete=true partitions first, then the
// delete=false ones, and no leader epochs (reference §5.4).
func (b *Batch) stopReplicaRequests(controllerEpoch int32) []Request {
	version := b.requestVersion.StopReplica
	var out []Request
	for _, br := range sortedBrokers(b.view, b.stopReplica) {
		entries := b.stopReplica[br.ID].sorted().flatten()
		if version >= 3 {
			req := b.stopReplicaHeader(br, controllerEpoch, version)
			req.Topics = stopTopicsWithStates(entries)
			out = append(out, Request{Broker: br.ID, Msg: req})
			continue
		}
		var deleting, keeping []election.TopicPartition
		for _, e := range entries {
			if e.delete {
				deleting = append(deleting, e.tp)
			} else {
				keeping = append(keeping, e.tp)
			}
		}
		for _, group := range []struct {
			delete bool
			tps    []election.TopicPartition
		}{{true, deleting}, {false, keeping}} {
			if len(group.tps) == 0 {
				continue
			}
			req := b.stopReplicaHeader(br, controllerEpoch, version)
			req.DeletePartitions = group.delete
			req.Topics = stopTopicsOld(group.tps, version)
			out = append(out, Request{Broker: br.ID, Msg: req})
		}
	}
	return out
}

// stopReplicaHeader fills the request-level fields. IsKRaftController (v4)
// stays false.
func (b *Batch) stopReplicaHeader(target Broker, controllerEpoch int32, version int16) *kmsg.StopReplicaRequest {
	req := kmsg.NewPtrStopReplicaRequest()
	req.Version = version
	req.ControllerID = b.cfg.ControllerID
	req.ControllerEpoch = controllerEpoch
	if version >= 1 {
		req.BrokerEpoch = target.Epoch
	}
	return req
}

// stopTopicsWithStates is the v3+ layout: per topic, per partition the
// leader epoch and delete flag.
func stopTopicsWithStates(entries []stopReplicaEntry) []kmsg.StopReplicaRequestTopic {
	var out []kmsg.StopReplicaRequestTopic
	for _, e := range entries {
		n := len(out)
		if n == 0 || out[n-1].Topic != e.tp.Topic {
			t := kmsg.NewStopReplicaRequestTopic()
			t.Topic = e.tp.Topic
			out = append(out, t)
			n++
		}
		ps := kmsg.NewStopReplicaRequestTopicPartitionState()
		ps.Partition = e.tp.Partition
		ps.LeaderEpoch = e.leaderEpoch
		ps.Delete = e.delete
		out[n-1].PartitionStates = append(out[n-1].PartitionStates, ps)
	}
	return out
}

// stopTopicsOld is the v0 layout (one entry per partition, naming its
// topic) or the v1–v2 layout (partition indexes grouped by topic).
func stopTopicsOld(tps []election.TopicPartition, version int16) []kmsg.StopReplicaRequestTopic {
	var out []kmsg.StopReplicaRequestTopic
	for _, tp := range tps {
		n := len(out)
		if version == 0 || n == 0 || out[n-1].Topic != tp.Topic {
			t := kmsg.NewStopReplicaRequestTopic()
			t.Topic = tp.Topic
			if version == 0 {
				t.Partition = tp.Partition
			}
			out = append(out, t)
			n++
		}
		if version >= 1 {
			out[n-1].Partitions = append(out[n-1].Partitions, tp.Partition)
		}
	}
	return out
}
