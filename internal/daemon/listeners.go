package daemon

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller/handler"
	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/security"
	"github.com/kzadmin/kzadmin/security/acl"
	"github.com/kzadmin/kzadmin/security/sasl"
	"github.com/kzadmin/kzadmin/security/scram"
)

// kafkaListener is one entry of listeners: its socket, its security and,
// once serving, its server.
type kafkaListener struct {
	conf     config.Listener
	protocol config.SecurityProtocol
	ln       net.Listener
	security security.Listener
	srv      *wire.Server
}

// startListeners binds every configured listener and builds its security
// from the properties, so a bad keystore or JAAS entry fails start-up
// before anything is served. SCRAM credentials are read from ZooKeeper, so
// the session must be up.
func (d *Daemon) startListeners() error {
	if len(d.conf.Listeners) == 0 {
		return errors.New("listeners: at least one listener is needed")
	}
	creds := sasl.ZKCredentials{ZK: d.zk}
	var tokenLookup scram.TokenLookup
	if secret := d.conf.DelegationTokenSecret(); secret != "" {
		tokenLookup = sasl.ZKTokens{ZK: d.zk, Secret: []byte(secret)}.Lookup
	}
	for _, l := range d.conf.Listeners {
		proto := d.conf.ListenerSecurityProtocolMap[l.Name]
		sec, err := security.NewListener(security.ListenerOptions{
			Name: l.Name, Protocol: string(proto), Props: d.conf.Property, SCRAM: creds.Lookup, Tokens: tokenLookup,
		})
		if err != nil {
			return err
		}
		host := l.Host
		if host == "" && d.conf.Dev {
			host = "127.0.0.1"
		}
		ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(l.Port)))
		if err != nil {
			return fmt.Errorf("listen on %s: %w", l, err)
		}
		d.listeners = append(d.listeners, &kafkaListener{conf: l, protocol: proto, ln: ln, security: sec})
	}
	return nil
}

// listener returns the bound listener of that name, or nil.
func (d *Daemon) listener(name string) *kafkaListener {
	for _, l := range d.listeners {
		if l.conf.Name == name {
			return l
		}
	}
	return nil
}

// port is the port l really got (port 0 means "any free port").
func (l *kafkaListener) port() int { return l.ln.Addr().(*net.TCPAddr).Port }

// startAuthorizer starts Kafka's ACL authorizer when authorizer.class.name
// names it: its cache follows ZooKeeper for the daemon's lifetime and is
// loaded before Start returns, so no request is decided on an empty cache.
// It returns nil (allow everything) when no authorizer is configured.
func (d *Daemon) startAuthorizer(ctx context.Context) (handler.Authorizer, error) {
	enabled, opts, err := security.AuthorizerSettings(d.conf.Property)
	if err != nil || !enabled {
		return nil, err
	}
	log := d.log.With().Str("component", "authorizer").Logger()
	cache := acl.NewCache(d.zk, log)
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	d.aclStop = func() {
		cancel()
		<-done
	}
	go func() {
		defer close(done)
		if err := cache.Run(runCtx); err != nil && !errors.Is(err, context.Canceled) {
			log.Error().Err(err).Msg("ACL cache stopped")
		}
	}()
	waitCtx, cancelWait := context.WithTimeout(ctx, d.conf.ZooKeeper.SessionTimeout+30*time.Second)
	defer cancelWait()
	if err := cache.WaitLoaded(waitCtx); err != nil {
		return nil, fmt.Errorf("load ACLs from ZooKeeper: %w", err)
	}
	return acl.NewAuthorizer(cache, opts, log), nil
}

// serveWire serves every listener, each with its own handlers so Metadata
// advertises the endpoints of the listener the client came in on, as a
// Kafka broker does.
func (d *Daemon) serveWire(routes func(listener string) (*wire.Mux, error)) error {
	for _, l := range d.listeners {
		mux, err := routes(l.conf.Name)
		if err != nil {
			return err
		}
		wcfg := wire.Config{Mux: mux, Features: d.features.fillApiVersions,
			Logger: d.log.With().Str("component", "wire").Str("listener", l.conf.Name).Logger()}
		l.security.Apply(&wcfg)
		srv, err := wire.New(wcfg)
		if err != nil {
			return fmt.Errorf("listener %s: %w", l.conf.Name, err)
		}
		l.srv = srv
		go func(l *kafkaListener) {
			if err := l.srv.Serve(l.ln); err != nil && !errors.Is(err, wire.ErrServerClosed) {
				d.log.Error().Err(err).Str("listener", l.conf.Name).Msg("Kafka listener stopped")
			}
		}(l)
	}
	return nil
}

// closeListeners shuts the servers down, or closes the sockets of
// listeners that never served.
func (d *Daemon) closeListeners() {
	for _, l := range d.listeners {
		if l.srv == nil {
			l.ln.Close()
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_ = l.srv.Shutdown(ctx)
		cancel()
	}
	d.listeners = nil
}
