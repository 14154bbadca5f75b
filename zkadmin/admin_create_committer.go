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
// CommitCreates must apply each multi's Ops exactly as Client.Multi would,
// or Ops with more after them, in one multi, in order, and return each
// one's results and error for Ops (an error about an op of its own must
// not look like a lost race on Ops: an implementation retries without its
// own ops instead). Each multi of a round depends on the ones before it
// (createChain), so they may be pipelined (Pipeline); once one fails, the
// rest may be left unsent (ErrNotAttempted). Topics are the topics whose
// config and assignment znodes a multi creates, in order.
type CreateCommitter interface {
	CommitCreates(ctx context.Context, multis []CreateMulti) []MultiOutcome
}

// CreateMulti is one multi of a create round: the Admin's ops and the
// topics they create.
type CreateMulti struct {
	Ops    []Op
	Topics []PlannedTopic
}

// PlannedTopic is a topic a create multi writes: its name, id and replica
// assignment by partition.
type PlannedTopic struct {
	Name       string
	ID         znodes.UUID
	Assignment [][]int32
}

// sendCreateMultis applies a round's multis, in order and pipelined,
// through the Committer when there is one.
func (a *Admin) sendCreateMultis(ctx context.Context, ops [][]Op, chunks [][]*pendingTopic) []MultiOutcome {
	if a.opts.Committer == nil {
		return Pipeline(len(ops), DefaultBatchInFlight, func(i int) *PendingMulti {
			return a.zk.MultiAsync(ctx, ops[i]...)
		})
	}
	multis := make([]CreateMulti, len(ops))
	for i, chunk := range chunks {
		topics := make([]PlannedTopic, len(chunk))
		for j, p := range chunk {
			topics[j] = PlannedTopic{Name: p.req.Topic, ID: p.id, Assignment: p.asg}
		}
		multis[i] = CreateMulti{Ops: ops[i], Topics: topics}
	}
	return a.opts.Committer.CommitCreates(ctx, multis)
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

// committerOps is the number of ops the Committer appends to a multi for
// p (see committerSize). Zero without a Committer.
func (a *Admin) committerOps(p *pendingTopic) int {
	if a.opts.Committer == nil || len(p.asg) == 0 {
		return 0
	}
	return 1 + 2*len(p.asg)
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
