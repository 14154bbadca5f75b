package zkadmin

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/integration/netcut"
	"github.com/kzadmin/kzadmin/znodes"
)

// chainRecorder applies each round's multis pipelined, records them and
// their outcomes, and can run a step between the first multi of the first
// round and the rest, sent then one at a time.
type chainRecorder struct {
	sizingCommitter
	between  func(ctx context.Context)
	rounds   [][]CreateMulti
	outcomes [][]MultiOutcome
}

func (c *chainRecorder) CommitCreates(ctx context.Context, multis []CreateMulti) []MultiOutcome {
	c.rounds = append(c.rounds, multis)
	var out []MultiOutcome
	if c.between != nil && len(c.rounds) == 1 {
		out = applyInOrder(ctx, c.zk, multis[:1])
		c.between(ctx)
		for _, m := range multis[1:] {
			res, err := c.zk.Multi(ctx, m.Ops...)
			out = append(out, MultiOutcome{Res: res, Err: err})
		}
	} else {
		out = c.sizingCommitter.CommitCreates(ctx, multis)
	}
	c.outcomes = append(c.outcomes, out)
	return out
}

// TestCreateRoundChainsItsMultis: a round of several multis chains them
// with a marker of its own, created by the first, bumped by each one
// after, deleted by the last, and leaves none behind.
func TestCreateRoundChainsItsMultis(t *testing.T) {
	e := newAdminEnv(t, []string{"", "", ""}, nil)
	com := &chainRecorder{sizingCommitter: sizingCommitter{zk: e.zk}}
	admin := NewAdmin(e.zk, AdminOptions{Committer: com})
	for _, o := range e.createBatchWith(admin, batchReqs("chained", 100, func(int) int32 { return 10 }, func(int) int16 { return 3 })) {
		if o.Err != nil {
			t.Fatal(o.Err)
		}
	}
	if len(com.rounds) != 1 || len(com.rounds[0]) < 3 {
		t.Fatalf("%d rounds, first of %d multis: want one round of at least 3", len(com.rounds), len(com.rounds[0]))
	}
	multis := com.rounds[0]
	var marker string
	for _, o := range multis[0].Ops {
		if o.Kind == OpCreate && strings.HasPrefix(o.Path, createRoundsPath+"/") {
			marker = o.Path
			if o.Mode != Ephemeral {
				t.Errorf("marker %s is %v, want ephemeral", o.Path, o.Mode)
			}
		}
	}
	if marker == "" {
		t.Fatalf("the first multi creates no marker: %v", multis[0].Ops)
	}
	for i, m := range multis[1:] {
		i++
		want := SetOp(marker, nil, int32(i-1))
		if i == len(multis)-1 {
			want = DeleteOp(marker, int32(i-1))
		}
		if !containsOp(m.Ops, want) {
			t.Errorf("multi %d lacks %v at version %d", i, want, want.Version)
		}
		// Each fence expects the version the multi before it leaves.
		if fence := multis[0].Ops[0]; !isFence(m.Ops[0], fence.Version+int32(i)) {
			t.Errorf("multi %d starts with %v at version %d, want the fence at %d", i, m.Ops[0], m.Ops[0].Version, fence.Version+int32(i))
		}
	}
	left, _, err := e.zk.Children(e.ctx, createRoundsPath)
	if err != nil || len(left) != 0 {
		t.Fatalf("markers left: %v %v", left, err)
	}
}

// TestCreateChainStopsAfterAFailedMulti: when a multi of a round fails
// and another writer then moves the fence by one, the multi after the
// failed one finds the version it expects, but the marker stops it; the
// topics are planned again and created by the next round, and no marker
// is left.
func TestCreateChainStopsAfterAFailedMulti(t *testing.T) {
	e := newAdminEnv(t, []string{"", "", ""}, nil)
	com := &chainRecorder{sizingCommitter: sizingCommitter{zk: e.zk}}
	com.between = func(ctx context.Context) {
		// A topic of the second multi appears (written as Kafka's tools
		// do, without the fence), then another writer of ours bumps the
		// fence once.
		second := com.rounds[0][1].Topics[0].Name
		data, err := znodes.TopicAssignment{Partitions: map[int32][]int32{0: {1}}}.Encode()
		if err == nil {
			_, err = e.zk.Create(ctx, znodes.TopicPath(second), data, Persistent)
		}
		if err == nil {
			_, err = e.zk.Set(ctx, znodes.TopicsPath, nil, AnyVersion)
		}
		if err != nil {
			t.Errorf("rival writes: %v", err)
		}
	}
	admin := NewAdmin(e.zk, AdminOptions{Committer: com})
	out, err := admin.CreateTopics(e.ctx, batchReqs("chained", 100, func(int) int32 { return 10 }, func(int) int16 { return 3 }))
	if err != nil {
		t.Fatal(err)
	}
	first := com.outcomes[0]
	if len(first) < 3 || first[0].Err != nil || first[1].Err == nil {
		t.Fatalf("first round's outcomes: %+v", first)
	}
	if first[2].Err == nil || !errors.Is(first[2].Err, ErrBadVersion) {
		t.Fatalf("the multi after the failed one: %v, want a bad version (the marker)", first[2].Err)
	}
	// The third multi's fence expected exactly the version the rival's
	// bump made up: only the marker told the failure apart.
	if v0 := com.rounds[0][0].Ops[0].Version; !isFence(com.rounds[0][2].Ops[0], v0+2) {
		t.Fatalf("third multi starts with %v at version %d, want the fence at %d", com.rounds[0][2].Ops[0],
			com.rounds[0][2].Ops[0].Version, v0+2)
	}
	second := com.rounds[0][1].Topics[0].Name
	for _, o := range out {
		switch {
		case o.Result != nil:
		case o.Err != nil && strings.Contains(o.Err.Error(), second):
			var ae *AdminError
			if !errors.As(o.Err, &ae) || ae.Kind != KindTopicExists {
				t.Errorf("%s: %v, want TopicExists", second, o.Err)
			}
		default:
			t.Errorf("outcome %+v", o)
		}
	}
	if len(com.rounds) != 2 {
		t.Errorf("%d rounds, want the failed multis planned again once", len(com.rounds))
	}
	left, _, err := e.zk.Children(e.ctx, createRoundsPath)
	if err != nil || len(left) != 0 {
		t.Fatalf("markers left: %v %v", left, err)
	}
}

// isFence reports whether o is the partition-limit fence at version.
func isFence(o Op, version int32) bool {
	return o.Kind == OpSet && o.Path == znodes.TopicsPath && o.Version == version
}

func containsOp(ops []Op, want Op) bool {
	for _, o := range ops {
		if o.Kind == want.Kind && o.Path == want.Path && o.Version == want.Version {
			return true
		}
	}
	return false
}

// cuttingCommitter sends a round's first multi and waits for it, sends the
// rest pipelined, and cuts the connection while they are in flight; it
// lets connections through again before it answers.
type cuttingCommitter struct {
	zk       *Client
	proxy    *netcut.Proxy
	outcomes [][]MultiOutcome
}

func (c *cuttingCommitter) CommitCreates(ctx context.Context, multis []CreateMulti) []MultiOutcome {
	out := make([]MultiOutcome, len(multis))
	out[0].Res, out[0].Err = c.zk.Multi(ctx, multis[0].Ops...)
	pending := make([]*PendingMulti, len(multis))
	for i := 1; i < len(multis) && out[0].Err == nil; i++ {
		pending[i] = c.zk.MultiAsync(ctx, multis[i].Ops...)
	}
	if len(c.outcomes) == 0 {
		c.proxy.Cut()
	}
	for i, p := range pending {
		if p != nil {
			out[i].Res, out[i].Err = p.Wait()
		} else if i > 0 {
			out[i].Err = ErrNotAttempted
		}
	}
	c.proxy.Heal()
	c.outcomes = append(c.outcomes, out)
	return out
}

// TestCreateRoundCutMidwayAnswersWhatLanded: the connection drops while a
// round's multis are in flight. Whatever landed is answered as created
// (confirmed by its id), whatever did not is not, and no chain marker is
// left.
func TestCreateRoundCutMidwayAnswersWhatLanded(t *testing.T) {
	e := newAdminEnv(t, []string{"", "", ""}, nil)
	proxy := netcut.New(t, env.server.Addr())
	zk := connect(t, Options{Servers: []string{proxy.Addr()}, Chroot: e.chroot, SessionTimeout: 10 * time.Second})
	com := &cuttingCommitter{zk: zk, proxy: proxy}
	admin := NewAdmin(zk, AdminOptions{Committer: com})
	reqs := batchReqs("cut", 100, func(int) int32 { return 10 }, func(int) int16 { return 3 })
	out, _ := admin.CreateTopics(e.ctx, reqs)
	if len(com.outcomes) == 0 || len(com.outcomes[0]) < 3 {
		t.Fatalf("rounds %d: want a first round of at least 3 multis", len(com.outcomes))
	}
	created := 0
	for i, o := range out {
		data, _, err := e.zk.Get(e.ctx, znodes.TopicPath(reqs[i].Topic))
		exists := err == nil
		if err != nil && !errors.Is(err, ErrNoNode) {
			t.Fatal(err)
		}
		switch {
		case o.Result != nil:
			created++
			a, err := znodes.DecodeTopicAssignment(reqs[i].Topic, data)
			if !exists || err != nil || a.TopicID != o.Result.TopicID {
				t.Errorf("%s answered created (id %v), znode %v %v", reqs[i].Topic, o.Result.TopicID, exists, err)
			}
		case exists:
			t.Errorf("%s answered %v, but it was written", reqs[i].Topic, o.Err)
		}
	}
	if created == 0 {
		t.Error("nothing answered created: the first multi was answered before the cut")
	}
	// The multis land in order, and none after one that did not: what
	// was created is the first topics of the request.
	for i, o := range out {
		if (o.Result != nil) != (i < created) {
			t.Fatalf("topic %d of %d created: %v; the created ones are not a prefix", i, created, o.Result != nil)
		}
	}
	left, _, err := e.zk.Children(e.ctx, createRoundsPath)
	if err != nil || len(left) != 0 {
		t.Fatalf("markers left: %v %v", left, err)
	}
	t.Logf("%d of %d topics created; outcomes of the cut round: %v", created, len(reqs), errorsOf(com.outcomes[0]))
}

func errorsOf(out []MultiOutcome) []error {
	errs := make([]error, len(out))
	for i, o := range out {
		errs[i] = o.Err
	}
	return errs
}
