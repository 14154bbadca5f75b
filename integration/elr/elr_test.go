package elr

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller"
	"github.com/kzadmin/kzadmin/integration/kafka"
	"github.com/kzadmin/kzadmin/znodes"
)

// Metric names (kzadmind's /metrics).
const (
	metricFromELR    = "kafka_controller_ControllerStats_ElectionFromEligibleLeaderReplicasPerSec"
	metricUnclean    = "kafka_controller_ControllerStats_UncleanLeaderElectionsPerSec"
	metricStarted    = "kafka_controller_ControllerStats_UncleanRecoveriesStartedPerSec"
	metricRecovered  = "kafka_controller_ControllerStats_UncleanRecoveryElectionsPerSec"
	metricInProgress = "kafka_controller_KafkaController_UncleanRecoveriesInProgressCount"
	metricOffline    = "kafka_controller_KafkaController_OfflinePartitionsCount"
)

// TestELRRealBrokers runs the phases on one cluster, in order; a failed
// phase stops the ones after it. Every phase ends with all three brokers
// running.
func TestELRRealBrokers(t *testing.T) {
	kafka.SkipIfHeavyDisabled(t)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	began := time.Now()
	h := newHarness(t, ctx)
	// kzadmind holds /controller before any broker starts.
	h.useController(t, ctx, config.RecoveryNone)
	h.startBrokers(t, ctx)
	phases := []struct {
		name string
		run  func(*testing.T, context.Context, *harness)
	}{
		{"ELRKeepsAcksAllAndNoneElectsNobody", elrKeepsAcksAll},
		{"BalancedWaitsForTheELR", balancedWaits},
		{"AggressiveElectsTheLongestLog", aggressiveLongestLog},
	}
	for _, p := range phases {
		start := time.Now()
		if !t.Run(p.name, func(t *testing.T) { p.run(t, ctx, h) }) {
			t.FailNow()
		}
		t.Logf("%s took %s", p.name, time.Since(start).Round(time.Millisecond))
	}
	t.Logf("whole test %s", time.Since(began).Round(time.Millisecond))
}

// elrKeepsAcksAll is KIP-966's "last replica standing" with
// unclean.recovery.strategy=None: replica 3 falls behind, 2 shuts down
// (the ISR drops below min.insync.replicas=2 and 2 enters the ELR), 1 dies.
// Replica 3, outside the ISR and the ELR, comes back first and is not
// elected; then 2 comes back and leads cleanly from the ELR with every
// record acknowledged with acks=all.
func elrKeepsAcksAll(t *testing.T, ctx context.Context, h *harness) {
	const topic = "keep"
	h.createTopic(t, ctx, topic, 2)
	mustProduce(t, ctx, h, topic, kgo.AllISRAcks(), 0, 100)

	// Paused, 3 stays registered but falls behind the writes below, so
	// leader 1 drops it from the ISR with AlterPartition after
	// replica.lag.time.max.ms (the writes wait for that: acks=all). The
	// ISR stays at the min ISR, so no ELR yet.
	h.pause(t, 3)
	paused := time.Now()
	mustProduce(t, ctx, h, topic, kgo.AllISRAcks(), 100, 50)
	st := h.waitState(t, ctx, topic, "shrunk to 1,2 without ELR", time.Minute, func(s pstate) bool {
		return s.Leader == 1 && equal(s.ISR, 1, 2) && s.EligibleLeaderReplicas == nil
	})
	// AlterPartition keeps the leader epoch; the controller's own removal
	// of a dead broker would have raised it.
	if st.LeaderEpoch != 0 {
		t.Fatalf("ISR shrink raised the leader epoch: %s (not the leader's AlterPartition)", st)
	}
	t.Logf("leader 1 shrank the ISR with AlterPartition %s after 3 paused", time.Since(paused).Round(time.Millisecond))
	h.kill(t, 3)
	// A fetch 3 sent just before it froze may still reach leader 1, which
	// then adds 3 back to the ISR (seen in one of six runs); only 3's
	// registration expiring (the controller removes it) settles the ISR.
	err := pollUntil(ctx, time.Minute, 50*time.Millisecond, func() error {
		reg, err := h.registered(ctx, 3)
		if err != nil || reg {
			return fmt.Errorf("broker 3 still registered (%v)", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	h.waitState(t, ctx, topic, "ISR 1,2 with 3 gone", time.Minute, func(s pstate) bool {
		return equal(s.ISR, 1, 2) && s.EligibleLeaderReplicas == nil
	})

	if _, err := h.broker(2).Stop(); err != nil {
		t.Fatal(err)
	}
	h.waitState(t, ctx, topic, "ISR 1 with ELR 2", time.Minute, func(s pstate) bool {
		return s.Leader == 1 && equal(s.ISR, 1) && equal(s.EligibleLeaderReplicas, 2) && s.ELRMinISR == 2
	})
	// Below the min ISR the leader refuses acks=all writes, which is why
	// the ELR holds every acknowledged record.
	err = produce(ctx, h.running(), topic, kgo.AllISRAcks(), 150, 1, 10*time.Second, kgo.RecordRetries(1))
	if !errors.Is(err, kerr.NotEnoughReplicas) {
		t.Fatalf("acks=all below the min ISR: %v, want NOT_ENOUGH_REPLICAS", err)
	}
	h.kill(t, 1)
	h.waitState(t, ctx, topic, "leaderless, ISR 1, ELR 2", time.Minute, func(s pstate) bool {
		return s.Leader == -1 && equal(s.ISR, 1) && equal(s.EligibleLeaderReplicas, 2)
	})

	noneElectsNobody(t, ctx, h, topic)

	if err := h.broker(2).Restart(ctx); err != nil {
		t.Fatal(err)
	}
	st = h.waitState(t, ctx, topic, "led by ELR member 2", time.Minute, func(s pstate) bool { return s.Leader == 2 })
	if !equal(st.ISR, 2) || st.LeaderRecoveryState != znodes.LeaderRecovered {
		t.Fatalf("ELR election: %s, want ISR [2], not recovering", st)
	}
	h.waitMetric(t, ctx, metricFromELR, func(v float64) bool { return v >= 1 })
	if got := h.metric(t, metricUnclean); got != 0 {
		t.Fatalf("%s = %v after a clean ELR election", metricUnclean, got)
	}
	end := consumeAll(t, ctx, h, topic, 150)
	t.Logf("%s-0: all 150 acknowledged records read back from ELR leader 2 (end offset %d)", topic, end)
	restore(t, ctx, h, topic, 1)
}

// noneElectsNobody: with None, replica 3, in neither the ISR nor the ELR,
// comes back and the partition stays leaderless; nobody is asked for logs.
func noneElectsNobody(t *testing.T, ctx context.Context, h *harness, topic string) {
	t.Helper()
	if err := h.broker(3).Restart(ctx); err != nil {
		t.Fatal(err)
	}
	h.waitControllerSees(t, ctx, 3)
	window := 5 * time.Second
	h.holdsLeaderless(t, ctx, topic, window)
	if got := h.metric(t, metricStarted); got != 0 {
		t.Fatalf("None started %v unclean recoveries", got)
	}
	if got := h.metric(t, metricOffline); got < 1 {
		t.Fatalf("%s = %v with %s-0 leaderless", metricOffline, got, topic)
	}
	why := h.logLines(t, "partition not online", topic+"-0")
	if len(why) == 0 {
		t.Fatalf("kzadmind's log does not say why %s-0 stays offline (%s)", topic, h.logPath())
	}
	t.Logf("None: %s-0 leaderless for %s with broker 3 live; kzadmind logs: %s", topic, window, why[len(why)-1])
}

// balancedWaits: the same failures under Balanced. Replica 3 comes back
// first and answers, but Balanced waits for the ISR and ELR members (1,
// 2) instead of electing it; 2 comes back within unclean.recovery.timeout
// and leads from the ELR with every acks=all record. 3, which missed
// records 100..149, never leads.
func balancedWaits(t *testing.T, ctx context.Context, h *harness) {
	const topic = "balanced"
	h.useController(t, ctx, config.RecoveryBalanced)
	h.createTopic(t, ctx, topic, 2)
	mustProduce(t, ctx, h, topic, kgo.AllISRAcks(), 0, 100)
	if _, err := h.broker(3).Stop(); err != nil {
		t.Fatal(err)
	}
	h.waitState(t, ctx, topic, "ISR 1,2", time.Minute, func(s pstate) bool { return equal(s.ISR, 1, 2) })
	mustProduce(t, ctx, h, topic, kgo.AllISRAcks(), 100, 50)
	if _, err := h.broker(2).Stop(); err != nil {
		t.Fatal(err)
	}
	h.waitState(t, ctx, topic, "ISR 1 with ELR 2", time.Minute, func(s pstate) bool {
		return equal(s.ISR, 1) && equal(s.EligibleLeaderReplicas, 2)
	})
	h.kill(t, 1)
	h.waitState(t, ctx, topic, "leaderless", time.Minute, func(s pstate) bool { return s.Leader == -1 })

	started := h.metric(t, metricStarted)
	waitFrom := time.Now()
	if err := h.broker(3).Restart(ctx); err != nil {
		t.Fatal(err)
	}
	err := pollUntil(ctx, time.Minute, 20*time.Millisecond, func() error {
		if h.metric(t, metricStarted) <= started || h.metric(t, metricInProgress) < 1 {
			return errors.New("no unclean recovery in progress")
		}
		return nil
	})
	if err != nil {
		t.Fatalf("Balanced did not start a recovery when 3 came back: %v", err)
	}
	// 3 answers (log end 100), yet Balanced waits for 1 and 2; 3 must
	// never lead meanwhile.
	heard := h.waitAnswer(t, ctx, topic, 3)
	h.holdsLeaderless(t, ctx, topic, time.Second)
	t.Logf("Balanced heard 3 and waits: %s", heard)
	if err := h.broker(2).Restart(ctx); err != nil {
		t.Fatal(err)
	}
	st := h.waitState(t, ctx, topic, "led by ELR member 2", time.Minute, func(s pstate) bool { return s.Leader != -1 })
	if st.Leader != 2 || st.LeaderRecoveryState != znodes.LeaderRecovered {
		t.Fatalf("Balanced elected %s, want ELR member 2, clean", st)
	}
	t.Logf("Balanced held %s-0 for %s until ELR member 2 was back", topic, time.Since(waitFrom).Round(time.Millisecond))
	consumeAll(t, ctx, h, topic, 150)
	restore(t, ctx, h, topic, 1)
	// The recovery's own timeout must not override the clean leader.
	err = pollUntil(ctx, recoveryTimeout+30*time.Second, 100*time.Millisecond, func() error {
		if h.metric(t, metricInProgress) != 0 {
			return errors.New("recovery still waiting")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if st, err := h.state(ctx, topic); err != nil || st.Leader != 2 {
		t.Fatalf("after the recovery timed out: %s (%v), want leader 2", st, err)
	}
}

// aggressiveLongestLog: min.insync.replicas=1, so no ELR forms. Replica 2
// stops after record 99, replica 3 after record 149, leader 1 takes 30
// more acks=1 records and dies. Both come back (under None, so that both
// are live when recovery starts); then an Aggressive controller takes
// over and elects the longest log, 3's, without waiting for 1. Records
// 150..179, which only 1 had, are lost: that is what Aggressive trades.
func aggressiveLongestLog(t *testing.T, ctx context.Context, h *harness) {
	const topic = "aggressive"
	h.useController(t, ctx, config.RecoveryNone)
	h.createTopic(t, ctx, topic, 1)
	mustProduce(t, ctx, h, topic, kgo.AllISRAcks(), 0, 100)
	if _, err := h.broker(2).Stop(); err != nil {
		t.Fatal(err)
	}
	h.waitState(t, ctx, topic, "ISR 1,3", time.Minute, func(s pstate) bool { return equal(s.ISR, 1, 3) })
	mustProduce(t, ctx, h, topic, kgo.AllISRAcks(), 100, 50)
	if _, err := h.broker(3).Stop(); err != nil {
		t.Fatal(err)
	}
	h.waitState(t, ctx, topic, "ISR 1", time.Minute, func(s pstate) bool { return equal(s.ISR, 1) })
	mustProduce(t, ctx, h, topic, kgo.LeaderAck(), 150, 30)
	h.kill(t, 1)
	h.waitState(t, ctx, topic, "leaderless", time.Minute, func(s pstate) bool { return s.Leader == -1 })
	restartAll(t, ctx, h, 2, 3)
	h.waitControllerSees(t, ctx, 2, 3)
	h.holdsLeaderless(t, ctx, topic, time.Second)

	took := time.Now()
	h.useController(t, ctx, config.RecoveryAggressive)
	st := h.waitState(t, ctx, topic, "recovered", time.Minute, func(s pstate) bool { return s.Leader != -1 })
	elapsed := time.Since(took)
	if st.Leader != 3 || !equal(st.ISR, 3) || st.LeaderRecoveryState != znodes.LeaderRecovering {
		t.Fatalf("Aggressive elected %s, want 3 (the longest log) alone in the ISR, recovering", st)
	}
	if elapsed >= recoveryTimeout {
		t.Fatalf("Aggressive took %s: it waited for the dead ISR", elapsed)
	}
	h.waitMetric(t, ctx, metricRecovered, func(v float64) bool { return v >= 1 })
	for b, leo := range map[int32]string{2: "100", 3: "150"} {
		heard := h.waitAnswer(t, ctx, topic, b)
		if !strings.Contains(heard, `"log_end_offset":`+leo+",") {
			t.Fatalf("broker %d answered %s, want log end %s", b, heard, leo)
		}
		t.Logf("Aggressive heard: %s", heard)
	}
	end := consumeAll(t, ctx, h, topic, 150)
	if end != 150 {
		t.Fatalf("%s-0 ends at %d after recovery, want 3's log end 150", topic, end)
	}
	t.Logf("Aggressive elected 3 (log end 150 over 2's 100) %s after the failover; the 30 acks=1 records only 1 had are gone",
		elapsed.Round(time.Millisecond))
	restore(t, ctx, h, topic, 1)
}

// restore restarts the brokers that are down and waits until the topic's
// ISR holds all three again, with no ELR left: stock brokers followed and
// rewrote (through AlterPartition) states carrying kzadmind's ELR fields.
func restore(t *testing.T, ctx context.Context, h *harness, topic string, down ...int32) {
	t.Helper()
	restartAll(t, ctx, h, down...)
	h.waitState(t, ctx, topic, "back in sync", 2*time.Minute, func(s pstate) bool {
		return sameSet(s.ISR, 1, 2, 3) && s.EligibleLeaderReplicas == nil && s.LastKnownELR == nil
	})
}

// restartAll restarts the brokers at once (JVM starts overlap).
func restartAll(t *testing.T, ctx context.Context, h *harness, ids ...int32) {
	t.Helper()
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = h.broker(id).Restart(ctx)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}

// waitAnswer waits until kzadmind's log shows broker b's answer to the
// unclean recovery of partition 0 (its log end and epoch), and returns it.
func (h *harness) waitAnswer(t *testing.T, ctx context.Context, topic string, b int32) string {
	t.Helper()
	var got []string
	err := pollUntil(ctx, time.Minute, 50*time.Millisecond, func() error {
		got = h.logLines(t, "unclean recovery: replica answered", `"partition":"`+topic+`-0"`,
			`"broker":`+strconv.Itoa(int(b))+`,`)
		if len(got) == 0 {
			return errors.New("no answer logged")
		}
		return nil
	})
	if err != nil {
		t.Fatalf("broker %d never answered the recovery of %s-0: %v", b, topic, err)
	}
	return got[len(got)-1]
}

// waitControllerSees waits until kzadmind's view lists the brokers, so the
// broker change that brought them back has been handled.
func (h *harness) waitControllerSees(t *testing.T, ctx context.Context, ids ...int32) {
	t.Helper()
	err := pollUntil(ctx, time.Minute, 20*time.Millisecond, func() error {
		v := h.ctl.Controller().Snapshot()
		for _, id := range ids {
			if v == nil || !slices.ContainsFunc(v.Brokers, func(b controller.BrokerView) bool { return b.ID == id }) {
				return errors.New("broker not in the controller's view")
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("kzadmind never saw brokers %v: %v", ids, err)
	}
}
