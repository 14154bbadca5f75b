package dropin

import (
	"context"
	"fmt"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller"
	"github.com/kzadmin/kzadmin/integration/kafka"
	"github.com/kzadmin/kzadmin/znodes"
)

// resigned matches the line a kzadmind logs when it gives up the seat.
var resigned = regexp.MustCompile(`"reason":"([^"]*)"[^\n]*"message":"resigning as controller"`)

// pausedControllerResumes: the active kzadmind (a child) is SIGSTOPped
// until its ZooKeeper session expires and a successor takes over; the
// brokers follow the new epoch while producing goes on. Resumed with
// SIGCONT, the old controller resigns, and nothing of it lands: ZooKeeper
// keeps the successor's /controller and /controller_epoch, and every
// partition state written since the takeover carries the new epoch. The
// brokers refuse a LeaderAndIsr and an UpdateMetadata carrying the old
// epoch with STALE_CONTROLLER_EPOCH.
func (s *dropin) pausedControllerResumes(t *testing.T, ctx context.Context) {
	h := s.h
	old := s.handOverToChild(t, ctx, pausedID)
	succ := h.startDaemon(t, ctx, successorID)
	s.standby = succ
	waitStatus(t, ctx, succ, "successor never saw the paused one", func(st controller.Status) bool {
		return st.ActiveControllerID == pausedID
	})
	_, oldEpoch, err := h.controller(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s.tr.waitMore(t, ctx, "before the pause", 100, time.Minute)
	start := time.Now()
	if err := old.signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	seat := h.watchSeat(ctx, start, h.wonOrReclaim(t, ctx, successorID))
	if seat.err != nil {
		t.Fatalf("kzadmind %d never took over from the paused %d: %v", successorID, pausedID, seat.err)
	}
	h.waitBrokersFollow(t, ctx, successorID)
	followed := time.Since(start)
	t.Logf("SIGSTOP of kzadmind %d: its /controller expired after %s, %d won it after %s, every broker followed after %s",
		pausedID, seat.gone, successorID, seat.won, followed)
	s.figs.add("paused controller: SIGSTOP → successor won /controller", kzadmind, seat.won)
	s.figs.add("  SIGSTOP → every broker follows the successor", kzadmind, followed)
	s.tr.waitMore(t, ctx, "while the old controller is paused", 200, time.Minute)

	before := h.seatSnapshot(t, ctx)
	// Above the paused one's; more than one above if brokers won races in
	// between (wonOrReclaim).
	if st := succ.Controller().Status(); before.epoch <= oldEpoch || before.ctl != successorID || st.Epoch != before.epoch {
		t.Fatalf("/controller %d at epoch %d after the takeover, kzadmind %d at %d; the paused one had %d",
			before.ctl, before.epoch, successorID, st.Epoch, oldEpoch)
	}
	h.resumeUntilResigned(t, ctx, old)
	s.tr.waitMore(t, ctx, "after the old controller resumed", 200, time.Minute)
	h.checkNothingLanded(t, ctx, before)
	for _, b := range h.cluster.Brokers {
		if err := refusesEpoch(ctx, h, b, pausedID, oldEpoch); err != nil {
			t.Fatal(err)
		}
	}
	h.waitBrokersFollow(t, ctx, successorID)
	old.kill() // the next step wants the brokers to elect one of themselves
}

// resumeUntilResigned sends the paused child SIGCONT and waits until it
// logs its resignation.
func (h *harness) resumeUntilResigned(t *testing.T, ctx context.Context, c *child) {
	t.Helper()
	logFrom := fileSize(h.logPath(c.id))
	resumed := time.Now()
	if err := c.signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	var reason string
	err := pollUntil(ctx, time.Minute, 20*time.Millisecond, func() error {
		m := resigned.FindStringSubmatch(readFrom(t, h.logPath(c.id), logFrom))
		if m == nil {
			return fmt.Errorf("kzadmind %d has not resigned", c.id)
		}
		reason = m[1]
		return nil
	})
	if err != nil {
		t.Fatalf("%v (log %s)", err, h.logPath(c.id))
	}
	t.Logf("kzadmind %d resumed and resigned after %s (%s)", c.id, since(resumed), reason)
}

// seatState is what ZooKeeper held of the controller seat and the test
// topic's partitions once the successor had taken over.
type seatState struct {
	ctl        int32
	ctlCzxid   int64 // the successor's ephemeral /controller
	epoch      int32
	epochStat  int32 // /controller_epoch's version
	partitions []pstate
}

func (h *harness) seatSnapshot(t *testing.T, ctx context.Context) seatState {
	t.Helper()
	var s seatState
	var err error
	if s.ctl, s.epoch, err = h.controller(ctx); err != nil {
		t.Fatal(err)
	}
	_, st, err := h.obs.Get(ctx, znodes.ControllerPath)
	if err != nil {
		t.Fatal(err)
	}
	s.ctlCzxid = st.Czxid
	if _, st, err = h.obs.Get(ctx, znodes.ControllerEpochPath); err != nil {
		t.Fatal(err)
	}
	s.epochStat = st.Version
	if s.partitions, err = h.states(ctx); err != nil {
		t.Fatal(err)
	}
	return s
}

// checkNothingLanded compares ZooKeeper with what it held before the old
// controller resumed: the same /controller znode and /controller_epoch,
// and any partition state rewritten since written under the new epoch.
func (h *harness) checkNothingLanded(t *testing.T, ctx context.Context, before seatState) {
	t.Helper()
	now := h.seatSnapshot(t, ctx)
	if now.ctl != before.ctl || now.ctlCzxid != before.ctlCzxid {
		t.Fatalf("/controller changed after the old controller resumed: %d (czxid %d), was %d (czxid %d)",
			now.ctl, now.ctlCzxid, before.ctl, before.ctlCzxid)
	}
	if now.epoch != before.epoch || now.epochStat != before.epochStat {
		t.Fatalf("/controller_epoch changed after the old controller resumed: %d (version %d), was %d (version %d)",
			now.epoch, now.epochStat, before.epoch, before.epochStat)
	}
	for p, ps := range now.partitions {
		if ps.PartitionEpoch != before.partitions[p].PartitionEpoch && ps.ControllerEpoch != now.epoch {
			t.Fatalf("%s-%d rewritten under controller epoch %d after the old controller resumed: %s (was %s)",
				topic, p, ps.ControllerEpoch, ps, before.partitions[p])
		}
		if ps.ControllerEpoch > now.epoch {
			t.Fatalf("%s-%d: %s, beyond controller epoch %d", topic, p, ps, now.epoch)
		}
	}
}

// refusesEpoch sends b a LeaderAndIsr and an UpdateMetadata from
// controller ctl at controller epoch epoch (below the broker's), with the
// broker's own epoch so that only the controller epoch is wrong, and wants
// both refused with STALE_CONTROLLER_EPOCH (11).
func refusesEpoch(ctx context.Context, h *harness, b *kafka.Broker, ctl, epoch int32) error {
	_, st, err := h.obs.Get(ctx, znodes.BrokerIDPath(b.ID()))
	if err != nil {
		return err
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.DialTimeout(time.Second))
	if err != nil {
		return err
	}
	defer cl.Close()
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	lai := kmsg.NewPtrLeaderAndISRRequest()
	lai.ControllerID, lai.ControllerEpoch, lai.BrokerEpoch = ctl, epoch, st.Czxid
	um := kmsg.NewPtrUpdateMetadataRequest()
	um.ControllerID, um.ControllerEpoch, um.BrokerEpoch = ctl, epoch, st.Czxid
	for _, req := range []kmsg.Request{lai, um} {
		resp, err := cl.SeedBrokers()[0].Request(rctx, req)
		if err != nil {
			return fmt.Errorf("%s to broker %d: %w", kmsg.NameForKey(req.Key()), b.ID(), err)
		}
		var code int16
		switch r := resp.(type) {
		case *kmsg.LeaderAndISRResponse:
			code = r.ErrorCode
		case *kmsg.UpdateMetadataResponse:
			code = r.ErrorCode
		}
		if code != kerr.StaleControllerEpoch.Code {
			return fmt.Errorf("broker %d answered %s v%d at controller epoch %d with %v, want STALE_CONTROLLER_EPOCH (log %s)",
				b.ID(), kmsg.NameForKey(req.Key()), req.GetVersion(), epoch, kerr.ErrorForCode(code), b.LogPath())
		}
	}
	return nil
}
