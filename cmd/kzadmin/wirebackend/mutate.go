package wirebackend

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
	"github.com/kzadmin/kzadmin/znodes"
)

// noRackSwitch refuses --disable-rack-aware: the APIs place replicas as
// the controller decides (rack-aware when every broker has a rack).
func noRackSwitch(command string) error {
	return &UsageError{Msg: fmt.Sprintf("--disable-rack-aware is not available for %s with --bootstrap-server: the "+
		"controller places the replicas (rack-aware when the brokers have racks); give --replica-assignment to "+
		"choose them", command)}
}

// CreateTopic sends CreateTopics (validateOnly for a dry run). The
// controller answers once every partition has a leader, or says it ran
// out of time, which is reported as a failure naming what exists.
func (b *Backend) CreateTopic(ctx context.Context, req backend.CreateTopicRequest) (*backend.CreateTopicResult, error) {
	if req.DisableRackAware {
		return nil, noRackSwitch("topics create")
	}
	kreq := kmsg.NewPtrCreateTopicsRequest()
	t := kmsg.NewCreateTopicsRequestTopic()
	t.Topic, t.NumPartitions, t.ReplicationFactor = req.Topic, req.Partitions, req.ReplicationFactor
	if req.Assignment != nil {
		t.NumPartitions, t.ReplicationFactor = -1, -1
		for i, replicas := range req.Assignment {
			a := kmsg.NewCreateTopicsRequestTopicReplicaAssignment()
			a.Partition, a.Replicas = int32(i), replicas
			t.ReplicaAssignment = append(t.ReplicaAssignment, a)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(req.Configs)) {
		c := kmsg.NewCreateTopicsRequestTopicConfig()
		c.Name, c.Value = k, strPtr(req.Configs[k])
		t.Configs = append(t.Configs, c)
	}
	kreq.Topics, kreq.ValidateOnly = []kmsg.CreateTopicsRequestTopic{t}, req.DryRun
	out := &backend.CreateTopicResult{Writes: backend.Writes{DryRun: req.DryRun}, Assignment: req.Assignment}
	err := b.retry(ctx, func(ctx context.Context) error {
		kreq.TimeoutMillis = timeoutMillis(ctx, 30*time.Second)
		resp, err := responseAs[*kmsg.CreateTopicsResponse](b.request(ctx, kreq))
		if err != nil {
			return err
		}
		if len(resp.Topics) != 1 {
			return fmt.Errorf("CreateTopics: %d topics in the answer to 1", len(resp.Topics))
		}
		rt := resp.Topics[0]
		if rt.ErrorCode == kerr.RequestTimedOut.Code {
			return timedOut(req.Topic, "was created, but not all its partitions had a leader")
		}
		if id := znodes.UUID(rt.TopicID); !id.IsZero() {
			out.TopicID = id.String()
		}
		return topicError(req.Topic, rt.ErrorCode, rt.ErrorMessage)
	})
	if err != nil {
		return nil, err
	}
	if !req.DryRun {
		// The answer has no assignment; read what the controller chose.
		if asg, err := b.assignment(ctx, req.Topic, 0); err == nil {
			out.Assignment = asg
		}
	}
	return out, nil
}

// timedOut is REQUEST_TIMED_OUT from a mutating API: the change was made,
// the controller had not finished it when the time ran out.
func timedOut(topic, what string) error {
	return &backend.Error{Resource: topic, Code: kerr.RequestTimedOut.Code, Name: kerr.RequestTimedOut.Message,
		Message: fmt.Sprintf("Topic '%s' %s within the time limit (REQUEST_TIMED_OUT); the controller "+
			"carries on, so check again with topics describe", topic, what)}
}

// assignment reads the replicas of a topic's partitions from the first
// on, retrying.
func (b *Backend) assignment(ctx context.Context, topic string, first int32) ([][]int32, error) {
	var out [][]int32
	err := b.retry(ctx, func(ctx context.Context) error {
		var err error
		out, err = b.readAssignment(ctx, topic, first)
		return err
	})
	return out, err
}

// readAssignment is one try of assignment.
func (b *Backend) readAssignment(ctx context.Context, topic string, first int32) ([][]int32, error) {
	d, err := b.describeTopics(ctx, []string{topic}, false)
	if err != nil {
		return nil, err
	}
	t, ok := d.topics[topic]
	if !ok {
		return nil, topicError(topic, kerr.UnknownTopicOrPartition.Code, nil)
	}
	if t.Err != nil {
		return nil, t.Err
	}
	var out [][]int32
	for _, p := range t.Partitions {
		if p.ID >= first {
			out = append(out, p.Replicas)
		}
	}
	return out, nil
}

// CreatePartitions raises a topic's partition count with CreatePartitions
// (validateOnly for a dry run), after reading the current count.
func (b *Backend) CreatePartitions(ctx context.Context, req backend.CreatePartitionsRequest) (*backend.CreatePartitionsResult, error) {
	if req.DisableRackAware {
		return nil, noRackSwitch("topics alter")
	}
	out := &backend.CreatePartitionsResult{Writes: backend.Writes{DryRun: req.DryRun}, Added: req.Assignment}
	err := b.retry(ctx, func(ctx context.Context) error {
		current, err := b.readAssignment(ctx, req.Topic, 0)
		var be *backend.Error
		if errors.As(err, &be) && be.Code == kerr.UnknownTopicOrPartition.Code {
			msg := fmt.Sprintf("The topic '%s' does not exist.", req.Topic)
			return codeError(req.Topic, be.Code, &msg)
		}
		if err != nil {
			return err
		}
		out.Previous = int32(len(current))
		return b.createPartitions(ctx, req)
	})
	if err != nil {
		return nil, err
	}
	if !req.DryRun {
		if added, err := b.assignment(ctx, req.Topic, out.Previous); err == nil {
			out.Added = added
		}
	}
	return out, nil
}

func (b *Backend) createPartitions(ctx context.Context, req backend.CreatePartitionsRequest) error {
	kreq := kmsg.NewPtrCreatePartitionsRequest()
	t := kmsg.NewCreatePartitionsRequestTopic()
	t.Topic, t.Count = req.Topic, req.Total
	for _, replicas := range req.Assignment {
		a := kmsg.NewCreatePartitionsRequestTopicAssignment()
		a.Replicas = replicas
		t.Assignment = append(t.Assignment, a)
	}
	kreq.Topics, kreq.ValidateOnly = []kmsg.CreatePartitionsRequestTopic{t}, req.DryRun
	kreq.TimeoutMillis = timeoutMillis(ctx, 30*time.Second)
	resp, err := responseAs[*kmsg.CreatePartitionsResponse](b.request(ctx, kreq))
	if err != nil {
		return err
	}
	if len(resp.Topics) != 1 {
		return fmt.Errorf("CreatePartitions: %d topics in the answer to 1", len(resp.Topics))
	}
	rt := resp.Topics[0]
	if rt.ErrorCode == kerr.RequestTimedOut.Code {
		return timedOut(req.Topic, "got its new partitions, but not all of them had a leader")
	}
	return topicError(req.Topic, rt.ErrorCode, rt.ErrorMessage)
}

// DeleteTopic sends DeleteTopics. REQUEST_TIMED_OUT means the deletion is
// queued but had not started in time: the topic is marked, as the
// ZooKeeper backend leaves it, so that is a success.
func (b *Backend) DeleteTopic(ctx context.Context, topic string, dryRun bool) (*backend.DeleteTopicResult, error) {
	if dryRun {
		return nil, noDryRun("topics delete", "DeleteTopics")
	}
	err := b.retry(ctx, func(ctx context.Context) error {
		res, err := b.kadmFor(ctx).DeleteTopics(ctx, topic)
		if err != nil {
			return b.note(kadmError(topic, err))
		}
		b.note(nil)
		r, ok := res[topic]
		if !ok {
			return fmt.Errorf("DeleteTopics: no answer for topic %s", topic)
		}
		var ke *kerr.Error
		switch {
		case r.Err == nil || errors.Is(r.Err, kerr.RequestTimedOut):
			return nil
		case errors.Is(r.Err, kerr.UnknownTopicOrPartition) && r.ErrMessage == "":
			msg := fmt.Sprintf("Topic `%s` to delete does not exist", topic)
			return codeError(topic, kerr.UnknownTopicOrPartition.Code, &msg)
		case errors.As(r.Err, &ke):
			return codeError(topic, ke.Code, &r.ErrMessage)
		}
		return r.Err
	})
	if err != nil {
		return nil, err
	}
	return &backend.DeleteTopicResult{}, nil
}
