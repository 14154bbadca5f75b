package controller

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/integration/brokersim"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// takeSeatAsBroker does what a Kafka broker's controller does when it wins
// the seat: one multi creating the ephemeral /controller on zk's session,
// written as Kafka 3.x writes it, and bumping /controller_epoch. With
// replace it first deletes the current /controller in the same multi (a
// broker never does that; it stands in for one winning the race back).
// It returns the new epoch and the czxid of the znode.
func takeSeatAsBroker(t testing.TB, zk *zkadmin.Client, id int32, replace bool) (int32, int64) {
	t.Helper()
	ctx := testCtx(t)
	data, stat, err := zk.Get(ctx, znodes.ControllerEpochPath)
	epoch := int32(0)
	switch {
	case errors.Is(err, zkadmin.ErrNoNode):
		if _, err := zk.Create(ctx, znodes.ControllerEpochPath, znodes.EncodeControllerEpoch(0), zkadmin.Persistent); err != nil {
			t.Fatal(err)
		}
	case err != nil:
		t.Fatal(err)
	default:
		if epoch, err = znodes.DecodeControllerEpoch(data); err != nil {
			t.Fatal(err)
		}
	}
	reg := fmt.Appendf(nil, `{"version":2,"brokerid":%d,"timestamp":"%d"}`, id, time.Now().UnixMilli())
	var ops []zkadmin.Op
	if replace {
		ops = append(ops, zkadmin.DeleteOp(znodes.ControllerPath, zkadmin.AnyVersion))
	}
	ops = append(ops, zkadmin.CreateOp(znodes.ControllerPath, reg, zkadmin.Ephemeral),
		zkadmin.SetOp(znodes.ControllerEpochPath, znodes.EncodeControllerEpoch(epoch+1), stat.Version))
	if _, err := zk.Multi(ctx, ops...); err != nil {
		t.Fatalf("broker %d takes /controller: %v", id, err)
	}
	_, cstat, err := zk.Get(ctx, znodes.ControllerPath)
	if err != nil {
		t.Fatal(err)
	}
	return epoch + 1, cstat.Czxid
}

// seatCzxid returns the czxid of /controller (0 when absent).
func seatCzxid(t testing.TB, zk *zkadmin.Client) int64 {
	t.Helper()
	_, stat, err := zk.Get(testCtx(t), znodes.ControllerPath)
	if errors.Is(err, zkadmin.ErrNoNode) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return stat.Czxid
}

// startBrokerSims starts simulated brokers under chroot.
func startBrokerSims(t testing.TB, chroot string, ids ...int32) *brokersim.Cluster {
	t.Helper()
	var specs []brokersim.BrokerSpec
	for _, id := range ids {
		specs = append(specs, brokersim.BrokerSpec{ID: id})
	}
	sim, err := brokersim.Start(testCtx(t), brokersim.Options{
		ZooKeeperServers: []string{env.server.Addr()}, Chroot: chroot, Brokers: specs,
		SessionTimeout: 4 * time.Second, RequestTimeout: 5 * time.Second,
	})
	if err != nil {
		t.Fatalf("start brokers: %v", err)
	}
	t.Cleanup(sim.Close)
	return sim
}

// reclaimMetric is the SeatReclaimsPerSec counter for result (0 when never
// counted).
func reclaimMetric(t testing.TB, n *node, result string) float64 {
	t.Helper()
	mfs, err := n.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "kafka_controller_ControllerStats_SeatReclaimsPerSec" {
			continue
		}
		for _, m := range mf.GetMetric() {
			if len(m.GetLabel()) == 1 && m.GetLabel()[0].GetValue() == result {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

// TestReclaimFromBroker: a Kafka broker holds the seat when kzadmind
// starts. kzadmind replaces its /controller in one multi, becomes the
// controller under the next epoch, counts and logs the reclaim, and the
// brokers follow it; the broker's epoch version is fenced.
func TestReclaimFromBroker(t *testing.T) {
	chroot := testChroot(t)
	obs := connectZK(t, chroot, "", 0)
	sim := startBrokerSims(t, chroot, 1, 2, 3)
	brokerEpoch, _ := takeSeatAsBroker(t, obs, 1, false)
	_, _, brokerVersion := readSeat(t, obs)

	logs := &syncBuffer{}
	n := startNode(t, chroot, nodeOpts{id: 100, logLevel: zerolog.InfoLevel, logTo: logs})
	waitFor(t, "kzadmind reclaims the seat", func() bool { return n.c.Status().Ready })
	id, epoch, _ := readSeat(t, obs)
	if id != 100 || epoch != brokerEpoch+1 || n.c.Status().Epoch != epoch {
		t.Fatalf("seat %d epoch %d (broker's %d), status %+v", id, epoch, brokerEpoch, n.c.Status())
	}
	if got := n.c.seat.stats.reclaims.Load(); got != 1 {
		t.Fatalf("%d reclaims", got)
	}
	if got := reclaimMetric(t, n, "won"); got != 1 {
		t.Fatalf("SeatReclaimsPerSec{won} = %v", got)
	}
	if !strings.Contains(logs.String(), "reclaimed /controller from a Kafka broker") {
		t.Fatalf("no reclaim log line:\n%s", logs.String())
	}
	for _, b := range []int32{1, 2, 3} {
		err := sim.Broker(b).WaitFor(testCtx(t), func(s brokersim.Snapshot) bool {
			return s.ControllerEpoch == epoch && s.ControllerID == 100
		})
		if err != nil {
			t.Fatalf("broker %d never followed kzadmind: %v", b, err)
		}
	}
	_, err := obs.FencedMulti(testCtx(t), brokerVersion, zkadmin.CreateOp("/x", nil, zkadmin.Persistent))
	if !errors.Is(err, zkadmin.ErrControllerMoved) {
		t.Fatalf("write fenced by the broker's epoch version: %v", err)
	}
}

// TestReclaimDisabled: with kzadmin.controller.reclaim.from.brokers=false
// kzadmind leaves a broker's seat alone and stands by.
func TestReclaimDisabled(t *testing.T) {
	chroot := testChroot(t)
	obs := connectZK(t, chroot, "", 0)
	startBrokerSims(t, chroot, 1, 2)
	brokerEpoch, czxid := takeSeatAsBroker(t, obs, 2, false)
	logs := &syncBuffer{}
	n := startNode(t, chroot, nodeOpts{id: 100, logLevel: zerolog.InfoLevel, logTo: logs,
		configure: func(c *config.Config) { c.ReclaimFromBrokers = false }})
	waitFor(t, "kzadmind decides to stand by", func() bool {
		return strings.Contains(logs.String(), "kzadmin.controller.reclaim.from.brokers=false")
	})
	st := n.c.Status()
	id, epoch, _ := readSeat(t, obs)
	if st.Active || st.ActiveControllerID != 2 || id != 2 || epoch != brokerEpoch || seatCzxid(t, obs) != czxid {
		t.Fatalf("status %+v, seat %d epoch %d (broker's %d)", st, id, epoch, brokerEpoch)
	}
	if got := reclaimMetric(t, n, "won") + reclaimMetric(t, n, "lost"); got != 0 {
		t.Fatalf("%v reclaims counted", got)
	}
}

// TestNoReclaimFromKRaft: a KRaft controller (a migration) holding the
// seat under a registered broker's id is left alone.
func TestNoReclaimFromKRaft(t *testing.T) {
	chroot := testChroot(t)
	obs := connectZK(t, chroot, "", 0)
	startBrokerSims(t, chroot, 1)
	reg := fmt.Appendf(nil, `{"version":2,"brokerid":1,"timestamp":"%d","kraftControllerEpoch":3}`, time.Now().UnixMilli())
	if _, err := obs.Create(testCtx(t), znodes.ControllerPath, reg, zkadmin.Persistent); err != nil {
		t.Fatal(err)
	}
	czxid := seatCzxid(t, obs)
	logs := &syncBuffer{}
	n := startNode(t, chroot, nodeOpts{id: 100, logLevel: zerolog.InfoLevel, logTo: logs})
	waitFor(t, "kzadmind decides to stand by", func() bool {
		return strings.Contains(logs.String(), "a KRaft controller holds /controller; standing by")
	})
	if st := n.c.Status(); st.Active || seatCzxid(t, obs) != czxid {
		t.Fatalf("status %+v; the seat moved", st)
	}
}

// TestReclaimTwoStandbys: two kzadmind nodes start while a broker holds
// the seat. Both try; the version checks let exactly one win, with one
// epoch bump, and the other stands by without a fight.
func TestReclaimTwoStandbys(t *testing.T) {
	chroot := testChroot(t)
	obs := connectZK(t, chroot, "", 0)
	startBrokerSims(t, chroot, 1, 2, 3)
	brokerEpoch, _ := takeSeatAsBroker(t, obs, 3, false)
	nodes := []*node{startNode(t, chroot, nodeOpts{id: 100}), startNode(t, chroot, nodeOpts{id: 101})}
	waitFor(t, "one active controller, ready", func() bool {
		act := activeNodes(nodes)
		return len(act) == 1 && act[0].c.Status().Ready
	})
	winner := activeNodes(nodes)[0]
	for _, n := range nodes {
		waitFor(t, "both know the winner", func() bool { return n.c.Status().ActiveControllerID == winner.c.nodeID })
	}
	czxid := seatCzxid(t, obs)
	id, epoch, _ := readSeat(t, obs)
	if id != winner.c.nodeID || epoch != brokerEpoch+1 {
		t.Fatalf("seat %d at epoch %d; broker's epoch %d; one bump expected", id, epoch, brokerEpoch)
	}
	won := 0.0
	for _, n := range nodes {
		won += reclaimMetric(t, n, "won")
	}
	if won != 1 {
		t.Fatalf("%v reclaims won", won)
	}
	// No flapping: the loser, having seen the winner, leaves the seat be.
	for _, n := range nodes {
		if n != winner && n.c.IsActive() {
			t.Fatalf("node %d active too", n.c.nodeID)
		}
	}
	if _, e, _ := readSeat(t, obs); e != epoch || seatCzxid(t, obs) != czxid {
		t.Fatalf("the seat moved again: epoch %d", e)
	}
}

// TestReclaimBackoff: a broker that takes the seat back right after a
// reclaim is reclaimed from again, but only once the backoff's first
// pause has passed since the first attempt.
func TestReclaimBackoff(t *testing.T) {
	chroot := testChroot(t)
	obs := connectZK(t, chroot, "", 0)
	startBrokerSims(t, chroot, 1)
	takeSeatAsBroker(t, obs, 1, false)
	logs := &syncBuffer{}
	began := time.Now() // before the first attempt
	n := startNode(t, chroot, nodeOpts{id: 100, logLevel: zerolog.InfoLevel, logTo: logs})
	waitFor(t, "first reclaim", func() bool { return n.c.Status().Ready })

	takeSeatAsBroker(t, obs, 1, true)
	waitFor(t, "resigned", func() bool { return !n.c.IsActive() })
	waitFor(t, "second reclaim", func() bool { return n.c.Status().Ready })
	if took := time.Since(began); took < reclaimMinWait {
		t.Fatalf("reclaimed twice within %s, less than the backoff's %s", took, reclaimMinWait)
	}
	var waits []float64
	for _, line := range strings.Split(logs.String(), "\n") {
		if !strings.Contains(line, "reclaiming it") {
			continue
		}
		var rec struct{ After float64 }
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		waits = append(waits, rec.After)
	}
	if len(waits) != 2 || waits[0] != 0 || waits[1] <= 0 {
		t.Fatalf("reclaim waits (ms) %v: want the first at once, the second after a pause", waits)
	}
	if got := n.c.seat.stats.reclaims.Load(); got != 2 {
		t.Fatalf("%d reclaims", got)
	}
}

// TestFastElection: a standby that has seen the controller answers the
// deletion of /controller with the election multi alone (one ZooKeeper
// round trip) and wins; the careful path of a first election takes more.
func TestFastElection(t *testing.T) {
	chroot := testChroot(t)
	obs := connectZK(t, chroot, "", 0)
	first := startNode(t, chroot, nodeOpts{id: 100})
	waitFor(t, "first controller ready", func() bool { return first.c.Status().Ready })
	second := startNode(t, chroot, nodeOpts{id: 101})
	waitFor(t, "standby sees the controller", func() bool { return second.c.Status().ActiveControllerID == 100 })

	first.stop() // releases /controller
	waitFor(t, "standby takes over", func() bool { return second.c.Status().Ready })
	if got := second.c.seat.stats.fastWins.Load(); got != 1 {
		t.Fatalf("%d fast wins", got)
	}
	calls := second.c.seat.stats.lastWinCalls.Load()
	if calls != 1 {
		t.Fatalf("won after %d ZooKeeper round trips, want 1 (the multi)", calls)
	}
	id, epoch, _ := readSeat(t, obs)
	if id != 101 || epoch != 2 || second.c.Status().Epoch != 2 {
		t.Fatalf("seat %d epoch %d, status %+v", id, epoch, second.c.Status())
	}
	t.Logf("round trips to win: first election %d, fast path %d", first.c.seat.stats.lastWinCalls.Load(), calls)
}

// TestFastElectionEpochBumped: the epoch is bumped and the seat vacated in
// one multi (a holder that bumped and resigned). The standby's cached
// epoch is stale; whichever watch it sees first, it ends up the
// controller under the next epoch.
func TestFastElectionEpochBumped(t *testing.T) {
	chroot := testChroot(t)
	obs := connectZK(t, chroot, "", 0)
	holder := connectZK(t, chroot, "", 0)
	takeSeatAsBroker(t, holder, 7, false) // id 7 is no registered broker: never reclaimed
	n := startNode(t, chroot, nodeOpts{id: 100})
	waitFor(t, "standby sees the holder", func() bool { return n.c.Status().ActiveControllerID == 7 })
	_, _, v := readSeat(t, obs)
	_, err := obs.Multi(testCtx(t),
		zkadmin.SetOp(znodes.ControllerEpochPath, znodes.EncodeControllerEpoch(41), v),
		zkadmin.DeleteOp(znodes.ControllerPath, zkadmin.AnyVersion))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "controller", func() bool { return n.c.Status().Ready })
	if id, epoch, _ := readSeat(t, obs); id != 100 || epoch != 42 {
		t.Fatalf("seat %d epoch %d, want 100 at 42", id, epoch)
	}
}

// TestWarmStandbyFastElection: a warm standby wins by the fast path and is
// still promoted (the epoch watch serves as the barrier).
func TestWarmStandbyFastElection(t *testing.T) {
	sc := startSimCluster(t, nodeOpts{}, 1, 2, 3)
	createTopic(t, sc.obs, "foo", threeParts)
	for p, r := range threeParts {
		sc.waitLeader(t, "foo", p, r[0], r...)
	}
	logs := &syncBuffer{}
	standby := startNode(t, sc.chroot, nodeOpts{id: 101, warm: true, logLevel: zerolog.InfoLevel, logTo: logs})
	waitFor(t, "standby warm", func() bool { return standby.c.Status().Warm })
	sc.ctl.stop()
	waitFor(t, "standby takes over", func() bool { return standby.c.Status().Ready })
	if standby.c.seat.stats.fastWins.Load() != 1 || !strings.Contains(logs.String(), "warm standby promoted") {
		t.Fatalf("fast wins %d; logs:\n%s", standby.c.seat.stats.fastWins.Load(), logs.String())
	}
	checkViewMatchesZooKeeper(t, sc, standby.c, "foo")
}

// TestRegisterControllerStaleAndLostReply drives the election multi of a
// controller that is not running: a stale epoch version loses (and the
// cache is dropped, so the careful path re-reads); a current one wins; the
// same multi sent again (a retry after a lost reply) finds its own
// registration and wins with the version it got.
func TestRegisterControllerStaleAndLostReply(t *testing.T) {
	chroot := testChroot(t)
	zk := connectZK(t, chroot, "", 0)
	obs := connectZK(t, chroot, "", 0)
	ctx := testCtx(t)
	if _, err := obs.Create(ctx, znodes.ControllerEpochPath, znodes.EncodeControllerEpoch(4), zkadmin.Persistent); err != nil {
		t.Fatal(err)
	}
	if _, err := obs.Set(ctx, znodes.ControllerEpochPath, znodes.EncodeControllerEpoch(5), 0); err != nil {
		t.Fatal(err)
	}
	c, err := New(Config{Conf: testConfig(100), ZK: zk})
	if err != nil {
		t.Fatal(err)
	}
	c.seat.epoch.set(4, 0, make(chan zkadmin.Event))
	if _, _, err := c.registerController(ctx, c.seat.epoch.current()); !errors.Is(err, errLostElection) {
		t.Fatalf("stale epoch: %v", err)
	}
	if c.seat.epoch.armed() {
		t.Fatal("a lost election left the epoch cached")
	}
	cur, err := c.readEpoch(ctx)
	if err != nil || cur != (epochRead{epoch: 5, version: 1}) || !c.seat.epoch.armed() {
		t.Fatalf("read epoch %+v, %v", cur, err)
	}
	epoch, version, err := c.registerController(ctx, cur)
	if err != nil || epoch != 6 || version != 2 {
		t.Fatalf("won %d at version %d: %v", epoch, version, err)
	}
	epoch, version, err = c.registerController(ctx, cur)
	if err != nil || epoch != 6 || version != 2 {
		t.Fatalf("retried multi: %d at version %d: %v", epoch, version, err)
	}
	if id, e, _ := readSeat(t, obs); id != 100 || e != 6 {
		t.Fatalf("seat %d epoch %d", id, e)
	}
}
