package dropin

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/internal/daemon"
	"github.com/kzadmin/kzadmin/zkadmin"
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
	h.waitController(t, ctx, childID)
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
	to.seat = h.watchSeat(ctx, start, func(id int32) bool { return id == nextID })
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
	if _, now, err := h.controller(ctx); err != nil || now != to.epoch {
		t.Fatalf("controller epoch %d after the takeover (%v), want %d", now, err, to.epoch)
	}
	return to
}

// waitController waits until /controller names want.
func (h *harness) waitController(t *testing.T, ctx context.Context, want int32) {
	t.Helper()
	err := pollUntil(ctx, time.Minute, 5*time.Millisecond, func() error {
		id, _, err := h.controller(ctx)
		if err != nil {
			return err
		}
		if id != want {
			return fmt.Errorf("/controller names %d", id)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("controller %d never took over: %v", want, err)
	}
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
