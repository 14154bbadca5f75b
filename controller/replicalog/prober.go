package replicalog

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/internal/kafkaconn"
)

// Defaults for Options.
const (
	DefaultRequestTimeout = 30 * time.Second
	DefaultLimitRetries   = 5
	DefaultRetryBackoff   = 100 * time.Millisecond
	DefaultClientID       = "kzadmin-controller"
)

// ErrNotSupported is returned (wrapped) by Probe when the broker serves
// neither GetReplicaLogInfo nor ListOffsets v1 or later, so nothing it
// holds can be learnt.
var ErrNotSupported = errors.New("broker serves neither GetReplicaLogInfo nor ListOffsets v1+")

// Options configure New. The zero value probes over plain TCP with the
// defaults above.
type Options struct {
	// Dial opens a connection to a broker's listener; nil means plain TCP.
	// A TLS listener plugs in here (tls.Dialer's DialContext). The prober
	// sends ApiVersions as its first request on the connection Dial
	// returns, so SASL, which Kafka authenticates after ApiVersions, would
	// need its own step.
	Dial func(ctx context.Context, addr string) (net.Conn, error)
	// ClientID is the request header's client id.
	ClientID string
	// RequestTimeout bounds each request (and the dial).
	RequestTimeout time.Duration
	// PartitionsPerRequest splits requests; 0 or more than
	// MaxPartitionsPerRequest means MaxPartitionsPerRequest.
	PartitionsPerRequest int
	// LimitRetries is how many times in a row a request may be answered
	// REQUEST_LIMIT_REACHED for every partition before those partitions
	// are given up, keeping that code. Partitions answered so beside
	// served ones are asked for again at once, without counting.
	LimitRetries int
	// RetryBackoff is the pause before asking again after an answer that
	// served nothing.
	RetryBackoff time.Duration
}

func (o Options) withDefaults() Options {
	if o.ClientID == "" {
		o.ClientID = DefaultClientID
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = DefaultRequestTimeout
	}
	if o.PartitionsPerRequest <= 0 || o.PartitionsPerRequest > MaxPartitionsPerRequest {
		o.PartitionsPerRequest = MaxPartitionsPerRequest
	}
	if o.LimitRetries <= 0 {
		o.LimitRetries = DefaultLimitRetries
	}
	if o.RetryBackoff <= 0 {
		o.RetryBackoff = DefaultRetryBackoff
	}
	return o
}

// prober implements Prober with one connection per Probe: the recovery
// manager asks each broker rarely, so connections are not kept.
type prober struct {
	opts Options
}

// New returns a Prober. It is safe for concurrent use; each Probe has its
// own connection.
func New(opts Options) Prober {
	return &prober{opts: opts.withDefaults()}
}

// answers collects the Info of each distinct partition asked for.
type answers map[Partition]Info

// unanswered is the Info of a partition the broker was not asked about or
// did not answer.
func unanswered(p Partition, code int16) Info {
	return Info{Partition: p, LogEndOffset: -1, LastEpoch: -1, ErrorCode: code}
}

// Probe asks t for the log end offset and last epoch of its replicas of
// parts. A broker that advertises GetReplicaLogInfo is asked with it
// (partitions without a topic id with ListOffsets, or UNKNOWN_TOPIC_ID
// when it serves no ListOffsets); any other broker with ListOffsets,
// replica id -2, timestamp LATEST.
func (p *prober) Probe(ctx context.Context, t Target, parts []Partition) ([]Info, error) {
	out := make([]Info, 0, len(parts))
	if len(parts) == 0 {
		return out, nil
	}
	c, err := p.dial(ctx, t.Addr)
	if err != nil {
		return nil, fmt.Errorf("probe broker %d: %w", t.BrokerID, err)
	}
	defer c.Close()
	if err := c.Negotiate(ctx); err != nil {
		return nil, fmt.Errorf("probe broker %d: %w", t.BrokerID, err)
	}
	got := answers{}
	if err := p.ask(ctx, c, t.BrokerID, dedupe(parts), got); err != nil {
		return nil, fmt.Errorf("probe broker %d at %s: %w", t.BrokerID, t.Addr, err)
	}
	for _, part := range parts {
		out = append(out, got[part])
	}
	return out, nil
}

// ask chooses the API and fills got for every partition of parts.
func (p *prober) ask(ctx context.Context, c *kafkaconn.Conn, brokerID int32, parts []Partition, got answers) error {
	loVersion, loErr := c.PickVersion(kmsg.ListOffsets.Int16(), 1, kmsg.NewPtrListOffsetsRequest().MaxVersion())
	loOK := loErr == nil
	if _, err := c.PickVersion(GetReplicaLogInfoKey, getReplicaLogInfoVersion, getReplicaLogInfoVersion); err == nil {
		var byID, byName []Partition
		for _, part := range parts {
			if part.TopicID == ([16]byte{}) {
				byName = append(byName, part)
			} else {
				byID = append(byID, part)
			}
		}
		if err := p.logInfo(ctx, c, brokerID, byID, got); err != nil {
			return err
		}
		if !loOK {
			for _, part := range byName {
				got[part] = unanswered(part, kerr.UnknownTopicID.Code)
			}
			return nil
		}
		return p.listOffsets(ctx, c, loVersion, byName, got)
	}
	if !loOK {
		return ErrNotSupported
	}
	return p.listOffsets(ctx, c, loVersion, parts, got)
}

func (p *prober) dial(ctx context.Context, addr string) (*kafkaconn.Conn, error) {
	dctx, cancel := context.WithTimeout(ctx, p.opts.RequestTimeout)
	defer cancel()
	var nc net.Conn
	var err error
	if p.opts.Dial != nil {
		nc, err = p.opts.Dial(dctx, addr)
	} else {
		var d net.Dialer
		nc, err = d.DialContext(dctx, "tcp", addr)
	}
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	return newConn(nc, addr, p.opts), nil
}

// dedupe returns parts without repeats, in first-seen order.
func dedupe(parts []Partition) []Partition {
	seen := make(map[Partition]bool, len(parts))
	out := make([]Partition, 0, len(parts))
	for _, part := range parts {
		if !seen[part] {
			seen[part] = true
			out = append(out, part)
		}
	}
	return out
}

// chunks splits parts into pieces of at most n.
func chunks(parts []Partition, n int) [][]Partition {
	var out [][]Partition
	for len(parts) > 0 {
		k := min(n, len(parts))
		out = append(out, parts[:k])
		parts = parts[k:]
	}
	return out
}

// pause waits d or until ctx ends.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
