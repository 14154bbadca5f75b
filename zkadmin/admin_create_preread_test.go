package zkadmin

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/znodes"
)

// prereadAdmin is e's Admin with pre-reads on, as kzadmind runs it, except
// that a pre-read stays usable for an hour: the tests need the next round
// to plan on it however slowly the machine runs between two creates.
func prereadAdmin(e *adminEnv, cfg *config.Config) *Admin {
	a := NewAdmin(e.zk, AdminOptions{Config: cfg, PrereadCreates: true})
	a.preread.maxAge = time.Hour
	return a
}

// pendingPreread returns the pre-read the next round of a may plan on (its
// sending round has finished), once it has been answered; nil when there
// is none.
func pendingPreread(a *Admin) *createPreread {
	a.preread.mu.Lock()
	pr := a.preread.next
	a.preread.mu.Unlock()
	if pr == nil || pr.after == nil {
		return nil
	}
	<-pr.done
	return pr
}

// TestPrereadCountsThePreviousRound: a round planned on a pre-read counts
// the topics of the round that sent it (which the read may predate)
// against the limits.
func TestPrereadCountsThePreviousRound(t *testing.T) {
	e := newAdminEnv(t, []string{"", "", ""}, nil)
	a := prereadAdmin(e, limitsConfig(0, 12))
	mustCreateTopic(t, a, e, "a", 5)
	if pendingPreread(a) == nil {
		t.Fatal("no pre-read pending after a create")
	}
	mustCreateTopic(t, a, e, "b", 5) // 10 of 12
	_, err := a.CreateTopic(e.ctx, CreateTopicRequest{Topic: "c", Partitions: 3, ReplicationFactor: 1})
	wantKind(t, err, KindPartitionLimit, "12")
	mustCreateTopic(t, a, e, "c", 2) // 12 of 12
	for _, n := range []string{"a", "b", "c"} {
		if !e.exists(znodes.TopicPath(n)) {
			t.Errorf("topic %s missing", n)
		}
	}
}

// TestPrereadLosesToAnotherAdmin: another of our writers creating between
// two rounds moves the fence, so the round planned on the pre-read (which
// may predate that create) fails its multi, reads again and counts it.
func TestPrereadLosesToAnotherAdmin(t *testing.T) {
	e := newAdminEnv(t, []string{"", "", ""}, nil)
	a := prereadAdmin(e, limitsConfig(0, 12))
	other := e.another(limitsConfig(0, 12))
	mustCreateTopic(t, a, e, "a", 5)
	mustCreateTopic(t, other, e, "b", 5) // 10 of 12, behind a's pre-read
	res, err := a.CreateTopic(e.ctx, CreateTopicRequest{Topic: "c", Partitions: 3, ReplicationFactor: 1})
	wantKind(t, err, KindPartitionLimit)
	if res != nil {
		t.Fatalf("c created: %+v", res)
	}
	if _, err := a.CreateTopic(e.ctx, CreateTopicRequest{Topic: "c", Partitions: 2, ReplicationFactor: 1}); err != nil {
		t.Fatal(err)
	}
}

// TestPrereadStaleConfigZnode: a round planned on a pre-read assumes the
// new topic has no config znode; when a stale one is there, the multi
// fails on it and the next attempt reads it and overwrites it, as a round
// without pre-read does.
func TestPrereadStaleConfigZnode(t *testing.T) {
	e := newAdminEnv(t, []string{"", "", ""}, nil)
	a := prereadAdmin(e, nil)
	mustCreateTopic(t, a, e, "a", 1)
	stale, err := znodes.EntityConfig{Config: map[string]string{"retention.ms": "1"}}.Encode()
	if err != nil {
		t.Fatal(err)
	}
	e.put(znodes.ConfigEntityPath(znodes.EntityTopics, "b"), stale)
	res, err := a.CreateTopic(e.ctx, CreateTopicRequest{Topic: "b", Partitions: 1, ReplicationFactor: 1,
		Config: map[string]string{"cleanup.policy": "compact"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Attempts < 2 {
		t.Errorf("created in %d attempt(s): the pre-read round should have lost on the config znode", res.Attempts)
	}
	cfg, err := znodes.DecodeEntityConfig(znodes.EntityTopics, "b", e.get(znodes.ConfigEntityPath(znodes.EntityTopics, "b")))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Config) != 1 || cfg.Config["cleanup.policy"] != "compact" {
		t.Errorf("config of b = %v, want only the request's", cfg.Config)
	}
}

// TestPrereadTooOldIsNotUsed: a pre-read older than prereadMaxAge is
// dropped, and the round reads afresh (it sees a topic created behind the
// Admin's back after the pre-read).
func TestPrereadTooOldIsNotUsed(t *testing.T) {
	e := newAdminEnv(t, []string{"", "", ""}, nil)
	a := prereadAdmin(e, limitsConfig(0, 12))
	foreign := connect(t, Options{Chroot: e.chroot})
	a.preread.maxAge = prereadMaxAge
	mustCreateTopic(t, a, e, "a", 5)
	pr := pendingPreread(a)
	if pr == nil {
		t.Fatal("no pre-read pending after a create")
	}
	writeForeignTopic(t, e, foreign, "foreign", 5) // after the pre-read answered: 10 of 12
	a.preread.mu.Lock()
	pr.sent = pr.sent.Add(-2 * prereadMaxAge)
	a.preread.mu.Unlock()
	_, err := a.CreateTopic(e.ctx, CreateTopicRequest{Topic: "b", Partitions: 3, ReplicationFactor: 1})
	wantKind(t, err, KindPartitionLimit)
}

// setDefaultLimit sets max.partitions in /config/brokers/<default> through
// a.
func setDefaultLimit(t *testing.T, e *adminEnv, a *Admin, limit string) {
	t.Helper()
	if _, err := a.AlterConfigs(e.ctx, ConfigAlteration{EntityType: "brokers", EntityName: "<default>",
		Set: map[string]string{"max.partitions": limit}}); err != nil {
		t.Fatal(err)
	}
}

// TestPrereadNeverRefuses: a limit raised by another process after the
// pre-read was sent does not refuse the next create: a round planned on a
// pre-read that would refuse is planned again on a fresh read.
func TestPrereadNeverRefuses(t *testing.T) {
	e := newAdminEnv(t, []string{"", "", ""}, nil)
	a := prereadAdmin(e, nil)
	other := e.another(nil)
	setDefaultLimit(t, e, other, "6")
	mustCreateTopic(t, a, e, "a", 5)
	if pendingPreread(a) == nil {
		t.Fatal("no pre-read pending after a create")
	}
	setDefaultLimit(t, e, other, "100") // a's pre-read still says 6
	res, err := a.CreateTopic(e.ctx, CreateTopicRequest{Topic: "b", Partitions: 5, ReplicationFactor: 1})
	if err != nil {
		t.Fatalf("refused on the pre-read's stale limit: %v", err)
	}
	if res.Attempts != 2 {
		t.Errorf("attempts = %d, want 2 (the pre-read round, then a fresh one)", res.Attempts)
	}
}

// TestPrereadVoidedByOwnWrite: the Admin's own config change voids the
// pre-read sent before it, so a limit it sets where there was no
// /config/brokers/<default> (which no multi can check) holds for the very
// next create.
func TestPrereadVoidedByOwnWrite(t *testing.T) {
	e := newAdminEnv(t, []string{"", "", ""}, nil)
	a := prereadAdmin(e, nil)
	mustCreateTopic(t, a, e, "a", 5)
	if pendingPreread(a) == nil {
		t.Fatal("no pre-read pending after a create")
	}
	setDefaultLimit(t, e, a, "6")
	_, err := a.CreateTopic(e.ctx, CreateTopicRequest{Topic: "b", Partitions: 5, ReplicationFactor: 1})
	wantKind(t, err, KindPartitionLimit, "max.partitions=6")
}

// TestPrereadTakesTheExactListingWithoutAStatRead: after a round whose
// fence saw the children version it expected, the pre-read lists
// /brokers/topics from the listing that round left, without reading its
// stat.
func TestPrereadTakesTheExactListingWithoutAStatRead(t *testing.T) {
	e := newAdminEnv(t, []string{"", "", ""}, nil)
	a := prereadAdmin(e, nil)
	mustCreateTopic(t, a, e, "a", 1)
	mustCreateTopic(t, a, e, "b", 1)
	l := a.listing.get()
	if l == nil {
		t.Fatal("no listing kept after two rounds")
	}
	if !l.exact || !slices.Equal(l.sorted(), []string{"a", "b"}) {
		t.Fatalf("listing after two rounds = %v (exact %v), want a and b, exact", l.sorted(), l.exact)
	}
	sent := e.zk.requests.Load()
	names, st, err := a.listTopics(e.ctx, l, true)
	if err != nil || !slices.Equal(names, l.sorted()) || st.Cversion != l.cversion || st.Version != l.version {
		t.Fatalf("listTopics = %v %+v %v", names, st, err)
	}
	if n := e.zk.requests.Load() - sent; n != 0 {
		t.Errorf("an exact listing cost %d requests", n)
	}
	// A fresh read does read the stat, and keeps the listing exact when
	// it finds it unchanged.
	if _, err := a.readForCreate(e.ctx); err != nil {
		t.Fatal(err)
	}
	if e.zk.requests.Load() == sent {
		t.Error("a fresh read sent no request")
	}
	if !a.listing.get().exact {
		t.Error("a fresh read of the same state made the listing inexact")
	}
}

// TestPrereadSeesForeignTopicThroughTheFence: a topic another writer
// creates behind our fence, after a round's pre-read was sent, shows in
// the children version the next multi's fence reports; that round's
// successor then plans on a fresh read, which counts the topic against
// the limits, as a stat read would have.
func TestPrereadSeesForeignTopicThroughTheFence(t *testing.T) {
	e := newAdminEnv(t, []string{"", "", ""}, nil)
	a := prereadAdmin(e, limitsConfig(0, 15))
	foreign := connect(t, Options{Chroot: e.chroot})
	mustCreateTopic(t, a, e, "a", 5)
	mustCreateTopic(t, a, e, "b", 5)
	if pendingPreread(a) == nil {
		t.Fatal("no pre-read pending after a create")
	}
	writeForeignTopic(t, e, foreign, "foreign", 3) // 13 of 15, behind the pre-read
	// Planned on the pre-read, which predates the foreign topic (as a
	// pre-read may: 11 of 15 as it counts), and so created.
	mustCreateTopic(t, a, e, "c", 1)
	if l := a.listing.get(); l != nil && l.exact {
		t.Fatalf("listing kept exact after a multi whose fence saw another writer's topic: %+v", l)
	}
	_, err := a.CreateTopic(e.ctx, CreateTopicRequest{Topic: "d", Partitions: 3, ReplicationFactor: 1})
	wantKind(t, err, KindPartitionLimit, "15")
}

func TestFenceSaw(t *testing.T) {
	fence := SetOp(znodes.TopicsPath, nil, 4)
	ok := []OpResult{{Path: znodes.TopicsPath, Stat: Stat{Version: 5, Cversion: 9}}}
	for _, tc := range []struct {
		name string
		ops  []Op
		res  []OpResult
		want bool
	}{
		{"the expected children version", []Op{fence}, ok, true},
		{"another children version", []Op{fence}, []OpResult{{Path: znodes.TopicsPath, Stat: Stat{Cversion: 10}}}, false},
		{"no results (a reply lost, the multi confirmed)", []Op{fence}, nil, false},
		{"first op not the fence", []Op{CreateOp(znodes.TopicsPath, nil, Persistent)}, ok, false},
		{"a SetData of another znode", []Op{SetOp("/other", nil, 4)}, ok, false},
	} {
		if got := fenceSaw(tc.ops, tc.res, 9); got != tc.want {
			t.Errorf("%s: fenceSaw = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestPrereadKeepsRefusalsNoReadLifts: a round planned on a pre-read that
// refuses a topic only for its name or its configs, which no fresher read
// would change, is not planned again; the rest of the batch goes through
// in that round.
func TestPrereadKeepsRefusalsNoReadLifts(t *testing.T) {
	e := newAdminEnv(t, []string{"", "", ""}, nil)
	var mu sync.Mutex
	var rounds []CreateRoundTiming
	a := NewAdmin(e.zk, AdminOptions{PrereadCreates: true, OnCreateRound: func(r CreateRoundTiming) {
		mu.Lock()
		rounds = append(rounds, r)
		mu.Unlock()
	}})
	a.preread.maxAge = time.Hour
	mustCreateTopic(t, a, e, "a", 1)
	if pendingPreread(a) == nil {
		t.Fatal("no pre-read pending after a create")
	}
	out, err := a.CreateTopics(e.ctx, []CreateTopicRequest{
		{Topic: "b", Partitions: 1, ReplicationFactor: 1},
		{Topic: "bad/name", Partitions: 1, ReplicationFactor: 1},
		{Topic: "c", Partitions: 1, ReplicationFactor: 1, Config: map[string]string{"retention.ms": "soon"}},
	})
	if err != nil || out[0].Err != nil {
		t.Fatalf("create: %v, b: %v", err, out[0].Err)
	}
	wantKind(t, out[1].Err, KindInvalidTopic)
	wantKind(t, out[2].Err, KindInvalidConfig)
	mu.Lock()
	defer mu.Unlock()
	if len(rounds) != 2 || !rounds[1].Preread {
		t.Fatalf("rounds %+v, want the first create's and one on the pre-read", rounds)
	}
}
