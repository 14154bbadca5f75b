package brokersim

// DescribeLogDirs (key 35) and AlterReplicaLogDirs (key 34), so that
// kzadmin log-dirs describe and reassignment plans with log_dirs work in
// dev mode. A simulated broker has one log directory, LogDir(id), which
// holds the replicas on its "disk" (sizes and lags 0); while it is offline
// (SetLogDirOffline) DescribeLogDirs reports it with KAFKA_STORAGE_ERROR
// and no replicas, as a Kafka broker reports an offline directory.
// AlterReplicaLogDirs moves nothing: a replica on disk is already in the
// one directory (NONE), one not on disk is REPLICA_NOT_AVAILABLE (what a
// Kafka broker answers before a reassignment has created the replica), and
// any other directory is LOG_DIR_NOT_FOUND.

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/wire"
)

// LogDir is the one log directory of simulated broker id.
func LogDir(id int32) string { return fmt.Sprintf("/brokersim/broker-%d/kafka-logs", id) }

func (b *Broker) handleDescribeLogDirs(ctx context.Context, req *wire.Request) (kmsg.Response, error) {
	r := req.Body.(*kmsg.DescribeLogDirsRequest)
	resp := r.ResponseKind().(*kmsg.DescribeLogDirsResponse)
	b.mu.Lock()
	defer b.mu.Unlock()
	if ctx.Err() != nil {
		return nil, errStopped
	}
	dir := kmsg.NewDescribeLogDirsResponseDir()
	dir.Dir, dir.TotalBytes, dir.UsableBytes = LogDir(b.id), -1, -1
	if b.logDirOffline {
		dir.ErrorCode = kerr.KafkaStorageError.Code
		resp.Dirs = append(resp.Dirs, dir)
		return resp, nil
	}
	// A null topic list asks for every replica on disk.
	var wanted map[TopicPartition]bool
	if r.Topics != nil {
		wanted = map[TopicPartition]bool{}
		for _, t := range r.Topics {
			for _, p := range t.Partitions {
				wanted[TopicPartition{t.Topic, p}] = true
			}
		}
	}
	byTopic := map[string][]int32{}
	for tp := range b.logs.all() {
		if wanted == nil || wanted[tp] {
			byTopic[tp.Topic] = append(byTopic[tp.Topic], tp.Partition)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(byTopic)) {
		t := kmsg.NewDescribeLogDirsResponseDirTopic()
		t.Topic = name
		slices.Sort(byTopic[name])
		for _, p := range byTopic[name] {
			rp := kmsg.NewDescribeLogDirsResponseDirTopicPartition()
			rp.Partition = p
			t.Partitions = append(t.Partitions, rp)
		}
		dir.Topics = append(dir.Topics, t)
	}
	resp.Dirs = append(resp.Dirs, dir)
	return resp, nil
}

func (b *Broker) handleAlterReplicaLogDirs(ctx context.Context, req *wire.Request) (kmsg.Response, error) {
	r := req.Body.(*kmsg.AlterReplicaLogDirsRequest)
	resp := r.ResponseKind().(*kmsg.AlterReplicaLogDirsResponse)
	b.mu.Lock()
	defer b.mu.Unlock()
	if ctx.Err() != nil {
		return nil, errStopped
	}
	for _, d := range r.Dirs {
		for _, t := range d.Topics {
			rt := kmsg.NewAlterReplicaLogDirsResponseTopic()
			rt.Topic = t.Topic
			for _, p := range t.Partitions {
				rp := kmsg.NewAlterReplicaLogDirsResponseTopicPartition()
				rp.Partition = p
				_, onDisk := b.logs.get(TopicPartition{t.Topic, p})
				switch {
				case d.Dir != LogDir(b.id):
					rp.ErrorCode = kerr.LogDirNotFound.Code
				case b.logDirOffline:
					rp.ErrorCode = kerr.KafkaStorageError.Code
				case !onDisk:
					rp.ErrorCode = kerr.ReplicaNotAvailable.Code
				}
				rt.Partitions = append(rt.Partitions, rp)
			}
			resp.Topics = append(resp.Topics, rt)
		}
	}
	return resp, nil
}
