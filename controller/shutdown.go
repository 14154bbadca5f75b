package controller

import (
	"errors"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/election"
)

// controlledShutdownEvent is a ControlledShutdown request waiting for the
// loop.
type controlledShutdownEvent struct {
	req   *kmsg.ControlledShutdownRequest
	reply chan *kmsg.ControlledShutdownResponse
}

func (*controlledShutdownEvent) state() State { return StateControlledShutdown }

// preempt answers as Kafka does when the queue is cleared: the controller
// moved, which reaches the broker as STALE_CONTROLLER_EPOCH.
func (e *controlledShutdownEvent) preempt() {
	e.reply <- controlledShutdownError(e.req, kerr.StaleControllerEpoch.Code)
}

func controlledShutdownError(req *kmsg.ControlledShutdownRequest, code int16) *kmsg.ControlledShutdownResponse {
	resp := req.ResponseKind().(*kmsg.ControlledShutdownResponse)
	resp.ErrorCode = code
	return resp
}

// onControlledShutdown is Kafka's doControlledShutdown (reference §2.10):
// mark the broker shutting down, move leadership off it (ControlledShutdown
// strategy, which also drops every shutting-down broker from the ISR),
// stop its follower replicas and take them out of the ISRs, then answer
// with the partitions it still leads. The broker retries until that list
// is empty.
func (c *Controller) onControlledShutdown(e *controlledShutdownEvent) error {
	req := e.req
	ls := c.leader
	var cachedEpoch int64
	registered := false
	if ls != nil {
		if br, ok := ls.cc.brokers[req.BrokerID]; ok {
			registered, cachedEpoch = true, br.Epoch
		}
	}
	epoch := req.BrokerEpoch
	if req.Version < 2 {
		epoch = election.UnknownBrokerEpoch
	}
	if err := election.ValidateControlledShutdown(ls != nil, req.BrokerID, epoch, registered, cachedEpoch); err != nil {
		var rej *election.ShutdownRejectedError
		code := kerr.UnknownServerError.Code
		if errors.As(err, &rej) {
			code = rej.Code
		}
		c.log.Warn().Err(err).Msg("controlled shutdown refused")
		e.reply <- controlledShutdownError(req, code)
		return nil
	}
	remaining, err := c.controlledShutdown(ls, req.BrokerID)
	if err != nil {
		e.reply <- controlledShutdownError(req, kerr.StaleControllerEpoch.Code)
		return err
	}
	resp := req.ResponseKind().(*kmsg.ControlledShutdownResponse)
	for _, tp := range remaining {
		rp := kmsg.NewControlledShutdownResponsePartitionsRemaining()
		rp.Topic, rp.Partition = tp.Topic, tp.Partition
		resp.PartitionsRemaining = append(resp.PartitionsRemaining, rp)
	}
	c.log.Info().Int32("broker", req.BrokerID).Int("remaining", len(remaining)).Msg("controlled shutdown")
	e.reply <- resp
	return nil
}

// controlledShutdown does the work and returns the partitions the broker
// still leads.
func (c *Controller) controlledShutdown(ls *leaderState, id int32) ([]TopicPartition, error) {
	cc := ls.cc
	cc.shuttingDown[id] = true
	c.markAllDirty(ls)
	plan := election.PlanControlledShutdown(id, c.shutdownPartitions(ls, id))
	if len(plan.Lead) > 0 {
		if _, err := c.partitionsToOnline(ls, plan.Lead, election.ControlledShutdown()); err != nil {
			return nil, err
		}
	}
	if len(plan.Follow) > 0 {
		b := c.newBatch(ls)
		replicas := make([]replicaKey, len(plan.Follow))
		for i, tp := range plan.Follow {
			b.AddStopReplica([]int32{id}, tp, false)
			replicas[i] = replicaKey{tp, id}
		}
		c.send(ls, b)
		if err := c.replicasToOffline(ls, replicas); err != nil {
			return nil, err
		}
	}
	return election.RemainingLeaders(id, c.shutdownPartitions(ls, id)), nil
}

// shutdownPartitions lists the partitions hosted by broker id, as the
// controlled-shutdown plan sees them.
func (c *Controller) shutdownPartitions(ls *leaderState, id int32) []election.ShutdownPartition {
	var out []election.ShutdownPartition
	for _, rk := range ls.cc.replicasOnBrokers([]int32{id}) {
		p := ls.cc.partition(rk.tp)
		out = append(out, election.ShutdownPartition{
			Partition: rk.tp, Replicas: p.assign.Replicas, Current: p.lead, TopicDeleting: ls.cc.deleting[rk.tp.Topic],
		})
	}
	return out
}
