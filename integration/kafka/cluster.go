package kafka

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/kzadmin/kzadmin/integration/childproc"
	"github.com/kzadmin/kzadmin/integration/waitfor"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ClusterOptions configure StartCluster.
type ClusterOptions struct {
	// Broker is the template for every broker. ID, Rack, Port, DataDir and
	// LogDir are set per broker and ignored here.
	Broker BrokerOptions
	// FirstID is the first broker.id; the brokers get FirstID..FirstID+n-1.
	// Zero means 1.
	FirstID int32
	// Racks gives broker i (from 0) the rack Racks[i % len(Racks)]; nil means
	// one rack per broker, "r1".."rn". NoRacks starts brokers without racks.
	Racks   []string
	NoRacks bool
}

// Cluster is a set of brokers sharing one ZooKeeper.
type Cluster struct {
	Brokers []*Broker
}

// StartCluster starts n brokers against zkConnect (hosts plus optional
// chroot). All JVMs are launched at once and then awaited, which on two
// cores is faster than one after another. It waits for every broker's
// registration but not for a controller; see WaitMetadata.
func StartCluster(ctx context.Context, zkConnect string, n int, opts ClusterOptions) (*Cluster, error) {
	if n < 1 {
		return nil, fmt.Errorf("kafka cluster: need at least one broker, got %d", n)
	}
	if opts.FirstID == 0 {
		opts.FirstID = 1
	}
	// Every port is picked before any broker binds its own: picked one at
	// a time, two brokers were once given the same port, which the kernel
	// had handed out again as soon as it was released.
	ports, err := childproc.FreePorts(n)
	if err != nil {
		return nil, fmt.Errorf("kafka cluster ports: %w", err)
	}
	c := &Cluster{}
	for i := range n {
		o := opts.Broker
		o.ZooKeeper, o.ID = zkConnect, opts.FirstID+int32(i)
		o.Port, o.DataDir, o.LogDir = ports[i], "", ""
		o.Rack = clusterRack(opts, i)
		b, err := newBroker(ctx, o)
		if err != nil {
			c.Close()
			return nil, err
		}
		c.Brokers = append(c.Brokers, b)
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, b := range c.Brokers {
		wg.Go(func() { errs[i] = b.Restart(ctx) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		c.Close()
		return nil, fmt.Errorf("kafka cluster: %w", err)
	}
	return c, nil
}

func clusterRack(opts ClusterOptions, i int) string {
	switch {
	case opts.NoRacks:
		return ""
	case len(opts.Racks) > 0:
		return opts.Racks[i%len(opts.Racks)]
	default:
		return fmt.Sprintf("r%d", i+1)
	}
}

// Bootstrap lists every broker's address, comma-separated, as
// --bootstrap-server expects.
func (c *Cluster) Bootstrap() string {
	return strings.Join(c.Addrs(), ",")
}

// Addrs lists every broker's address.
func (c *Cluster) Addrs() []string {
	addrs := make([]string, len(c.Brokers))
	for i, b := range c.Brokers {
		addrs[i] = b.Addr()
	}
	return addrs
}

// Broker returns the broker with the given id, or nil.
func (c *Cluster) Broker(id int32) *Broker {
	for _, b := range c.Brokers {
		if b.ID() == id {
			return b
		}
	}
	return nil
}

// WaitMetadata waits until every running broker's Metadata answer lists
// every running broker and names a controller, that is until a controller
// has told them all about each other. It returns the controller's id.
func (c *Cluster) WaitMetadata(ctx context.Context, timeout time.Duration) (int32, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var running []*Broker
	for _, b := range c.Brokers {
		if b.Running() {
			running = append(running, b)
		}
	}
	var controller int32 = -1
	for _, b := range running {
		id, err := b.waitMetadata(ctx, timeout, running)
		if err != nil {
			return -1, err
		}
		controller = id
	}
	return controller, nil
}

// waitMetadata polls this broker's Metadata until it lists all of want and
// a controller.
func (b *Broker) waitMetadata(ctx context.Context, timeout time.Duration, want []*Broker) (int32, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.DialTimeout(time.Second))
	if err != nil {
		return -1, fmt.Errorf("broker %d: kafka client: %w", b.opts.ID, err)
	}
	defer cl.Close()
	var controller int32 = -1
	err = waitfor.Until(ctx, timeout, pollInterval, func() error {
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		resp, err := cl.SeedBrokers()[0].Request(pctx, kmsg.NewPtrMetadataRequest())
		if err != nil {
			return err
		}
		md := resp.(*kmsg.MetadataResponse)
		known := make(map[int32]bool, len(md.Brokers))
		for _, mb := range md.Brokers {
			known[mb.NodeID] = true
		}
		for _, w := range want {
			if !known[w.ID()] {
				return fmt.Errorf("metadata lacks broker %d", w.ID())
			}
		}
		if md.ControllerID < 0 {
			return errors.New("metadata names no controller")
		}
		controller = md.ControllerID
		return nil
	})
	if err != nil {
		return -1, fmt.Errorf("broker %d (%s): metadata not complete: %w", b.opts.ID, b.Addr(), err)
	}
	return controller, nil
}

// Close kills every broker and removes their temporary directories.
func (c *Cluster) Close() error {
	var errs []error
	for _, b := range c.Brokers {
		errs = append(errs, b.Close())
	}
	return errors.Join(errs...)
}
