package differential

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/integration/kafka"
	"github.com/kzadmin/kzadmin/integration/kafkatest"
	"github.com/kzadmin/kzadmin/integration/waitfor"
	"github.com/kzadmin/kzadmin/internal/daemon"
)

const (
	// The two runs share one ZooKeeper server, each under its own chroot,
	// so both start empty.
	kafkaChroot    = "/kafkactl"
	kzadmindChroot = "/kzadmind"
	// kzadmindID is kzadmind's node.id: above every broker id.
	kzadmindID = 3000
	numBrokers = 3
	// keepLogsEnv, set to 1, keeps the brokers' and kzadmind's logs of
	// both runs (they are kept anyway when a run fails to start).
	keepLogsEnv = "KZADMIN_DIFF_KEEP_LOGS"
	// brokerWait bounds the wait for every broker to know the others and
	// a controller: three JVMs on two cores take most of a minute.
	brokerWait = 2 * time.Minute
)

// startKafkaRun starts three brokers under Kafka's own controller (one of
// them wins /controller) and returns the target for the cases: that
// controller, which alone serves the controller-bound APIs (the others
// answer NOT_CONTROLLER). The brokers stop when t ends.
func startKafkaRun(t *testing.T, ctx context.Context, zkAddr string) (*target, Run) {
	t.Helper()
	c, ctl, took := kafkatest.StartBrokers(t, ctx, kafkatest.BrokerSet{
		ZooKeeper: zkAddr + kafkaChroot,
		Count:     numBrokers,
		Wait:      brokerWait,
		Logs:      kafkatest.KeepLogs{Env: keepLogsEnv, Pattern: "kzadmin-differential-kafka-"},
	})
	t.Logf("%d brokers up in %s under Kafka's controller, broker %d", numBrokers, took, ctl)
	run := Run{Controller: ctl, Addrs: brokerAddrs(c)}
	return &target{addr: c.Broker(ctl).Addr()}, run
}

// startKzadmindRun starts kzadmind in this process, then three brokers,
// and waits until every broker follows kzadmind. The target is kzadmind's
// listener. kzadmind and the brokers stop when t ends, brokers first.
func startKzadmindRun(t *testing.T, ctx context.Context, zkAddr string) (*target, Run) {
	t.Helper()
	began := time.Now()
	logDir := t.TempDir()
	d := startDaemon(t, ctx, zkAddr, filepath.Join(logDir, "kzadmind.log"))
	c, _, _ := kafkatest.StartBrokers(t, ctx, kafkatest.BrokerSet{
		ZooKeeper: zkAddr + kzadmindChroot,
		Count:     numBrokers,
		Wait:      brokerWait,
		Logs:      kafkatest.KeepLogs{Env: keepLogsEnv, Pattern: "kzadmin-differential-kzadmind-", Dirs: []string{logDir}},
	})
	addrs := brokerAddrs(c)
	addrs[d.KafkaAddr()] = kzadmindID
	if err := waitFollowed(ctx, addrs); err != nil {
		t.Fatal(err)
	}
	t.Logf("kzadmind (node %d) and %d brokers up in %s", kzadmindID, numBrokers, time.Since(began).Round(time.Millisecond))
	return &target{addr: d.KafkaAddr()}, Run{Controller: kzadmindID, Addrs: addrs}
}

func brokerAddrs(c *kafka.Cluster) map[string]int32 {
	m := make(map[string]int32, len(c.Brokers))
	for _, b := range c.Brokers {
		m[b.Addr()] = b.ID()
	}
	return m
}

// startDaemon starts kzadmind in-process with its defaults but for the
// node id, the chroot and a listener on a free port; it logs to logPath.
// It stops when t ends.
func startDaemon(t *testing.T, ctx context.Context, zkAddr, logPath string) *daemon.Daemon {
	t.Helper()
	conf := config.Default()
	conf.NodeID = kzadmindID
	conf.ZooKeeper.Connect = config.ZKConnect{Servers: []string{zkAddr}, Chroot: kzadmindChroot}
	conf.Listeners = []config.Listener{{Name: "PLAINTEXT", Host: "127.0.0.1", Port: 0}}
	conf.HTTPListen = ""
	// As the brokers' server.properties (integration/kafka), so that
	// topics created without counts or by Metadata come out alike.
	conf.AutoCreateTopicsEnable, conf.NumPartitions, conf.DefaultReplicationFactor = true, 1, 1
	conf.InternalTopics.OffsetsPartitions, conf.InternalTopics.OffsetsReplicationFactor = 3, 1
	conf.InternalTopics.TransactionPartitions, conf.InternalTopics.TransactionReplicationFactor = 3, 1
	conf.InternalTopics.TransactionMinISR = 1
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logFile.Close() })
	log := zerolog.New(logFile).Level(zerolog.InfoLevel).With().Timestamp().Logger()
	// The keys set above count as given, as in a properties file (and as
	// the brokers' server.properties gives num.partitions and
	// default.replication.factor), for DescribeConfigs of kzadmind's id.
	given := map[string]config.Source{}
	for _, k := range []string{"node.id", "zookeeper.connect", "listeners", "kzadmin.http.listen",
		"num.partitions", "default.replication.factor",
		"offsets.topic.num.partitions", "offsets.topic.replication.factor", "transaction.state.log.num.partitions",
		"transaction.state.log.replication.factor", "transaction.state.log.min.isr"} {
		given[k] = config.SourceFile
	}
	d, err := daemon.Start(ctx, conf, daemon.Options{ConfigSources: given}, log)
	if err != nil {
		t.Fatalf("start kzadmind: %v", err)
	}
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = d.Stop(sctx)
	})
	err = waitfor.Until(ctx, time.Minute, 50*time.Millisecond, func() error {
		if st := d.Controller().Status(); !st.Active || !st.Ready {
			return fmt.Errorf("kzadmind not the ready controller: %+v", st)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// waitFollowed waits until every node in addrs (the brokers and kzadmind)
// answers Metadata naming kzadmind as the controller and listing every
// node: then kzadmind has sent every broker its UpdateMetadata.
func waitFollowed(ctx context.Context, addrs map[string]int32) error {
	for addr, id := range addrs {
		err := waitfor.Until(ctx, brokerWait, 50*time.Millisecond, func() error {
			md, err := kafkatest.Metadata(ctx, addr, 5*time.Second)
			if err != nil {
				return err
			}
			if md.ControllerID != kzadmindID || len(md.Brokers) != len(addrs) {
				return fmt.Errorf("controller %d, %d nodes", md.ControllerID, len(md.Brokers))
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("node %d (%s) never followed kzadmind: %w", id, addr, err)
		}
	}
	return nil
}
