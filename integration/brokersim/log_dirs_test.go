package brokersim

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestLogDirs: the one directory lists the replicas on disk (of the topics
// asked, or all), reports KAFKA_STORAGE_ERROR and nothing while offline;
// AlterReplicaLogDirs accepts a replica on disk into that directory, and
// answers REPLICA_NOT_AVAILABLE for one not on disk and LOG_DIR_NOT_FOUND
// for another directory.
func TestLogDirs(t *testing.T) {
	c := startCluster(t, Options{Brokers: specs(1)})
	b := c.Broker(1)
	cc := dialBroker(t, b)
	wantCodes(t, "LeaderAndIsr", cc.send(lairReq(b.Epoch(), 1, lead1(0, 3), lead1(1, 4))), 0, 0, 0)

	describe := func(topics []kmsg.DescribeLogDirsRequestTopic) *kmsg.DescribeLogDirsResponse {
		t.Helper()
		req := kmsg.NewPtrDescribeLogDirsRequest()
		req.Version, req.Topics = 4, topics
		return cc.send(req).(*kmsg.DescribeLogDirsResponse)
	}
	listed := func(resp *kmsg.DescribeLogDirsResponse) (code int16, parts []int32) {
		if len(resp.Dirs) != 1 || resp.Dirs[0].Dir != LogDir(1) {
			t.Fatalf("directories %+v, want %s alone", resp.Dirs, LogDir(1))
		}
		for _, tp := range resp.Dirs[0].Topics {
			for _, p := range tp.Partitions {
				if tp.Topic != "foo" || p.IsFuture || p.Size != 0 {
					t.Fatalf("replica %s %+v", tp.Topic, p)
				}
				parts = append(parts, p.Partition)
			}
		}
		return resp.Dirs[0].ErrorCode, parts
	}
	if code, parts := listed(describe(nil)); code != 0 || len(parts) != 2 || parts[0] != 0 || parts[1] != 1 {
		t.Fatalf("all: code %d, partitions %v", code, parts)
	}
	one := kmsg.NewDescribeLogDirsRequestTopic()
	one.Topic, one.Partitions = "foo", []int32{1, 5}
	if code, parts := listed(describe([]kmsg.DescribeLogDirsRequestTopic{one})); code != 0 || len(parts) != 1 || parts[0] != 1 {
		t.Fatalf("foo-1 and foo-5: code %d, partitions %v", code, parts)
	}

	alter := func(dir string, partitions ...int32) []int16 {
		t.Helper()
		req := kmsg.NewPtrAlterReplicaLogDirsRequest()
		req.Version = 2
		d := kmsg.NewAlterReplicaLogDirsRequestDir()
		d.Dir = dir
		dt := kmsg.NewAlterReplicaLogDirsRequestDirTopic()
		dt.Topic, dt.Partitions = "foo", partitions
		d.Topics = append(d.Topics, dt)
		req.Dirs = append(req.Dirs, d)
		var codes []int16
		for _, tp := range cc.send(req).(*kmsg.AlterReplicaLogDirsResponse).Topics {
			for _, p := range tp.Partitions {
				codes = append(codes, p.ErrorCode)
			}
		}
		return codes
	}
	if got := alter(LogDir(1), 0, 9); len(got) != 2 || got[0] != 0 || got[1] != kerr.ReplicaNotAvailable.Code {
		t.Fatalf("into the directory: %v", got)
	}
	if got := alter("/elsewhere", 0); len(got) != 1 || got[0] != kerr.LogDirNotFound.Code {
		t.Fatalf("into another directory: %v", got)
	}

	b.SetLogDirOffline(true)
	if code, parts := listed(describe(nil)); code != kerr.KafkaStorageError.Code || len(parts) != 0 {
		t.Fatalf("offline: code %d, partitions %v", code, parts)
	}
	if got := alter(LogDir(1), 0); len(got) != 1 || got[0] != kerr.KafkaStorageError.Code {
		t.Fatalf("offline alter: %v", got)
	}
}
