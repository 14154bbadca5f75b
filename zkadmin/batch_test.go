package zkadmin

import (
	"errors"
	"fmt"
	"testing"
)

func partitionOps(n int) []Op {
	ops := make([]Op, n)
	for i := range ops {
		ops[i] = CreateOp(fmt.Sprintf("/p/%05d", i), []byte(`{"leader":1,"isr":[1,2,3]}`), Persistent)
	}
	return ops
}

func TestMultiBatched(t *testing.T) {
	c := connect(t, Options{})
	ctx := testCtx(t)
	mustCreate(t, c, "/p", nil, Persistent)
	ops := partitionOps(1050)
	res, err := c.MultiBatched(ctx, ops, BatchOptions{MaxOps: 100})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if r.Err != nil || r.Path != ops[i].Path {
			t.Fatalf("result %d: %+v", i, r)
		}
	}
	_, st, _ := c.Get(ctx, "/p")
	if st.NumChildren != 1050 {
		t.Fatalf("%d children", st.NumChildren)
	}
}

func TestMultiBatchedPartialFailure(t *testing.T) {
	c := connect(t, Options{})
	ctx := testCtx(t)
	mustCreate(t, c, "/p", nil, Persistent)
	mustCreate(t, c, "/p/00150", nil, Persistent) // breaks batch [100, 200)
	mustCreate(t, c, "/p/00420", nil, Persistent) // breaks batch [400, 500)
	ops := partitionOps(500)
	res, err := c.MultiBatched(ctx, ops, BatchOptions{MaxOps: 100, MaxInFlight: 3})
	if !errors.Is(err, ErrNodeExists) {
		t.Fatalf("err = %v", err)
	}
	failedAt := map[int]bool{}
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var me *MultiError
		if !errors.As(e, &me) {
			t.Fatalf("joined error %v is not a *MultiError", e)
		}
		failedAt[me.Index] = true
	}
	if len(failedAt) != 2 || !failedAt[150] || !failedAt[420] {
		t.Fatalf("failed indexes %v, want 150 and 420", failedAt)
	}
	for i, r := range res {
		inFailed := (i >= 100 && i < 200) || i >= 400
		switch {
		case i == 150 || i == 420:
			if !errors.Is(r.Err, ErrNodeExists) {
				t.Fatalf("result %d: %v", i, r.Err)
			}
		case inFailed:
			if !errors.Is(r.Err, ErrRolledBack) {
				t.Fatalf("result %d: %v", i, r.Err)
			}
		case r.Err != nil:
			t.Fatalf("result %d: %v", i, r.Err)
		}
	}
	_, st, _ := c.Get(ctx, "/p")
	if st.NumChildren != 300+2 {
		t.Fatalf("%d children, want the 3 good batches plus the 2 pre-existing", st.NumChildren)
	}
}

func TestMultiBatchedLargeData(t *testing.T) {
	c := connect(t, Options{})
	ctx := testCtx(t)
	mustCreate(t, c, "/big", nil, Persistent)
	// 30 × 200 KiB = 6 MB: one multi would be refused (and would cost the
	// connection); the byte bound splits it.
	ops := make([]Op, 30)
	for i := range ops {
		ops[i] = CreateOp(fmt.Sprintf("/big/%d", i), make([]byte, 200<<10), Persistent)
	}
	if _, err := c.MultiBatched(ctx, ops, BatchOptions{MaxInFlight: 2}); err != nil {
		t.Fatal(err)
	}
	if _, st, _ := c.Get(ctx, "/big"); st.NumChildren != 30 {
		t.Fatalf("%d children", st.NumChildren)
	}
}

func TestMultiBatchedFenced(t *testing.T) {
	c := connect(t, Options{})
	rival := connect(t, Options{Chroot: c.Chroot()})
	ctx := testCtx(t)
	v := setupEpoch(t, c)
	mustCreate(t, c, "/p", nil, Persistent)

	res, err := c.MultiBatched(ctx, partitionOps(250), BatchOptions{MaxOps: 100, Fenced: true, EpochZkVersion: v})
	if err != nil || len(res) != 250 {
		t.Fatalf("fenced batched: %d results, %v", len(res), err)
	}
	if _, err := rival.Set(ctx, ControllerEpochPath, []byte("2"), AnyVersion); err != nil {
		t.Fatal(err)
	}
	ops := partitionOps(500)[250:]
	res, err = c.MultiBatched(ctx, ops, BatchOptions{MaxOps: 50, MaxInFlight: 1, Fenced: true, EpochZkVersion: v})
	if !errors.Is(err, ErrControllerMoved) {
		t.Fatalf("err = %v", err)
	}
	// With one batch in flight, the first failure stops the rest.
	for i, r := range res {
		want := ErrNotAttempted
		if i < 50 {
			want = ErrRolledBack
		}
		if !errors.Is(r.Err, want) {
			t.Fatalf("result %d: %v, want %v", i, r.Err, want)
		}
	}
	if _, st, _ := c.Get(ctx, "/p"); st.NumChildren != 250 {
		t.Fatalf("stale controller wrote: %d children", st.NumChildren)
	}
}

func TestMultiBatchedStopOnError(t *testing.T) {
	c := connect(t, Options{})
	ctx := testCtx(t)
	ops := []Op{CreateOp("/a", nil, Persistent), CreateOp("/a", nil, Persistent), CreateOp("/b", nil, Persistent)}
	res, err := c.MultiBatched(ctx, ops, BatchOptions{MaxOps: 1, MaxInFlight: 1, StopOnError: true})
	if !errors.Is(err, ErrNodeExists) || res[0].Err != nil || !errors.Is(res[2].Err, ErrNotAttempted) {
		t.Fatalf("results %+v, err %v", res, err)
	}
	var me *MultiError
	if !errors.As(err, &me) || me.Index != 1 {
		t.Fatalf("err %v", err)
	}
}
