package zkadmin

import (
	"errors"
	"regexp"
	"strconv"
	"testing"
)

func TestMultiSuccess(t *testing.T) {
	c := connect(t, Options{})
	ctx := testCtx(t)
	mustCreate(t, c, "/s", []byte("0"), Persistent)
	mustCreate(t, c, "/d", nil, Persistent)
	mustCreate(t, c, "/seq", nil, Persistent)

	res, err := c.Multi(ctx,
		CheckOp("/s", 0),
		CreateOp("/a", []byte("a"), Persistent),
		CreateOp("/a/b", nil, Persistent), // depends on the op before it
		CreateOp("/seq/n-", nil, PersistentSequential),
		SetOp("/s", []byte("1"), 0),
		DeleteOp("/d", 0),
	)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 6 {
		t.Fatalf("%d results", len(res))
	}
	for i, r := range res {
		if r.Err != nil {
			t.Errorf("op %d: %v", i, r.Err)
		}
	}
	if res[1].Path != "/a" || res[2].Path != "/a/b" {
		t.Errorf("create paths %q %q", res[1].Path, res[2].Path)
	}
	if !regexp.MustCompile(`^/seq/n-\d{10}$`).MatchString(res[3].Path) {
		t.Errorf("sequential path %q (chroot not stripped?)", res[3].Path)
	}
	if res[4].Stat.Version != 1 {
		t.Errorf("set stat %+v", res[4].Stat)
	}
	if ok, _, _ := c.Exists(ctx, "/d"); ok {
		t.Error("/d not deleted")
	}
	if res, err := c.Multi(ctx); res != nil || err != nil {
		t.Errorf("empty multi: %v %v", res, err)
	}
}

func TestMultiFailureReportsOp(t *testing.T) {
	c := connect(t, Options{})
	ctx := testCtx(t)
	mustCreate(t, c, "/exists", nil, Persistent)
	mustCreate(t, c, "/v", []byte("x"), Persistent)

	tests := []struct {
		name  string
		ops   []Op
		index int
		want  error
	}{
		{"node exists", []Op{CreateOp("/new1", nil, Persistent), CreateOp("/exists", nil, Persistent), CreateOp("/new2", nil, Persistent)}, 1, ErrNodeExists},
		{"bad version", []Op{CreateOp("/new1", nil, Persistent), SetOp("/v", nil, 5)}, 1, ErrBadVersion},
		{"check fails first", []Op{CheckOp("/v", 9), CreateOp("/new1", nil, Persistent)}, 0, ErrBadVersion},
		{"no node", []Op{CreateOp("/new1", nil, Persistent), DeleteOp("/nope", AnyVersion), CreateOp("/new2", nil, Persistent)}, 1, ErrNoNode},
		{"not empty", []Op{CreateOp("/exists/kid", nil, Persistent), DeleteOp("/exists", AnyVersion)}, 1, ErrNotEmpty},
		{"invalid path", []Op{CreateOp("/new1", nil, Persistent), CreateOp("bad", nil, Persistent)}, 1, ErrInvalidPath},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := c.Multi(ctx, tt.ops...)
			var me *MultiError
			if !errors.As(err, &me) || me.Index != tt.index || !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want op %d failing with %v", err, tt.index, tt.want)
			}
			if me.Op.Path != tt.ops[tt.index].Path {
				t.Fatalf("MultiError.Op = %v", me.Op)
			}
			for i, r := range res {
				want := ErrRolledBack
				if i == tt.index {
					want = tt.want
				}
				if !errors.Is(r.Err, want) {
					t.Errorf("result %d: %v, want %v", i, r.Err, want)
				}
			}
			for _, p := range []string{"/new1", "/new2", "/exists/kid"} {
				if ok, _, _ := c.Exists(ctx, p); ok {
					t.Fatalf("%s applied by a failed multi", p)
				}
			}
		})
	}
}

// setupEpoch creates /controller_epoch as the first election does and
// returns its zkVersion.
func setupEpoch(t *testing.T, c *Client) int32 {
	t.Helper()
	ctx := testCtx(t)
	mustCreate(t, c, ControllerEpochPath, []byte("0"), Persistent)
	// The election multi: /controller plus the epoch bump, whose returned
	// Stat.Version is the epoch zkVersion.
	res, err := c.Multi(ctx,
		CreateOp("/controller", []byte(`{"version":2,"brokerid":1}`), Ephemeral),
		SetOp(ControllerEpochPath, []byte("1"), 0))
	if err != nil {
		t.Fatal(err)
	}
	return res[1].Stat.Version
}

func TestFencedMulti(t *testing.T) {
	c := connect(t, Options{})
	rival := connect(t, Options{Chroot: c.Chroot()})
	ctx := testCtx(t)
	v := setupEpoch(t, c)
	if v != 1 {
		t.Fatalf("epoch zkVersion %d, want 1", v)
	}

	res, err := c.FencedMulti(ctx, v,
		CreateOp("/brokers", nil, Persistent),
		CreateOp("/brokers/seq-", nil, PersistentSequential))
	if err != nil || len(res) != 2 || res[0].Path != "/brokers" {
		t.Fatalf("fenced multi with the right version: %+v, %v", res, err)
	}

	// The inner op fails on its own: a normal error at its own index.
	_, err = c.FencedMulti(ctx, v, CreateOp("/x", nil, Persistent), CreateOp("/brokers", nil, Persistent))
	var me *MultiError
	if !errors.As(err, &me) || me.Index != 1 || !errors.Is(err, ErrNodeExists) || errors.Is(err, ErrControllerMoved) {
		t.Fatalf("inner failure: %v", err)
	}

	// Another controller is elected: it bumps /controller_epoch.
	if _, err := rival.Set(ctx, ControllerEpochPath, []byte("2"), v); err != nil {
		t.Fatal(err)
	}
	res, err = c.FencedMulti(ctx, v, CreateOp("/stale", nil, Persistent), DeleteOp("/brokers", AnyVersion))
	if !errors.Is(err, ErrControllerMoved) || !errors.As(err, &me) || me.Index != -1 {
		t.Fatalf("stale controller: %v", err)
	}
	for i, r := range res {
		if !errors.Is(r.Err, ErrRolledBack) {
			t.Errorf("result %d: %v", i, r.Err)
		}
	}
	if ok, _, _ := c.Exists(ctx, "/stale"); ok {
		t.Fatal("a stale controller wrote")
	}
	if !regexp.MustCompile(`controller moved.*expected zkVersion ` + strconv.Itoa(int(v))).MatchString(err.Error()) {
		t.Errorf("message: %v", err)
	}

	// Without /controller_epoch the check fails with NONODE, as in Kafka.
	if err := rival.Delete(ctx, ControllerEpochPath, AnyVersion); err != nil {
		t.Fatal(err)
	}
	_, err = c.FencedMulti(ctx, v, CreateOp("/stale", nil, Persistent))
	if !errors.Is(err, ErrNoNode) || errors.Is(err, ErrControllerMoved) {
		t.Fatalf("missing epoch znode: %v", err)
	}
}
