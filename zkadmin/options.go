package zkadmin

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/rs/zerolog"
)

// DefaultSessionTimeout is Kafka's zookeeper.session.timeout.ms default. The
// server clamps the timeout to [2, 20] × its tickTime.
const DefaultSessionTimeout = 18 * time.Second

// Options configure Connect. Only Servers is required.
type Options struct {
	// Servers are "host:port" addresses of the ensemble (no chroot here).
	Servers []string
	// Chroot, e.g. "/kafka", is prepended to every path this client sends
	// and stripped from every path it returns, as Kafka does with the
	// chroot suffix of zookeeper.connect. It is created (persistent, null
	// data) if missing. "" or "/" mean none.
	Chroot string
	// SessionTimeout is the requested session timeout; zero means
	// DefaultSessionTimeout.
	SessionTimeout time.Duration
	// Logger receives go-zookeeper's own messages at debug level and this
	// package's at info and above. The zero value discards everything.
	Logger zerolog.Logger
	// ACL chooses the ACL of each znode this client creates, given its path
	// relative to the chroot (Kafka's ZkData.defaultAcls depends on the
	// path). Nil means OpenACL for every znode. An Op's own ACL wins.
	ACL func(path string) []ACL
	// Auth credentials are added to the session once it is established
	// (go-zookeeper re-sends them after every reconnect), e.g.
	// {Scheme: "digest", Credentials: []byte("user:password")}.
	Auth []Auth
	// OnEvent, when set, receives every event in order: session state
	// changes and the firing of every watch this client set, with paths
	// relative to the chroot. It runs on the client's single event
	// goroutine: a slow OnEvent delays later events (not requests), so hand
	// events to your own queue.
	OnEvent func(Event)
	// Dialer replaces net.DialTimeout for the TCP connection to a server
	// (tests use it to put a proxy in between).
	Dialer func(network, address string, timeout time.Duration) (net.Conn, error)
	// TLS, when set, speaks TLS to the servers (ZooKeeper's
	// secureClientPort, KIP-515) over the connections Dialer makes. An
	// empty ServerName means the host of the address dialled, which the
	// server's certificate must then name unless the config skips that.
	TLS *tls.Config
	// SASL, when set, logs every connection in with this mechanism right
	// after its handshake, before any request (sasl_conn.go): ZooKeeper's
	// SASLAuthenticationProvider, the identity sasl:<user>.
	SASL SASLMechanism
}

// Auth is one credential for ZooKeeper's addauth.
type Auth struct {
	Scheme      string
	Credentials []byte
}

func (o Options) validate() error {
	if len(o.Servers) == 0 {
		return errors.New("zookeeper: no servers given")
	}
	for _, s := range o.Servers {
		if s == "" {
			return errors.New("zookeeper: empty server address")
		}
	}
	if o.SessionTimeout < 0 {
		return fmt.Errorf("zookeeper: negative session timeout %v", o.SessionTimeout)
	}
	return nil
}

// tlsDialer wraps dial so that each connection is TLS with cfg, its
// handshake done within the dial's timeout. The wrappers around it (the
// send order, the zxid shadow) read ZooKeeper's frames, so TLS must be
// the innermost layer.
func tlsDialer(dial func(network, address string, timeout time.Duration) (net.Conn, error),
	cfg *tls.Config) func(network, address string, timeout time.Duration) (net.Conn, error) {
	return func(network, address string, timeout time.Duration) (net.Conn, error) {
		deadline := time.Now().Add(timeout)
		raw, err := dial(network, address, timeout)
		if err != nil {
			return nil, err
		}
		c := cfg.Clone()
		if c.ServerName == "" {
			host, _, err := net.SplitHostPort(address)
			if err != nil {
				host = address
			}
			c.ServerName = host
		}
		conn := tls.Client(raw, c)
		if err := raw.SetDeadline(deadline); err != nil {
			raw.Close()
			return nil, err
		}
		if err := conn.Handshake(); err != nil {
			raw.Close()
			return nil, fmt.Errorf("zookeeper %s: TLS handshake: %w", address, err)
		}
		if err := raw.SetDeadline(time.Time{}); err != nil {
			raw.Close()
			return nil, err
		}
		return conn, nil
	}
}

func (o Options) sessionTimeout() time.Duration {
	if o.SessionTimeout == 0 {
		return DefaultSessionTimeout
	}
	return o.SessionTimeout
}

// zkLogger routes go-zookeeper's Printf-style messages into zerolog at
// debug level: they are connection chatter ("connected to", "recv loop
// terminated") that the session events already report at a higher level.
type zkLogger struct{ log zerolog.Logger }

func (l zkLogger) Printf(format string, args ...any) {
	l.log.Debug().Msgf(format, args...)
}
