package controller

import (
	"slices"

	"github.com/kzadmin/kzadmin/controller/brokerchan"
	"github.com/kzadmin/kzadmin/controller/election"
)

// replicasToOnline is the replica state machine's handleStateChanges to
// OnlineReplica, one batch: a replica coming from anything but NewReplica
// gets LeaderAndIsr with the current state (isNew=false) when the partition
// has leadership, and everyone gets UpdateMetadata for it.
//
// Consecutive replicas of one partition (the failover lists every replica
// so) share one add: the batch then copies the state and reads the
// partition for UpdateMetadata once per partition rather than per replica.
// The requests are the same either way.
func (c *Controller) replicasToOnline(ls *leaderState, replicas []replicaKey) {
	b := c.newBatch(ls)
	var g onlineGroup
	for _, rk := range replicas {
		p := ls.cc.partition(rk.tp)
		if p == nil {
			continue
		}
		if rk.tp != g.tp {
			g.flush(b)
		}
		from := p.replicaState(rk.replica)
		if err := election.CheckReplicaTransition(rk.tp, rk.replica, from, election.OnlineReplica); err != nil {
			c.log.Debug().Err(err).Msg("invalid replica transition skipped")
			continue
		}
		switch {
		case from == election.NewReplica:
			if !slices.Contains(p.assign.Replicas, rk.replica) {
				g.flush(b) // the replicas gathered so far get the assignment before this change
				p.assign.Replicas = append(slices.Clone(p.assign.Replicas), rk.replica)
			}
		case election.OnlineReplicaSends(from, p.lead != nil):
			g.tp, g.p = rk.tp, p
			g.brokers = append(g.brokers, rk.replica)
		}
		p.setReplicaState(rk.replica, election.OnlineReplica)
	}
	g.flush(b)
	c.send(ls, b)
}

// onlineGroup gathers the replicas of one partition that get LeaderAndIsr.
type onlineGroup struct {
	tp      TopicPartition
	p       *partition
	brokers []int32
}

// flush adds the gathered replicas' LeaderAndIsr to b, with the partition's
// leadership and assignment as they are now.
func (g *onlineGroup) flush(b *brokerchan.Batch) {
	if len(g.brokers) > 0 {
		b.AddLeaderAndIsr(g.brokers, g.tp, *g.p.lead, g.p.assign, false)
	}
	g.brokers = g.brokers[:0]
}

// setReplicasState sets replica states without any request (NewReplica at
// partition creation, the startup classification).
func (c *Controller) setReplicasState(ls *leaderState, replicas []replicaKey, s election.ReplicaState) {
	for _, rk := range replicas {
		if p := ls.cc.partition(rk.tp); p != nil {
			p.setReplicaState(rk.replica, s)
		}
	}
}

// replicasToOffline is handleStateChanges to OfflineReplica, one batch:
// StopReplica (delete=false) to each replica; its removal from the ISR in
// ZooKeeper (leader -1 if it led, the last ISR member kept, leader epoch
// bumped); LeaderAndIsr to the partition's other replicas; UpdateMetadata
// to everyone. Replicas are handled per broker, as in Kafka.
func (c *Controller) replicasToOffline(ls *leaderState, replicas []replicaKey) error {
	b := c.newBatch(ls)
	byBroker := map[int32][]TopicPartition{}
	for _, rk := range replicas {
		p := ls.cc.partition(rk.tp)
		if p == nil {
			continue
		}
		if err := election.CheckReplicaTransition(rk.tp, rk.replica, p.replicaState(rk.replica), election.OfflineReplica); err != nil {
			c.log.Debug().Err(err).Msg("invalid replica transition skipped")
			continue
		}
		b.AddStopReplica([]int32{rk.replica}, rk.tp, false)
		byBroker[rk.replica] = append(byBroker[rk.replica], rk.tp)
	}
	for _, broker := range sortedKeys(byBroker) {
		var withLead []TopicPartition
		for _, tp := range byBroker[broker] {
			p := ls.cc.partition(tp)
			if p.lead != nil {
				withLead = append(withLead, tp)
				continue
			}
			b.AddUpdateMetadataToAll(tp)
			p.setReplicaState(broker, election.OfflineReplica)
		}
		done, failed, err := c.removeReplicasFromIsr(ls, broker, withLead)
		if err != nil {
			return err
		}
		for _, tp := range withLead {
			if ferr := failed[tp]; ferr != nil {
				c.log.Warn().Err(ferr).Str("partition", tp.String()).Int32("replica", broker).Msg("ISR removal failed")
				continue
			}
			p := ls.cc.partition(tp)
			if lai, ok := done[tp]; ok {
				c.setLeadership(ls, tp, lai)
				deleting := ls.cc.deleting[tp.Topic]
				b.AddLeaderAndIsr(election.OfflineReplicaRecipients(p.assign.Replicas, broker, deleting), tp, lai, p.assign, false)
			}
			p.setReplicaState(broker, election.OfflineReplica)
		}
	}
	c.send(ls, b)
	return nil
}

// removeReplicasFromIsr is Kafka's removeReplicasFromIsr for one replica
// and many partitions: take the current states (see currentStates),
// decide, write conditionally, read fresh and retry on BADVERSION. done holds the state to cache (written, or
// unchanged because the replica was not in the ISR); failed holds errors.
func (c *Controller) removeReplicasFromIsr(ls *leaderState, replica int32, tps []TopicPartition) (
	done map[TopicPartition]election.LeaderAndIsr, failed map[TopicPartition]error, err error) {
	env := c.env(ls)
	settings := settingsCache{}
	return c.updateStates(ls, tps, "ISR removal", func(tp TopicPartition, cur *election.LeaderAndIsr) stateUpdate {
		d := election.RemoveReplicaFromISR(env, replica, tp, cur, ls.cc.deleting[tp.Topic])
		switch d.Outcome {
		case election.IsrUnchanged:
			return stateUpdate{next: d.LeaderAndIsr}
		case election.IsrWrite:
			next, err := c.withELR(ls, tp, cur, d.LeaderAndIsr, settings)
			return stateUpdate{next: next, write: true, err: err}
		case election.IsrFailed:
			return stateUpdate{err: d.Err}
		}
		return stateUpdate{skip: true} // IsrSkip: nothing to do for this partition

	})
}

// sortedKeys returns a map's int32 keys, ascending.
func sortedKeys[V any](m map[int32]V) []int32 {
	out := make([]int32, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
