package wire

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// DefaultIdleTimeout is Kafka's connections.max.idle.ms default, 10 minutes.
const DefaultIdleTimeout = 10 * time.Minute

// ErrServerClosed is returned by Serve after Shutdown or Close.
var ErrServerClosed = errors.New("wire: server closed")

// Config configures a Server. The zero value serves only ApiVersions with
// Kafka's default limits and logs nothing.
type Config struct {
	// Mux routes requests to handlers and says what ApiVersions
	// advertises. Nil means an empty Mux.
	Mux *Mux
	// MaxRequestSize is the largest request accepted, size prefix
	// excluded (socket.request.max.bytes). Zero means
	// DefaultMaxRequestSize; negative is an error.
	MaxRequestSize int32
	// IdleTimeout closes a connection that sends no request for this long
	// (connections.max.idle.ms); it also bounds reading the rest of a
	// request once its first byte arrived, and writing a response. Zero
	// means DefaultIdleTimeout; negative disables it.
	IdleTimeout time.Duration
	// Logger receives connection and request events with the fields
	// remote, key, api, version, correlation_id and client_id. The zero
	// Logger is disabled.
	Logger zerolog.Logger
	// Features fills the KIP-584 feature fields of ApiVersions v3+
	// responses: SupportedFeatures, FinalizedFeaturesEpoch and
	// FinalizedFeatures. resp comes from kmsg, so the epoch is already -1
	// ("unknown"). Nil means none, which is what a ZK cluster without a
	// /feature znode advertises. Called once per ApiVersions request, on
	// the connection's goroutine.
	Features func(resp *kmsg.ApiVersionsResponse)
	// Principal names the principal of a new connection. Nil means
	// AnonymousPrincipal. On a TLS listener it is called after the
	// handshake, unless TLSPrincipal is set.
	Principal func(net.Conn) Principal
	// TLS, when set, makes the listener speak TLS (SSL and SASL_SSL). The
	// handshake runs first on the connection's goroutine, bounded by
	// IdleTimeout; a failed handshake closes the connection. ClientAuth
	// in it is ssl.client.auth.
	TLS *tls.Config
	// TLSPrincipal names the principal of a TLS connection from its
	// handshake state, as Kafka's principal builder does from the peer
	// certificate. An error closes the connection. Nil means Principal.
	TLSPrincipal func(tls.ConnectionState) (Principal, error)
	// SASL, when set, requires SASL authentication before any request
	// but ApiVersions (SASL_PLAINTEXT and SASL_SSL); see sasl.go.
	SASL *SASLConfig
}

// Server is a Kafka-protocol listener. Create it with New, run it with
// Serve and stop it with Shutdown or Close.
type Server struct {
	mux         *Mux
	maxRequest  int32
	idleTimeout time.Duration
	log         zerolog.Logger
	features    func(*kmsg.ApiVersionsResponse)
	principal   func(net.Conn) Principal
	tls         *tls.Config
	tlsPrinc    func(tls.ConnectionState) (Principal, error)
	sasl        *SASLConfig

	// baseCtx is the parent of every handler context; cancel ends it on
	// Close or when a Shutdown runs out of time.
	baseCtx context.Context
	cancel  context.CancelFunc

	mu        sync.Mutex
	closing   bool
	listeners map[net.Listener]struct{}
	conns     map[*conn]struct{}
	connWG    sync.WaitGroup

	// panics counts panics recovered while serving requests; tests assert
	// it stays zero.
	panics atomic.Int64
}

// New returns a Server for cfg, or an error if cfg is invalid.
func New(cfg Config) (*Server, error) {
	if cfg.MaxRequestSize < 0 {
		return nil, fmt.Errorf("wire config: MaxRequestSize %d is negative", cfg.MaxRequestSize)
	}
	if cfg.SASL != nil {
		if err := cfg.SASL.validate(); err != nil {
			return nil, err
		}
	}
	s := &Server{
		mux:         cfg.Mux,
		maxRequest:  cfg.MaxRequestSize,
		idleTimeout: cfg.IdleTimeout,
		log:         cfg.Logger,
		features:    cfg.Features,
		principal:   cfg.Principal,
		tls:         cfg.TLS,
		tlsPrinc:    cfg.TLSPrincipal,
		sasl:        cfg.SASL,
		listeners:   make(map[net.Listener]struct{}),
		conns:       make(map[*conn]struct{}),
	}
	if s.mux == nil {
		s.mux = NewMux()
	}
	if s.maxRequest == 0 {
		s.maxRequest = DefaultMaxRequestSize
	}
	if s.idleTimeout == 0 {
		s.idleTimeout = DefaultIdleTimeout
	}
	if s.principal == nil {
		s.principal = func(net.Conn) Principal { return AnonymousPrincipal() }
	}
	s.baseCtx, s.cancel = context.WithCancel(context.Background())
	return s, nil
}

// protocol is the listener's security protocol, from its TLS and SASL
// settings.
func (s *Server) protocol() string {
	switch {
	case s.sasl != nil && s.tls != nil:
		return ProtocolSASLSSL
	case s.sasl != nil:
		return ProtocolSASLPlaintext
	case s.tls != nil:
		return ProtocolSSL
	}
	return ProtocolPlaintext
}

// Serve accepts connections on ln and serves each on its own goroutine
// until Shutdown or Close, when it returns ErrServerClosed. Any other
// accept failure that is not temporary is returned as is. Serve may be
// called for several listeners at once. ln is closed when Serve returns.
func (s *Server) Serve(ln net.Listener) error {
	if !s.trackListener(ln) {
		_ = ln.Close()
		return ErrServerClosed
	}
	defer s.untrackListener(ln)
	s.log.Info().Str("addr", ln.Addr().String()).Msg("kafka listener serving")
	backoff := time.Duration(0)
	for {
		nc, err := ln.Accept()
		if err != nil {
			if s.isClosing() {
				return ErrServerClosed
			}
			if !isTemporary(err) {
				return fmt.Errorf("accept on %s: %w", ln.Addr(), err)
			}
			// Out of file descriptors and the like: back off, as
			// net/http does, rather than spin or give up.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			s.log.Warn().Err(err).Dur("retry_in", backoff).Msg("accept failed")
			if !s.sleep(backoff) {
				return ErrServerClosed
			}
			continue
		}
		backoff = 0
		c := s.newConn(nc)
		if !s.trackConn(c) {
			_ = nc.Close()
			return ErrServerClosed
		}
		go s.serveConn(c)
	}
}

// isTemporary reports the deprecated Temporary() of accept errors such as
// EMFILE, which are still the ones worth retrying.
func isTemporary(err error) bool {
	var t interface{ Temporary() bool }
	return errors.As(err, &t) && t.Temporary()
}

// sleep waits d or until the server is closed; it reports whether the
// server is still open.
func (s *Server) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return !s.isClosing()
	case <-s.baseCtx.Done():
		return false
	}
}

// Shutdown stops the server gracefully: it closes the listeners and the
// idle connections, then waits for every in-flight request to be answered
// and its connection closed. If ctx ends first, it closes the remaining
// connections, cancels the handlers' contexts and returns ctx's error.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closing = true
	s.closeListenersLocked()
	for c := range s.conns {
		if c.idle {
			c.close()
		}
	}
	s.mu.Unlock()

	done := make(chan struct{})
	go func() {
		s.connWG.Wait()
		close(done)
	}()
	select {
	case <-done:
		s.cancel()
		return nil
	case <-ctx.Done():
		_ = s.Close()
		return fmt.Errorf("wire shutdown: %w", ctx.Err())
	}
}

// Close stops the server at once: listeners and connections are closed and
// handler contexts cancelled. It does not wait for handlers to return.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closing = true
	s.closeListenersLocked()
	for c := range s.conns {
		c.close()
	}
	s.mu.Unlock()
	s.cancel()
	return nil
}

func (s *Server) closeListenersLocked() {
	for ln := range s.listeners {
		if err := ln.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
			s.log.Warn().Err(err).Str("addr", ln.Addr().String()).Msg("close listener")
		}
		delete(s.listeners, ln)
	}
}

func (s *Server) isClosing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing
}

func (s *Server) trackListener(ln net.Listener) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.listeners[ln] = struct{}{}
	return true
}

func (s *Server) untrackListener(ln net.Listener) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.listeners[ln]; ok {
		_ = ln.Close()
		delete(s.listeners, ln)
	}
}

// trackConn registers c and counts its goroutine; it refuses once the
// server is closing, so Shutdown's wait cannot miss a connection.
func (s *Server) trackConn(c *conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.conns[c] = struct{}{}
	s.connWG.Add(1)
	return true
}

func (s *Server) untrackConn(c *conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
	s.connWG.Done()
}
