package daemon

import (
	"context"
	"fmt"
	"time"

	"github.com/rs/zerolog"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller/handler"
	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/integration/brokersim"
	"github.com/kzadmin/kzadmin/integration/zkserver"
)

// devParts are what dev mode starts besides the daemon itself.
type devParts struct {
	zk      *zkserver.Server
	keepDir bool
	brokers *brokersim.Cluster
}

func startDevZooKeeper(ctx context.Context, opts Options, log zerolog.Logger) (*devParts, error) {
	start := time.Now()
	zk, err := zkserver.Start(ctx, zkserver.Options{DataDir: opts.DevDir})
	if err != nil {
		return nil, fmt.Errorf("dev mode: start local ZooKeeper: %w", err)
	}
	log.Info().Str("addr", zk.Addr()).Str("data_dir", zk.DataDir()).
		Str("log", zk.LogPath()).Dur("took", time.Since(start)).
		Msg("dev ZooKeeper listening")
	return &devParts{zk: zk, keepDir: opts.DevDir != ""}, nil
}

// startBrokers registers simulated brokers in racks r1..rN so a client can
// create topics at once. They answer the configs, ACL and quota APIs and
// DescribeCluster with kzadmind's handlers (brokerAnswered), built by
// newAdminAPI.
func (p *devParts) startBrokers(ctx context.Context, conf config.Config, opts Options, controllerAddr string,
	newAdminAPI func(listener string, self *int32) (*handler.Handlers, error), log zerolog.Logger) error {
	n := opts.DevBrokers
	if n == 0 {
		n = 3
	}
	specs := make([]brokersim.BrokerSpec, n)
	for i := range specs {
		specs[i] = brokersim.BrokerSpec{ID: int32(i + 1), Rack: fmt.Sprintf("r%d", i+1)}
	}
	cluster, err := brokersim.Start(ctx, brokersim.Options{
		ZooKeeperServers: conf.ZooKeeper.Connect.Servers,
		Chroot:           conf.ZooKeeper.Connect.Chroot,
		Brokers:          specs,
		ControllerAddr:   controllerAddr,
		AdminRoutes: func(broker int32) ([]wire.Route, error) {
			api, err := newAdminAPI(brokersim.ListenerName, &broker)
			if err != nil {
				return nil, err
			}
			return brokerAnswered(api.Routes()), nil
		},
		Logger: log.With().Str("component", "brokersim").Logger(),
	})
	if err != nil {
		return fmt.Errorf("dev mode: start simulated brokers: %w", err)
	}
	p.brokers = cluster
	for _, b := range cluster.Brokers() {
		log.Info().Int32("broker", b.ID()).Str("rack", b.Rack()).Str("addr", b.Addr()).Msg("simulated broker registered")
	}
	return nil
}

// brokerAnswered keeps the admin routes that a ZooKeeper-mode Kafka 3.9
// broker answers itself rather than leaving to the controller, and that
// admin clients send to whichever broker they like: the configs APIs, the
// ACL, client quota and delegation-token APIs, DescribeUserScramCredentials
// and DescribeCluster (AlterUserScramCredentials goes to the controller, and a
// broker that is not refuses it). The simulated brokers serve kzadmind's handlers for
// them, as a real broker would read the same znodes. DescribeTopicPartitions
// is left out: ZooKeeper-mode brokers do not serve it, and clients fall
// back to Metadata.
func brokerAnswered(routes []wire.Route) []wire.Route {
	var out []wire.Route
	for _, r := range routes {
		switch kmsg.Key(r.Key) {
		case kmsg.DescribeConfigs, kmsg.AlterConfigs, kmsg.IncrementalAlterConfigs, kmsg.DescribeCluster,
			kmsg.DescribeACLs, kmsg.CreateACLs, kmsg.DeleteACLs,
			kmsg.DescribeClientQuotas, kmsg.AlterClientQuotas, kmsg.DescribeUserSCRAMCredentials,
			kmsg.CreateDelegationToken, kmsg.RenewDelegationToken, kmsg.ExpireDelegationToken, kmsg.DescribeDelegationToken:
			out = append(out, r)
		}
	}
	return out
}

// stopBrokers closes the simulated brokers without a controlled shutdown:
// the whole dev cluster goes away at once, so there is nowhere to move
// leadership to, and a controlled shutdown of the last replica would only
// wait out its retries.
func (p *devParts) stopBrokers(context.Context) error {
	if p.brokers == nil {
		return nil
	}
	p.brokers.Close()
	p.brokers = nil
	return nil
}

func (p *devParts) stopZooKeeper(log zerolog.Logger) {
	if p.zk == nil {
		return
	}
	var err error
	if p.keepDir {
		err = p.zk.Stop()
	} else {
		err = p.zk.Close()
	}
	if err != nil {
		log.Error().Err(err).Msg("stop dev ZooKeeper")
	}
	p.zk = nil
	log.Info().Msg("dev ZooKeeper stopped")
}
