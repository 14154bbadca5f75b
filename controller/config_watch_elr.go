package controller

import (
	"github.com/kzadmin/kzadmin/controller/election"
)

// clearStaleELR writes, for every partition of an affected topic whose
// cached state holds an ELR or last-known ELR computed under another min
// ISR than the topic's effective one, the state with both lists cleared
// (KIP-966: a min.insync.replicas change voids them). The leader epoch is
// bumped, as for every controller-initiated change, so that brokers accept
// the LeaderAndIsr that carries the new partition epoch; the ISR and
// leader are kept. The writes are batched, fenced and conditional on the
// znode version, re-read and retried on BADVERSION (updateStates).
func (c *Controller) clearStaleELR(ls *leaderState, affected func(topic string) bool, settings settingsCache) error {
	if !c.elrOn() {
		return nil
	}
	tps := ls.cc.partitionsWhere(func(tp TopicPartition, p *partition) bool {
		return p.lead != nil && (len(p.lead.ELR) > 0 || len(p.lead.LastKnownELR) > 0) && affected(tp.Topic)
	})
	if len(tps) == 0 {
		return nil
	}
	env := c.env(ls)
	done, failed, err := c.updateStates(ls, tps, "clearing the ELR",
		func(tp TopicPartition, cur *election.LeaderAndIsr) stateUpdate {
			if cur == nil || (len(cur.ELR) == 0 && len(cur.LastKnownELR) == 0) {
				return stateUpdate{skip: true}
			}
			params, err := c.elrParams(ls, tp, settings)
			if err != nil {
				return stateUpdate{err: err}
			}
			if cur.ELRMinISR == params.MinISR {
				return stateUpdate{skip: true} // still valid
			}
			next, err := election.BumpLeaderEpoch(env, tp, cur)
			if err != nil {
				return stateUpdate{err: err}
			}
			return stateUpdate{next: election.NextELR(cur, next, params), write: true}
		})
	if err != nil {
		return err
	}
	b := c.newBatch(ls)
	for _, tp := range tps {
		lai, ok := done[tp]
		if !ok {
			continue
		}
		c.setLeadership(ls, tp, lai)
		p := ls.cc.partition(tp)
		b.AddLeaderAndIsr(p.assign.Replicas, tp, lai, p.assign, false)
	}
	c.send(ls, b)
	for tp, ferr := range failed {
		c.log.Warn().Err(ferr).Str("partition", tp.String()).Msg("stale ELR not cleared")
	}
	if len(done) > 0 {
		c.log.Info().Int("partitions", len(done)).Msg("min.insync.replicas changed: ELR cleared")
	}
	return nil
}
