package zkadmin

import (
	"context"

	"github.com/kzadmin/kzadmin/znodes"
)

// DeleteTopicResult says what MarkTopicForDeletion did.
type DeleteTopicResult struct {
	// AlreadyMarked: the topic was already queued for deletion, so nothing
	// was written (Kafka's DeleteTopics answers success then too).
	AlreadyMarked bool
	Ops           []Op
	Attempts      int
}

// MarkTopicForDeletion queues a topic for deletion, as AdminZkClient.
// deleteTopic does: it creates /admin/delete_topics/<topic> with null data,
// and the controller does the rest. The marker is created in one multi with
// a check that the topic znode exists, so a marker is never left for a
// topic that vanished in between. Whether the cluster deletes topics at all
// (delete.topic.enable) is the controller's decision: with it off, Kafka's
// controller removes the marker and keeps the topic.
func (a *Admin) MarkTopicForDeletion(ctx context.Context, topic string, dryRun bool) (*DeleteTopicResult, error) {
	out := &DeleteTopicResult{}
	plan := func(ctx context.Context, c *Cluster) ([]Op, error) {
		out.AlreadyMarked = false
		if !c.HasTopic(topic) {
			return nil, adminErr(KindUnknownTopic, topic, "Topic `%s` to delete does not exist", topic)
		}
		if c.MarkedForDeletion[topic] {
			out.AlreadyMarked = true
			return nil, nil
		}
		marker := znodes.DeleteTopicPath(topic)
		ops, err := a.parentOps(ctx, marker)
		if err != nil {
			return nil, err
		}
		ops = append(ops, CheckOp(znodes.TopicPath(topic), AnyVersion))
		return append(ops, CreateOp(marker, znodes.DeleteTopicMarkerData(), Persistent)), nil
	}
	res, err := a.writeLoop(ctx, "delete topic "+topic, ReadOptions{}, dryRun, plan)
	if err != nil {
		return nil, err
	}
	out.Ops, out.Attempts = res.ops, res.attempts
	return out, nil
}
