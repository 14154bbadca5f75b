package dropin

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
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

// chroot keeps the cluster's znodes under one path of the test ZooKeeper.
const chroot = "/dropin"

// harness is one ZooKeeper, the kzadmind instances and the brokers of a
// test, plus an observer session that reads what ZooKeeper holds.
type harness struct {
	zks     *zkserver.Server
	obs     *zkadmin.Client
	admin   *zkadmin.Admin
	cluster *kafka.Cluster
	dir     string // kzadmind logs

	// stops end the kzadmind instances (and close their logs) when the
	// whole test ends, not when the step that started one does: a
	// step's standby must outlive it.
	mu    sync.Mutex
	stops []func()
}

// onClose registers f to run when the test that made the harness ends,
// after the brokers have stopped.
func (h *harness) onClose(f func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.stops = append(h.stops, f)
}

// close runs the onClose functions, last registered first.
func (h *harness) close() {
	h.mu.Lock()
	stops := h.stops
	h.stops = nil
	h.mu.Unlock()
	for i := len(stops) - 1; i >= 0; i-- {
		stops[i]()
	}
}

func newHarness(t *testing.T, ctx context.Context) *harness {
	t.Helper()
	began := time.Now()
	zks, obs := kafkatest.StartZooKeeper(t, ctx, zkserver.Options{}, chroot)
	dir := t.TempDir()
	t.Logf("zookeeper on %s up in %s; kzadmind logs in %s", zks.Addr(), since(began), dir)
	h := &harness{zks: zks, obs: obs, admin: zkadmin.NewAdmin(obs, zkadmin.AdminOptions{}), dir: dir}
	t.Cleanup(h.close)
	return h
}

// startDaemon runs kzadmind in this process with node id id.
func (h *harness) startDaemon(t *testing.T, ctx context.Context, id int32) *daemon.Daemon {
	t.Helper()
	return h.startDaemonConf(t, ctx, daemonConfig(h.zks.Addr(), chroot, id))
}

// startDaemonConf runs kzadmind in this process with configuration conf
// (daemonConfig's, adjusted by the caller).
func (h *harness) startDaemonConf(t *testing.T, ctx context.Context, conf config.Config) *daemon.Daemon {
	t.Helper()
	id := conf.NodeID
	logFile, err := os.Create(h.logPath(id))
	if err != nil {
		t.Fatal(err)
	}
	h.onClose(func() { logFile.Close() })
	log := zerolog.New(logFile).Level(zerolog.InfoLevel).With().Timestamp().Logger()
	d, err := daemon.Start(ctx, conf, daemon.Options{}, log)
	if err != nil {
		t.Fatalf("start kzadmind %d: %v", id, err)
	}
	h.onClose(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = d.Stop(sctx) // a no-op for one a step stopped
	})
	return d
}

// waitReady waits until kzadmind d (node id) is the controller and has
// loaded the cluster.
func waitReady(t *testing.T, ctx context.Context, d *daemon.Daemon, id int32) {
	t.Helper()
	err := pollUntil(ctx, time.Minute, 10*time.Millisecond, func() error {
		if st := d.Controller().Status(); !st.Ready {
			return fmt.Errorf("kzadmind %d not ready: %+v", id, st)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func (h *harness) logPath(id int32) string {
	return filepath.Join(h.dir, fmt.Sprintf("kzadmind-%d.log", id))
}

// child is kzadmind running as a child process (the test binary in child
// mode), so that it can be killed with SIGKILL.
type child struct {
	id   int32
	cmd  *exec.Cmd
	addr string
	done chan struct{}
}

// startChild starts a kzadmind child process and waits until it serves.
func (h *harness) startChild(t *testing.T, ctx context.Context, id int32) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=1", childZKEnv+"="+h.zks.Addr(), childChrootEnv+"="+chroot,
		childIDEnv+"="+strconv.Itoa(int(id)), childLogEnv+"="+h.logPath(id))
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start kzadmind child %d: %v", id, err)
	}
	c := &child{id: id, cmd: cmd, done: make(chan struct{})}
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if addr, ok := strings.CutPrefix(sc.Text(), childReady); ok {
				ready <- addr
			}
		}
		_ = cmd.Wait()
		close(c.done)
	}()
	h.onClose(c.kill)
	select {
	case c.addr = <-ready:
		return c
	case <-c.done:
		t.Fatalf("kzadmind child %d exited before serving (log %s)", id, h.logPath(id))
	case <-ctx.Done():
		t.Fatalf("kzadmind child %d: %v", id, ctx.Err())
	}
	return nil
}

// kill sends SIGKILL and waits for the process to go.
func (c *child) kill() {
	_ = c.cmd.Process.Signal(syscall.SIGKILL)
	<-c.done
}

// startBrokers starts n real brokers (ids 1..n, racks r1..rn) and waits
// until each knows the others and a controller.
func (h *harness) startBrokers(t *testing.T, ctx context.Context, n int) {
	t.Helper()
	c, ctl, took := kafkatest.StartBrokers(t, ctx, h.brokerSet(n, kafka.BrokerOptions{Extra: map[string]string{
		// What a topic auto-created by a broker gets (autocreate_test.go).
		"auto.create.topics.enable":  "true",
		"num.partitions":             strconv.Itoa(autoParts),
		"default.replication.factor": strconv.Itoa(replicationFactor),
	}}))
	h.cluster = c
	t.Logf("%d brokers up in %s, controller %d", n, took, ctl)
}

// brokerSet is n brokers with the session timeout and deletion delays
// every scenario here needs, plus broker's own settings (which win), that
// keep their logs and kzadmind's when the test fails.
func (h *harness) brokerSet(n int, broker kafka.BrokerOptions) kafkatest.BrokerSet {
	broker.SessionTimeout = sessionTimeout
	extra := map[string]string{
		"log.segment.delete.delay.ms": strconv.FormatInt(segmentDeleteDelay.Milliseconds(), 10),
		"log.initial.task.delay.ms":   strconv.FormatInt(initialTaskDelay.Milliseconds(), 10),
	}
	maps.Copy(extra, broker.Extra)
	broker.Extra = extra
	return kafkatest.BrokerSet{
		ZooKeeper: h.zks.Addr() + chroot, Count: n, Options: kafka.ClusterOptions{Broker: broker},
		Logs: kafkatest.KeepLogs{Env: keepLogsEnv, Pattern: "kzadmin-dropin-logs-", Dirs: []string{h.dir}},
	}
}

// controller reads /controller's broker id (-1 when absent) and the
// controller epoch.
func (h *harness) controller(ctx context.Context) (id, epoch int32, err error) {
	id = -1
	data, _, err := h.obs.Get(ctx, znodes.ControllerPath)
	switch {
	case errors.Is(err, zkadmin.ErrNoNode):
	case err != nil:
		return -1, 0, err
	default:
		cz, err := znodes.DecodeControllerRegistration(data)
		if err != nil {
			return -1, 0, err
		}
		id = cz.BrokerID
	}
	data, _, err = h.obs.Get(ctx, znodes.ControllerEpochPath)
	if err != nil {
		return id, 0, err
	}
	epoch, err = znodes.DecodeControllerEpoch(data)
	return id, epoch, err
}

// registered reports whether /brokers/ids/<id> exists.
func (h *harness) registered(ctx context.Context, id int32) (bool, error) {
	_, _, err := h.obs.Get(ctx, znodes.BrokerIDPath(id))
	if errors.Is(err, zkadmin.ErrNoNode) {
		return false, nil
	}
	return err == nil, err
}

// metadataController asks one broker who the controller is: the id its
// metadata cache took from the last UpdateMetadata it accepted.
func metadataController(ctx context.Context, b *kafka.Broker) (int32, error) {
	md, err := kafkatest.Metadata(ctx, b.Addr(), 2*time.Second)
	if err != nil {
		return -1, err
	}
	return md.ControllerID, nil
}

// waitBrokersFollow waits until every running broker names want as the
// controller.
func (h *harness) waitBrokersFollow(t *testing.T, ctx context.Context, want int32) {
	t.Helper()
	for _, b := range h.cluster.Brokers {
		if !b.Running() {
			continue
		}
		err := pollUntil(ctx, time.Minute, 20*time.Millisecond, func() error {
			got, err := metadataController(ctx, b)
			if err != nil {
				return err
			}
			if got != want {
				return fmt.Errorf("broker %d follows controller %d", b.ID(), got)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("broker %d never followed controller %d: %v (log %s)", b.ID(), want, err, b.LogPath())
		}
	}
}

// pollUntil runs check every interval until it returns nil, for at most
// timeout; the error names the last failure.
func pollUntil(ctx context.Context, timeout, interval time.Duration, check func() error) error {
	return waitfor.Until(ctx, timeout, interval, check)
}

func since(t time.Time) time.Duration { return time.Since(t).Round(time.Millisecond) }

// keepLogsEnv, set to 1, keeps the brokers' and kzadmind's logs of a
// passing run too (a failed run always keeps them).
const keepLogsEnv = "KZADMIN_DROPIN_KEEP_LOGS"

// waitBrokersKnow waits until every running broker's metadata cache shows
// each partition of the topic with the leader and ISR that ZooKeeper
// holds: the controller's UpdateMetadata reached them all.
func (h *harness) waitBrokersKnow(t *testing.T, ctx context.Context, st []pstate) {
	t.Helper()
	for _, b := range h.cluster.Brokers {
		if !b.Running() {
			continue
		}
		err := pollUntil(ctx, time.Minute, 20*time.Millisecond, func() error {
			return brokerKnows(ctx, b, st)
		})
		if err != nil {
			t.Fatalf("broker %d: %v (log %s)", b.ID(), err, b.LogPath())
		}
	}
}

func brokerKnows(ctx context.Context, b *kafka.Broker, st []pstate) error {
	mt, err := kafkatest.TopicMetadata(ctx, b.Addr(), topic, false, 2*time.Second)
	if err != nil {
		return err
	}
	if len(mt.Partitions) != len(st) {
		return fmt.Errorf("metadata for %s: %+v", topic, mt)
	}
	for _, mp := range mt.Partitions {
		want := st[mp.Partition]
		if mp.ErrorCode != 0 || mp.Leader != want.Leader || !slices.Equal(mp.ISR, want.ISR) {
			return fmt.Errorf("%s-%d: broker says leader %d isr %v (error %d), ZooKeeper %s",
				topic, mp.Partition, mp.Leader, mp.ISR, mp.ErrorCode, want)
		}
	}
	return nil
}
