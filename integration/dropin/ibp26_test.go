package dropin

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/integration/kafka"
	"github.com/kzadmin/kzadmin/integration/kafkatest"
	"github.com/kzadmin/kzadmin/internal/daemon"
	"github.com/kzadmin/kzadmin/znodes"
)

// oldIBP is the inter.broker.protocol.version of the old-IBP scenario:
// below 2.7-IV2, brokers do not send AlterPartition. A leader writes its
// partition's ISR into the state znode itself (conditional on the version
// it learnt from LeaderAndIsr) and posts /isr_change_notification, which
// the controller turns into UpdateMetadata. Below 3.0 brokers also take
// producer id blocks from /latest_producer_id_block themselves instead of
// asking the controller (AllocateProducerIds), so idempotent producers
// work without it. Below 2.7-IV0 the controller disables /feature.
const oldIBP = "2.6"

// TestDropInIBP26 runs the core scenario with kzadmind and three real
// brokers on inter.broker.protocol.version=2.6: a topic created through
// zkadmin (RF 3) gets leaders; 10k records produced idempotently are all
// consumed back; kill -9 of a leader moves its leadership while producing
// goes on; restarted, it rejoins every ISR through the leaders' own
// ZooKeeper writes and the ISR change notifications, which kzadmind
// processes (deletes, and forwards to every broker as UpdateMetadata).
// ZooKeeper is checked afterwards.
func TestDropInIBP26(t *testing.T) {
	kafka.SkipIfHeavyDisabled(t)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	s := &dropin{h: newHarness(t, ctx), figs: newFigures()}
	s.first = s.h.startDaemonIBP(t, ctx, firstID, oldIBP)
	waitReady(t, ctx, s.first, firstID)
	s.h.startBrokersIBP(t, ctx, 3, oldIBP)
	s.h.waitBrokersFollow(t, ctx, firstID)
	s.h.checkFeatureDisabled(t, ctx)
	s.tr = newTraffic(t, s.h.cluster.Addrs(), s.h.dir+"/producer.log")
	defer s.figs.log(t)
	_, epoch, err := s.h.controller(ctx)
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name string
		run  func(*testing.T, context.Context)
	}{
		{"CreateProduceConsume", s.createProduceConsume},
		{"KillLeaderRejoinThroughZooKeeper", s.killLeaderOldIBP},
		{"ZooKeeperAfter", func(t *testing.T, ctx context.Context) { s.checkOldIBPAfter(t, ctx, epoch) }},
	}
	for _, st := range steps {
		if !t.Run(st.name, func(t *testing.T) { st.run(t, ctx) }) {
			break
		}
	}
}

// startDaemonIBP runs kzadmind in this process with node id id, at the
// given inter.broker.protocol.version.
func (h *harness) startDaemonIBP(t *testing.T, ctx context.Context, id int32, ibp string) *daemon.Daemon {
	t.Helper()
	conf := daemonConfig(h.zks.Addr(), chroot, id)
	v, err := config.ParseIBP(ibp)
	if err != nil {
		t.Fatal(err)
	}
	conf.InterBrokerProtocolVersion = v
	return h.startDaemonConf(t, ctx, conf)
}

// startBrokersIBP is startBrokers with every broker on the given
// inter.broker.protocol.version.
func (h *harness) startBrokersIBP(t *testing.T, ctx context.Context, n int, ibp string) {
	t.Helper()
	c, ctl, took := kafkatest.StartBrokers(t, ctx, h.brokerSet(n, kafka.BrokerOptions{IBP: ibp}))
	h.cluster = c
	t.Logf("%d brokers on IBP %s up in %s, controller %d", n, ibp, took, ctl)
}

// checkFeatureDisabled reads /feature: below IBP 2.7-IV0 Kafka's
// controller writes it disabled, JSON version 1, with no features.
func (h *harness) checkFeatureDisabled(t *testing.T, ctx context.Context) {
	t.Helper()
	data, _, err := h.obs.Get(ctx, znodes.FeaturePath)
	if err != nil {
		t.Fatal(err)
	}
	f, err := znodes.DecodeFinalizedFeatures(data)
	if err != nil || f.Version != 1 || f.Status != znodes.FeatureDisabled || len(f.Features) != 0 {
		t.Fatalf("/feature = %s (%v), want disabled, version 1, no features", data, err)
	}
}

// notificationCount returns how many children /isr_change_notification
// has, and how many changes its children have seen (its cversion: a
// notification created and deleted adds 2).
func (h *harness) notificationCount(ctx context.Context) (left int, changes int32, err error) {
	names, stat, err := h.obs.Children(ctx, znodes.IsrChangeNotificationPath)
	return len(names), stat.Cversion, err
}

// killLeaderOldIBP: kill -9 of a partition leader; its leadership moves
// (leader epoch +1, a controller write) and it leaves every ISR while
// producing goes on. Restarted, it rejoins every ISR through the leaders'
// own state znode writes (partition epoch up, leader epoch unchanged) and
// their notifications, which kzadmind deletes after telling every broker:
// each broker's metadata, and kzadmind's own view, show the ISR ZooKeeper
// holds.
func (s *dropin) killLeaderOldIBP(t *testing.T, ctx context.Context) {
	h := s.h
	b, after, d := h.killOneLeader(t, ctx, s.tr, -1)
	victim := b.ID()
	s.figs.add("IBP 2.6: leader failover after kill -9: kill → new leaders in ZK", kzadmind, d.moved)

	_, changes, err := h.notificationCount(ctx)
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	if err := b.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	back := h.waitStates(t, ctx, "ISR rejoin", 2*time.Minute, allInSync)
	rejoined := time.Since(began)
	s.figs.add("IBP 2.6: restart → back in every ISR (leaders' ZK writes)", kzadmind, rejoined)
	for p, st := range back {
		if st.Leader == after[p].Leader && (st.LeaderEpoch != after[p].LeaderEpoch || st.PartitionEpoch <= after[p].PartitionEpoch) {
			t.Fatalf("%s-%d: a leader's ISR expansion must raise the partition epoch and keep the leader epoch: %s -> %s",
				topic, p, after[p], st)
		}
	}
	s.waitNotificationsProcessed(t, ctx, changes, began)
	s.waitEveryoneKnows(t, ctx, allInSync)
	t.Logf("broker %d back in every ISR %s after its restart; kzadmind and every broker know it after %s",
		victim, rejoined.Round(time.Millisecond), since(began))
	s.figs.add("IBP 2.6: restart → every broker's metadata has the ISR", kzadmind, time.Since(began))
	s.tr.waitMore(t, ctx, "after the rejoin", 200, time.Minute)

	// kzadmind's auto leader rebalance (every 5 s here) gives the broker
	// its leadership back: LeaderAndIsr at this IBP's version.
	began = time.Now()
	s.waitEveryoneKnows(t, ctx, preferredLeaders(s.assignment))
	t.Logf("auto rebalance gave broker %d its leadership back after %s", victim, since(began))
}

// waitNotificationsProcessed waits until at least one ISR change
// notification was posted after the count changesBefore was taken and
// none is left: only the controller deletes them.
func (s *dropin) waitNotificationsProcessed(t *testing.T, ctx context.Context, changesBefore int32, began time.Time) {
	t.Helper()
	var left int
	var changes int32
	err := pollUntil(ctx, time.Minute, 5*time.Millisecond, func() error {
		var err error
		left, changes, err = s.h.notificationCount(ctx)
		switch {
		case err != nil:
			return err
		case changes < changesBefore+2 || left > 0:
			return fmt.Errorf("%s: %d children, %d changes (%d before the restart)",
				znodes.IsrChangeNotificationPath, left, changes, changesBefore)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("no ISR change notification processed: %v", err)
	}
	t.Logf("%d ISR change notifications posted and deleted within %s of the restart", (changes-changesBefore)/2, since(began))
}

// waitEveryoneKnows waits until the state znodes satisfy cond, and
// kzadmind's view and every running broker's metadata show the leaders,
// ISRs (and, for kzadmind, partition epochs) ZooKeeper holds. The state is
// read afresh each time: the auto rebalance may move leaders meanwhile.
func (s *dropin) waitEveryoneKnows(t *testing.T, ctx context.Context, cond func([]pstate) error) {
	t.Helper()
	var last []pstate
	err := pollUntil(ctx, time.Minute, 20*time.Millisecond, func() error {
		st, err := s.h.states(ctx)
		if err != nil {
			return err
		}
		last = st
		if err := cond(st); err != nil {
			return err
		}
		if err := controllerKnows(s.first, st); err != nil {
			return err
		}
		for _, b := range s.h.cluster.Brokers {
			if !b.Running() {
				continue
			}
			if err := brokerKnows(ctx, b, st); err != nil {
				return fmt.Errorf("broker %d: %w", b.ID(), err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, formatStates(last))
	}
}

// controllerKnows checks kzadmind's view of the topic against the state
// znodes.
func controllerKnows(d *daemon.Daemon, st []pstate) error {
	tv := d.Controller().Snapshot().Topics.Get(topic)
	if tv == nil {
		return fmt.Errorf("kzadmind does not know %s", topic)
	}
	for _, pv := range tv.Partitions {
		want := st[pv.Partition]
		if pv.Leader != want.Leader || !slices.Equal(pv.ISR, want.ISR) || pv.PartitionEpoch != want.PartitionEpoch {
			return fmt.Errorf("%s-%d: kzadmind has leader %d isr %v pepoch %d, ZooKeeper %s",
				topic, pv.Partition, pv.Leader, pv.ISR, pv.PartitionEpoch, want)
		}
	}
	return nil
}

// checkOldIBPAfter checks what ZooKeeper holds at the end: kzadmind still
// the controller at the epoch it won, every partition led and fully in
// sync with the state znodes stamped with that epoch (the leaders write it
// from their last LeaderAndIsr), no notification left, /feature disabled;
// and every acknowledged record is there.
func (s *dropin) checkOldIBPAfter(t *testing.T, ctx context.Context, epoch int32) {
	h := s.h
	id, now, err := h.controller(ctx)
	if err != nil || id != firstID || now != epoch {
		t.Fatalf("/controller %d epoch %d (%v), want %d at epoch %d", id, now, err, firstID, epoch)
	}
	st := h.waitStates(t, ctx, "final state", time.Minute, allInSync)
	for p, ps := range st {
		if ps.ControllerEpoch != epoch {
			t.Fatalf("%s-%d stamped with controller epoch %d, want %d", topic, p, ps.ControllerEpoch, epoch)
		}
	}
	for _, dir := range []string{znodes.IsrChangeNotificationPath, znodes.LogDirEventNotificationPath} {
		names, _, err := h.obs.Children(ctx, dir)
		if err != nil || len(names) != 0 {
			t.Fatalf("%s holds %v (%v)", dir, names, err)
		}
	}
	h.checkFeatureDisabled(t, ctx)
	s.tr.verify(t, ctx, h.cluster.Addrs())
	t.Logf("ZooKeeper after the IBP %s scenario:\n%s", oldIBP, formatStates(st))
}
