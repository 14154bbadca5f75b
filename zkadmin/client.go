package zkadmin

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/rs/zerolog"
)

// Client is a ZooKeeper session with typed, ctx-taking operations. It is
// safe for concurrent use; concurrent calls are pipelined on the one
// connection.
type Client struct {
	conn    *zk.Conn
	root    chroot
	acl     func(path string) []ACL
	log     zerolog.Logger
	onEvent func(Event)

	queue   *eventQueue
	watches *watchRegistry
	sess    *sessionTracker
	order   *sendOrder  // the order of multis on the wire (send_order.go)
	shadow  *zxidShadow // the last zxid seen, kept from go-zookeeper (zxid_shadow.go)
	// sessionEvents counts go-zookeeper's session state callbacks handled
	// (see syncEvents).
	sessionEvents atomic.Uint64
	// nodeEvents counts the watch firings handled other than children
	// changes, each counted after its watches are fired: a count that
	// has not moved since a read proves that no znode this session reads
	// with a data watch changed since (see topicReadMemo).
	nodeEvents atomic.Uint64
	// requests counts the requests sent (through run): tests use it to
	// tell a read answered from a watch from one ZooKeeper answered.
	requests atomic.Uint64
	// lastDialErr is the last failure to connect to a server, named when
	// a wait for the session gives up: go-zookeeper itself only retries.
	lastDialErr atomic.Pointer[error]

	closeOnce sync.Once
	lifeMu    sync.Mutex     // orders closing against inflight.Add
	closed    chan struct{}  // closed by Close
	loopDone  chan struct{}  // closed when the event goroutine exits
	zkDone    chan struct{}  // closed when go-zookeeper's goroutines exit
	inflight  sync.WaitGroup // requests abandoned by their ctx, still running
}

// Connect opens a session and waits until it is established (bounded by
// ctx), then creates the chroot if it is missing and adds the credentials.
func Connect(ctx context.Context, opts Options) (*Client, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	root, err := normaliseChroot(opts.Chroot)
	if err != nil {
		return nil, fmt.Errorf("zookeeper: %w", err)
	}
	c := &Client{
		root:     root,
		acl:      opts.ACL,
		log:      opts.Logger.With().Str("component", "zkadmin").Logger(),
		onEvent:  opts.OnEvent,
		queue:    newEventQueue(),
		watches:  newWatchRegistry(),
		sess:     newSessionTracker(),
		order:    newSendOrder(),
		shadow:   &zxidShadow{},
		closed:   make(chan struct{}),
		loopDone: make(chan struct{}),
		zkDone:   make(chan struct{}),
	}
	zkOpts := optionList(
		zk.WithLogger(zkLogger{log: c.log}),
		// The callback runs on go-zookeeper's receive loop: only enqueue.
		zk.WithEventCallback(c.queue.push),
	)
	dial := opts.Dialer
	if dial == nil {
		dial = net.DialTimeout
	}
	if opts.TLS != nil {
		dial = tlsDialer(dial, opts.TLS)
	}
	if opts.SASL != nil {
		dial = saslDialer(dial, opts.SASL, func(err error) { c.lastDialErr.Store(&err) })
	}
	dial = c.recordDialErrors(dial)
	zkOpts = append(zkOpts, zk.WithDialer(c.shadow.dialer(c.order.dialer(dial))))
	conn, events, err := zk.Connect(opts.Servers, opts.sessionTimeout(), zkOpts...)
	if err != nil {
		return nil, fmt.Errorf("zookeeper connect %s: %w", strings.Join(opts.Servers, ","), err)
	}
	c.conn = conn
	go func() {
		// go-zookeeper closes this channel when its connection loop has
		// ended; its events already reached us through the callback.
		for range events {
		}
		close(c.zkDone)
	}()
	go c.eventLoop()

	if err := c.start(ctx, opts); err != nil {
		c.Close()
		return nil, fmt.Errorf("zookeeper connect %s%s: %w", strings.Join(opts.Servers, ","), root, err)
	}
	c.log.Info().Str("servers", strings.Join(opts.Servers, ",")).Str("chroot", string(root)).
		Str("session", fmt.Sprintf("0x%x", c.SessionID())).Msg("zookeeper session established")
	return c, nil
}

// optionList builds a slice of go-zookeeper's options, whose type is
// unexported and so can only be inferred.
func optionList[T any](opts ...T) []T { return opts }

func (c *Client) start(ctx context.Context, opts Options) error {
	if err := c.WaitConnected(ctx); err != nil {
		return err
	}
	for _, a := range opts.Auth {
		if _, err := run(ctx, c, func() (struct{}, error) {
			return struct{}{}, c.conn.AddAuth(a.Scheme, a.Credentials)
		}); err != nil {
			return c.fail("addauth", a.Scheme, err, false)
		}
	}
	if c.root != "" {
		if err := c.ensureChroot(ctx); err != nil {
			return err
		}
	}
	return nil
}

// ensureChroot creates the chroot path and its parents outside the chroot,
// as Kafka's broker does before it starts (persistent, null data). Every
// step is idempotent, so a lost connection just means "try again".
func (c *Client) ensureChroot(ctx context.Context) error {
	for {
		err := c.ensureChrootOnce(ctx)
		if err == nil || !errors.Is(err, ErrConnectionLoss) || ctx.Err() != nil {
			return err
		}
		c.log.Debug().Err(err).Msg("retrying chroot creation")
		if err := c.WaitConnected(ctx); err != nil {
			return err
		}
	}
}

func (c *Client) ensureChrootOnce(ctx context.Context) error {
	full := string(c.root)
	var missing []string
	for p := full; p != "/"; p = parentOf(p) {
		ok, err := run(ctx, c, func() (bool, error) {
			ok, _, err := c.conn.Exists(p)
			return ok, err
		})
		if err != nil {
			return c.fail("exists", p, err, false)
		}
		if ok {
			break
		}
		missing = append(missing, p)
	}
	acl := zkACL(c.aclFor("/"))
	for i := len(missing) - 1; i >= 0; i-- {
		p := missing[i]
		_, err := run(ctx, c, func() (string, error) {
			return c.conn.Create(p, nil, zk.FlagPersistent, acl)
		})
		if err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return c.fail("create chroot", p, err, true)
		}
	}
	return nil
}

// Chroot returns the chroot this client works under ("" for none).
func (c *Client) Chroot() string { return string(c.root) }

// Close ends the session (its ephemerals go at once), fails outstanding
// requests with ErrClosed, ends outstanding watches with EventNotWatching,
// and returns once every goroutine of the client has stopped. That takes
// up to a few seconds when the server does not answer the close request.
// It is safe to call more than once.
func (c *Client) Close() {
	c.closeOnce.Do(func() {
		c.lifeMu.Lock()
		close(c.closed)
		c.lifeMu.Unlock()
		c.conn.Close()
		c.inflight.Wait()
		<-c.loopDone
		<-c.zkDone
	})
}

// eventLoop is the one goroutine that turns go-zookeeper's callbacks into
// our events: it tracks the session, fires watch channels and calls
// OnEvent, in arrival order.
func (c *Client) eventLoop() {
	defer close(c.loopDone)
	for {
		select {
		case <-c.queue.signal:
			for _, it := range c.queue.drain() {
				c.handleQueued(it)
			}
		case <-c.closed:
			// Deliver what arrived before Close, then end the rest.
			for _, it := range c.queue.drain() {
				c.handleQueued(it)
			}
			c.watches.closeAll(ErrClosed)
			if ev, ok := c.sess.close(); ok {
				c.publish(ev)
			}
			return
		}
	}
}

func (c *Client) handleQueued(it queued) {
	if it.barrier != nil {
		close(it.barrier)
		return
	}
	c.handle(it.ev)
}

func (c *Client) handle(zev zk.Event) {
	if zev.Type == zk.EventSession {
		c.watches.forgetReads()
		c.sessionEvents.Add(1)
		ev, ok := c.sess.update(zev.State, c.conn.SessionID())
		if !ok {
			return
		}
		c.logSession(ev)
		c.publish(ev)
		return
	}
	typ, ok := eventTypeFrom(zev.Type)
	if !ok {
		return
	}
	path, ok := c.root.strip(zev.Path)
	if !ok {
		return // outside the chroot: not a watch of ours
	}
	ev := Event{Type: typ, Path: path}
	if zev.Err != nil {
		ev.Err = mapZkError(zev.Err)
	}
	c.watches.fire(ev)
	if typ != EventNodeChildrenChanged {
		c.nodeEvents.Add(1)
	}
	c.publish(ev)
}

func (c *Client) publish(ev Event) {
	if c.onEvent != nil {
		c.onEvent(ev)
	}
}

func (c *Client) logSession(ev Event) {
	e := c.log.Info()
	if ev.State == StateExpired || ev.State == StateAuthFailed {
		e = c.log.Warn()
	}
	e.Str("state", ev.State.String()).Str("session", fmt.Sprintf("0x%x", ev.SessionID)).Msg("zookeeper session")
}

// aclFor returns the ACL for a new znode at a caller-side path.
func (c *Client) aclFor(path string) []ACL {
	if c.acl == nil {
		return OpenACL()
	}
	if acl := c.acl(path); len(acl) > 0 {
		return acl
	}
	return OpenACL()
}

// recordDialErrors wraps dial to keep its last error (lastDialErr).
func (c *Client) recordDialErrors(dial func(network, address string, timeout time.Duration) (net.Conn, error)) func(network, address string, timeout time.Duration) (net.Conn, error) {
	return func(network, address string, timeout time.Duration) (net.Conn, error) {
		conn, err := dial(network, address, timeout)
		if err != nil {
			c.lastDialErr.Store(&err)
		}
		return conn, err
	}
}
