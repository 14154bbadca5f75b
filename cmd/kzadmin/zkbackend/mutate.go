package zkbackend

import (
	"context"
	"maps"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
	"github.com/kzadmin/kzadmin/placement"
	"github.com/kzadmin/kzadmin/security/scram"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

func rackMode(disable bool) placement.RackMode {
	if disable {
		return placement.RackDisabled
	}
	return placement.RackEnforced
}

// CreateTopic writes the topic's config and assignment in one multi.
func (b *Backend) CreateTopic(ctx context.Context, req backend.CreateTopicRequest) (*backend.CreateTopicResult, error) {
	res, err := b.admin.CreateTopic(ctx, zkadmin.CreateTopicRequest{Topic: req.Topic, Partitions: req.Partitions,
		ReplicationFactor: req.ReplicationFactor, Assignment: req.Assignment, Config: req.Configs,
		RackMode: rackMode(req.DisableRackAware), DryRun: req.DryRun})
	if err != nil {
		return nil, convertErr(err)
	}
	return &backend.CreateTopicResult{Writes: writes(res.Ops, req.DryRun, res.Attempts), TopicID: res.TopicID.String(),
		Assignment: res.Assignment}, nil
}

// CreatePartitions rewrites the topic znode, version-checked.
func (b *Backend) CreatePartitions(ctx context.Context, req backend.CreatePartitionsRequest) (*backend.CreatePartitionsResult, error) {
	res, err := b.admin.AddPartitions(ctx, zkadmin.AddPartitionsRequest{Topic: req.Topic, Total: req.Total,
		Assignment: req.Assignment, RackMode: rackMode(req.DisableRackAware), DryRun: req.DryRun})
	if err != nil {
		return nil, convertErr(err)
	}
	return &backend.CreatePartitionsResult{Writes: writes(res.Ops, req.DryRun, res.Attempts), Previous: res.Previous,
		Added: res.Added}, nil
}

// DeleteTopic creates the deletion marker.
func (b *Backend) DeleteTopic(ctx context.Context, topic string, dryRun bool) (*backend.DeleteTopicResult, error) {
	res, err := b.admin.MarkTopicForDeletion(ctx, topic, dryRun)
	if err != nil {
		return nil, convertErr(err)
	}
	return &backend.DeleteTopicResult{Writes: writes(res.Ops, dryRun, res.Attempts), AlreadyMarked: res.AlreadyMarked}, nil
}

// AlterConfigs writes the entity's new overrides and a change notification.
func (b *Backend) AlterConfigs(ctx context.Context, req backend.AlterConfigsRequest) (*backend.AlterConfigsResult, error) {
	set := maps.Clone(req.Set)
	for name, sp := range req.Scram {
		m, ok := scram.MechanismByName(name)
		if !ok {
			return nil, &backend.Error{Code: zkadmin.CodeInvalidConfig, Name: "INVALID_CONFIG", Message: "unknown SCRAM mechanism " + name}
		}
		if set == nil {
			set = map[string]string{}
		}
		set[name] = scram.FromSaltedPassword(m, sp.Salt, sp.Salted, sp.Iterations).String()
	}
	res, err := b.admin.AlterConfigs(ctx, zkadmin.ConfigAlteration{EntityType: req.EntityType, EntityName: req.Name,
		Client: req.Client, Set: set, Delete: req.Delete, DryRun: req.DryRun})
	if err != nil {
		return nil, convertErr(err)
	}
	return &backend.AlterConfigsResult{Writes: writes(res.Ops, req.DryRun, res.Attempts), Before: res.Before, After: res.After}, nil
}

// StartReassignment writes /admin/reassign_partitions.
func (b *Backend) StartReassignment(ctx context.Context, moves []backend.Reassignment, dryRun bool) (*backend.ReassignResult, error) {
	entries := make([]znodes.ReassignmentEntry, len(moves))
	for i, m := range moves {
		entries[i] = znodes.ReassignmentEntry{Topic: m.Topic, Partition: m.Partition, Replicas: m.Replicas}
	}
	res, err := b.admin.StartReassignment(ctx, entries, dryRun)
	if err != nil {
		return nil, convertErr(err)
	}
	return reassignResult(res, dryRun), nil
}

// CancelReassignments re-targets in-flight reassignments at their original
// replicas through /admin/reassign_partitions.
func (b *Backend) CancelReassignments(ctx context.Context, tps []backend.TopicPartition, dryRun bool) (*backend.ReassignResult, error) {
	res, err := b.admin.CancelReassignments(ctx, toZnodes(tps), dryRun)
	if err != nil {
		return nil, convertErr(err)
	}
	return reassignResult(res, dryRun), nil
}

func reassignResult(res *zkadmin.ReassignmentResult, dryRun bool) *backend.ReassignResult {
	out := &backend.ReassignResult{Writes: writes(res.Ops, dryRun, res.Attempts)}
	for _, e := range res.Current {
		out.Current = append(out.Current, backend.Reassignment{Topic: e.Topic, Partition: e.Partition, Replicas: e.Replicas})
	}
	for _, e := range res.Requested {
		out.Requested = append(out.Requested, backend.Reassignment{Topic: e.Topic, Partition: e.Partition, Replicas: e.Replicas})
	}
	out.NotActive = fromZnodes(res.NotActive)
	return out
}

func toZnodes(tps []backend.TopicPartition) []znodes.TopicPartition {
	out := make([]znodes.TopicPartition, len(tps))
	for i, tp := range tps {
		out[i] = znodes.TopicPartition{Topic: tp.Topic, Partition: tp.Partition}
	}
	return out
}

func fromZnodes(tps []znodes.TopicPartition) []backend.TopicPartition {
	var out []backend.TopicPartition
	for _, tp := range tps {
		out = append(out, backend.TopicPartition{Topic: tp.Topic, Partition: tp.Partition})
	}
	return out
}
