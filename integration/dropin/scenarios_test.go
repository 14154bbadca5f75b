package dropin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/kzadmin/kzadmin/integration/kafka"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// departure is what a monitor saw while a broker went away: when (from
// start) its registration vanished and when it stopped leading anything.
type departure struct {
	gone, moved time.Duration
	err         error
}

// watchDeparture polls ZooKeeper from start until broker id is neither
// registered nor leading any partition.
func (h *harness) watchDeparture(ctx context.Context, id int32, start time.Time) departure {
	var d departure
	d.gone, d.moved = -1, -1
	d.err = pollUntil(ctx, time.Minute, 5*time.Millisecond, func() error {
		if d.gone < 0 {
			reg, err := h.registered(ctx, id)
			if err != nil {
				return err
			}
			if !reg {
				d.gone = time.Since(start)
			}
		}
		if d.moved < 0 {
			st, err := h.states(ctx)
			if err != nil {
				return err
			}
			if len(ledBy(st, id)) == 0 {
				d.moved = time.Since(start)
			}
		}
		if d.gone < 0 || d.moved < 0 {
			return fmt.Errorf("broker %d: registration gone after %v, leadership moved after %v", id, d.gone, d.moved)
		}
		return nil
	})
	return d
}

// pickLeader returns a running broker that leads some partition, other
// than avoid (Kafka's controller, whose loss is a different scenario).
func pickLeader(t *testing.T, st []pstate, avoid int32) int32 {
	t.Helper()
	for _, s := range st {
		if s.Leader >= 0 && s.Leader != avoid {
			return s.Leader
		}
	}
	t.Fatalf("no partition led by a broker other than %d:\n%s", avoid, formatStates(st))
	return -1
}

// killOneLeader kills -9 a broker leading some partition (not avoid) while tr
// produces, and waits until its partitions have new leaders (leader epoch
// +1, a replica that was in sync), it has left every ISR and producing
// went on. It returns the broker, the partition states after, and when
// its registration went and its leadership moved.
func (h *harness) killOneLeader(t *testing.T, ctx context.Context, tr *traffic, avoid int32) (*kafka.Broker, []pstate, departure) {
	t.Helper()
	before, err := h.states(ctx)
	if err != nil {
		t.Fatal(err)
	}
	victim := pickLeader(t, before, avoid)
	led := ledBy(before, victim)
	tr.waitMore(t, ctx, "before the kill", 100, time.Minute)
	b := h.cluster.Broker(victim)
	start := time.Now()
	if err := b.Kill(); err != nil {
		t.Fatal(err)
	}
	d := h.watchDeparture(ctx, victim, start)
	if d.err != nil {
		t.Fatalf("after kill -9 of broker %d: %v", victim, d.err)
	}
	t.Logf("killed broker %d (leader of %v): registration gone after %s, leaders moved after %s", victim, led, d.gone, d.moved)
	after := h.waitStates(t, ctx, "ISR shrink", time.Minute, notIn(victim))
	for _, p := range led {
		if after[p].LeaderEpoch != before[p].LeaderEpoch+1 || !slices.Contains(before[p].ISR, after[p].Leader) {
			t.Fatalf("%s-%d after the leader died: %s (before: %s)", topic, p, after[p], before[p])
		}
	}
	tr.waitMore(t, ctx, "after the kill", 200, time.Minute)
	return b, after, d
}

// killAndRejoin is the kill -9 scenario: the broker leading a partition
// dies; its partitions get new leaders (leader epoch +1) and it leaves
// every ISR; producing goes on; restarted, it rejoins every ISR through the
// leaders' AlterPartition (or, at IBP < 2.7, their own ZooKeeper writes):
// partition epoch up, leader epoch unchanged.
func (h *harness) killAndRejoin(t *testing.T, ctx context.Context, tr *traffic, figs *figures, under int, avoid int32) {
	b, after, d := h.killOneLeader(t, ctx, tr, avoid)
	victim := b.ID()
	figs.add("leader failover after kill -9: kill → new leaders in ZK", under, d.moved)
	figs.add("  of which: registration expired → new leaders in ZK", under, d.moved-d.gone)

	began := time.Now()
	if err := b.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	back := h.waitStates(t, ctx, "ISR rejoin", 2*time.Minute, allInSync)
	t.Logf("broker %d restarted and back in every ISR after %s", victim, since(began))
	for p, s := range back {
		if s.Leader == after[p].Leader && (s.LeaderEpoch != after[p].LeaderEpoch || s.PartitionEpoch <= after[p].PartitionEpoch) {
			t.Fatalf("%s-%d: ISR expansion must raise the partition epoch and keep the leader epoch: %s -> %s", topic, p, after[p], s)
		}
	}
}

// Lines of a 3.9 broker's log about its controlled shutdown.
var (
	shutdownOK      = regexp.MustCompile(`Controlled shutdown request returned successfully after (\d+)ms`)
	shutdownUnclean = regexp.MustCompile(`(?i)unclean shutdown`)
)

// sigtermAndReturn is the SIGTERM scenario: the broker's controlled
// shutdown moves its leadership away (leader epoch +1) while it is still
// registered, it leaves the ISRs, producing goes on; then it restarts and
// rejoins every ISR. It returns the broker.
func (h *harness) sigtermAndReturn(t *testing.T, ctx context.Context, tr *traffic, figs *figures, under int, avoid int32) int32 {
	before, err := h.states(ctx)
	if err != nil {
		t.Fatal(err)
	}
	victim := pickLeader(t, before, avoid)
	led := ledBy(before, victim)
	b := h.cluster.Broker(victim)
	logFrom := fileSize(b.LogPath())
	start := time.Now()
	watched := make(chan departure, 1)
	go func() { watched <- h.watchDeparture(ctx, victim, start) }()
	took, err := b.Stop()
	if err != nil {
		t.Fatal(err)
	}
	d := <-watched
	if d.err != nil {
		t.Fatalf("after SIGTERM of broker %d: %v", victim, d.err)
	}
	if d.moved > d.gone {
		t.Fatalf("broker %d deregistered after %s, before its leadership moved (%s)", victim, d.gone, d.moved)
	}
	logged := readFrom(t, b.LogPath(), logFrom)
	m := shutdownOK.FindStringSubmatch(logged)
	if m == nil || shutdownUnclean.MatchString(logged) {
		t.Fatalf("broker %d did not complete a controlled shutdown (see %s)", victim, b.LogPath())
	}
	rpc, _ := strconv.Atoi(m[1])
	t.Logf("SIGTERM of broker %d (leader of %v): exited after %s; leaders moved after %s, registration gone after %s; "+
		"the ControlledShutdown request took %dms", victim, led, since(start), d.moved, d.gone, rpc)
	figs.add("controlled shutdown: SIGTERM → broker exited", under, took)
	figs.add("  SIGTERM → leaders moved in ZK", under, d.moved)
	figs.add("  ControlledShutdown request (broker's log)", under, time.Duration(rpc)*time.Millisecond)
	after := h.waitStates(t, ctx, "ISR shrink", time.Minute, notIn(victim))
	for _, p := range led {
		if after[p].LeaderEpoch != before[p].LeaderEpoch+1 {
			t.Fatalf("%s-%d after the controlled shutdown: %s (before: %s)", topic, p, after[p], before[p])
		}
	}
	tr.waitMore(t, ctx, "after the controlled shutdown", 200, time.Minute)
	if err := b.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	h.waitStates(t, ctx, "ISR rejoin", 2*time.Minute, allInSync)
	return victim
}

// electPreferred asks for a preferred leader election the legacy way
// (/admin/preferred_replica_election, which both controllers serve) and
// waits until every partition is led by its preferred replica and the
// controller has deleted the request.
func (h *harness) electPreferred(t *testing.T, ctx context.Context, assignment [][]int32) {
	t.Helper()
	tps := make([]znodes.TopicPartition, partitions)
	for p := range tps {
		tps[p] = znodes.TopicPartition{Topic: topic, Partition: int32(p)}
	}
	began := time.Now()
	if _, err := h.admin.ElectPreferredLeaders(ctx, tps, false); err != nil {
		t.Fatal(err)
	}
	h.waitStates(t, ctx, "preferred leaders", time.Minute, preferredLeaders(assignment))
	err := pollUntil(ctx, time.Minute, 20*time.Millisecond, func() error {
		if _, _, err := h.obs.Get(ctx, znodes.PreferredReplicaElectionPath); err == nil {
			return fmt.Errorf("%s still there", znodes.PreferredReplicaElectionPath)
		} else if !isNoNode(err) {
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("preferred election done in %s", since(began))
}

func isNoNode(err error) bool { return err != nil && errors.Is(err, zkadmin.ErrNoNode) }

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

func readFrom(t *testing.T, path string, off int64) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
