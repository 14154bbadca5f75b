package kafka

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/kzadmin/kzadmin/integration/childproc"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// pollInterval is how often the start-up conditions are re-checked.
const pollInterval = 100 * time.Millisecond

// waitReady waits until the broker's registration znode exists with an
// owner other than prevOwner and the broker answers an ApiVersions request,
// which Kafka enables only at the end of start-up. It returns the owning
// session.
func (b *Broker) waitReady(ctx context.Context, proc *childproc.Process, prevOwner int64) (int64, error) {
	var owner int64
	err := b.pollRegistration(ctx, proc, func(exists bool, o int64) error {
		switch {
		case !exists:
			return errors.New("not registered")
		case o == prevOwner:
			return fmt.Errorf("registration still held by the previous session 0x%x", prevOwner)
		}
		owner = o
		return nil
	})
	if err != nil {
		return 0, b.startError("did not register", err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.DialTimeout(time.Second))
	if err != nil {
		return 0, fmt.Errorf("broker %d: kafka client: %w", b.opts.ID, err)
	}
	defer cl.Close()
	err = proc.Until(ctx, b.opts.StartTimeout, pollInterval, func() error {
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		_, err := cl.SeedBrokers()[0].Request(pctx, kmsg.NewPtrApiVersionsRequest())
		return err
	})
	if err != nil {
		return 0, b.startError("did not answer ApiVersions", err)
	}
	return owner, nil
}

// Ping sends the broker one ApiVersions request and waits for the answer,
// bounded by ctx. It fails while the broker is down, paused or starting.
func (b *Broker) Ping(ctx context.Context) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.DialTimeout(time.Second))
	if err != nil {
		return fmt.Errorf("broker %d: kafka client: %w", b.opts.ID, err)
	}
	defer cl.Close()
	if _, err := cl.SeedBrokers()[0].Request(ctx, kmsg.NewPtrApiVersionsRequest()); err != nil {
		return fmt.Errorf("broker %d (%s): ApiVersions: %w", b.opts.ID, b.Addr(), err)
	}
	return nil
}

// waitReleased waits until no session other than a new one holds the
// registration: after a kill -9 the dead process's znode lingers until its
// session expires, and Kafka refuses to start while it does
// (NodeExistsException from registerBroker).
func (b *Broker) waitReleased(ctx context.Context, prevOwner int64) error {
	err := b.pollRegistration(ctx, nil, func(exists bool, o int64) error {
		if exists && o == prevOwner {
			return fmt.Errorf("registration still held by the killed session 0x%x", prevOwner)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("broker %d: old registration did not expire: %w", b.opts.ID, err)
	}
	return nil
}

func (b *Broker) startError(what string, last error) error {
	return fmt.Errorf("broker %d (%s) %s: %w; log %s:\n%s",
		b.opts.ID, b.Addr(), what, last, b.LogPath(), tailFile(b.LogPath(), 20))
}

// pollRegistration polls /brokers/ids/<id> under the chroot until check,
// given whether it exists and its owning session, accepts it. It gives up
// if proc (nil when there is none to watch) exits; the caller's ctx bounds
// it like StartTimeout does.
func (b *Broker) pollRegistration(ctx context.Context, proc *childproc.Process, check func(exists bool, owner int64) error) error {
	hosts, chroot := splitConnect(b.opts.ZooKeeper)
	conn, _, err := zk.Connect(hosts, 10*time.Second, zk.WithLogger(quietLogger{}))
	if err != nil {
		return fmt.Errorf("connect to zookeeper %s: %w", b.opts.ZooKeeper, err)
	}
	defer conn.Close()
	// Closing the connection fails a request that is queued while
	// ZooKeeper is unreachable, so the wait honours ctx.
	stop := context.AfterFunc(ctx, conn.Close)
	defer stop()
	path := chroot + "/brokers/ids/" + strconv.Itoa(int(b.opts.ID))
	return proc.Until(ctx, b.opts.StartTimeout, pollInterval, func() error {
		ok, stat, err := conn.Exists(path)
		if err != nil {
			return fmt.Errorf("exists %s: %w", path, err)
		}
		var owner int64
		if ok {
			owner = stat.EphemeralOwner
		}
		if err := check(ok, owner); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return nil
	})
}

// splitConnect splits a zookeeper.connect string into its hosts and its
// chroot ("" when there is none).
func splitConnect(connect string) (hosts []string, chroot string) {
	hostPart := connect
	if i := strings.IndexByte(connect, '/'); i >= 0 {
		hostPart, chroot = connect[:i], strings.TrimRight(connect[i:], "/")
	}
	return strings.Split(hostPart, ","), chroot
}

// tailFile returns the last n lines of a file, for error messages.
func tailFile(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", path, err)
	}
	return lastLines(string(data), n)
}

// quietLogger drops go-zookeeper's connection chatter.
type quietLogger struct{}

func (quietLogger) Printf(string, ...any) {}
