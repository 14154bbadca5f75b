package dropin

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// kafkaController: the last kzadmind stops, the brokers elect one of
// themselves, and the same failures run under Kafka's own controller for
// the side-by-side figures: kill -9 of a leader, SIGTERM of a leader, and
// kill -9 of the controller (a broker). The broker picked for the first
// two is never Kafka's controller, whose loss is the third scenario.
func (s *dropin) kafkaController(t *testing.T, ctx context.Context) {
	h := s.h
	began := time.Now()
	if err := s.standby.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	s.standby = nil
	ctl := h.waitBrokerController(t, ctx, -1)
	h.waitBrokersFollow(t, ctx, ctl)
	t.Logf("kzadmind stopped; broker %d became Kafka's controller, followed by all after %s", ctl, since(began))
	// Kafka's controller rewrites /feature at failover unless it already
	// holds what it would write.
	if v := h.checkFeature(t, ctx); v != s.featureVer {
		t.Fatalf("Kafka's controller rewrote /feature (version %d -> %d)", s.featureVer, v)
	}
	s.h.electPreferred(t, ctx, s.assignment)

	h.killAndRejoin(t, ctx, s.tr, s.figs, kafkaCtl, ctl)
	h.electPreferred(t, ctx, s.assignment)
	h.sigtermAndReturn(t, ctx, s.tr, s.figs, kafkaCtl, ctl)
	h.electPreferred(t, ctx, s.assignment)

	s.tr.waitMore(t, ctx, "before the controller kill", 100, time.Minute)
	start := time.Now()
	if err := h.cluster.Broker(ctl).Kill(); err != nil {
		t.Fatal(err)
	}
	seat := h.watchSeat(ctx, start, func(id int32) bool { return id >= 0 && id < firstID && id != ctl })
	if seat.err != nil {
		t.Fatalf("no broker took over from Kafka's controller %d: %v", ctl, seat.err)
	}
	h.waitBrokersFollow(t, ctx, seat.id)
	followed := time.Since(start)
	t.Logf("kill -9 of Kafka's controller %d: /controller gone after %s, broker %d won it after %s, every broker followed after %s",
		ctl, seat.gone, seat.id, seat.won, followed)
	s.figs.addTakeover(kafkaCtl, seat, followed)
	s.tr.waitMore(t, ctx, "after the controller kill", 200, time.Minute)
	s.tr.verify(t, ctx, h.cluster.Addrs())
}

// waitBrokerController waits until /controller names a broker (an id
// below firstID) other than not, and returns it.
func (h *harness) waitBrokerController(t *testing.T, ctx context.Context, not int32) int32 {
	t.Helper()
	var id int32
	err := pollUntil(ctx, time.Minute, 5*time.Millisecond, func() error {
		var err error
		if id, _, err = h.controller(ctx); err != nil {
			return err
		}
		if id < 0 || id >= firstID || id == not {
			return fmt.Errorf("/controller names %d", id)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("no broker became controller: %v", err)
	}
	return id
}
