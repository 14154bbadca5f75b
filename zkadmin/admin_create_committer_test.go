package zkadmin

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// racingCommitter applies the Admin's multis itself, as a CreateCommitter
// must, and before the first one lets another session create one of the
// topics, as a concurrent creator would.
type racingCommitter struct {
	zk    *Client
	rival *Admin
	calls [][]PlannedTopic
}

func (c *racingCommitter) CommitCreates(ctx context.Context, ops []Op, topics []PlannedTopic) ([]OpResult, error) {
	c.calls = append(c.calls, slices.Clone(topics))
	if len(c.calls) == 1 {
		if _, err := c.rival.CreateTopic(ctx, CreateTopicRequest{Topic: topics[0].Name, Partitions: 1, ReplicationFactor: 1}); err != nil {
			return nil, err
		}
	}
	return c.zk.Multi(ctx, ops...)
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
