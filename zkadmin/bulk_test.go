package zkadmin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
)

func TestGetManyOrderAndErrors(t *testing.T) {
	c := connect(t, Options{})
	ctx := testCtx(t)
	mustCreate(t, c, "/p", nil, Persistent)
	if _, err := c.MultiBatched(ctx, partitionOps(300), BatchOptions{}); err != nil {
		t.Fatal(err)
	}
	// Every third path is missing; the order is scrambled on purpose.
	var paths []string
	for i := 299; i >= 0; i-- {
		if i%3 == 0 {
			paths = append(paths, fmt.Sprintf("/p/missing-%d", i))
		} else {
			paths = append(paths, fmt.Sprintf("/p/%05d", i))
		}
	}
	for _, inFlight := range []int{0, 1, 7, 100, 1000} {
		res := c.GetMany(ctx, paths, inFlight)
		if len(res) != len(paths) {
			t.Fatalf("%d results", len(res))
		}
		for i, r := range res {
			if r.Path != paths[i] {
				t.Fatalf("inFlight %d: result %d is %s, want %s", inFlight, i, r.Path, paths[i])
			}
			if missing := i%3 == 2; missing != (r.Err != nil) {
				t.Fatalf("inFlight %d: %s: %v", inFlight, r.Path, r.Err)
			}
			if r.Err != nil {
				checkOpError(t, r.Err, ErrNoNode, "get", paths[i])
				continue
			}
			if string(r.Data) != `{"leader":1,"isr":[1,2,3]}` || r.Stat.Version != 0 {
				t.Fatalf("%s: %q %+v", r.Path, r.Data, r.Stat)
			}
		}
	}
	if res := c.GetMany(ctx, nil, 10); len(res) != 0 {
		t.Fatalf("no paths gave %v", res)
	}
}

func TestChildrenMany(t *testing.T) {
	c := connect(t, Options{})
	ctx := testCtx(t)
	var paths []string
	for i := range 20 {
		p := fmt.Sprintf("/brokers/topics/t%d/partitions", i)
		for j := range i % 4 {
			if _, err := c.CreateRecursive(ctx, fmt.Sprintf("%s/%d", p, j), nil, Persistent); err != nil {
				t.Fatal(err)
			}
		}
		paths = append(paths, p)
	}
	res := c.ChildrenMany(ctx, append(paths, "/nope"), 5)
	for i, r := range res[:20] {
		want := []string{"0", "1", "2"}[:i%4]
		if i%4 == 0 {
			if !errors.Is(r.Err, ErrNoNode) {
				t.Fatalf("%s: %v", r.Path, r.Err)
			}
			continue
		}
		slices.Sort(r.Children)
		if r.Err != nil || !slices.Equal(r.Children, want) || r.Stat.NumChildren != int32(len(want)) {
			t.Fatalf("%s: %v %+v %v", r.Path, r.Children, r.Stat, r.Err)
		}
	}
	if !errors.Is(res[20].Err, ErrNoNode) {
		t.Fatalf("/nope: %v", res[20].Err)
	}
}

func TestGetManyContextEnds(t *testing.T) {
	c := connect(t, Options{})
	ctx, cancel := context.WithCancel(testCtx(t))
	cancel()
	res := c.GetMany(ctx, []string{"/a", "/b", "/c"}, 2)
	for _, r := range res {
		if !errors.Is(r.Err, context.Canceled) {
			t.Fatalf("%s: %v", r.Path, r.Err)
		}
	}
}

func TestManyWithWatches(t *testing.T) {
	c := connect(t, Options{})
	ctx := testCtx(t)
	mustCreate(t, c, "/p", nil, Persistent)
	if _, err := c.MultiBatched(ctx, partitionOps(50), BatchOptions{}); err != nil {
		t.Fatal(err)
	}
	var paths []string
	for i := range 50 {
		paths = append(paths, fmt.Sprintf("/p/%05d", i))
	}
	res := c.GetManyW(ctx, append(paths, "/p/none"), 10)
	kids := c.ChildrenManyW(ctx, []string{"/p"}, 10)
	if res[50].Err == nil || res[50].Watch != nil || kids[0].Err != nil {
		t.Fatalf("missing: %+v; children: %v", res[50], kids[0].Err)
	}
	if _, err := c.Set(ctx, paths[17], []byte("x"), AnyVersion); err != nil {
		t.Fatal(err)
	}
	if ev := recv(t, res[17].Watch, waitTimeout); ev.Type != EventNodeDataChanged || ev.Path != paths[17] {
		t.Fatalf("event %v", ev)
	}
	if err := c.Delete(ctx, paths[3], AnyVersion); err != nil {
		t.Fatal(err)
	}
	if ev := recv(t, res[3].Watch, waitTimeout); ev.Type != EventNodeDeleted || ev.Path != paths[3] {
		t.Fatalf("event %v", ev)
	}
	if ev := recv(t, kids[0].Watch, waitTimeout); ev.Type != EventNodeChildrenChanged || ev.Path != "/p" {
		t.Fatalf("event %v", ev)
	}
	select {
	case ev := <-res[0].Watch:
		t.Fatalf("untouched znode fired %v", ev)
	default:
	}
}
