package controller

import (
	"errors"
	"fmt"

	"github.com/kzadmin/kzadmin/controller/election"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// stateUpdate is what a caller of updateStates decides for one partition
// from its current state.
type stateUpdate struct {
	// next is the new state: written when write is set, otherwise taken
	// as done without a write (the partition needed no change).
	next  election.LeaderAndIsr
	write bool
	// err fails the partition; next and write are then ignored.
	err error
	// skip leaves the partition out of both done and failed.
	skip bool
}

// updateStates is the read–decide–write loop Kafka runs for state changes
// that are not elections (an ISR removal, a leader-epoch bump): take the
// current states (see currentStates), let decide pick each new state,
// write them conditionally on the version read, in fenced multis, and
// retry the partitions whose znode changed meanwhile after reading them
// fresh, at most maxElectionRounds times. done holds the states to cache
// (written, with their new version, or unchanged); failed says why the
// others were not written. what names the operation in errors.
func (c *Controller) updateStates(ls *leaderState, tps []TopicPartition, what string,
	decide func(tp TopicPartition, cur *election.LeaderAndIsr) stateUpdate) (
	done map[TopicPartition]election.LeaderAndIsr, failed map[TopicPartition]error, err error) {
	done, failed = map[TopicPartition]election.LeaderAndIsr{}, map[TopicPartition]error{}
	for round := 0; len(tps) > 0; round++ {
		if round == maxElectionRounds {
			for _, tp := range tps {
				failed[tp] = fmt.Errorf("partition %s: state znode kept changing during %s", tp, what)
			}
			break
		}
		reads, err := c.currentStates(ls, tps, round == 0)
		if err != nil {
			return nil, nil, err
		}
		var ops []zkadmin.Op
		var writes []TopicPartition
		var states []election.LeaderAndIsr
		var unknown []stateRead
		for i, tp := range tps {
			if reads[i].err != nil {
				failed[tp] = reads[i].err
				continue
			}
			u := decide(tp, reads[i].lai)
			if u.skip {
				continue
			}
			if u.err == nil && !u.write {
				done[tp] = u.next
				continue
			}
			var data []byte
			if u.err == nil {
				data, u.err = encodeState(u.next, reads[i].unknown)
			}
			if u.err != nil {
				failed[tp] = u.err
				continue
			}
			ops = append(ops, zkadmin.SetOp(znodes.PartitionStatePath(tp.Topic, tp.Partition), data, u.next.PartitionEpoch))
			writes, states, unknown = append(writes, tp), append(states, u.next), append(unknown, reads[i])
		}
		res, err := c.fencedWrite(ls.ctx, ls, ops)
		if err != nil {
			return nil, nil, err
		}
		tps = nil
		for j, tp := range writes {
			switch {
			case errors.Is(res[j].Err, zkadmin.ErrBadVersion):
				tps = append(tps, tp)
			case res[j].Err != nil:
				failed[tp] = fmt.Errorf("write %s: %w", res[j].Path, res[j].Err)
			default:
				lai := states[j]
				lai.PartitionEpoch = res[j].Stat.Version
				ls.cc.partition(tp).unknown = unknown[j].unknown
				done[tp] = lai
			}
		}
	}
	return done, failed, nil
}
