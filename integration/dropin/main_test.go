package dropin

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/internal/daemon"
)

// The test binary doubles as a kzadmind child process (so that a test can
// kill -9 a controller): with childEnv=1 it runs the daemon configured by
// the other variables instead of the tests.
const (
	childEnv       = "KZADMIN_DROPIN_CHILD"
	childZKEnv     = "KZADMIN_DROPIN_ZK"
	childChrootEnv = "KZADMIN_DROPIN_CHROOT"
	childIDEnv     = "KZADMIN_DROPIN_NODE_ID"
	childLogEnv    = "KZADMIN_DROPIN_LOG"
	// childReady prefixes the line a child prints once it serves.
	childReady = "kzadmind-ready "
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(runChild())
	}
	os.Exit(m.Run())
}

// sessionTimeout is the ZooKeeper session timeout of kzadmind and of the
// brokers alike, so that failover figures compare like with like.
const sessionTimeout = 6 * time.Second

// daemonConfig is kzadmind's configuration in these tests: node id, the
// test ZooKeeper and chroot, a loopback PLAINTEXT listener (the brokers'
// inter-broker listener name) on a free port, and a short auto-rebalance
// interval so that the rebalance scenario finishes quickly.
func daemonConfig(zkAddr, chroot string, id int32) config.Config {
	conf := config.Default()
	conf.NodeID = id
	conf.ZooKeeper.Connect = config.ZKConnect{Servers: []string{zkAddr}, Chroot: chroot}
	conf.ZooKeeper.SessionTimeout = sessionTimeout
	conf.Listeners = []config.Listener{{Name: "PLAINTEXT", Host: "127.0.0.1", Port: 0}}
	conf.HTTPListen = "127.0.0.1:0"
	conf.LeaderImbalanceCheckInterval = rebalanceInterval
	return conf
}

// rebalanceInterval is leader.imbalance.check.interval of every kzadmind
// here (Kafka's default is 300 s).
const rebalanceInterval = 5 * time.Second

// runChild is the child process: a kzadmind until SIGTERM (clean stop) or
// SIGKILL (what the test wants to see).
func runChild() int {
	id, err := strconv.ParseInt(os.Getenv(childIDEnv), 10, 32)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child: bad node id:", err)
		return 2
	}
	logFile, err := os.OpenFile(os.Getenv(childLogEnv), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child: log:", err)
		return 2
	}
	defer logFile.Close()
	log := zerolog.New(logFile).Level(zerolog.InfoLevel).With().Timestamp().Logger()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	conf := daemonConfig(os.Getenv(childZKEnv), os.Getenv(childChrootEnv), int32(id))
	d, err := daemon.Start(ctx, conf, daemon.Options{}, log)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child: start:", err)
		return 1
	}
	// Ready only once the controller has read /controller (arming its
	// watch): a test that stops the active controller right after must
	// find this one already contending for the seat.
	err = pollUntil(ctx, 30*time.Second, 5*time.Millisecond, func() error {
		if st := d.Controller().Status(); st.ActiveControllerID < 0 {
			return fmt.Errorf("no controller seen: %+v", st)
		}
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child: controller:", err)
		return 1
	}
	fmt.Println(childReady + d.KafkaAddr())
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := d.Stop(sctx); err != nil {
		fmt.Fprintln(os.Stderr, "child: stop:", err)
		return 1
	}
	return 0
}
