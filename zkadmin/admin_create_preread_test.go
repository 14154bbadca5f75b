package zkadmin

import (
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
