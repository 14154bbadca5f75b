package wire

// TLS on the listener (SSL and SASL_SSL): the server wraps each accepted
// connection in crypto/tls when Config.TLS is set, and runs the handshake
// before reading anything, so that the principal can come from the
// client's certificate. Whether a certificate is required, requested or
// ignored is the tls.Config's ClientAuth (Kafka's ssl.client.auth).

import (
	"context"
	"crypto/tls"
	"net"
	"time"
)

// connPrincipal completes the TLS handshake, if any, and names the
// connection's principal. It reports false when the connection must close.
func (s *Server) connPrincipal(c *conn) (Principal, bool) {
	tc, isTLS := c.nc.(*tls.Conn)
	if !isTLS {
		return s.principal(c.nc), true
	}
	if s.idleTimeout > 0 {
		_ = tc.SetDeadline(time.Now().Add(s.idleTimeout))
	}
	if err := tc.HandshakeContext(s.baseCtx); err != nil {
		c.log.Info().Err(err).Msg("closing connection: TLS handshake failed")
		return Principal{}, false
	}
	_ = tc.SetDeadline(time.Time{})
	if s.tlsPrinc == nil {
		return s.principal(c.nc), true
	}
	p, err := s.tlsPrinc(tc.ConnectionState())
	if err != nil {
		c.log.Info().Err(err).Msg("closing connection: no principal for the TLS client")
		return Principal{}, false
	}
	return p, true
}

type clientAddrKey struct{}

func withClientAddr(ctx context.Context, addr net.Addr) context.Context {
	return context.WithValue(ctx, clientAddrKey{}, addr)
}

// ClientAddr returns the client address of the connection a handler's
// context belongs to. Handlers pass their context on to the authorizer,
// which needs the client's host to match ACLs.
func ClientAddr(ctx context.Context) (net.Addr, bool) {
	a, ok := ctx.Value(clientAddrKey{}).(net.Addr)
	return a, ok && a != nil
}
