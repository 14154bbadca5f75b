package zkadmin

import (
	"context"

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
func (a *Admin) commitCreateMulti(ctx context.Context, ops []Op, chunk []*pendingTopic) error {
	if a.opts.Committer == nil {
		_, err := a.zk.Multi(ctx, ops...)
		return err
	}
	topics := make([]PlannedTopic, len(chunk))
	for i, p := range chunk {
		topics[i] = PlannedTopic{Name: p.req.Topic, ID: p.id, Assignment: p.asg}
	}
	_, err := a.opts.Committer.CommitCreates(ctx, ops, topics)
	return err
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
