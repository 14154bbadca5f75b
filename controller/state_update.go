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
		w := decideStateWrites(tps, reads, decide, done, failed)
		res, err := c.fencedWrite(ls.ctx, ls, w.ops)
		if err != nil {
			return nil, nil, err
		}
		tps = w.settle(ls.cc, res, done, failed)
	}
	return done, failed, nil
}

// stateWrites are the conditional writes of one round of updateStates:
// ops[i] writes states[i] for tps[i], read as reads[i].
type stateWrites struct {
	ops    []zkadmin.Op
	tps    []TopicPartition
	states []election.LeaderAndIsr
	reads  []stateRead
}

// decideStateWrites lets decide pick each partition's next state from its
// read: unchanged ones go to done, refusals and unreadable states to
// failed, and the rest become writes at the version read.
func decideStateWrites(tps []TopicPartition, reads []stateRead, decide func(TopicPartition, *election.LeaderAndIsr) stateUpdate,
	done map[TopicPartition]election.LeaderAndIsr, failed map[TopicPartition]error) stateWrites {
	var w stateWrites
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
		w.ops = append(w.ops, zkadmin.SetOp(znodes.PartitionStatePath(tp.Topic, tp.Partition), data, u.next.PartitionEpoch))
		w.tps, w.states, w.reads = append(w.tps, tp), append(w.states, u.next), append(w.reads, reads[i])
	}
	return w
}

// settle records the writes' results: a write done goes to done with its
// new version (the unknown fields kept go to the context), one refused
// for its version is returned to be read and decided again, and any other
// failure goes to failed.
func (w stateWrites) settle(cc *clusterContext, res []zkadmin.OpResult, done map[TopicPartition]election.LeaderAndIsr,
	failed map[TopicPartition]error) (again []TopicPartition) {
	for j, tp := range w.tps {
		switch {
		case errors.Is(res[j].Err, zkadmin.ErrBadVersion):
			again = append(again, tp)
		case res[j].Err != nil:
			failed[tp] = fmt.Errorf("write %s: %w", res[j].Path, res[j].Err)
		default:
			lai := w.states[j]
			lai.PartitionEpoch = res[j].Stat.Version
			cc.partition(tp).unknown = w.reads[j].unknown
			done[tp] = lai
		}
	}
	return again
}
