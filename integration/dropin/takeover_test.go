package dropin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/controller"
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
	// One more than before, unless a broker won the race in between
	// (wonOrReclaim): then it bumped it too, and so did the reclaim.
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

// reclaimerID is the kzadmind started while a broker is Kafka's
// controller (kzadmindReclaims).
const reclaimerID int32 = 3007

// kzadmindReclaims: with a broker as Kafka's controller (the step before),
// a kzadmind started now takes the seat from it by itself
// (kzadmin.controller.reclaim.from.brokers): one multi replaces the
// broker's /controller and bumps the epoch once, the broker resigns, and
// every broker follows kzadmind while producing goes on.
func (s *dropin) kzadmindReclaims(t *testing.T, ctx context.Context) {
	h := s.h
	holder, before, err := h.controller(ctx)
	if err != nil || holder < 0 || holder >= firstID {
		t.Fatalf("/controller names %d (%v); want a broker", holder, err)
	}
	s.tr.start()
	began := time.Now()
	s.standby = h.startDaemon(t, ctx, reclaimerID)
	waitStatus(t, ctx, s.standby, "kzadmind never took the seat from the broker", func(st controller.Status) bool {
		return st.Ready
	})
	ready := time.Since(began)
	h.waitBrokersFollow(t, ctx, reclaimerID)
	followed := time.Since(began)
	id, epoch, err := h.controller(ctx)
	if err != nil || id != reclaimerID || epoch != before+1 {
		t.Fatalf("/controller names %d at epoch %d (%v); want %d at %d", id, epoch, err, reclaimerID, before+1)
	}
	recs := h.reclaims(t, reclaimerID)
	if len(recs) != 1 || recs[0].FromBroker != holder {
		t.Fatalf("kzadmind %d logged reclaims %+v; want one from broker %d", reclaimerID, recs, holder)
	}
	t.Logf("kzadmind %d started with broker %d as controller: took the seat and was ready after %s, every broker followed after %s",
		reclaimerID, holder, ready.Round(time.Millisecond), followed.Round(time.Millisecond))
	s.figs.add("kzadmind started, a broker controller → kzadmind reclaimed and ready", kzadmind, ready)
	s.figs.add("  → every broker follows kzadmind", kzadmind, followed)
	s.tr.waitMore(t, ctx, "after the reclaim", 200, time.Minute)
	s.tr.verify(t, ctx, h.cluster.Addrs())
}

// waitSeat waits until kzadmind id holds /controller, which it takes back
// by itself from a broker that won it (wonOrReclaim).
func (h *harness) waitSeat(t *testing.T, ctx context.Context, start time.Time, id int32) {
	t.Helper()
	if s := h.watchSeat(ctx, start, h.wonOrReclaim(t, ctx, id)); s.err != nil {
		t.Fatalf("kzadmind %d never took /controller: %v", id, s.err)
	}
}

// maxBrokerHold bounds how long a broker may hold /controller before the
// kzadmind standby takes it back: its first reclaim goes out as soon as
// it reads /controller naming the broker.
const maxBrokerHold = 10 * time.Second

// reclaimLine is what kzadmind logs when it takes /controller back from a
// broker (controller/seat_reclaim.go).
const reclaimLine = "reclaimed /controller from a Kafka broker"

// wonOrReclaim is a watchSeat condition: /controller names want. Brokers
// contend for the seat too when it falls vacant, and now and then one
// wins the race against the kzadmind standby; kzadmind then takes the
// seat back by itself (kzadmin.controller.reclaim.from.brokers, on by
// default). The condition fails the test if a broker is seen holding the
// seat for longer than maxBrokerHold, and once want holds it, logs
// ("seat race:") whether a broker won the race first and how long it
// held the seat, from want's own log (the reclaim often completes within
// one poll interval). The figures of such a run include the reclaim.
func (h *harness) wonOrReclaim(t *testing.T, ctx context.Context, want int32) func(int32) bool {
	logged := len(h.reclaims(t, want)) // reclaims of earlier takeovers
	var heldSince time.Time
	reported := false // watchSeat may ask again about the same id
	return func(id int32) bool {
		if id >= 0 && id < firstID {
			if heldSince.IsZero() {
				heldSince = time.Now()
				t.Logf("broker %d holds /controller; waiting for kzadmind %d to take it back", id, want)
			}
			if held := time.Since(heldSince); held > maxBrokerHold {
				t.Fatalf("broker %d has held /controller for %s; kzadmind %d never reclaimed it", id, held, want)
			}
			return false
		}
		if id != want || reported {
			return id == want
		}
		reported = true
		if lines := h.reclaims(t, want)[logged:]; len(lines) > 0 {
			for _, l := range lines {
				t.Logf("seat race: broker %d won /controller first; kzadmind %d took it back %s after the broker won it",
					l.FromBroker, want, time.Duration(l.BrokerHeld*float64(time.Millisecond)).Round(time.Millisecond))
			}
		} else {
			t.Logf("seat race: kzadmind %d won /controller directly", want)
		}
		return true
	}
}

// reclaimRecord is kzadmind's log line of a reclaim.
type reclaimRecord struct {
	FromBroker int32   `json:"from_broker"`
	BrokerHeld float64 `json:"broker_held"` // milliseconds
}

// reclaims returns the reclaims kzadmind id has logged so far.
func (h *harness) reclaims(t *testing.T, id int32) []reclaimRecord {
	data, err := os.ReadFile(h.logPath(id))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var out []reclaimRecord
	for _, line := range bytes.Split(data, []byte("\n")) {
		if !bytes.Contains(line, []byte(reclaimLine)) {
			continue
		}
		var r reclaimRecord
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("kzadmind %d log: %v: %s", id, err, line)
		}
		out = append(out, r)
	}
	return out
}
