package zkadmin

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/kzadmin/kzadmin/znodes"
)

// racingCommitter applies the Admin's multis itself, as a CreateCommitter
// must, and before the first one lets another session create one of the
// topics, as a concurrent creator would.
type racingCommitter struct {
	zk    *Client
	rival *Admin
	calls [][]PlannedTopic
}

func (c *racingCommitter) CommitCreates(ctx context.Context, multis []CreateMulti) []MultiOutcome {
	for _, m := range multis {
		c.calls = append(c.calls, slices.Clone(m.Topics))
	}
	if len(c.calls) == len(multis) {
		name := multis[0].Topics[0].Name
		if _, err := c.rival.CreateTopic(ctx, CreateTopicRequest{Topic: name, Partitions: 1, ReplicationFactor: 1}); err != nil {
			return failedOutcomes(len(multis), err)
		}
	}
	return applyInOrder(ctx, c.zk, multis)
}

// applyInOrder applies multis as a CreateCommitter must, pipelined.
func applyInOrder(ctx context.Context, zk *Client, multis []CreateMulti) []MultiOutcome {
	return Pipeline(len(multis), DefaultBatchInFlight, func(i int) *PendingMulti {
		return zk.MultiAsync(ctx, multis[i].Ops...)
	})
}

// failedOutcomes is n outcomes, each err.
func failedOutcomes(n int, err error) []MultiOutcome {
	out := make([]MultiOutcome, n)
	for i := range out {
		out[i].Err = err
	}
	return out
}

// TestCreateTopicsThroughCommitter: the committer gets each multi with the
// topics it creates (names, ids, assignments as planned), and a race it
// loses is re-planned as the Admin's own would be: the topic the rival
// created answers TopicExists, the other is created on the next round.
func TestCreateTopicsThroughCommitter(t *testing.T) {
	e := newAdminEnv(t, []string{"a", "b", "c"}, nil)
	com := &racingCommitter{zk: e.zk, rival: e.another(nil)}
	admin := NewAdmin(e.zk, AdminOptions{Committer: com})
	out, err := admin.CreateTopics(e.ctx, []CreateTopicRequest{
		{Topic: "raced", Partitions: 2, ReplicationFactor: 2},
		{Topic: "calm", Assignment: [][]int32{{1, 2}, {2, 3}, {3, 1}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var ae *AdminError
	if !errors.As(out[0].Err, &ae) || ae.Kind != KindTopicExists {
		t.Fatalf("raced: %v, want TopicExists", out[0].Err)
	}
	if out[1].Err != nil || !slices.EqualFunc(out[1].Result.Assignment, [][]int32{{1, 2}, {2, 3}, {3, 1}}, slices.Equal) {
		t.Fatalf("calm: %+v", out[1])
	}
	if len(com.calls) != 2 || len(com.calls[0]) != 2 || len(com.calls[1]) != 1 {
		t.Fatalf("committer calls %+v, want both topics then calm alone", com.calls)
	}
	last := com.calls[1][0]
	if last.Name != "calm" || last.ID != out[1].Result.TopicID || len(last.Assignment) != 3 {
		t.Fatalf("committer saw %+v, created %+v", last, out[1].Result)
	}
	if ok, _, err := e.zk.Exists(e.ctx, "/brokers/topics/calm"); err != nil || !ok {
		t.Fatalf("calm not written: %v %v", ok, err)
	}
}

// sizingCommitter applies the multis and records, for each, its size with
// the partition and state znodes the controller would append.
type sizingCommitter struct {
	zk    *Client
	sizes []int
	ops   []int
}

func (c *sizingCommitter) CommitCreates(ctx context.Context, multis []CreateMulti) []MultiOutcome {
	for _, m := range multis {
		all := slices.Clone(m.Ops)
		for _, t := range m.Topics {
			all = append(all, CreateOp(znodes.PartitionsPath(t.Name), nil, Persistent))
			for p, rs := range t.Assignment {
				st, err := znodes.PartitionState{Leader: rs[0], ISR: rs, ControllerEpoch: 1}.Encode()
				if err != nil {
					return failedOutcomes(len(multis), err)
				}
				all = append(all, CreateOp(znodes.PartitionPath(t.Name, int32(p)), nil, Persistent),
					CreateOp(znodes.PartitionStatePath(t.Name, int32(p)), st, Persistent))
			}
		}
		c.sizes = append(c.sizes, c.zk.MultiSize(all))
		c.ops = append(c.ops, len(all))
	}
	return applyInOrder(ctx, c.zk, multis)
}

// TestCreateChunksLeaveRoomForTheCommitter: with a committer, a batch is
// cut so that each multi, with the znodes the controller appends, stays
// within DefaultBatchBytes (a larger one would take the slow path).
func TestCreateChunksLeaveRoomForTheCommitter(t *testing.T) {
	e := newAdminEnv(t, []string{"", "", ""}, nil)
	com := &sizingCommitter{zk: e.zk}
	admin := NewAdmin(e.zk, AdminOptions{Committer: com})
	for _, o := range e.createBatchWith(admin, batchReqs("wide", 400, func(int) int32 { return 10 }, func(int) int16 { return 3 })) {
		if o.Err != nil {
			t.Fatal(o.Err)
		}
	}
	if len(com.sizes) < 2 {
		t.Fatalf("%d multis for 400 topics of 10 partitions: the committer's znodes were not counted", len(com.sizes))
	}
	for i, n := range com.sizes {
		if n > DefaultBatchBytes {
			t.Errorf("multi %d: %d bytes with the committer's znodes, over %d", i, n, DefaultBatchBytes)
		}
		if com.ops[i] > DefaultBatchOps+3 {
			t.Errorf("multi %d: %d ops with the committer's znodes, over %d and the chain's", i, com.ops[i], DefaultBatchOps)
		}
	}
}
