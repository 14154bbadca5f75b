package wirebackend

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
)

// Defaults for Options.
const (
	// DefaultTopicsPerRequest bounds the topics named in one describe
	// request. Seed 003 let a server serve 20 per DescribeTopic; kzadmind
	// bounds partitions instead, so a larger piece costs nothing there,
	// and a server with the seed's limit answers the rest
	// REQUEST_LIMIT_REACHED, which is asked for again.
	DefaultTopicsPerRequest = 100
	// DefaultPartitionsPerPage is the response partition limit asked for:
	// Kafka's max.request.partition.size.limit default.
	DefaultPartitionsPerPage = 2000
	// DefaultRetryBackoff is the first pause before a retry; it doubles up
	// to MaxRetryBackoff.
	DefaultRetryBackoff = 100 * time.Millisecond
	// MaxRetryBackoff caps the pause between retries.
	MaxRetryBackoff = 2 * time.Second
)

// Options configure Open.
type Options struct {
	// Bootstrap is "host:port[,host:port...]": any nodes of the cluster.
	Bootstrap string
	// TopicsPerRequest splits describe requests; 0 means
	// DefaultTopicsPerRequest.
	TopicsPerRequest int
	// PartitionsPerPage is DescribeTopicPartitions' response partition
	// limit; 0 means DefaultPartitionsPerPage.
	PartitionsPerPage int32
	// RetryBackoff is the first pause between tries; 0 means
	// DefaultRetryBackoff.
	RetryBackoff time.Duration
	// OnRetry, when set, hears every retry: the try that failed (from 1)
	// and its error.
	OnRetry func(attempt int, err error)
	// ClientOptions are added to kgo's (tests use hooks and version caps).
	ClientOptions []kgo.Opt
}

// What kzadmin tells brokers it is (ApiVersions v3+).
const softwareName, softwareVersion = "kzadmin", "1.0.0"

// Backend is the Kafka-protocol backend.
type Backend struct {
	cl   *kgo.Client
	opts Options

	mu sync.Mutex
	// noDTP: the controller does not serve DescribeTopicPartitions, so
	// topics are described with Metadata; dtpKnown: a request or the
	// controller's ApiVersions told which.
	noDTP, dtpKnown bool
	// reached: some request got an answer, so the cluster exists; a
	// failed dial is then a node going away (retried), not a wrong
	// address (reported at once).
	reached bool
}

var _ backend.Backend = (*Backend)(nil)

// Open checks the addresses, creates the client and makes one request
// (brokers-only Metadata) so that an unreachable cluster fails here.
func Open(ctx context.Context, opts Options) (*Backend, error) {
	seeds, err := parseBootstrap(opts.Bootstrap)
	if err != nil {
		return nil, err
	}
	if opts.TopicsPerRequest <= 0 {
		opts.TopicsPerRequest = DefaultTopicsPerRequest
	}
	if opts.PartitionsPerPage <= 0 {
		opts.PartitionsPerPage = DefaultPartitionsPerPage
	}
	if opts.RetryBackoff <= 0 {
		opts.RetryBackoff = DefaultRetryBackoff
	}
	kopts := []kgo.Opt{
		kgo.SeedBrokers(seeds...),
		kgo.ClientID("kzadmin"),
		kgo.SoftwareNameAndVersion(softwareName, softwareVersion),
		// One try per request: the backend's own loop retries, so that
		// what is retried, and how long, is decided in one place.
		kgo.RequestRetries(1),
	}
	cl, err := kgo.NewClient(append(kopts, opts.ClientOptions...)...)
	if err != nil {
		return nil, fmt.Errorf("--bootstrap-server %q: %w", opts.Bootstrap, err)
	}
	b := &Backend{cl: cl, opts: opts}
	err = b.retry(ctx, func(ctx context.Context) error {
		_, err := b.metadata(ctx, []string{})
		return err
	})
	if err != nil {
		cl.Close()
		return nil, fmt.Errorf("cannot reach the cluster at --bootstrap-server %s: %w", opts.Bootstrap, err)
	}
	return b, nil
}

// parseBootstrap splits and checks "host:port,host:port".
func parseBootstrap(s string) ([]string, error) {
	var out []string
	for _, addr := range strings.Split(s, ",") {
		addr = strings.TrimSpace(addr)
		if addr == "" {
			continue
		}
		if _, port, err := net.SplitHostPort(addr); err != nil || port == "" {
			return nil, &UsageError{Msg: fmt.Sprintf("--bootstrap-server %q: %q is not host:port", s, addr)}
		}
		out = append(out, addr)
	}
	if len(out) == 0 {
		return nil, &UsageError{Msg: fmt.Sprintf("--bootstrap-server %q: no host:port given", s)}
	}
	return out, nil
}

// Close closes the client's connections.
func (b *Backend) Close() { b.cl.Close() }

// note records that the cluster answered when err is nil, and returns err.
func (b *Backend) note(err error) error {
	if err == nil {
		b.mu.Lock()
		b.reached = true
		b.mu.Unlock()
	}
	return err
}

func (b *Backend) hasReached() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.reached
}

// kadmFor returns a kadm client whose requests carry a timeout fitting
// ctx: the server waits that long for what it waits for (leaders of new
// partitions, a topic's deletion, an election) before answering.
func (b *Backend) kadmFor(ctx context.Context) *kadm.Client {
	adm := kadm.NewClient(b.cl)
	adm.SetTimeoutMillis(timeoutMillis(ctx, 30*time.Second))
	return adm
}

// timeoutMillis is what is left of ctx, less a margin for the answer to
// travel back, as a request timeout; fallback without a deadline.
func timeoutMillis(ctx context.Context, fallback time.Duration) int32 {
	d := fallback
	if deadline, ok := ctx.Deadline(); ok {
		d = time.Until(deadline) - 500*time.Millisecond
	}
	d = min(max(d, time.Second), time.Duration(1<<31-1)*time.Millisecond)
	return int32(d / time.Millisecond)
}
