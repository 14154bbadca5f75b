package elr

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/integration/kafka"
	"github.com/kzadmin/kzadmin/integration/kafkatest"
	"github.com/kzadmin/kzadmin/integration/waitfor"
	"github.com/kzadmin/kzadmin/integration/zkserver"
	"github.com/kzadmin/kzadmin/internal/daemon"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

const (
	// chroot keeps the cluster's znodes under one path of the test
	// ZooKeeper.
	chroot = "/elr"
	// brokerSession is the brokers' ZooKeeper session timeout: longer than
	// lagTime plus the leader's ISR check period (lagTime/2), so that a
	// paused follower leaves the ISR through the leader's AlterPartition
	// before its registration expires.
	brokerSession = 10 * time.Second
	// lagTime is replica.lag.time.max.ms on the brokers.
	lagTime = 3 * time.Second
	// recoveryTimeout is unclean.recovery.timeout.ms: long enough for a
	// broker JVM to restart on two busy cores while Balanced waits.
	recoveryTimeout = 30 * time.Second
	// firstControllerID is the node id of the first kzadmind; each phase's
	// kzadmind takes the next. Never a broker id (brokers are 1..3).
	firstControllerID int32 = 3000
)

// harness is one ZooKeeper, three brokers, the current kzadmind and an
// observer session that reads what ZooKeeper holds.
type harness struct {
	zks     *zkserver.Server
	obs     *zkadmin.Client
	admin   *zkadmin.Admin
	cluster *kafka.Cluster
	dir     string // kzadmind logs
	ctl     *daemon.Daemon
	ctlID   int32
	logFile *os.File // the current kzadmind's, closed once it stopped
	paused  int32    // a broker frozen with SIGSTOP, 0 for none
}

func newHarness(t *testing.T, ctx context.Context) *harness {
	t.Helper()
	zks, obs := kafkatest.StartZooKeeper(t, ctx, zkserver.Options{}, chroot)
	h := &harness{zks: zks, obs: obs, admin: zkadmin.NewAdmin(obs, zkadmin.AdminOptions{}), dir: t.TempDir(),
		ctlID: firstControllerID - 1}
	t.Cleanup(func() { h.stopController(t) })
	return h
}

// controllerConfig is kzadmind's configuration: ELR and the recovery
// manager on, with the given strategy.
func (h *harness) controllerConfig(id int32, strategy config.UncleanRecoveryStrategy) config.Config {
	conf := config.Default()
	conf.NodeID = id
	conf.ZooKeeper.Connect = config.ZKConnect{Servers: []string{h.zks.Addr()}, Chroot: chroot}
	conf.ZooKeeper.SessionTimeout = brokerSession
	conf.Listeners = []config.Listener{{Name: "PLAINTEXT", Host: "127.0.0.1", Port: 0}}
	conf.HTTPListen = "127.0.0.1:0"
	conf.EligibleLeaderReplicasEnable = true
	conf.UncleanRecoveryManagerEnabled = true
	conf.UncleanRecoveryStrategy = strategy
	conf.UncleanRecoveryTimeout = recoveryTimeout
	return conf
}

// useController starts a kzadmind with the strategy, under a new node id,
// then stops the current one, if any, which releases /controller to the
// newcomer already waiting for it (as a standby would; the brokers, which
// compete too, are slower). It returns once the newcomer is the ready
// controller: its failover load, which elects offline partitions, done.
func (h *harness) useController(t *testing.T, ctx context.Context, strategy config.UncleanRecoveryStrategy) {
	t.Helper()
	id := h.ctlID + 1
	logFile, err := os.Create(h.logPathOf(id))
	if err != nil {
		t.Fatal(err)
	}
	log := zerolog.New(logFile).Level(zerolog.DebugLevel).With().Timestamp().Logger()
	d, err := daemon.Start(ctx, h.controllerConfig(id, strategy), daemon.Options{}, log)
	if err != nil {
		logFile.Close()
		t.Fatalf("start kzadmind %d: %v", id, err)
	}
	h.stopController(t)
	h.ctl, h.ctlID, h.logFile = d, id, logFile
	err = pollUntil(ctx, time.Minute, 10*time.Millisecond, func() error {
		if st := d.Controller().Status(); !st.Ready {
			return fmt.Errorf("kzadmind %d not ready: %+v", id, st)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("kzadmind %d is the controller (unclean.recovery.strategy=%s)", id, strategy)
}

func (h *harness) stopController(t *testing.T) {
	if h.ctl == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := h.ctl.Stop(ctx); err != nil {
		t.Errorf("stop kzadmind %d: %v", h.ctlID, err)
	}
	h.logFile.Close()
	h.ctl, h.logFile = nil, nil
}

func (h *harness) logPath() string { return h.logPathOf(h.ctlID) }

func (h *harness) logPathOf(id int32) string {
	return filepath.Join(h.dir, fmt.Sprintf("kzadmind-%d.log", id))
}

// startBrokers starts brokers 1..3 (racks r1..r3) and waits until they
// all know each other and the controller.
func (h *harness) startBrokers(t *testing.T, ctx context.Context) {
	t.Helper()
	c, ctl, took := kafkatest.StartBrokers(t, ctx, kafkatest.BrokerSet{
		ZooKeeper: h.zks.Addr() + chroot, Count: 3,
		Options: kafka.ClusterOptions{Broker: kafka.BrokerOptions{SessionTimeout: brokerSession, Extra: map[string]string{
			"replica.lag.time.max.ms":        strconv.FormatInt(lagTime.Milliseconds(), 10),
			"unclean.leader.election.enable": "false",
			"auto.create.topics.enable":      "false",
		}}},
		Logs: kafkatest.KeepLogs{Env: keepLogsEnv, Pattern: "kzadmin-elr-logs-", Dirs: []string{h.dir}},
	})
	h.cluster = c
	if ctl != h.ctlID {
		t.Fatalf("brokers follow controller %d, want kzadmind %d", ctl, h.ctlID)
	}
	t.Logf("3 brokers up in %s", took)
}

// broker returns broker id.
func (h *harness) broker(id int32) *kafka.Broker { return h.cluster.Broker(id) }

// pause freezes broker id; clients stop using it, since a frozen seed
// broker stalls a client's first metadata request.
func (h *harness) pause(t *testing.T, id int32) {
	t.Helper()
	if err := h.broker(id).Pause(); err != nil {
		t.Fatal(err)
	}
	h.paused = id
}

// kill kills broker id (paused or not).
func (h *harness) kill(t *testing.T, id int32) {
	t.Helper()
	if err := h.broker(id).Kill(); err != nil {
		t.Fatal(err)
	}
	if h.paused == id {
		h.paused = 0
	}
}

// running lists the addresses of the running brokers that answer.
func (h *harness) running() []string {
	var out []string
	for _, b := range h.cluster.Brokers {
		if b.Running() && b.ID() != h.paused {
			out = append(out, b.Addr())
		}
	}
	return out
}

// createTopic writes a one-partition topic on replicas 1,2,3 (1 preferred)
// with the given min.insync.replicas, and waits until 1 leads all three.
func (h *harness) createTopic(t *testing.T, ctx context.Context, topic string, minISR int) {
	t.Helper()
	_, err := h.admin.CreateTopic(ctx, zkadmin.CreateTopicRequest{
		Topic: topic, Assignment: [][]int32{{1, 2, 3}},
		Config: map[string]string{"min.insync.replicas": strconv.Itoa(minISR)},
	})
	if err != nil {
		t.Fatalf("create %s: %v", topic, err)
	}
	h.waitState(t, ctx, topic, "led by 1 with ISR 1,2,3", time.Minute, func(s pstate) bool {
		return s.Leader == 1 && equal(s.ISR, 1, 2, 3)
	})
}

// registered reports whether /brokers/ids/<id> exists.
func (h *harness) registered(ctx context.Context, id int32) (bool, error) {
	_, _, err := h.obs.Get(ctx, znodes.BrokerIDPath(id))
	if errors.Is(err, zkadmin.ErrNoNode) {
		return false, nil
	}
	return err == nil, err
}

// metric reads one sample of kzadmind's /metrics (0 when absent).
func (h *harness) metric(t *testing.T, name string) float64 {
	t.Helper()
	resp, err := http.Get("http://" + h.ctl.HTTPAddr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				t.Fatalf("metric %s: %v", name, err)
			}
			return f
		}
	}
	return 0
}

// logLines returns the lines of the current kzadmind's log that contain
// every one of words.
func (h *harness) logLines(t *testing.T, words ...string) []string {
	t.Helper()
	data, err := os.ReadFile(h.logPath())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		all := true
		for _, w := range words {
			all = all && strings.Contains(l, w)
		}
		if all {
			out = append(out, l)
		}
	}
	return out
}

// keepLogsEnv, set to 1, keeps the brokers' and kzadmind's logs of a
// passing run too (a failed run always keeps them).
const keepLogsEnv = "KZADMIN_ELR_KEEP_LOGS"

// pstate is a partition state znode as read, with its version.
type pstate struct {
	znodes.PartitionState
	PartitionEpoch int32
}

func (s pstate) String() string {
	return fmt.Sprintf("leader %d epoch %d isr %v elr %v last_known_elr %v elr_min_isr %d recovery %d pepoch %d",
		s.Leader, s.LeaderEpoch, s.ISR, s.EligibleLeaderReplicas, s.LastKnownELR, s.ELRMinISR,
		s.LeaderRecoveryState, s.PartitionEpoch)
}

// state reads partition 0's state znode.
func (h *harness) state(ctx context.Context, topic string) (pstate, error) {
	data, stat, err := h.obs.Get(ctx, znodes.PartitionStatePath(topic, 0))
	if err != nil {
		return pstate{}, fmt.Errorf("read state of %s-0: %w", topic, err)
	}
	s, err := znodes.DecodePartitionState(topic, 0, data)
	if err != nil {
		return pstate{}, fmt.Errorf("decode state of %s-0: %w", topic, err)
	}
	return pstate{PartitionState: s, PartitionEpoch: stat.Version}, nil
}

// waitState waits until partition 0's state satisfies ok and returns it.
func (h *harness) waitState(t *testing.T, ctx context.Context, topic, what string, timeout time.Duration,
	ok func(pstate) bool) pstate {
	t.Helper()
	var s pstate
	err := pollUntil(ctx, timeout, 20*time.Millisecond, func() error {
		var err error
		if s, err = h.state(ctx, topic); err != nil {
			return err
		}
		if !ok(s) {
			return fmt.Errorf("%s-0: %s", topic, s)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("%s-0 never %s: %v", topic, what, err)
	}
	t.Logf("%s-0 %s: %s", topic, what, s)
	return s
}

// holdsLeaderless checks that partition 0 stays without a leader for the
// whole window, reading its state all along.
func (h *harness) holdsLeaderless(t *testing.T, ctx context.Context, topic string, window time.Duration) {
	t.Helper()
	end := time.Now().Add(window)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for time.Now().Before(end) {
		s, err := h.state(ctx, topic)
		if err != nil {
			t.Fatal(err)
		}
		if s.Leader != -1 {
			t.Fatalf("%s-0 got a leader within the %s window: %s", topic, window, s)
		}
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-tick.C:
		}
	}
}

// waitMetric waits until kzadmind's metric name satisfies ok: counters
// move just after the state write a test sees in ZooKeeper.
func (h *harness) waitMetric(t *testing.T, ctx context.Context, name string, ok func(float64) bool) {
	t.Helper()
	err := pollUntil(ctx, 10*time.Second, 20*time.Millisecond, func() error {
		if v := h.metric(t, name); !ok(v) {
			return fmt.Errorf("%s = %v", name, v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// pollUntil runs check every interval until it returns nil, for at most
// timeout; the error names the last failure.
func pollUntil(ctx context.Context, timeout, interval time.Duration, check func() error) error {
	return waitfor.Until(ctx, timeout, interval, check)
}

func equal(xs []int32, want ...int32) bool {
	if len(xs) != len(want) {
		return false
	}
	for i := range xs {
		if xs[i] != want[i] {
			return false
		}
	}
	return true
}
