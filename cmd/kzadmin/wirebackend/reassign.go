package wirebackend

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
)

// StartReassignment sends AlterPartitionReassignments with the targets.
// Current, the rollback plan, is read first with DescribeTopicPartitions.
// Each partition is answered on its own: when some are refused, the error
// names them and the ones that were started.
func (b *Backend) StartReassignment(ctx context.Context, moves []backend.Reassignment, dryRun bool) (*backend.ReassignResult, error) {
	if dryRun {
		return nil, noDryRun("reassign execute", "AlterPartitionReassignments")
	}
	var topics []string
	for _, m := range moves {
		topics = append(topics, m.Topic)
	}
	out := &backend.ReassignResult{Requested: moves}
	err := b.retry(ctx, func(ctx context.Context) error {
		d, err := b.describeTopics(ctx, topics, false)
		if err != nil {
			return err
		}
		out.Current = out.Current[:0]
		var req kadm.AlterPartitionAssignmentsReq
		for _, m := range moves {
			if t, ok := d.topics[m.Topic]; ok {
				if p, ok := partition(t, m.Partition); ok {
					out.Current = append(out.Current, backend.Reassignment{Topic: m.Topic, Partition: m.Partition, Replicas: p.Replicas})
				}
			}
			req.Assign(m.Topic, m.Partition, m.Replicas)
		}
		return b.alterAssignments(ctx, req)
	})
	if err != nil {
		return nil, err
	}
	b.awaitMoves(ctx, topics, func(moving map[backend.TopicPartition]move, d *described) bool {
		for _, m := range moves {
			_, inProgress := moving[backend.TopicPartition{Topic: m.Topic, Partition: m.Partition}]
			t := d.topics[m.Topic]
			var p backend.Partition
			if t != nil {
				p, _ = partition(t, m.Partition)
			}
			if !inProgress && !slices.Equal(p.Replicas, m.Replicas) {
				return false
			}
		}
		return true
	})
	return out, nil
}

// startWait bounds how long a reassignment request waits to show.
const startWait = 10 * time.Second

// awaitMoves waits until shown holds for the listed reassignments and the
// topics, or startWait passes. Kafka's controller answers
// AlterPartitionReassignments once the moves are in the topic znodes, so
// the next describe shows them; kzadmind answers once they are recorded,
// and starts them a moment later. Waiting here keeps what the CLI does next
// (verify, --wait) from seeing the request neither begun nor done.
// Failing to see it is not an error: the request was accepted.
func (b *Backend) awaitMoves(ctx context.Context, topics []string, shown func(map[backend.TopicPartition]move, *described) bool) {
	ctx, cancel := context.WithTimeout(ctx, startWait)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		moving, err := b.reassigning(ctx)
		if err == nil {
			var d *described
			if d, err = b.describeTopics(ctx, topics, false); err == nil && shown(moving, d) {
				return
			}
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return
		}
	}
}

// CancelReassignments lists the partitions' reassignments in progress and
// cancels those (null replicas), which returns them to their original
// replicas; the others are NotActive.
func (b *Backend) CancelReassignments(ctx context.Context, tps []backend.TopicPartition, dryRun bool) (*backend.ReassignResult, error) {
	if dryRun {
		return nil, noDryRun("reassign cancel", "AlterPartitionReassignments")
	}
	var out *backend.ReassignResult
	err := b.retry(ctx, func(ctx context.Context) error {
		out = &backend.ReassignResult{}
		set := make(kadm.TopicsSet)
		for _, tp := range tps {
			set.Add(tp.Topic, tp.Partition)
		}
		moving, err := b.kadmFor(ctx).ListPartitionReassignments(ctx, set)
		if err != nil {
			return b.note(kadmError("", err))
		}
		b.note(nil)
		var req kadm.AlterPartitionAssignmentsReq
		for _, tp := range tps {
			m, ok := moving[tp.Topic][tp.Partition]
			if !ok {
				out.NotActive = append(out.NotActive, tp)
				continue
			}
			original := slices.DeleteFunc(slices.Clone(m.Replicas), func(r int32) bool { return slices.Contains(m.AddingReplicas, r) })
			out.Current = append(out.Current, backend.Reassignment{Topic: tp.Topic, Partition: tp.Partition, Replicas: m.Replicas})
			out.Requested = append(out.Requested, backend.Reassignment{Topic: tp.Topic, Partition: tp.Partition, Replicas: original})
			req.CancelAssign(tp.Topic, tp.Partition)
		}
		return b.alterAssignments(ctx, req)
	})
	if err != nil {
		return nil, err
	}
	var topics []string
	for _, r := range out.Requested {
		topics = append(topics, r.Topic)
	}
	b.awaitMoves(ctx, topics, func(moving map[backend.TopicPartition]move, _ *described) bool {
		for _, r := range out.Requested {
			if _, ok := moving[backend.TopicPartition{Topic: r.Topic, Partition: r.Partition}]; ok {
				return false
			}
		}
		return true
	})
	return out, nil
}

// alterAssignments sends one AlterPartitionReassignments and turns its
// per-partition refusals into one error. When every partition is refused
// with the same retriable code (NOT_CONTROLLER), that code is returned, so
// the whole request is retried.
func (b *Backend) alterAssignments(ctx context.Context, req kadm.AlterPartitionAssignmentsReq) error {
	if len(req) == 0 {
		return nil
	}
	res, err := b.kadmFor(ctx).AlterPartitionAssignments(ctx, req)
	if err != nil {
		return b.note(kadmError("", err))
	}
	b.note(nil)
	var failed []error
	var started []string
	for _, r := range res.Sorted() {
		tp := backend.TopicPartition{Topic: r.Topic, Partition: r.Partition}.String()
		var ke *kerr.Error
		switch {
		case r.Err == nil:
			started = append(started, tp)
		case errors.As(r.Err, &ke):
			failed = append(failed, codeError(tp, ke.Code, &r.ErrMessage))
		default:
			failed = append(failed, fmt.Errorf("%s: %w", tp, r.Err))
		}
	}
	return partitionFailures(failed, started, "reassignment")
}

// partitionFailures is one error for the partitions refused. When every
// partition was refused with one retriable code (NOT_CONTROLLER) that
// refusal is returned as is, so that the whole request is retried.
// Otherwise the error lists every refusal and what went through, and is
// final: a retry would repeat what was done.
func partitionFailures(failed []error, succeeded []string, what string) error {
	if len(failed) == 0 {
		return nil
	}
	var first *backend.Error
	if !errors.As(failed[0], &first) {
		return errors.Join(failed...)
	}
	if len(failed) == 1 && len(succeeded) == 0 {
		return first
	}
	msgs := make([]string, len(failed))
	same := true
	for i, f := range failed {
		msgs[i] = f.Error()
		var be *backend.Error
		if !errors.As(f, &be) || be.Code != first.Code {
			same = false
		}
	}
	if same && len(succeeded) == 0 && retriableCodes[first.Code] {
		return first
	}
	e := *first
	e.Resource, e.Err = "", nil
	e.Message = strings.Join(msgs, "; ")
	if len(succeeded) > 0 {
		e.Message += fmt.Sprintf(" (the %s of %s went through)", what, strings.Join(succeeded, ","))
	}
	return &e
}

var _ backend.ReassignmentLister = (*Backend)(nil)

// Reassigning lists the reassignments in progress, cluster-wide, with one
// ListPartitionReassignments, as kafka-reassign-partitions asks.
func (b *Backend) Reassigning(ctx context.Context) ([]backend.OngoingReassignment, error) {
	moving, err := b.reassigning(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]backend.OngoingReassignment, 0, len(moving))
	for tp, m := range moving {
		out = append(out, backend.OngoingReassignment{TopicPartition: tp, Replicas: m.replicas, Adding: m.adding, Removing: m.removing})
	}
	slices.SortFunc(out, func(x, y backend.OngoingReassignment) int {
		return cmp.Or(strings.Compare(x.Topic, y.Topic), cmp.Compare(x.Partition, y.Partition))
	})
	return out, nil
}
