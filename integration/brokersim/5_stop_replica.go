package brokersim

// StopReplica (key 5), v0-4 as a Kafka 3.9 ZK broker serves it
// (ReplicaManager.stopReplicas; controller reference §6.1, §6.4).
//
// After the broker-epoch and controller-epoch checks (either one is the
// top-level error, also given to every partition), the controller epoch is
// stored and each partition is judged: a hosted partition on an offline
// log dir gets KAFKA_STORAGE_ERROR; a hosted partition is stopped when the
// request's leader epoch is -2 (EPOCH_DURING_DELETE), -1 (NO_EPOCH, what
// versions before v3 imply) or at least the current one, else
// FENCED_LEADER_EPOCH; a partition not hosted is NONE. A stopped partition
// leaves the replica state; with delete it also leaves the log (a partition
// not hosted still has its leftover log deleted).
//
// Versions: v0 lists (topic, partition) pairs, v1-2 group partitions by
// topic, both with one request-wide delete flag; v3+ carry a leader epoch
// and a delete flag per partition.

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/wire"
)

// Leader epochs StopReplica accepts whatever the current epoch is.
const (
	epochDuringDelete = -2
	noEpoch           = -1
)

type stopPartition struct {
	tp          TopicPartition
	leaderEpoch int32
	delete      bool
}

func stopPartitions(r *kmsg.StopReplicaRequest) []stopPartition {
	var out []stopPartition
	for _, t := range r.Topics {
		switch {
		case r.Version == 0:
			out = append(out, stopPartition{TopicPartition{t.Topic, t.Partition}, noEpoch, r.DeletePartitions})
		case r.Version <= 2:
			for _, p := range t.Partitions {
				out = append(out, stopPartition{TopicPartition{t.Topic, p}, noEpoch, r.DeletePartitions})
			}
		default:
			for _, p := range t.PartitionStates {
				out = append(out, stopPartition{TopicPartition{t.Topic, p.Partition}, p.LeaderEpoch, p.Delete})
			}
		}
	}
	return out
}

func (b *Broker) handleStopReplica(ctx context.Context, req *wire.Request) (kmsg.Response, error) {
	r := req.Body.(*kmsg.StopReplicaRequest)
	parts := stopPartitions(r)
	resp := r.ResponseKind().(*kmsg.StopReplicaResponse)
	resp.Partitions = make([]kmsg.StopReplicaResponsePartition, len(parts))
	b.mu.Lock()
	if ctx.Err() != nil {
		b.mu.Unlock()
		return nil, errStopped
	}
	resp.ErrorCode = b.checkControlLocked(r.BrokerEpoch, r.ControllerEpoch)
	if resp.ErrorCode == 0 {
		b.controllerEpoch = r.ControllerEpoch
	}
	for i, p := range parts {
		rp := &resp.Partitions[i]
		rp.Default()
		rp.Topic, rp.Partition = p.tp.Topic, p.tp.Partition
		rp.ErrorCode = resp.ErrorCode
		if resp.ErrorCode == 0 {
			rp.ErrorCode = b.stopReplicaLocked(p)
		}
	}
	b.received[kmsg.StopReplica.Int16()]++
	b.bumpLocked()
	b.mu.Unlock()
	return resp, nil
}

func (b *Broker) stopReplicaLocked(p stopPartition) int16 {
	cur := b.replicas.at(p.tp)
	if cur == nil {
		if p.delete {
			b.logs.remove(p.tp)
			delete(b.logEnds, p.tp)
		}
		return 0
	}
	if b.logDirOffline {
		return kerr.KafkaStorageError.Code
	}
	if p.leaderEpoch != epochDuringDelete && p.leaderEpoch != noEpoch && p.leaderEpoch < cur.LeaderEpoch {
		return kerr.FencedLeaderEpoch.Code
	}
	b.replicas.remove(p.tp)
	if p.delete {
		b.logs.remove(p.tp)
		delete(b.logEnds, p.tp)
	}
	return 0
}
