package controller

import (
	"errors"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// checkAlterPartition applies the controller's per-partition rules to one
// AlterPartition entry, in Kafka's order (reference §6.5 step 4). cached is
// the controller's leadership (nil: none); proposed is the leader's
// {leader = sender, leader epoch, ISR, recovery state, partition epoch};
// live reports whether a broker is registered and not shutting down.
// It returns 0 when the write should go ahead, or idempotent=true when the
// proposal equals the cached state (a retry) and the cached state is the
// answer; otherwise the error code.
func checkAlterPartition(cached *election.LeaderAndIsr, proposed election.LeaderAndIsr, live func(int32) bool,
	version int16) (code int16, idempotent bool) {
	switch {
	case cached == nil:
		return kerr.UnknownTopicOrPartition.Code, false
	case proposed.PartitionEpoch > cached.PartitionEpoch || proposed.LeaderEpoch > cached.LeaderEpoch:
		// The sender knows a newer state than ours: we are probably stale.
		return kerr.NotController.Code, false
	case proposed.LeaderEpoch < cached.LeaderEpoch:
		return kerr.FencedLeaderEpoch.Code, false
	case proposed.Leader == cached.Leader && slices.Equal(proposed.ISR, cached.ISR) &&
		proposed.LeaderRecoveryState == cached.LeaderRecoveryState:
		return 0, true // PartitionEpoch <= cached here
	case proposed.PartitionEpoch < cached.PartitionEpoch:
		return kerr.InvalidUpdateVersion.Code, false
	case proposed.LeaderRecoveryState == election.Recovering && len(proposed.ISR) > 1:
		return kerr.InvalidRequest.Code, false
	case cached.LeaderRecoveryState == election.Recovered && proposed.LeaderRecoveryState == election.Recovering:
		return kerr.InvalidRequest.Code, false
	}
	for _, r := range proposed.ISR {
		if !live(r) {
			if version >= 2 {
				return kerr.IneligibleReplica.Code, false
			}
			return kerr.OperationNotAttempted.Code, false
		}
	}
	return 0, false
}

// proposedISR reads an entry's new ISR: broker ids only (v3 carries broker
// epochs too, which Kafka's ZooKeeper controller does not check).
func proposedISR(p kmsg.AlterPartitionRequestTopicPartition, version int16) []int32 {
	if version < 3 {
		return slices.Clone(p.NewISR)
	}
	out := make([]int32, len(p.NewEpochISR))
	for i, e := range p.NewEpochISR {
		out[i] = e.BrokerID
	}
	return out
}

// alterPartitionEvent is an AlterPartition request waiting for the loop.
type alterPartitionEvent struct {
	req   *kmsg.AlterPartitionRequest
	reply chan *kmsg.AlterPartitionResponse
}

func (*alterPartitionEvent) state() State { return StateIsrChange }

func (e *alterPartitionEvent) preempt() {
	e.reply <- alterPartitionError(e.req, kerr.NotController.Code)
}

func alterPartitionError(req *kmsg.AlterPartitionRequest, code int16) *kmsg.AlterPartitionResponse {
	resp := req.ResponseKind().(*kmsg.AlterPartitionResponse)
	resp.ErrorCode = code
	return resp
}

// apEntry is one partition of an AlterPartition request being processed.
type apEntry struct {
	topic, name string
	id          [16]byte
	partition   int32
	code        int16
	state       election.LeaderAndIsr
	write       bool
}

// onAlterPartition is Kafka's tryProcessAlterPartition (reference §6.5):
// validate, write the accepted ISRs conditionally on the partition epoch
// the leader knows (leader epoch unchanged), cache, tell every broker with
// UpdateMetadata (never LeaderAndIsr), answer.
func (c *Controller) onAlterPartition(e *alterPartitionEvent) error {
	req := e.req
	ls := c.leader
	if ls == nil {
		e.reply <- alterPartitionError(req, kerr.NotController.Code)
		return nil
	}
	cc := ls.cc
	if b, ok := cc.brokers[req.BrokerID]; !ok || b.Epoch != req.BrokerEpoch {
		e.reply <- alterPartitionError(req, kerr.StaleBrokerEpoch.Code)
		return nil
	}
	entries := c.validateAlterPartition(ls, req)
	err := c.writeAlterPartition(ls, entries)
	if err != nil {
		e.reply <- alterPartitionError(req, kerr.NotController.Code)
		return err
	}
	var named []TopicPartition
	for _, en := range entries {
		if en.name != "" {
			named = append(named, TopicPartition{Topic: en.name, Partition: en.partition})
		}
	}
	c.sendUpdateMetadata(ls, cc.brokerIDs(), named...)
	e.reply <- alterPartitionResponse(req, entries)
	return c.completeReassignmentsAfterIsrChange(ls, entries)
}

// validateAlterPartition resolves and checks every entry of the request.
func (c *Controller) validateAlterPartition(ls *leaderState, req *kmsg.AlterPartitionRequest) []apEntry {
	cc := ls.cc
	live := func(b int32) bool { return election.BrokerLive(cc, b) }
	settings := settingsCache{}
	var entries []apEntry
	for _, t := range req.Topics {
		name, known := t.Topic, true
		if req.Version >= 2 {
			name, known = cc.topicByID[t.TopicID]
		}
		for _, p := range t.Partitions {
			en := apEntry{topic: t.Topic, id: t.TopicID, partition: p.Partition}
			if !known {
				en.code = kerr.UnknownTopicID.Code
				entries = append(entries, en)
				continue
			}
			en.name = name
			proposed := election.LeaderAndIsr{
				Leader:              req.BrokerID,
				LeaderEpoch:         p.LeaderEpoch,
				ISR:                 proposedISR(p, req.Version),
				LeaderRecoveryState: election.LeaderRecoveryState(p.LeaderRecoveryState),
				PartitionEpoch:      p.PartitionEpoch,
				ControllerEpoch:     ls.epoch,
			}
			var cached *election.LeaderAndIsr
			if part := cc.partition(TopicPartition{Topic: name, Partition: p.Partition}); part != nil {
				cached = part.lead
			}
			code, same := checkAlterPartition(cached, proposed, live, req.Version)
			switch {
			case same:
				en.state = cached.Clone()
			case code == 0:
				tp := TopicPartition{Topic: name, Partition: p.Partition}
				next, err := c.withELR(ls, tp, cached, proposed, settings)
				if err != nil {
					code = kerr.UnknownServerError.Code
					break
				}
				en.state, en.write = next, true
			}
			en.code = code
			entries = append(entries, en)
		}
	}
	return entries
}

// writeAlterPartition writes the accepted entries, each conditional on the
// partition epoch the leader sent, and caches what was written.
func (c *Controller) writeAlterPartition(ls *leaderState, entries []apEntry) error {
	var ops []zkadmin.Op
	var idx []int
	for i, en := range entries {
		if !en.write {
			continue
		}
		tp := TopicPartition{Topic: en.name, Partition: en.partition}
		data, err := encodeState(en.state, ls.cc.partition(tp).unknown)
		if err != nil {
			entries[i].code, entries[i].write = kerr.UnknownServerError.Code, false
			continue
		}
		ops = append(ops, zkadmin.SetOp(znodes.PartitionStatePath(en.name, en.partition), data, en.state.PartitionEpoch))
		idx = append(idx, i)
	}
	res, err := c.fencedWrite(ls.ctx, ls, ops)
	if err != nil {
		return err
	}
	for j, i := range idx {
		en := &entries[i]
		switch {
		case errors.Is(res[j].Err, zkadmin.ErrBadVersion):
			en.code = kerr.InvalidUpdateVersion.Code
		case res[j].Err != nil:
			c.log.Warn().Err(res[j].Err).Str("partition", en.name).Int32("index", en.partition).Msg("AlterPartition write failed")
			en.code = kerr.UnknownServerError.Code
		default:
			en.state.PartitionEpoch = res[j].Stat.Version
			c.setLeadership(ls, TopicPartition{Topic: en.name, Partition: en.partition}, en.state)
		}
	}
	return nil
}

// alterPartitionResponse answers every entry, grouped by topic in request
// order: by name (v0–1) or id (v2+).
func alterPartitionResponse(req *kmsg.AlterPartitionRequest, entries []apEntry) *kmsg.AlterPartitionResponse {
	resp := req.ResponseKind().(*kmsg.AlterPartitionResponse)
	i := 0
	for _, t := range req.Topics {
		rt := kmsg.NewAlterPartitionResponseTopic()
		rt.Topic, rt.TopidID = t.Topic, t.TopicID
		for range t.Partitions {
			en := entries[i]
			i++
			rp := kmsg.NewAlterPartitionResponseTopicPartition()
			rp.Partition, rp.ErrorCode = en.partition, en.code
			if en.code == 0 {
				rp.LeaderID, rp.LeaderEpoch = en.state.Leader, en.state.LeaderEpoch
				rp.ISR = slices.Clone(en.state.ISR)
				rp.LeaderRecoveryState = int8(en.state.LeaderRecoveryState)
				rp.PartitionEpoch = en.state.PartitionEpoch
			}
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp
}
