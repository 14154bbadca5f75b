package wire

import (
	"context"
	"net"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Request is one decoded request as a Handler sees it.
type Request struct {
	// Key and Version are the API key and version from the request header.
	Key     int16
	Version int16
	// CorrelationID is echoed in the response header by the server.
	CorrelationID int32
	// ClientID is the header's client id; Kafka treats a null one as "",
	// and so do we. It is "" for header v0 (ControlledShutdown v0).
	ClientID string
	// Body is the decoded request: a kmsg type at Version, or whatever the
	// route's Decoder returned for versions kmsg cannot decode.
	Body kmsg.Request
	// RemoteAddr is the client's address.
	RemoteAddr net.Addr
	// Principal is who the connection authenticated as: the SASL user on
	// a SASL listener, else the TLS principal (Config.TLSPrincipal), else
	// Config.Principal's answer, AnonymousPrincipal by default.
	Principal Principal
	// Protocol is the listener's security protocol: PLAINTEXT, SSL,
	// SASL_PLAINTEXT or SASL_SSL.
	Protocol string
	// TokenAuthenticated is true when the connection authenticated with a
	// delegation token (SASL/SCRAM with tokenauth=true).
	TokenAuthenticated bool
}

// The security protocols a listener speaks, by Kafka's names.
const (
	ProtocolPlaintext     = "PLAINTEXT"
	ProtocolSSL           = "SSL"
	ProtocolSASLPlaintext = "SASL_PLAINTEXT"
	ProtocolSASLSSL       = "SASL_SSL"
)

// TokenExchange is a SASLExchange that can tell whether its client
// authenticated with a delegation token.
type TokenExchange interface {
	TokenAuthenticated() bool
}

// Handler serves requests for the keys it is registered for on a Mux.
//
// Handle returns the response to send; the server sets its version to the
// request's and writes it with the request's correlation id. Build it with
// req.Body.ResponseKind() (or kmsg.New...) so kmsg's defaults apply.
//
// Per-request failures belong in the response's error codes, as Kafka's
// getErrorResponse does. A non-nil error means the request cannot be
// answered at all: the server logs it and closes the connection. A nil
// response with a nil error sends nothing (Kafka does this for Produce with
// acks=0) and the connection carries on.
//
// ctx is cancelled when the server is closed or a Shutdown runs out of
// time. Handle may be called concurrently for different connections, never
// concurrently for one connection.
type Handler interface {
	Handle(ctx context.Context, req *Request) (kmsg.Response, error)
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, req *Request) (kmsg.Response, error)

// Handle calls f.
func (f HandlerFunc) Handle(ctx context.Context, req *Request) (kmsg.Response, error) {
	return f(ctx, req)
}

// Principal is Kafka's KafkaPrincipal: a type ("User") and a name, set per
// connection by TLS or SASL authentication.
type Principal struct {
	Type string
	Name string
}

// String renders the principal as Kafka does, "User:alice".
func (p Principal) String() string { return p.Type + ":" + p.Name }

// AnonymousPrincipal is Kafka's principal for an unauthenticated
// (PLAINTEXT) connection, User:ANONYMOUS.
func AnonymousPrincipal() Principal { return Principal{Type: "User", Name: "ANONYMOUS"} }
