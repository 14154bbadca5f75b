package brokersim

import (
	"errors"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller/wire"
)

// Defaults, mostly Kafka's own for the matching broker settings.
const (
	// DefaultIBP is the inter.broker.protocol.version used when none is set.
	DefaultIBP = "3.9"
	// DefaultHost is the listen and advertised host.
	DefaultHost = "127.0.0.1"
	// DefaultControlledShutdownMaxRetries is controlled.shutdown.max.retries.
	DefaultControlledShutdownMaxRetries = 3
	// DefaultControlledShutdownBackoff is controlled.shutdown.retry.backoff.ms.
	DefaultControlledShutdownBackoff = 5 * time.Second
	// DefaultRequestTimeout bounds one request to the controller
	// (request.timeout.ms is 30 s; a simulator wants answers sooner).
	DefaultRequestTimeout = 10 * time.Second
	// DefaultRetryBackoff is the pause before an AlterPartition is re-sent
	// after an error (Kafka retries after 50 ms).
	DefaultRetryBackoff = 50 * time.Millisecond
	// DefaultStartConcurrency bounds how many brokers start at once.
	DefaultStartConcurrency = 8
)

// ListenerName is the one listener of a simulated broker, which is also its
// inter-broker listener.
const ListenerName = "PLAINTEXT"

// Options configure Start. ZooKeeperServers is required.
type Options struct {
	// ZooKeeperServers are "host:port" addresses of the ensemble.
	ZooKeeperServers []string
	// Chroot is the chroot suffix of zookeeper.connect ("/kafka"); "" for
	// none. It is created if missing, as a broker does.
	Chroot string
	// SessionTimeout is each broker's ZooKeeper session timeout; zero means
	// zkadmin's default (Kafka's 18 s).
	SessionTimeout time.Duration
	// Brokers to start. More can be added with Cluster.AddBroker.
	Brokers []BrokerSpec
	// IBP is inter.broker.protocol.version; "" means DefaultIBP. The
	// simulator needs at least 2.7-IV2: below it brokers write ISR changes
	// to ZooKeeper themselves instead of sending AlterPartition.
	IBP string
	// Host is the listen and advertised host; "" means DefaultHost.
	Host string
	// ControllerAddr is where to send AlterPartition and
	// ControlledShutdown when the metadata cache has no endpoint for the
	// controller (say, a controller that does not list itself).
	ControllerAddr string
	// ControlledShutdownMaxRetries is how many ControlledShutdown attempts
	// Shutdown makes; zero means DefaultControlledShutdownMaxRetries.
	ControlledShutdownMaxRetries int
	// ControlledShutdownBackoff is the pause between those attempts; zero
	// means DefaultControlledShutdownBackoff.
	ControlledShutdownBackoff time.Duration
	// RequestTimeout bounds one request to the controller; zero means
	// DefaultRequestTimeout.
	RequestTimeout time.Duration
	// RetryBackoff is the pause before AlterPartition retries; zero means
	// DefaultRetryBackoff.
	RetryBackoff time.Duration
	// StartConcurrency bounds how many brokers Start boots at once; zero
	// means DefaultStartConcurrency.
	StartConcurrency int
	// Logger receives the simulator's messages; the zero value discards
	// them.
	Logger zerolog.Logger
	// AdminRoutes, when set, gives the routes a broker serves besides its
	// own APIs, gated like them (held while paused, dropped once stopped).
	// A real ZooKeeper-mode broker answers DescribeConfigs, AlterConfigs,
	// IncrementalAlterConfigs and DescribeCluster itself, and admin
	// clients send those to any broker; dev mode gives each simulated
	// broker kzadmind's handlers for them, answering for that broker's id,
	// so that kafka-topics --describe and kafka-configs work against it.
	// A key the simulator serves itself makes the broker's start fail.
	AdminRoutes func(broker int32) ([]wire.Route, error)
}

// BrokerSpec describes one simulated broker.
type BrokerSpec struct {
	// ID is broker.id; it must be >= 0.
	ID int32
	// Rack is broker.rack; "" means none (the registration omits it).
	Rack string
	// Port is the listen port; zero picks a free one. A restarted broker
	// keeps the port it had when it can.
	Port int
}

// settings are Options with defaults applied and the IBP parsed.
type settings struct {
	Options
	ibp config.IBP
}

func (o Options) resolve() (settings, error) {
	if len(o.ZooKeeperServers) == 0 {
		return settings{}, errors.New("brokersim: no ZooKeeper servers given")
	}
	if o.IBP == "" {
		o.IBP = DefaultIBP
	}
	ibp, err := config.ParseIBP(o.IBP)
	if err != nil {
		return settings{}, fmt.Errorf("brokersim: %w", err)
	}
	if !ibp.AlterPartitionSupported() {
		return settings{}, fmt.Errorf("brokersim: inter.broker.protocol.version %s is below 2.7-IV2, where brokers write ISR changes to ZooKeeper; the simulator only sends AlterPartition", ibp)
	}
	o.Host = orDefault(o.Host, DefaultHost)
	o.ControlledShutdownMaxRetries = orDefault(o.ControlledShutdownMaxRetries, DefaultControlledShutdownMaxRetries)
	o.ControlledShutdownBackoff = orDefault(o.ControlledShutdownBackoff, DefaultControlledShutdownBackoff)
	o.RequestTimeout = orDefault(o.RequestTimeout, DefaultRequestTimeout)
	o.RetryBackoff = orDefault(o.RetryBackoff, DefaultRetryBackoff)
	o.StartConcurrency = orDefault(o.StartConcurrency, DefaultStartConcurrency)
	seen := make(map[int32]bool, len(o.Brokers))
	for _, b := range o.Brokers {
		if err := b.validate(); err != nil {
			return settings{}, err
		}
		if seen[b.ID] {
			return settings{}, fmt.Errorf("brokersim: broker id %d given twice", b.ID)
		}
		seen[b.ID] = true
	}
	return settings{Options: o, ibp: ibp}, nil
}

func (b BrokerSpec) validate() error {
	if b.ID < 0 {
		return fmt.Errorf("brokersim: broker id %d is negative", b.ID)
	}
	if b.Port < 0 || b.Port > 65535 {
		return fmt.Errorf("brokersim: broker %d: port %d out of range", b.ID, b.Port)
	}
	return nil
}

func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// topicIDsSupported reports IBP >= 2.8-IV0, from which AlterPartition may
// name topics by id (v2+).
func (s settings) topicIDsSupported() bool {
	return s.ibp.TopicIDsSupported()
}
