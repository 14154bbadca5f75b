package zkadmin

import (
	"bytes"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestConnectCreatesChroot(t *testing.T) {
	root := connect(t, Options{Chroot: "/"})
	chrootPath := testChroot(t) + "/deep/kafka"
	c := connect(t, Options{Chroot: chrootPath})
	ctx := testCtx(t)

	if c.Chroot() != chrootPath {
		t.Fatalf("Chroot() = %q", c.Chroot())
	}
	data, _, err := root.Get(ctx, chrootPath)
	if err != nil {
		t.Fatalf("chroot %s not created: %v", chrootPath, err)
	}
	if data != nil {
		t.Fatalf("chroot data = %q, want null", data)
	}
	if _, err := c.Create(ctx, "/brokers", nil, Persistent); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := root.Exists(ctx, chrootPath+"/brokers"); err != nil || !ok {
		t.Fatalf("created /brokers not under chroot: %v %v", ok, err)
	}
	// "/" is the chroot itself.
	kids, _, err := c.Children(ctx, "/")
	if err != nil || !slices.Equal(kids, []string{"brokers"}) {
		t.Fatalf("children of / = %v, %v", kids, err)
	}
	// Connecting again to an existing chroot is fine.
	connect(t, Options{Chroot: chrootPath})
}

func TestChrootIsolation(t *testing.T) {
	a := connect(t, Options{})
	b := connect(t, Options{})
	ctx := testCtx(t)
	for _, c := range []*Client{a, b} {
		if _, err := c.Create(ctx, "/controller_epoch", []byte(c.Chroot()), Persistent); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []*Client{a, b} {
		data, _, err := c.Get(ctx, "/controller_epoch")
		if err != nil || string(data) != c.Chroot() {
			t.Fatalf("%s sees %q, %v", c.Chroot(), data, err)
		}
		kids, _, err := c.Children(ctx, "/")
		if err != nil || !slices.Equal(kids, []string{"controller_epoch"}) {
			t.Fatalf("%s children %v, %v", c.Chroot(), kids, err)
		}
	}
	if err := a.Delete(ctx, "/controller_epoch", AnyVersion); err != nil {
		t.Fatal(err)
	}
	if ok, _, _ := b.Exists(ctx, "/controller_epoch"); !ok {
		t.Fatalf("delete in %s reached %s", a.Chroot(), b.Chroot())
	}
}

func TestCreateModes(t *testing.T) {
	c := connect(t, Options{})
	observer := connect(t, Options{Chroot: c.Chroot()})
	ctx := testCtx(t)
	if err := c.EnsurePath(ctx, "/config/changes"); err != nil {
		t.Fatal(err)
	}

	p, err := c.Create(ctx, "/persistent", []byte("p"), Persistent)
	if err != nil || p != "/persistent" {
		t.Fatalf("persistent: %q, %v", p, err)
	}
	p, err = c.Create(ctx, "/controller", []byte("e"), Ephemeral)
	if err != nil || p != "/controller" {
		t.Fatalf("ephemeral: %q, %v", p, err)
	}
	_, st, err := observer.Get(ctx, "/controller")
	if err != nil || st.EphemeralOwner != c.SessionID() || c.SessionID() == 0 {
		t.Fatalf("ephemeral owner %x, session %x, %v", st.EphemeralOwner, c.SessionID(), err)
	}
	seq := regexp.MustCompile(`^/config/changes/config_change_\d{10}$`)
	var seqPaths []string
	for range 3 {
		p, err := c.Create(ctx, "/config/changes/config_change_", []byte("{}"), PersistentSequential)
		if err != nil || !seq.MatchString(p) {
			t.Fatalf("sequential: %q, %v", p, err)
		}
		seqPaths = append(seqPaths, p)
	}
	if !slices.IsSorted(seqPaths) || seqPaths[0] == seqPaths[1] {
		t.Fatalf("sequential names not increasing: %v", seqPaths)
	}
	p, err = c.Create(ctx, "/config/changes/", nil, EphemeralSequential)
	if err != nil || !regexp.MustCompile(`^/config/changes/\d{10}$`).MatchString(p) {
		t.Fatalf("ephemeral-sequential: %q, %v", p, err)
	}

	c.Close()
	for _, gone := range []string{"/controller", p} {
		if ok, _, err := observer.Exists(ctx, gone); err != nil || ok {
			t.Fatalf("ephemeral %s survived Close: %v %v", gone, ok, err)
		}
	}
	if ok, _, _ := observer.Exists(ctx, "/persistent"); !ok {
		t.Fatal("persistent znode vanished")
	}
}

func TestGetSetDeleteStat(t *testing.T) {
	c := connect(t, Options{})
	ctx := testCtx(t)
	if _, err := c.Create(ctx, "/null", nil, Persistent); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create(ctx, "/empty", []byte{}, Persistent); err != nil {
		t.Fatal(err)
	}
	if d, _, _ := c.Get(ctx, "/null"); d != nil {
		t.Fatalf("null data read as %q", d)
	}
	if d, _, _ := c.Get(ctx, "/empty"); d == nil || len(d) != 0 {
		t.Fatalf("empty data read as %#v", d)
	}

	if _, err := c.Create(ctx, "/s", []byte("v0"), Persistent); err != nil {
		t.Fatal(err)
	}
	_, st0, err := c.Get(ctx, "/s")
	if err != nil || st0.Version != 0 || st0.DataLength != 2 || st0.Czxid == 0 || st0.Czxid != st0.Mzxid || st0.Ctime == 0 {
		t.Fatalf("initial stat %+v, %v", st0, err)
	}
	st1, err := c.Set(ctx, "/s", []byte("v1-longer"), 0)
	if err != nil || st1.Version != 1 || st1.Mzxid <= st0.Mzxid || st1.Czxid != st0.Czxid || st1.DataLength != 9 {
		t.Fatalf("set stat %+v, %v", st1, err)
	}
	st2, err := c.Set(ctx, "/s", []byte("v2"), AnyVersion)
	if err != nil || st2.Version != 2 {
		t.Fatalf("set any: %+v, %v", st2, err)
	}
	if _, err := c.Create(ctx, "/s/child", nil, Persistent); err != nil {
		t.Fatal(err)
	}
	_, st3, _ := c.Get(ctx, "/s")
	if st3.NumChildren != 1 || st3.Cversion != 1 || st3.Version != 2 {
		t.Fatalf("after child: %+v", st3)
	}
	if err := c.Delete(ctx, "/s/child", 0); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, "/s", 2); err != nil {
		t.Fatal(err)
	}
	if ok, st, err := c.Exists(ctx, "/s"); ok || err != nil || st != (Stat{}) {
		t.Fatalf("exists after delete: %v %+v %v", ok, st, err)
	}
}

func TestEnsurePathAndCreateRecursive(t *testing.T) {
	c := connect(t, Options{})
	ctx := testCtx(t)
	for range 2 { // the second round finds everything there
		for _, p := range []string{"/brokers/ids", "/brokers/topics", "/config/changes", "/admin/delete_topics"} {
			if err := c.EnsurePath(ctx, p); err != nil {
				t.Fatalf("EnsurePath(%s): %v", p, err)
			}
		}
	}
	if d, _, err := c.Get(ctx, "/brokers"); err != nil || d != nil {
		t.Fatalf("/brokers: %q, %v", d, err)
	}
	if err := c.EnsurePath(ctx, "/"); err != nil {
		t.Fatal(err)
	}

	p, err := c.CreateRecursive(ctx, "/brokers/topics/foo/partitions/0/state", []byte(`{"leader":1}`), Persistent)
	if err != nil || p != "/brokers/topics/foo/partitions/0/state" {
		t.Fatalf("CreateRecursive: %q, %v", p, err)
	}
	if d, _, _ := c.Get(ctx, "/brokers/topics/foo/partitions/0/state"); !bytes.Equal(d, []byte(`{"leader":1}`)) {
		t.Fatalf("data %q", d)
	}
	if d, _, _ := c.Get(ctx, "/brokers/topics/foo/partitions"); d != nil {
		t.Fatalf("parent data %q, want null", d)
	}
	_, err = c.CreateRecursive(ctx, "/brokers/topics/foo/partitions/0/state", nil, Persistent)
	if !errors.Is(err, ErrNodeExists) {
		t.Fatalf("second CreateRecursive: %v", err)
	}
	p, err = c.CreateRecursive(ctx, "/isr_change_notification/isr_change_", nil, PersistentSequential)
	if err != nil || !strings.HasPrefix(p, "/isr_change_notification/isr_change_00") {
		t.Fatalf("recursive sequential: %q, %v", p, err)
	}
}
