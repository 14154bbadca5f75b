package zkadmin

import (
	"context"
	"math"

	"github.com/kzadmin/kzadmin/znodes"
)

// CreateCommitter commits the multis of CreateTopics for the Admin. The
// active controller is one: it appends each new topic's partition and
// state znodes, behind its epoch fence, to the multi that creates the
// topic, so that a topic is created, and its partitions brought online,
// in one round trip instead of the Admin's multi, a watch firing, the
// controller's reads and a second multi (kzadmind is both the admin and
// the controller; Kafka's ZK-mode brokers were not).
//
// CommitCreates must apply ops exactly as Client.Multi would, or ops with
// more after them, in one multi, and return Multi's results and error for
// ops (an error about an op of its own must not look like a lost race on
// ops: an implementation retries without its own ops instead). topics are
// the topics whose config and assignment znodes ops create, in order.
type CreateCommitter interface {
	CommitCreates(ctx context.Context, ops []Op, topics []PlannedTopic) ([]OpResult, error)
}

// PlannedTopic is a topic a create multi writes: its name, id and replica
// assignment by partition.
type PlannedTopic struct {
	Name       string
	ID         znodes.UUID
	Assignment [][]int32
}

// commitCreateMulti applies one multi of CreateTopics, through the
// Committer when there is one.
func (a *Admin) commitCreateMulti(ctx context.Context, ops []Op, chunk []*pendingTopic) ([]OpResult, error) {
	if a.opts.Committer == nil {
		return a.zk.Multi(ctx, ops...)
	}
	topics := make([]PlannedTopic, len(chunk))
	for i, p := range chunk {
		topics[i] = PlannedTopic{Name: p.req.Topic, ID: p.id, Assignment: p.asg}
	}
	return a.opts.Committer.CommitCreates(ctx, ops, topics)
}

// MultiSize estimates the request size of one multi of ops on this client,
// against MaxMultiBytes.
func (c *Client) MultiSize(ops []Op) int {
	n := multiOverhead
	for _, o := range ops {
		n += c.opSize(o)
	}
	return n
}

// committerSize estimates the bytes the Committer appends to a multi for
// p: the partitions znode, and a partition znode and a state znode per
// partition (the active controller's, see CreateCommitter). Chunks are cut
// with it so that the controller's multi stays within DefaultBatchBytes;
// a multi it finds too large takes the slower ordinary path. Zero without
// a Committer.
func (a *Admin) committerSize(p *pendingTopic) int {
	if a.opts.Committer == nil || len(p.asg) == 0 || len(p.asg[0]) == 0 {
		return 0
	}
	name := p.req.Topic
	// Every state of the topic encodes to about the first one's size.
	st, err := znodes.PartitionState{Leader: p.asg[0][0], ISR: p.asg[0], ControllerEpoch: math.MaxInt32}.Encode()
	if err != nil {
		st = make([]byte, 128)
	}
	last := int32(len(p.asg) - 1)
	per := a.zk.opSize(CreateOp(znodes.PartitionPath(name, last), nil, Persistent)) +
		a.zk.opSize(CreateOp(znodes.PartitionStatePath(name, last), st, Persistent))
	return a.zk.opSize(CreateOp(znodes.PartitionsPath(name), nil, Persistent)) + len(p.asg)*per
}
