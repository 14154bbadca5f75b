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
		ops, err := r.topicOps(i, cfg)
		if err != nil {
			return depth, err
		}
		// topicOps' order: config, topic, partitions directory, then each
		// partition followed by its state.
		depth[0] = append(depth[0], ops[0], ops[1])
		depth[1] = append(depth[1], ops[2])
		for k := 3; k < len(ops); k += 2 {
			depth[2] = append(depth[2], ops[k])
			depth[3] = append(depth[3], ops[k+1])
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

// topicOps returns the znodes of topic i, parents first: the config and
// topic znodes, the partitions directory, and each partition with its
// state.
func (r rawTopics) topicOps(i int, cfg []byte) ([]zkadmin.Op, error) {
	name := r.name(i)
	asg := znodes.TopicAssignment{Partitions: map[int32][]int32{}, TopicID: topicID(r.prefix, i)}
	for p := range r.partitions {
		asg.Partitions[int32(p)] = r.replicas(i, p)
	}
	data, err := asg.Encode()
	if err != nil {
		return nil, err
	}
	ops := []zkadmin.Op{
		zkadmin.CreateOp(znodes.ConfigEntityPath(znodes.EntityTopics, name), cfg, zkadmin.Persistent),
		zkadmin.CreateOp(znodes.TopicPath(name), data, zkadmin.Persistent),
		zkadmin.CreateOp(znodes.PartitionsPath(name), nil, zkadmin.Persistent),
	}
	for p := range int32(r.partitions) {
		reps := r.replicas(i, int(p))
		st, err := znodes.PartitionState{Leader: reps[0], ISR: reps, ControllerEpoch: r.controllerEpoch}.Encode()
		if err != nil {
			return nil, err
		}
		ops = append(ops, zkadmin.CreateOp(znodes.PartitionPath(name, p), nil, zkadmin.Persistent),
			zkadmin.CreateOp(znodes.PartitionStatePath(name, p), st, zkadmin.Persistent))
	}
	return ops, nil
}

// writeShaped writes the same znodes shaped like the API's requests: one
// multi per request of perRequest topics (cut at zkadmin's batch limits
// when a request is too large), each connection sending its requests one
// after another, conns at once. It is not the target's baseline, which
// batches as a well-written bulk writer would; it shows what a client
// bound to the same request pattern gets from ZooKeeper itself.
func (r rawTopics) writeShaped(ctx context.Context, zkc *zkadmin.Client, perRequest, conns int) (time.Duration, int, error) {
	cfg, err := znodes.EntityConfig{Config: r.config}.Encode()
	if err != nil {
		return 0, 0, err
	}
	var requests [][]zkadmin.Op
	n := 0
	for i := 0; i < r.topics; i += perRequest {
		var ops []zkadmin.Op
		for j := i; j < min(i+perRequest, r.topics); j++ {
			t, err := r.topicOps(j, cfg)
			if err != nil {
				return 0, 0, err
			}
			ops = append(ops, t...)
		}
		n += len(ops)
		requests = append(requests, ops)
	}
	began := time.Now()
	errs := make(chan error, conns)
	for c := range conns {
		go func() {
			for k := c; k < len(requests); k += conns {
				// Serial within a request too: a topic's znodes must follow
				// their parents, which an earlier chunk may hold.
				_, err := zkc.MultiBatched(ctx, requests[k], zkadmin.BatchOptions{MaxInFlight: 1, StopOnError: true})
				if err != nil {
					errs <- fmt.Errorf("shaped raw write, request %d: %w", k, err)
					return
				}
			}
			errs <- nil
		}()
	}
	for range conns {
		if e := <-errs; e != nil && err == nil {
			err = e
		}
	}
	return time.Since(began), n, err
}
