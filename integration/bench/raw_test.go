package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// rawTopics describes topics to write straight to ZooKeeper.
type rawTopics struct {
	prefix     string
	topics     int
	partitions int
	rf         int
	brokers    []int32
	config     map[string]string
	// controllerEpoch is written into the partition states.
	controllerEpoch int32
}

func (r rawTopics) name(i int) string { return fmt.Sprintf("%s-%05d", r.prefix, i) }

// replicas places partition p of topic i round-robin over the brokers.
func (r rawTopics) replicas(i, p int) []int32 {
	out := make([]int32, r.rf)
	for k := range out {
		out[k] = r.brokers[(i+p+k)%len(r.brokers)]
	}
	return out
}

// ops returns the znodes a created topic has, one slice per depth, parents
// first: the config and topic znodes, the partitions directories, one
// znode per partition, and the partition states (leader the first replica,
// ISR all replicas).
func (r rawTopics) ops() ([4][]zkadmin.Op, error) {
	var depth [4][]zkadmin.Op
	cfg, err := znodes.EntityConfig{Config: r.config}.Encode()
	if err != nil {
		return depth, err
	}
	for i := range r.topics {
		name := r.name(i)
		asg := znodes.TopicAssignment{Partitions: map[int32][]int32{}, TopicID: topicID(r.prefix, i)}
		for p := range r.partitions {
			asg.Partitions[int32(p)] = r.replicas(i, p)
		}
		data, err := asg.Encode()
		if err != nil {
			return depth, err
		}
		depth[0] = append(depth[0],
			zkadmin.CreateOp(znodes.ConfigEntityPath(znodes.EntityTopics, name), cfg, zkadmin.Persistent),
			zkadmin.CreateOp(znodes.TopicPath(name), data, zkadmin.Persistent))
		depth[1] = append(depth[1], zkadmin.CreateOp(znodes.PartitionsPath(name), nil, zkadmin.Persistent))
		for p := range int32(r.partitions) {
			depth[2] = append(depth[2], zkadmin.CreateOp(znodes.PartitionPath(name, p), nil, zkadmin.Persistent))
			reps := r.replicas(i, int(p))
			st, err := znodes.PartitionState{Leader: reps[0], ISR: reps, ControllerEpoch: r.controllerEpoch}.Encode()
			if err != nil {
				return depth, err
			}
			depth[3] = append(depth[3], zkadmin.CreateOp(znodes.PartitionStatePath(name, p), st, zkadmin.Persistent))
		}
	}
	return depth, nil
}

// topicID derives a stable, non-zero id from the topic's prefix and index.
func topicID(prefix string, i int) znodes.UUID {
	var id znodes.UUID
	copy(id[:], fmt.Sprintf("%-8.8s%08x", prefix, i))
	return id
}

// write applies the ops depth by depth, each depth with
// zkadmin.MultiBatched's defaults, and returns how long the writes took
// and how many znodes they created.
func (r rawTopics) write(ctx context.Context, zkc *zkadmin.Client) (time.Duration, int, error) {
	depth, err := r.ops()
	if err != nil {
		return 0, 0, err
	}
	n := 0
	began := time.Now()
	for d, ops := range depth {
		if _, err := zkc.MultiBatched(ctx, ops, zkadmin.BatchOptions{}); err != nil {
			return 0, 0, fmt.Errorf("raw write, depth %d: %w", d, err)
		}
		n += len(ops)
	}
	return time.Since(began), n, nil
}
