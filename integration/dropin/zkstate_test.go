package dropin

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/znodes"
)

// pstate is one partition state znode as ZooKeeper holds it, with its
// zkVersion, the partition epoch.
type pstate struct {
	znodes.PartitionState
	PartitionEpoch int32
}

func (s pstate) String() string {
	return fmt.Sprintf("leader %d epoch %d isr %v pepoch %d cepoch %d",
		s.Leader, s.LeaderEpoch, s.ISR, s.PartitionEpoch, s.ControllerEpoch)
}

// states reads the state znodes of the test topic.
func (h *harness) states(ctx context.Context) ([]pstate, error) {
	return h.statesOf(ctx, topic, partitions)
}

// statesOf reads the state znodes of partitions 0..n-1 of topic.
func (h *harness) statesOf(ctx context.Context, topic string, n int32) ([]pstate, error) {
	out := make([]pstate, n)
	for p := range n {
		data, stat, err := h.obs.Get(ctx, znodes.PartitionStatePath(topic, p))
		if err != nil {
			return nil, err
		}
		s, err := znodes.DecodePartitionState(topic, p, data)
		if err != nil {
			return nil, err
		}
		out[p] = pstate{PartitionState: s, PartitionEpoch: stat.Version}
	}
	return out, nil
}

// waitStates polls the state znodes until cond accepts them, and returns
// them.
func (h *harness) waitStates(t *testing.T, ctx context.Context, what string, timeout time.Duration,
	cond func([]pstate) error) []pstate {
	t.Helper()
	var last []pstate
	err := pollUntil(ctx, timeout, 10*time.Millisecond, func() error {
		st, err := h.states(ctx)
		if err != nil {
			return err
		}
		last = st
		return cond(st)
	})
	if err != nil {
		t.Fatalf("%s: %v\n%s", what, err, formatStates(last))
	}
	return last
}

func formatStates(st []pstate) string {
	var s string
	for p, ps := range st {
		s += fmt.Sprintf("  %s-%d: %s\n", topic, p, ps)
	}
	return s
}

// ledBy lists the partitions whose leader is id.
func ledBy(st []pstate, id int32) []int32 {
	var out []int32
	for p, s := range st {
		if s.Leader == id {
			out = append(out, int32(p))
		}
	}
	return out
}

// allInSync is the condition "every partition has a live leader and all
// replicas in its ISR".
func allInSync(st []pstate) error {
	for p, s := range st {
		if s.Leader < 0 || len(s.ISR) != replicationFactor {
			return fmt.Errorf("%s-%d: %s", topic, p, s)
		}
	}
	return nil
}

// preferredLeaders is the condition "every partition is led by its first
// replica", given the assignment.
func preferredLeaders(assignment [][]int32) func([]pstate) error {
	return func(st []pstate) error {
		for p, s := range st {
			if s.Leader != assignment[p][0] {
				return fmt.Errorf("%s-%d led by %d, preferred %d", topic, p, s.Leader, assignment[p][0])
			}
		}
		return nil
	}
}

// notIn is the condition "id leads nothing and is in no ISR".
func notIn(id int32) func([]pstate) error {
	return func(st []pstate) error {
		for p, s := range st {
			if s.Leader == id || slices.Contains(s.ISR, id) {
				return fmt.Errorf("%s-%d still has %d: %s", topic, p, id, s)
			}
		}
		return nil
	}
}
