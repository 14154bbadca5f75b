package dropin

import (
	"context"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/controller"
)

// warmStandbyTakesOver: the takeover after kill -9 again, with the
// standby started with kzadmin.warm.standby=true. It holds the cluster
// loaded by watching, so after winning /controller it has no failover
// reads to do. The brokers follow the new epoch, producing goes on, and a
// topic created afterwards gets leaders under it. The figures print next
// to the cold standby's.
func (s *dropin) warmStandbyTakesOver(t *testing.T, ctx context.Context) {
	h := s.h
	ch := s.handOverToChild(t, ctx, warmChildID)
	conf := daemonConfig(h.zks.Addr(), chroot, warmID)
	conf.WarmStandby = true
	warm := h.startDaemonConf(t, ctx, conf)
	began := time.Now()
	waitStatus(t, ctx, warm, "warm standby never warmed", func(st controller.Status) bool {
		return st.Warm && !st.Active && st.ActiveControllerID == warmChildID
	})
	t.Logf("warm standby %d loaded the cluster %s after it started", warmID, since(began))
	s.standby = warm
	to := s.killForTakeover(t, ctx, ch, warm, warmID)
	t.Logf("kill -9 of kzadmind %d: /controller gone after %s, warm standby %d won it after %s, ready after %s, every broker followed after %s",
		warmChildID, to.seat.gone, warmID, to.seat.won, to.ready, to.followed)
	s.figs.add("warm standby takeover after kill -9: kill → new /controller", kzadmind, to.seat.won)
	s.figs.add("  of which: old /controller expired → warm standby won it", kzadmind, to.seat.won-to.seat.gone)
	s.figs.add("  kill → new controller ready (warm standby)", kzadmind, to.ready)
	s.figs.add("  of which: old /controller expired → warm standby ready", kzadmind, to.ready-to.seat.gone)
	s.figs.add("  kill → every broker follows the warm standby", kzadmind, to.followed)
	s.tr.waitMore(t, ctx, "after the warm takeover", 200, time.Minute)
	h.newTopicUnderEpoch(t, ctx, "dropin-after-warm-takeover", to.epoch)
}
