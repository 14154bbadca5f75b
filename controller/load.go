package controller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/kzadmin/kzadmin/controller/brokerchan"
	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// readBrokers lists /brokers/ids (arming the child watch) and reads every
// registration, pipelined, arming a data watch on each (BrokerModifications).
// The broker epoch is the registration's czxid. A registration that does
// not decode is logged and left out (a known broker keeps its last good
// registration): unlike Kafka, where one bad znode stops broker-change
// processing for the whole cluster, the others go on.
func (c *Controller) readBrokers(ctx context.Context, ls *leaderState) (map[int32]brokerchan.Broker, error) {
	names, err := ls.watches.children(ctx, c.zk, znodes.BrokerIDsPath)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", znodes.BrokerIDsPath, err)
	}
	var ids []int32
	var paths []string
	for _, name := range names {
		id, err := znodes.ParseBrokerID(name)
		if err != nil {
			c.log.Error().Err(err).Str("child", name).Msg("ignoring a child of /brokers/ids that is not a broker id")
			continue
		}
		if id == c.nodeID {
			c.log.Error().Int32("broker", id).Msg("a broker registered with the controller's node.id; ignoring it: " +
				"it would take itself for the controller")
			continue
		}
		ids, paths = append(ids, id), append(paths, znodes.BrokerIDPath(id))
	}
	out := make(map[int32]brokerchan.Broker, len(ids))
	for i, r := range ls.watches.getMany(ctx, c.zk, paths, c.inFlight) {
		if errors.Is(r.Err, zkadmin.ErrNoNode) {
			continue // gone since the listing; the next BrokerChange says so
		}
		if r.Err != nil {
			return nil, fmt.Errorf("read %s: %w", r.Path, r.Err)
		}
		reg, err := znodes.DecodeBrokerRegistration(ids[i], r.Data)
		if err != nil {
			c.log.Error().Err(err).Msg("ignoring a broker registration that does not decode")
			if old, ok := ls.cc.brokers[ids[i]]; ok && old.Epoch == r.Stat.Czxid {
				out[ids[i]] = old // rewritten badly in place: keep what we knew
			}
			continue
		}
		out[ids[i]] = brokerchan.Broker{ID: ids[i], Epoch: r.Stat.Czxid, Endpoints: reg.Endpoints, Rack: reg.Rack}
	}
	return out, nil
}

// readTopics reads the assignment znodes of names, pipelined, arming their
// data watches (PartitionModifications). Topics whose znode is gone or
// does not decode are left out (the latter with an error logged).
func (c *Controller) readTopics(ctx context.Context, ls *leaderState, names []string) (map[string]topicRead, error) {
	paths := make([]string, len(names))
	for i, n := range names {
		paths[i] = znodes.TopicPath(n)
	}
	out := make(map[string]topicRead, len(names))
	for i, r := range ls.watches.getMany(ctx, c.zk, paths, c.inFlight) {
		if errors.Is(r.Err, zkadmin.ErrNoNode) {
			continue
		}
		if r.Err != nil {
			return nil, fmt.Errorf("read %s: %w", r.Path, r.Err)
		}
		a, err := znodes.DecodeTopicAssignment(names[i], r.Data)
		if err != nil {
			c.log.Error().Err(err).Msg("ignoring a topic whose assignment does not decode")
			continue
		}
		out[names[i]] = topicRead{assignment: a, version: r.Stat.Version}
	}
	return out, nil
}

// topicRead is a topic assignment with its znode version.
type topicRead struct {
	assignment znodes.TopicAssignment
	version    int32
}

// stateRead is one partition state znode as read: lai is nil when the
// znode is missing or empty; err is set when it does not decode (or the
// read failed).
type stateRead struct {
	lai     *election.LeaderAndIsr
	unknown map[string]json.RawMessage
	err     error
}

// readStates reads the state znodes of tps, pipelined, without watches.
// A transient failure of the whole read is returned as err; per-partition
// problems are in the results.
func (c *Controller) readStates(ctx context.Context, tps []TopicPartition) ([]stateRead, error) {
	paths := make([]string, len(tps))
	for i, tp := range tps {
		paths[i] = znodes.PartitionStatePath(tp.Topic, tp.Partition)
	}
	out := make([]stateRead, len(tps))
	for i, r := range c.zk.GetMany(ctx, paths, c.inFlight) {
		switch {
		case errors.Is(r.Err, zkadmin.ErrNoNode) || (r.Err == nil && len(r.Data) == 0):
		case r.Err != nil && transient(r.Err):
			return nil, fmt.Errorf("read %s: %w", r.Path, r.Err)
		case r.Err != nil:
			out[i].err = fmt.Errorf("read %s: %w", r.Path, r.Err)
		default:
			s, err := znodes.DecodePartitionState(tps[i].Topic, tps[i].Partition, r.Data)
			if err != nil {
				out[i].err = err
				continue
			}
			l := leaderAndIsrFrom(s, r.Stat.Version)
			out[i].lai, out[i].unknown = &l, s.Unknown
		}
	}
	return out, nil
}

// leaderAndIsrFrom converts a state znode payload and its version.
func leaderAndIsrFrom(s znodes.PartitionState, version int32) election.LeaderAndIsr {
	return election.LeaderAndIsr{
		Leader:              s.Leader,
		LeaderEpoch:         s.LeaderEpoch,
		ISR:                 s.ISR,
		LeaderRecoveryState: election.LeaderRecoveryState(s.LeaderRecoveryState),
		PartitionEpoch:      version,
		ControllerEpoch:     s.ControllerEpoch,
		ELR:                 s.EligibleLeaderReplicas,
		LastKnownELR:        s.LastKnownELR,
		ELRMinISR:           s.ELRMinISR,
	}
}

// encodeState builds the state znode payload for l, keeping fields of the
// znode this package does not know.
func encodeState(l election.LeaderAndIsr, unknown map[string]json.RawMessage) ([]byte, error) {
	return znodes.PartitionState{
		Leader:                 l.Leader,
		LeaderEpoch:            l.LeaderEpoch,
		ISR:                    l.ISR,
		ControllerEpoch:        l.ControllerEpoch,
		LeaderRecoveryState:    znodes.LeaderRecoveryState(l.LeaderRecoveryState),
		EligibleLeaderReplicas: l.ELR,
		LastKnownELR:           l.LastKnownELR,
		ELRMinISR:              l.ELRMinISR,
		Unknown:                unknown,
	}.Encode()
}

// loadLeadership reads every partition's state znode into the context
// (step 5i of the failover). A znode that does not decode is reported with
// its path and the field at fault; its partition is left without
// leadership and marked so that it starts Offline, and the rest load.
func (c *Controller) loadLeadership(ctx context.Context, ls *leaderState) error {
	tps := ls.cc.sortedPartitions()
	reads, err := c.readStates(ctx, tps)
	if err != nil {
		return err
	}
	for i, tp := range tps {
		p := ls.cc.partition(tp)
		p.lead, p.unknown, p.stateErr = reads[i].lai, reads[i].unknown, reads[i].err
		if p.stateErr != nil {
			c.log.Error().Err(p.stateErr).Str("partition", tp.String()).
				Msg("partition state znode unreadable; the partition stays offline until it is fixed")
		}
	}
	return nil
}

// currentStates returns the partitions' current states for a decision.
// With fromCache (the first round of an election or ISR removal) and an
// IBP at which only the controller writes state znodes (2.7-IV2+: leaders
// send AlterPartition instead), the cached leadership stands in for a
// fresh read: every write is conditional on the cached version, so a
// znode changed behind the controller's back fails with BADVERSION and is
// then read fresh. This saves a read per partition, which dominates
// broker-failure handling. Partitions without cached leadership are read.
func (c *Controller) currentStates(ls *leaderState, tps []TopicPartition, fromCache bool) ([]stateRead, error) {
	if !fromCache || !c.ibp.AlterPartitionSupported() {
		return c.readStates(ls.ctx, tps)
	}
	out := make([]stateRead, len(tps))
	var missIdx []int
	var miss []TopicPartition
	for i, tp := range tps {
		p := ls.cc.partition(tp)
		if p == nil || p.lead == nil || p.stateErr != nil {
			missIdx, miss = append(missIdx, i), append(miss, tp)
			continue
		}
		l := p.lead.Clone()
		out[i] = stateRead{lai: &l, unknown: p.unknown}
	}
	if len(miss) == 0 {
		return out, nil
	}
	reads, err := c.readStates(ls.ctx, miss)
	if err != nil {
		return nil, err
	}
	for j, i := range missIdx {
		out[i] = reads[j]
	}
	return out, nil
}
