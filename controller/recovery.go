package controller

import (
	"context"
	"errors"
	"net"
	"strconv"
	"time"

	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/controller/replicalog"
)

// recoveryState is the unclean recovery manager of one leadership
// (KIP-966): the partitions being recovered and those waiting to start.
// Only the loop touches it. Probes run in goroutines of the leadership
// (ls.wg, ls.ctx), so resigning cancels them and waits for them, and
// their answers come back as recoveryEvents, which a later leadership
// ignores.
type recoveryState struct {
	sessions map[TopicPartition]*recoverySession
	pending  []TopicPartition // decided to recover, not yet asked
	// clock is the wait of the recoveries (recovery_clock.go), made with
	// the first of them; the loop moves it when the dynamic default
	// changes.
	clock *recoveryClock
}

// recoverySession is one partition's recovery: what it waits for and what
// it heard. asking counts the brokers asked that have not replied yet
// (with answers or a failure): Aggressive decides once every live replica
// asked has had its say, not on the first reply, so that the longest of
// their logs wins whatever order the replies come in.
type recoverySession struct {
	mode     election.RecoveryMode
	waitFor  []int32
	asking   int
	answers  []election.ReplicaLog
	timedOut bool
}

// recoveryEvent carries probe answers, or a session's timeout, into the
// loop. The loop re-checks everything before electing.
type recoveryEvent struct {
	gen     *leaderState
	asked   []TopicPartition                       // one broker's replies, answered or not
	answers map[TopicPartition]election.ReplicaLog // its answers
	timeout []TopicPartition
}

func (*recoveryEvent) state() State { return StateUncleanLeaderElectionEnable }

// StateUncleanLeaderElectionEnable is Kafka's controller state 13, which
// kzadmin also shows while it handles unclean recovery answers.
const StateUncleanLeaderElectionEnable State = 13

func (ls *leaderState) recoveries() *recoveryState {
	if ls.recovery == nil {
		ls.recovery = &recoveryState{sessions: map[TopicPartition]*recoverySession{}}
	}
	return ls.recovery
}

// noteRecoveries records the partitions an election left to unclean
// recovery (ReasonRecoveryNeeded). launchRecoveries starts them once the
// batch is sent.
func (c *Controller) noteRecoveries(ls *leaderState, inputs []election.PartitionInput, results []election.Result) {
	rs := ls.recoveries()
	for i, r := range results {
		var ee *election.ElectionError
		if !errors.As(r.Err, &ee) || ee.Reason != election.ReasonRecoveryNeeded {
			continue
		}
		in := inputs[i]
		if rs.sessions[in.Partition] != nil {
			continue // already asking
		}
		rs.sessions[in.Partition] = &recoverySession{
			mode:    in.Recovery,
			waitFor: election.RecoveryWaitSet(*in.Current, in.Assignment.Replicas, in.MinISR),
		}
		rs.pending = append(rs.pending, in.Partition)
	}
}

// launchRecoveries asks the live replicas of every pending partition for
// their logs: one Probe per broker for all its partitions, off the loop.
// Without a Prober no recovery is possible: the partitions stay offline.
func (c *Controller) launchRecoveries(ls *leaderState) {
	rs := ls.recovery
	if rs == nil || len(rs.pending) == 0 {
		return
	}
	tps := rs.pending
	rs.pending = nil
	started := time.Now()
	if rs.clock == nil {
		rs.clock = newRecoveryClock(c.electionConf().UncleanRecoveryTimeout) // the dynamic default, if set
	}
	if c.cfg.Prober == nil {
		for _, tp := range tps {
			delete(rs.sessions, tp)
		}
		c.log.Warn().Int("partitions", len(tps)).
			Msg("unclean recovery needed but no replica log prober is configured; partitions stay offline")
		return
	}
	c.recoveriesStarted(len(tps))
	byBroker := map[int32][]replicalog.Partition{}
	for _, tp := range tps {
		p := ls.cc.partition(tp)
		id, _ := ls.cc.TopicID(tp.Topic)
		for _, r := range p.assign.Replicas {
			if election.ReplicaOnline(ls.cc, r, tp) {
				byBroker[r] = append(byBroker[r], replicalog.Partition{Topic: tp.Topic, TopicID: id, Index: tp.Partition})
			}
		}
	}
	for _, broker := range sortedKeys(byBroker) {
		if !c.startProbe(ls, broker, byBroker[broker], started) {
			continue
		}
		for _, p := range byBroker[broker] {
			if s := rs.sessions[TopicPartition{Topic: p.Topic, Partition: p.Index}]; s != nil {
				s.asking++
			}
		}
	}
	c.startRecoveryTimer(ls, tps, started)
}

// startProbe asks one broker, in a goroutine of the leadership, and
// reports whether it did. The reply event lists every partition asked,
// even when the probe failed, so that sessions stop counting on it.
func (c *Controller) startProbe(ls *leaderState, broker int32, parts []replicalog.Partition, started time.Time) bool {
	target, ok := c.probeTarget(ls, broker)
	if !ok {
		c.log.Warn().Int32("broker", broker).Msg("unclean recovery: broker has no inter-broker endpoint")
		return false
	}
	prober, clock := c.cfg.Prober, ls.recovery.clock
	ls.wg.Add(1)
	go func() {
		defer ls.wg.Done()
		ctx, cancel := clock.contextFrom(ls.ctx, started)
		defer cancel()
		ev := &recoveryEvent{gen: ls, answers: map[TopicPartition]election.ReplicaLog{}}
		for _, p := range parts {
			ev.asked = append(ev.asked, TopicPartition{Topic: p.Topic, Partition: p.Index})
		}
		infos, err := probeUntilHeard(ctx, prober, target, parts)
		if err != nil {
			if ls.ctx.Err() == nil {
				c.log.Warn().Err(err).Int32("broker", broker).Msg("unclean recovery: replica log probe failed")
				c.queue.push(ev)
			}
			return
		}
		for _, in := range infos {
			if in.ErrorCode != 0 {
				continue
			}
			tp := TopicPartition{Topic: in.Partition.Topic, Partition: in.Partition.Index}
			ev.answers[tp] = election.ReplicaLog{Broker: broker, LastEpoch: in.LastEpoch, LogEndOffset: in.LogEndOffset}
			c.log.Debug().Str("partition", tp.String()).Int32("broker", broker).Int64("log_end_offset", in.LogEndOffset).
				Int32("last_epoch", in.LastEpoch).Msg("unclean recovery: replica answered")
		}
		c.queue.push(ev)
	}()
	return true
}

// probeRetryBackoff is the pause between two attempts to hear a broker.
const probeRetryBackoff = 250 * time.Millisecond

// probeUntilHeard asks one broker again until it has answered for every
// partition or ctx, which ends with the recovery's wait, is over. The
// usual trigger of a recovery is a broker registering, and such a broker
// refuses connections until its listener is up and answers
// NOT_LEADER_OR_FOLLOWER until its LeaderAndIsr has arrived: asked once,
// it would never be heard. A partition keeps its first answer; the result
// is in parts' order, with the last error code for partitions never
// answered, or the last error when the broker never answered at all.
func probeUntilHeard(ctx context.Context, prober replicalog.Prober, target replicalog.Target,
	parts []replicalog.Partition) ([]replicalog.Info, error) {
	heard := make(map[replicalog.Partition]replicalog.Info, len(parts))
	todo := parts
	var lastErr error
	for len(todo) > 0 {
		infos, err := prober.Probe(ctx, target, todo)
		if lastErr = err; err == nil {
			var again []replicalog.Partition
			for i, in := range infos {
				heard[todo[i]] = in
				if in.ErrorCode != 0 {
					again = append(again, todo[i])
				}
			}
			todo = again
		}
		if len(todo) == 0 || !pause(ctx, probeRetryBackoff) {
			break
		}
	}
	if len(heard) == 0 {
		return nil, lastErr
	}
	out := make([]replicalog.Info, len(parts))
	for i, p := range parts {
		in, ok := heard[p]
		if !ok {
			in = replicalog.Info{Partition: p, LogEndOffset: -1, LastEpoch: -1, ErrorCode: -1}
		}
		out[i] = in
	}
	return out, nil
}

// pause waits d, or less if ctx ends first; it reports whether d passed.
func pause(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// startRecoveryTimer ends the sessions' wait after unclean.recovery.timeout.ms
// from started, following changes of the dynamic default meanwhile.
func (c *Controller) startRecoveryTimer(ls *leaderState, tps []TopicPartition, started time.Time) {
	clock := ls.recovery.clock
	ls.wg.Add(1)
	go func() {
		defer ls.wg.Done()
		if clock.waitFrom(ls.ctx, started) {
			c.queue.push(&recoveryEvent{gen: ls, timeout: tps})
		}
	}()
}

// probeTarget is the broker's address on the listener the controller sends
// LeaderAndIsr on (control plane, else inter-broker): the prober shares
// the broker channels' dialer, which is set up for that listener.
func (c *Controller) probeTarget(ls *leaderState, broker int32) (replicalog.Target, bool) {
	b, ok := ls.cc.brokers[broker]
	if !ok {
		return replicalog.Target{}, false
	}
	listener := c.conf.ControllerToBrokerListenerName()
	for _, e := range b.Endpoints {
		if e.Listener == listener {
			addr := net.JoinHostPort(e.Host, strconv.FormatInt(int64(e.Port), 10))
			return replicalog.Target{BrokerID: broker, Addr: addr}, true
		}
	}
	return replicalog.Target{}, false
}

// onRecovery records answers or a timeout and elects every partition whose
// strategy has decided. The election re-reads the state and re-checks that
// no ISR or ELR member came back (election.Recover), and writes
// conditionally on the znode version, so a recovery never overrides a
// leader elected meanwhile.
func (c *Controller) onRecovery(e *recoveryEvent) error {
	ls := c.leader
	if ls == nil || e.gen != ls || ls.recovery == nil {
		return nil
	}
	rs := ls.recovery
	for _, tp := range e.asked {
		if s := rs.sessions[tp]; s != nil && s.asking > 0 {
			s.asking--
		}
	}
	for tp, a := range e.answers {
		if s := rs.sessions[tp]; s != nil {
			s.answers = append(s.answers, a)
		}
	}
	for _, tp := range e.timeout {
		if s := rs.sessions[tp]; s != nil {
			s.timedOut = true
		}
	}
	byLeader := map[int32][]TopicPartition{}
	for _, tp := range sortedSessionKeys(rs.sessions) {
		s := rs.sessions[tp]
		if s.mode == election.RecoveryAggressive && s.asking > 0 && !s.timedOut {
			continue // a live replica asked has not replied yet
		}
		leader, done := election.PickRecoveryLeader(s.mode, s.waitFor, s.answers, s.timedOut)
		switch {
		case done:
			byLeader[leader] = append(byLeader[leader], tp)
			delete(rs.sessions, tp)
		case s.timedOut:
			delete(rs.sessions, tp) // nobody answered: stays offline until the next trigger
			c.log.Warn().Str("partition", tp.String()).Msg("unclean recovery timed out without an answer")
		}
	}
	for _, leader := range sortedKeys(byLeader) {
		tps := c.stillLeaderless(ls, byLeader[leader])
		if len(tps) == 0 {
			continue
		}
		failed, err := c.partitionsToOnline(ls, tps, election.Recover(leader))
		if err != nil {
			return err
		}
		c.recoveriesDone(len(tps) - len(failed))
	}
	c.elrMetrics.inProgress.Set(float64(len(rs.sessions)))
	return nil
}

// stillLeaderless drops partitions that got an online leader (or were
// deleted) while their replicas were asked.
func (c *Controller) stillLeaderless(ls *leaderState, tps []TopicPartition) []TopicPartition {
	var out []TopicPartition
	for _, tp := range tps {
		p := ls.cc.partition(tp)
		if p == nil || ls.cc.deleting[tp.Topic] || (p.lead != nil && election.LeaderOnline(ls.cc, tp, *p.lead)) {
			continue
		}
		out = append(out, tp)
	}
	return out
}

func sortedSessionKeys(m map[TopicPartition]*recoverySession) []TopicPartition {
	out := make([]TopicPartition, 0, len(m))
	for tp := range m {
		out = append(out, tp)
	}
	sortPartitions(out)
	return out
}

// recoveriesStarted and recoveriesDone keep the recovery metrics.
func (c *Controller) recoveriesStarted(n int) { c.elrMetrics.recoveries.Add(float64(n)) }

func (c *Controller) recoveriesDone(n int) {
	if n > 0 {
		c.elrMetrics.recovered.Add(float64(n))
	}
}
