package brokerchan

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Kafka's defaults for the controller-to-broker channel.
const (
	// DefaultConnectTimeout is controller.socket.timeout.ms.
	DefaultConnectTimeout = 30 * time.Second
	// DefaultRequestTimeout is request.timeout.ms.
	DefaultRequestTimeout = 30 * time.Second
	// DefaultRetryBackoff is RequestSendThread's fixed pause between
	// attempts.
	DefaultRetryBackoff = 100 * time.Millisecond
	// DefaultMaxResponseSize bounds a response frame. Kafka's channel has
	// no bound; a LeaderAndIsr response for 100k partitions is a few MiB.
	DefaultMaxResponseSize int32 = 100 * 1024 * 1024
)

// Errors a Callback receives when its request was never answered, and that
// Send and AddBroker return.
var (
	// ErrBrokerRemoved: RemoveBroker, or AddBroker with a new address or
	// epoch, ended the broker's channel before the response came.
	ErrBrokerRemoved = errors.New("brokerchan: broker removed")
	// ErrClosed: the Manager is closed.
	ErrClosed = errors.New("brokerchan: manager closed")
	// ErrUnknownBroker: Send to a broker that has no channel. Kafka logs
	// and drops such a request; the caller decides here.
	ErrUnknownBroker = errors.New("brokerchan: no channel to broker")
)

// DialFunc opens a connection; (*net.Dialer).DialContext fits, and so does
// a TLS dialer.
type DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// Callback receives the outcome of one request: the response (decoded at
// the request's version), or, when the channel ended first, a nil response
// and an error wrapping ErrBrokerRemoved or ErrClosed. It runs on the
// broker's sender goroutine, so responses of one broker arrive in send
// order. It must return quickly, must not call AddBroker, RemoveBroker or
// Close, and must not block on anything that waits for them; handing the
// result to the controller's event queue is the intended use.
type Callback func(resp kmsg.Response, err error)

// ManagerConfig configures a Manager. The zero value is usable: Kafka's
// timeouts, plain TCP, client id "0", no logging.
type ManagerConfig struct {
	// ControllerID names the controller; the client id is its decimal
	// form unless ClientID is set (Kafka's channel uses the broker id).
	ControllerID int32
	// ClientID overrides the request header's client id.
	ClientID string
	// Dial opens connections; nil means a net.Dialer.
	Dial DialFunc
	// ConnectTimeout bounds one connection attempt (zero: Kafka's 30 s).
	ConnectTimeout time.Duration
	// RequestTimeout bounds one request's round trip (zero: 30 s). On
	// expiry the connection is closed and the request sent again.
	RequestTimeout time.Duration
	// RetryBackoff is the pause after a failed attempt (zero: 100 ms).
	RetryBackoff time.Duration
	// MaxResponseSize bounds a response frame (zero: 100 MiB).
	MaxResponseSize int32
	// Logger receives connection events with the fields broker and addr.
	// The zero Logger is disabled.
	Logger zerolog.Logger
}

// settings is a ManagerConfig with defaults applied.
type settings struct {
	clientID       string
	dial           DialFunc
	connectTimeout time.Duration
	requestTimeout time.Duration
	retryBackoff   time.Duration
	maxResponse    int32
	log            zerolog.Logger
}

func (cfg ManagerConfig) settings() (settings, error) {
	if cfg.ConnectTimeout < 0 || cfg.RequestTimeout < 0 || cfg.RetryBackoff < 0 || cfg.MaxResponseSize < 0 {
		return settings{}, fmt.Errorf("brokerchan: negative setting: connect timeout %v, request timeout %v, retry backoff %v, max response size %d",
			cfg.ConnectTimeout, cfg.RequestTimeout, cfg.RetryBackoff, cfg.MaxResponseSize)
	}
	s := settings{
		clientID:       cfg.ClientID,
		dial:           cfg.Dial,
		connectTimeout: cmp.Or(cfg.ConnectTimeout, DefaultConnectTimeout),
		requestTimeout: cmp.Or(cfg.RequestTimeout, DefaultRequestTimeout),
		retryBackoff:   cmp.Or(cfg.RetryBackoff, DefaultRetryBackoff),
		maxResponse:    cmp.Or(cfg.MaxResponseSize, DefaultMaxResponseSize),
		log:            cfg.Logger,
	}
	if s.clientID == "" {
		s.clientID = strconv.FormatInt(int64(cfg.ControllerID), 10)
	}
	if s.dial == nil {
		s.dial = (&net.Dialer{}).DialContext
	}
	return s, nil
}

// Manager owns one channel (queue plus sender goroutine) per broker
// (Kafka's ControllerChannelManager). It is safe for concurrent use. Every
// request Send accepts gets exactly one Callback call; after RemoveBroker or
// Close returns, every callback of the removed channels has run.
type Manager struct {
	set settings

	mu     sync.Mutex
	closed bool
	chans  map[int32]*channel
}

// NewManager returns a Manager with no brokers.
func NewManager(cfg ManagerConfig) (*Manager, error) {
	set, err := cfg.settings()
	if err != nil {
		return nil, err
	}
	return &Manager{set: set, chans: map[int32]*channel{}}, nil
}

// AddBroker opens a channel to broker id at addr ("host:port" on the
// inter-broker or control-plane listener). epoch is the registration's
// czxid. If the broker already has a channel with the same address and
// epoch, nothing changes. Otherwise an existing channel is replaced: its
// pending requests fail with ErrBrokerRemoved, as when Kafka's controller
// sees a bounced broker, and new requests go to the new channel.
func (m *Manager) AddBroker(id int32, addr string, epoch int64) error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return ErrClosed
	}
	old := m.chans[id]
	if old != nil && old.addr == addr && old.epoch == epoch {
		m.mu.Unlock()
		return nil
	}
	m.chans[id] = startChannel(id, addr, epoch, m.set)
	m.mu.Unlock()
	if old != nil {
		old.stop(brokerRemoved(id))
	}
	return nil
}

// RemoveBroker ends the broker's channel: the request in flight and the
// queued ones fail with ErrBrokerRemoved, and the connection closes. It
// returns when the goroutine has, and reports whether there was a channel.
func (m *Manager) RemoveBroker(id int32) bool {
	m.mu.Lock()
	c := m.chans[id]
	delete(m.chans, id)
	m.mu.Unlock()
	if c == nil {
		return false
	}
	c.stop(brokerRemoved(id))
	return true
}

func brokerRemoved(id int32) error {
	return fmt.Errorf("broker %d: %w", id, ErrBrokerRemoved)
}

// Send queues req for broker id. req must have its version set; it is sent
// as is, and must not be modified afterwards. cb may be nil. It fails with
// ErrUnknownBroker or ErrClosed, and then cb is never called.
func (m *Manager) Send(id int32, req kmsg.Request, cb Callback) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	c := m.chans[id]
	if c == nil || !c.enqueue(item{req: req, cb: cb}) {
		return fmt.Errorf("broker %d: %w", id, ErrUnknownBroker)
	}
	return nil
}

// SendBatch sends what Batch.Emit returned, in order. cb, if not nil, is
// called once per request with that request. Requests for brokers without
// a channel are skipped (Kafka logs and drops them); the error joins one
// ErrUnknownBroker per skipped request, or is ErrClosed.
func (m *Manager) SendBatch(reqs []Request, cb func(req Request, resp kmsg.Response, err error)) error {
	var errs []error
	for _, r := range reqs {
		var rcb Callback
		if cb != nil {
			rcb = func(resp kmsg.Response, err error) { cb(r, resp, err) }
		}
		err := m.Send(r.Broker, r.Msg, rcb)
		if errors.Is(err, ErrClosed) {
			return err
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", kmsg.NameForKey(r.Msg.Key()), err))
		}
	}
	return errors.Join(errs...)
}

// Brokers returns the ids with a channel, ascending.
func (m *Manager) Brokers() []int32 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Sorted(maps.Keys(m.chans))
}

// QueueSize returns the number of requests waiting for broker id, the one
// in flight excluded (Kafka's QueueSize gauge).
func (m *Manager) QueueSize(id int32) int {
	m.mu.Lock()
	c := m.chans[id]
	m.mu.Unlock()
	if c == nil {
		return 0
	}
	return c.queued()
}

// TotalQueueSize is QueueSize summed over all brokers (Kafka's
// TotalQueueSize gauge).
func (m *Manager) TotalQueueSize() int {
	m.mu.Lock()
	chans := slices.Collect(maps.Values(m.chans))
	m.mu.Unlock()
	n := 0
	for _, c := range chans {
		n += c.queued()
	}
	return n
}

// Close ends every channel, failing their requests with ErrClosed, and
// waits for all their goroutines. Later calls do nothing; Send and
// AddBroker then return ErrClosed.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	chans := m.chans
	m.chans = map[int32]*channel{}
	m.mu.Unlock()
	// Stop all first, then wait, so the goroutines wind down together.
	for _, c := range chans {
		c.beginStop(ErrClosed)
	}
	for _, c := range chans {
		<-c.done
	}
}
