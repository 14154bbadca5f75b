package wireapi

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
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
)

const (
	controllerID = 3000
	chroot       = "/kz"
	numBrokers   = 3
	setupTimeout = 3 * time.Minute
)

// cluster is the package's shared interop cluster.
type cluster struct {
	zk     *zkserver.Server
	d      *daemon.Daemon
	kafka  *kafka.Cluster
	zkc    *zkadmin.Client // our own session, to read what kzadmind wrote
	reader *zkadmin.Admin
	// brokers are the brokers' addresses, by id 1..numBrokers.
	brokers map[int32]string
	took    time.Duration
	// served counts what kzadmind's listener answered.
	served *served
}

var shared struct {
	once sync.Once
	c    *cluster
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.c != nil {
		shared.c.close()
	}
	os.Exit(code)
}

// sharedCluster starts the interop cluster on first use; heavy tests only.
func sharedCluster(t *testing.T) *cluster {
	t.Helper()
	kafka.SkipIfHeavyDisabled(t)
	shared.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
		defer cancel()
		shared.c, shared.err = startCluster(ctx)
	})
	if shared.err != nil {
		t.Fatalf("interop cluster: %v", shared.err)
	}
	t.Logf("interop cluster: kzadmind (node %d) with %d real Kafka 3.9 brokers, up in %s",
		controllerID, numBrokers, shared.c.took.Round(time.Millisecond))
	return shared.c
}

// startCluster starts ZooKeeper, kzadmind (which becomes the controller
// before any broker exists), then the brokers, and waits until every
// broker has heard from kzadmind.
func startCluster(ctx context.Context) (_ *cluster, err error) {
	began := time.Now()
	c := &cluster{brokers: map[int32]string{}}
	defer func() {
		if err != nil {
			c.close()
		}
	}()
	if c.zk, err = zkserver.Start(ctx, zkserver.Options{}); err != nil {
		return nil, err
	}
	c.served = newServed(zerolog.ConsoleWriter{Out: os.Stderr})
	if c.d, err = startDaemon(ctx, c.zk.Addr(), c.served); err != nil {
		return nil, err
	}
	if err := waitActive(ctx, c.d); err != nil {
		return nil, err
	}
	if c.zkc, err = zkadmin.Connect(ctx, zkadmin.Options{Servers: []string{c.zk.Addr()}, Chroot: chroot}); err != nil {
		return nil, err
	}
	c.reader = zkadmin.NewAdmin(c.zkc, zkadmin.AdminOptions{})
	if err := c.startKafka(ctx); err != nil {
		return nil, err
	}
	if err := c.waitBrokersKnowController(ctx); err != nil {
		return nil, err
	}
	c.took = time.Since(began)
	return c, nil
}

// startDaemon starts kzadmind in-process; its log goes to logw at debug
// level, for served to count the requests it answers.
func startDaemon(ctx context.Context, zkAddr string, logw io.Writer) (*daemon.Daemon, error) {
	conf := config.Default()
	conf.NodeID = controllerID
	conf.ZooKeeper.Connect = config.ZKConnect{Servers: []string{zkAddr}, Chroot: chroot}
	conf.Listeners = []config.Listener{{Name: "PLAINTEXT", Host: "127.0.0.1", Port: 0}}
	conf.HTTPListen = ""
	// Only the tests' ElectLeaders requests move leadership back.
	conf.AutoLeaderRebalanceEnable = false
	log := zerolog.New(logw).Level(zerolog.DebugLevel).With().Timestamp().Logger()
	d, err := daemon.Start(ctx, conf, daemon.Options{}, log)
	if err != nil {
		return nil, fmt.Errorf("start kzadmind: %w", err)
	}
	return d, nil
}

// waitActive waits until the daemon holds /controller and has loaded.
func waitActive(ctx context.Context, d *daemon.Daemon) error {
	return poll(ctx, time.Minute, func() error {
		if st := d.Controller().Status(); !st.Active || !st.Ready {
			return fmt.Errorf("kzadmind not the ready controller: %+v", st)
		}
		return nil
	})
}

func (c *cluster) startKafka(ctx context.Context) error {
	kc, err := kafka.StartCluster(ctx, c.zk.Addr()+chroot, numBrokers, kafka.ClusterOptions{})
	if err != nil {
		return err
	}
	c.kafka = kc
	for _, b := range kc.Brokers {
		c.brokers[b.ID()] = b.Addr()
	}
	return nil
}

// waitBrokersKnowController waits until every broker's Metadata names
// kzadmind as the controller and lists every broker and kzadmind.
func (c *cluster) waitBrokersKnowController(ctx context.Context) error {
	for id, addr := range c.brokers {
		err := poll(ctx, 2*time.Minute, func() error {
			md, err := kafkatest.Metadata(ctx, addr, metadataTimeout)
			if err != nil {
				return err
			}
			if md.ControllerID != controllerID || len(md.Brokers) != numBrokers+1 {
				return fmt.Errorf("controller %d, %d brokers", md.ControllerID, len(md.Brokers))
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("broker %d (%s) never learnt of kzadmind: %w", id, addr, err)
		}
	}
	return nil
}

func (c *cluster) close() {
	if c.kafka != nil {
		_ = c.kafka.Close()
	}
	if c.zkc != nil {
		c.zkc.Close()
	}
	if c.d != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_ = c.d.Stop(ctx)
		cancel()
	}
	if c.zk != nil {
		_ = c.zk.Close()
	}
}

// poll calls check until it succeeds or timeout (or ctx) ends; the error
// is check's last one.
func poll(ctx context.Context, timeout time.Duration, check func() error) error {
	return waitfor.Until(ctx, timeout, 50*time.Millisecond, check)
}

// testCtx is a test's context, bounded by d.
func testCtx(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
