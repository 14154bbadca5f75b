package acl

import (
	"context"
	"net"

	"github.com/rs/zerolog"

	"github.com/kzadmin/kzadmin/controller/handler"
	"github.com/kzadmin/kzadmin/controller/wire"
)

// IndexSource gives the current ACLs; *Cache implements it.
type IndexSource interface {
	Index() *Index
}

// Authorizer is Kafka's AclAuthorizer as the handlers' Authorizer: every
// check reads the current Index, lock-free.
type Authorizer struct {
	src  IndexSource
	opts Options
	log  zerolog.Logger
}

var _ handler.Authorizer = (*Authorizer)(nil)

// NewAuthorizer decides over src's ACLs with opts (super.users and
// allow.everyone.if.no.acl.found). Denials are logged at debug level
// (Kafka logs them at INFO on its separate authorizer logger).
func NewAuthorizer(src IndexSource, opts Options, log zerolog.Logger) *Authorizer {
	return &Authorizer{src: src, opts: opts, log: log.With().Str("component", "authorizer").Logger()}
}

// Authorize implements handler.Authorizer. The client's host comes from
// ctx (wire.ClientAddr), which the listener puts in every handler context.
func (a *Authorizer) Authorize(ctx context.Context, p wire.Principal, op handler.Operation, r handler.Resource) bool {
	req := Request{
		Principal: Principal{Type: p.Type, Name: p.Name},
		Host:      clientIP(ctx),
		Operation: Operation(op), // handler's codes are Kafka's, as ours
		Type:      ResourceType(r.Type),
		Name:      r.Name,
	}
	ok := a.src.Index().Authorize(req, a.opts)
	if !ok {
		if e := a.log.Debug(); e.Enabled() {
			e.Str("principal", req.Principal.String()).Str("operation", req.Operation.String()).
				Str("host", hostText(req.Host)).Str("resource", Pattern{req.Type, req.Name, PatternLiteral}.String()).
				Msg("denied")
		}
	}
	return ok
}

func clientIP(ctx context.Context) net.IP {
	addr, ok := wire.ClientAddr(ctx)
	if !ok {
		return nil
	}
	switch a := addr.(type) {
	case *net.TCPAddr:
		return a.IP
	}
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return nil
	}
	return net.ParseIP(host)
}

func hostText(ip net.IP) string {
	if ip == nil {
		return "unknown"
	}
	return ip.String()
}
