package dropin

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/internal/daemon"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// standbyTakesOver: two more kzadmind instances. A child process takes
// over when the first stops cleanly; an in-process standby takes over when
// the child is killed with SIGKILL (its ZooKeeper session then only ends
// at the session timeout). The brokers follow the new controller epoch,
// producing goes on, and a topic created afterwards gets leaders under
// the new epoch.
func (s *dropin) standbyTakesOver(t *testing.T, ctx context.Context) {
	ch := s.cleanHandover(t, ctx)
	s.killActive(t, ctx, ch)
}

// cleanHandover starts the child and stops the first kzadmind, which
// releases /controller: the child takes over at once.
func (s *dropin) cleanHandover(t *testing.T, ctx context.Context) *child {
	h := s.h
	ch := h.startChild(t, ctx, childID)
	began := time.Now()
	if err := s.first.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	s.first = nil
	h.waitSeat(t, ctx, began, childID)
	zkTook := time.Since(began)
	h.waitBrokersFollow(t, ctx, childID)
	t.Logf("clean stop of kzadmind %d: %d won /controller after %s, brokers followed after %s", firstID, childID, zkTook, since(began))
	s.figs.add("clean handover (kzadmind stopped) → every broker follows", kzadmind, time.Since(began))
	return ch
}

// killActive starts an in-process standby and kills the child (the active
// controller) with SIGKILL.
func (s *dropin) killActive(t *testing.T, ctx context.Context, ch *child) {
	s.standby = s.h.startDaemon(t, ctx, standbyID)
	to := s.killForTakeover(t, ctx, ch, s.standby, standbyID)
	t.Logf("kill -9 of kzadmind %d: /controller gone after %s, %d won it after %s, ready after %s, every broker followed after %s",
		ch.id, to.seat.gone, standbyID, to.seat.won, to.ready, to.followed)
	s.figs.addTakeover(kzadmind, to.seat, to.followed)
	s.figs.add("  kill → new controller ready (cold standby)", kzadmind, to.ready)
	s.figs.add("  of which: old /controller expired → cold standby ready", kzadmind, to.ready-to.seat.gone)
	s.tr.waitMore(t, ctx, "after the takeover", 200, time.Minute)
	s.h.newTopicUnderEpoch(t, ctx, "dropin-after-takeover", to.epoch)
	s.tr.verify(t, ctx, s.h.cluster.Addrs())
	s.tr.start()
}

// takeover is what killForTakeover saw, from the kill on.
type takeover struct {
	seat            seat
	ready, followed time.Duration
	epoch           int32 // the new controller epoch
}

// killForTakeover waits until next, an in-process kzadmind with node id
// nextID, sees the child ch as the active controller, kills ch with
// SIGKILL, and waits until next has won /controller under the next epoch,
// has loaded the cluster, and every broker follows it.
func (s *dropin) killForTakeover(t *testing.T, ctx context.Context, ch *child, next *daemon.Daemon, nextID int32) takeover {
	t.Helper()
	h := s.h
	err := pollUntil(ctx, time.Minute, 10*time.Millisecond, func() error {
		if st := next.Controller().Status(); st.ActiveControllerID != ch.id {
			return fmt.Errorf("standby %d sees %+v", nextID, st)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	_, epoch, err := h.controller(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s.tr.waitMore(t, ctx, "before the kill", 100, time.Minute)
	start := time.Now()
	ch.kill()
	to := takeover{epoch: epoch + 1}
	to.seat = h.watchSeat(ctx, start, h.wonOrReclaim(t, ctx, nextID))
	if to.seat.err != nil {
		t.Fatalf("kzadmind %d never took over from %d: %v", nextID, ch.id, to.seat.err)
	}
	err = pollUntil(ctx, time.Minute, 5*time.Millisecond, func() error {
		if st := next.Controller().Status(); !st.Ready {
			return fmt.Errorf("standby %d: %+v", nextID, st)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	to.ready = time.Since(start)
	h.waitBrokersFollow(t, ctx, nextID)
	to.followed = time.Since(start)
	// One more than before, unless brokers won races in between
	// (wonOrReclaim): then each of them bumped it too.
	_, now, err := h.controller(ctx)
	if st := next.Controller().Status(); err != nil || now < to.epoch || st.Epoch != now {
		t.Fatalf("controller epoch %d after the takeover (%v), kzadmind %d at %d, want %d or more", now, err, nextID, st.Epoch, to.epoch)
	}
	to.epoch = now
	return to
}

// newTopicUnderEpoch creates a topic and checks that its partitions got
// leaders written under controller epoch epoch and that the brokers took
// the LeaderAndIsr: each partition accepts an idempotent produce.
func (h *harness) newTopicUnderEpoch(t *testing.T, ctx context.Context, name string, epoch int32) {
	t.Helper()
	const n = 3
	if _, err := h.admin.CreateTopic(ctx, zkadmin.CreateTopicRequest{Topic: name, Partitions: n, ReplicationFactor: replicationFactor}); err != nil {
		t.Fatal(err)
	}
	err := pollUntil(ctx, time.Minute, 10*time.Millisecond, func() error {
		st, err := h.statesOf(ctx, name, n)
		if err != nil {
			return err
		}
		for p, ps := range st {
			if ps.Leader < 0 || len(ps.ISR) != replicationFactor || ps.ControllerEpoch != epoch {
				return fmt.Errorf("%s-%d: %s", name, p, ps)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("new topic under epoch %d: %v", epoch, err)
	}
	if err := produceEach(ctx, h.cluster.Addrs(), name, n); err != nil {
		t.Fatalf("produce to %s: %v", name, err)
	}
}

// seat is what a monitor saw of /controller after the active controller
// was killed: when (from the kill) the old one's znode vanished, when a
// new controller had written it, and who.
type seat struct {
	gone, won time.Duration
	id        int32
	err       error
}

// watchSeat polls /controller from start until it is gone and then names
// a controller that accept likes.
func (h *harness) watchSeat(ctx context.Context, start time.Time, accept func(int32) bool) seat {
	s := seat{gone: -1}
	s.err = pollUntil(ctx, time.Minute, 5*time.Millisecond, func() error {
		id, _, err := h.controller(ctx)
		if err != nil {
			return err
		}
		if s.gone < 0 && (id < 0 || accept(id)) {
			s.gone = time.Since(start)
		}
		if s.gone < 0 || !accept(id) {
			return fmt.Errorf("/controller names %d", id)
		}
		s.won, s.id = time.Since(start), id
		return nil
	})
	return s
}

// addTakeover records the figures of a controller takeover after kill -9.
func (f *figures) addTakeover(under int, s seat, followed time.Duration) {
	f.add("controller takeover after kill -9: kill → new /controller", under, s.won)
	f.add("  of which: old /controller expired → new /controller", under, s.won-s.gone)
	f.add("  kill → every broker follows the new controller", under, followed)
}

// waitSeat waits until kzadmind id holds /controller, reclaiming the seat
// from a broker that won it (wonOrReclaim).
func (h *harness) waitSeat(t *testing.T, ctx context.Context, start time.Time, id int32) {
	t.Helper()
	if s := h.watchSeat(ctx, start, h.wonOrReclaim(t, ctx, id)); s.err != nil {
		t.Fatalf("kzadmind %d never took /controller: %v", id, s.err)
	}
}

// wonOrReclaim is a watchSeat condition: /controller names want. Brokers
// contend for the seat too when it falls vacant, and now and then one
// wins the race against the kzadmind standby (about one takeover in ten
// here); that broker would stay controller until it died. Then, as an
// operator would, it deletes the broker's /controller (conditionally on
// its version), so that the race runs again, and logs it. The figures of
// such a run include the extra round.
func (h *harness) wonOrReclaim(t *testing.T, ctx context.Context, want int32) func(int32) bool {
	var reclaimed int64 // czxid of the broker's /controller deleted last
	return func(id int32) bool {
		if id < 0 || id >= firstID {
			return id == want
		}
		_, stat, err := h.obs.Get(ctx, znodes.ControllerPath)
		if err != nil || stat.Czxid == reclaimed {
			return false
		}
		reclaimed = stat.Czxid
		err = h.obs.Delete(ctx, znodes.ControllerPath, stat.Version)
		t.Logf("broker %d won /controller from kzadmind %d; deleted it to run the race again (%v)", id, want, err)
		return false
	}
}
