package controller

import (
	"errors"
	"fmt"
	"testing"

	"github.com/rs/zerolog"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

func TestOpBatches(t *testing.T) {
	op := func(n int) zkadmin.Op { return zkadmin.SetOp("/p", make([]byte, n), 0) }
	cases := []struct {
		name  string
		ops   []zkadmin.Op
		max   int
		bytes int
		want  []int // batch sizes
	}{
		{"none", nil, 2, 1000, nil},
		{"by count", []zkadmin.Op{op(1), op(1), op(1), op(1), op(1)}, 2, 1000, []int{2, 2, 1}},
		{"by size", []zkadmin.Op{op(100), op(100), op(100)}, 10, 350, []int{2, 1}},
		{"an op larger than the budget goes alone", []zkadmin.Op{op(1), op(5000), op(1)}, 10, 1000, []int{1, 1, 1}},
	}
	for _, tc := range cases {
		got := opBatches(tc.ops, tc.max, tc.bytes)
		var sizes []int
		for _, b := range got {
			sizes = append(sizes, len(b))
		}
		if fmt.Sprint(sizes) != fmt.Sprint(tc.want) {
			t.Errorf("%s: batches %v, want %v", tc.name, sizes, tc.want)
		}
	}
}

// TestWriteWithFence: a fenced write of more topics than one multi holds
// chains the /brokers/topics version across its multis; a stale fence
// writes nothing; a topic that vanished fails alone.
func TestWriteWithFence(t *testing.T) {
	zk := connectZK(t, testChroot(t), "", 0)
	ctx := testCtx(t)
	if _, err := zk.Create(ctx, znodes.ControllerEpochPath, znodes.EncodeControllerEpoch(1), zkadmin.Persistent); err != nil {
		t.Fatal(err)
	}
	const n = 1100 // three multis of at most DefaultBatchOps
	var creates, sets []zkadmin.Op
	for i := range n {
		path := znodes.TopicPath(fmt.Sprintf("t%04d", i))
		creates = append(creates, zkadmin.CreateOp(path, []byte("{}"), zkadmin.Persistent))
		sets = append(sets, zkadmin.SetOp(path, []byte(`{"version":3,"partitions":{}}`), zkadmin.AnyVersion))
	}
	if _, err := zk.MultiBatched(ctx, creates, zkadmin.BatchOptions{}); err != nil {
		t.Fatal(err)
	}
	_, st, err := zk.Get(ctx, znodes.TopicsPath)
	if err != nil {
		t.Fatal(err)
	}
	c := &Controller{zk: zk, log: zerolog.Nop()}
	ls := &leaderState{ctx: ctx, zkVersion: 0}

	errs, err := c.writeWithFence(ls, sets, &writeFence{topics: true, topicsVersion: st.Version + 5, configVersion: -1})
	if err != nil || !errors.Is(errs[0], errLimitFenceLost) || !errors.Is(errs[n-1], errLimitFenceLost) {
		t.Fatalf("stale fence: %v %v", err, errs[0])
	}
	if _, s, _ := zk.Get(ctx, znodes.TopicPath("t0000")); s.Version != 0 {
		t.Fatal("a stale fence wrote")
	}

	if err := zk.Delete(ctx, znodes.TopicPath("t0700"), zkadmin.AnyVersion); err != nil {
		t.Fatal(err)
	}
	errs, err = c.writeWithFence(ls, sets, &writeFence{topics: true, topicsVersion: st.Version, configVersion: -1})
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range errs {
		if (i == 700) != (e != nil) {
			t.Fatalf("op %d: %v", i, e)
		}
	}
	if !errors.Is(errs[700], zkadmin.ErrNoNode) {
		t.Fatalf("vanished topic: %v", errs[700])
	}
	if _, s, _ := zk.Get(ctx, znodes.TopicsPath); s.Version != st.Version+3 {
		t.Fatalf("/brokers/topics version %d, want %d (one bump per multi)", s.Version, st.Version+3)
	}
}
