package zkadmin

import (
	"fmt"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/znodes"
)

// BenchmarkCreateTopicAmong measures one CreateTopic (3 partitions, RF 3,
// limits on) in a cluster that already holds 1000 topics of 3 partitions:
// each create reads every topic znode (pipelined) to count replicas, then
// writes one multi. The read dominates; the figure is a command's latency.
//
//	go test -bench CreateTopicAmong -run '^$' ./zkadmin/
func BenchmarkCreateTopicAmong(b *testing.B) {
	e := &adminEnv{ctx: testCtx(b)}
	e.zk = connect(b, Options{SessionTimeout: 10e9})
	if err := e.zk.EnsureTopLevelPaths(e.ctx); err != nil {
		b.Fatal(err)
	}
	for id := int32(1); id <= 6; id++ {
		data, _ := znodes.NewBrokerRegistration([]znodes.Endpoint{{Listener: "PLAINTEXT", SecurityProtocol: "PLAINTEXT",
			Host: "h", Port: 9092}}, nil, -1, time.Unix(0, 0)).Encode()
		if _, err := e.zk.Create(e.ctx, znodes.BrokerIDPath(id), data, Ephemeral); err != nil {
			b.Fatal(err)
		}
	}
	const existing = 1000
	asg, _ := znodes.TopicAssignment{Partitions: map[int32][]int32{0: {1, 2, 3}, 1: {2, 3, 4}, 2: {3, 4, 5}}}.Encode()
	ops := make([]Op, existing)
	for i := range ops {
		ops[i] = CreateOp(znodes.TopicPath(fmt.Sprintf("existing-%04d", i)), asg, Persistent)
	}
	if _, err := e.zk.MultiBatched(e.ctx, ops, BatchOptions{}); err != nil {
		b.Fatal(err)
	}
	cfg := limitsConfig(100000, 1000000)
	a := NewAdmin(e.zk, AdminOptions{Config: cfg})
	b.ResetTimer()
	for i := range b.N {
		if _, err := a.CreateTopic(e.ctx, CreateTopicRequest{Topic: fmt.Sprintf("new-%d", i), Partitions: 3,
			ReplicationFactor: 3}); err != nil {
			b.Fatal(err)
		}
	}
	reportRate(b, int64(b.N), "topics/s")
}
