package wire

// SASL authentication (SaslHandshake 17 v0-1, SaslAuthenticate 36 v0-2), run
// by the server on each connection of a SASL listener before any other
// request is served, as Kafka's SaslServerAuthenticator does.
//
// Behavior:
//   - Until authentication completes, only ApiVersions (once, successfully;
//     an UNSUPPORTED_VERSION or INVALID_REQUEST answer lets the client try
//     again) and then SaslHandshake are accepted. Any other request closes
//     the connection without a response (Kafka's IllegalSaslStateException).
//   - SaslHandshake names a mechanism. An enabled one is answered with
//     ErrorCode 0 and the enabled list; any other with
//     UNSUPPORTED_SASL_MECHANISM (33) and the list, after which the
//     connection is closed.
//   - After a v1 handshake every token travels in SaslAuthenticate. A
//     failed exchange is answered with SASL_AUTHENTICATION_FAILED (58) and
//     either the mechanism's own client message (*SASLError) or Kafka's
//     generic "Authentication failed during authentication due to invalid
//     credentials with SASL mechanism <m>", then the connection is closed.
//     A SaslHandshake or ApiVersions request in this phase is answered
//     ILLEGAL_SASL_STATE (34) and closes the connection; any other key just
//     closes it (Kafka answers those with their own error response too).
//   - After a v0 handshake the tokens are raw size-prefixed frames without
//     Kafka headers, and a failure closes the connection without a word.
//   - Failure answers are held back for FailedAuthenticationDelay
//     (connection.failed.authentication.delay.ms) to slow down guessing.
//   - Frames before authentication completes are capped at MaxReceiveSize
//     (sasl.server.max.receive.size, 512 KiB); a larger size prefix closes
//     the connection.
//   - Once authenticated, the connection's principal is the exchange's
//     (User:<authorization id>), replacing any TLS principal. A later
//     SaslHandshake or SaslAuthenticate is answered ILLEGAL_SASL_STATE and
//     the connection stays open (KafkaApis does this when re-authentication
//     is off, which it is by default and always here).
//   - ApiVersions on a SASL listener advertises SaslHandshake v0-1 and
//     SaslAuthenticate v0-2, which clients need to choose the v1 flow.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The SASL keys and the versions served, as Kafka 3.9.
const (
	saslHandshakeKey       int16 = 17
	saslAuthenticateKey    int16 = 36
	saslHandshakeMax       int16 = 1
	saslAuthenticateMax    int16 = 2
	DefaultSASLMaxReceive  int32 = 512 * 1024
	DefaultFailedAuthDelay       = 100 * time.Millisecond
)

// SASLConfig turns on SASL authentication for a Server (SASL_PLAINTEXT, or
// SASL_SSL together with Config.TLS).
type SASLConfig struct {
	// Mechanisms are the enabled mechanisms (sasl.enabled.mechanisms), in
	// the order SaslHandshake responses list them. Required.
	Mechanisms []string
	// Start begins the server side of one exchange for a mechanism from
	// Mechanisms. An error closes the connection. Required.
	Start func(mechanism string) (SASLExchange, error)
	// MaxReceiveSize caps frames before authentication completes
	// (sasl.server.max.receive.size). Zero means DefaultSASLMaxReceive.
	MaxReceiveSize int32
	// FailedAuthenticationDelay holds back the answer to a failed
	// authentication (connection.failed.authentication.delay.ms). Zero
	// means DefaultFailedAuthDelay, Kafka's default; negative means none.
	FailedAuthenticationDelay time.Duration
}

// SASLExchange is the server side of one SASL exchange.
type SASLExchange interface {
	// Step consumes one client token and returns the server's token.
	// done is true when the client is authenticated; the returned token
	// is still sent. Any error ends the exchange.
	Step(ctx context.Context, token []byte) (challenge []byte, done bool, err error)
	// Principal is the authenticated principal once Step reported done.
	Principal() Principal
}

// SASLError is an authentication failure whose Message the client may see
// (Kafka's SaslAuthenticationException). Any other error from Step is
// reported with Kafka's generic message, since its text might reveal, for
// instance, whether a user exists.
type SASLError struct {
	Message string
	Err     error // the detail, for the server's log; may be nil
}

func (e *SASLError) Error() string {
	if e.Err != nil {
		return e.Message + ": " + e.Err.Error()
	}
	return e.Message
}

func (e *SASLError) Unwrap() error { return e.Err }

func (c *SASLConfig) validate() error {
	if len(c.Mechanisms) == 0 || c.Start == nil {
		return errors.New("wire config: SASL needs Mechanisms and Start")
	}
	if c.MaxReceiveSize < 0 {
		return fmt.Errorf("wire config: SASL MaxReceiveSize %d is negative", c.MaxReceiveSize)
	}
	return nil
}

func (c *SASLConfig) maxReceive() int32 {
	if c.MaxReceiveSize == 0 {
		return DefaultSASLMaxReceive
	}
	return c.MaxReceiveSize
}

func (c *SASLConfig) failDelay() time.Duration {
	if c.FailedAuthenticationDelay == 0 {
		return DefaultFailedAuthDelay
	}
	return max(c.FailedAuthenticationDelay, 0)
}

type saslState uint8

const (
	saslHandshakeOrVersions saslState = iota // nothing yet, or ApiVersions failed
	saslHandshakeOnly                        // ApiVersions answered
	saslAuthRaw                              // v0 handshake done: raw tokens
	saslAuthKafka                            // v1 handshake done: SaslAuthenticate
)

// saslAuth is one connection's authentication in progress.
type saslAuth struct {
	srv       *Server
	c         *conn
	cfg       *SASLConfig
	state     saslState
	mechanism string
	exchange  SASLExchange
}

// authStep is what one frame of the exchange leads to.
type authStep struct {
	out   []byte // bytes to write, if any
	close bool   // close the connection after writing out
	fail  bool   // a failed authentication: out is held back first
	done  bool   // authenticated
}

// authenticate runs the SASL exchange on a new connection. It reports
// false when the connection must close.
func (s *Server) authenticate(c *conn) bool {
	a := &saslAuth{srv: s, c: c, cfg: s.sasl}
	for {
		if !c.awaitRequest() {
			return false
		}
		c.setReadDeadline()
		frame, err := readFrame(c.br, a.cfg.maxReceive())
		if err != nil {
			c.logReadError(err, "read SASL request")
			return false
		}
		st := a.step(frame)
		if st.fail && !s.sleep(a.cfg.failDelay()) {
			return false
		}
		if st.out != nil {
			if err := c.write(st.out); err != nil {
				c.log.Debug().Err(err).Msg("closing connection: write SASL response")
				return false
			}
		}
		if st.close {
			return false
		}
		if st.done {
			c.principal = a.exchange.Principal()
			if t, ok := a.exchange.(TokenExchange); ok {
				c.tokenAuth = t.TokenAuthenticated()
			}
			c.log.Debug().Str("mechanism", a.mechanism).Str("principal", c.principal.String()).
				Msg("SASL authentication succeeded")
		}
		if !c.setIdle() {
			return false
		}
		if st.done {
			return true
		}
	}
}

// step handles one frame according to the state.
func (a *saslAuth) step(frame []byte) authStep {
	if a.state == saslAuthRaw {
		return a.rawToken(frame)
	}
	h, rest, err := parseHeaderStart(frame)
	if err != nil {
		a.c.log.Info().Err(err).Msg("closing connection: bad request during SASL authentication")
		return authStep{close: true}
	}
	if a.state == saslAuthKafka {
		return a.authenticateRequest(h, rest)
	}
	switch h.key {
	case apiVersionsKey:
		if a.state != saslHandshakeOrVersions {
			withHeader(a.c.log.Info(), h).Msg("closing connection: second ApiVersions before SASL handshake")
			return authStep{close: true}
		}
		resp, ok := a.srv.apiVersions(a.c, h, rest)
		if !ok {
			return authStep{close: true}
		}
		if resp.ErrorCode == 0 {
			a.state = saslHandshakeOnly
		}
		return authStep{out: appendResponse(nil, h.correlationID, false, resp)}
	case saslHandshakeKey:
		return a.handshake(h, rest)
	}
	withHeader(a.c.log.Info(), h).Msg("closing connection: request before SASL authentication")
	return authStep{close: true}
}

// decodeSASL decodes a SaslHandshake or SaslAuthenticate request at a
// version the server serves; false means the connection must close.
func (a *saslAuth) decodeSASL(h header, rest []byte, req kmsg.Request, maxVersion int16) bool {
	if h.version < 0 || h.version > maxVersion {
		withHeader(a.c.log.Info(), h).Msg("closing connection: unsupported SASL request version")
		return false
	}
	req.SetVersion(h.version)
	body, err := parseHeaderRest(&h, rest, requestHeaderVersion(h.key, h.version, req.IsFlexible()))
	if err == nil {
		err = req.ReadFrom(body)
	}
	if err != nil {
		withHeader(a.c.log.Info(), h).Err(err).Msg("closing connection: undecodable SASL request")
		return false
	}
	return true
}

func (a *saslAuth) handshake(h header, rest []byte) authStep {
	req := kmsg.NewPtrSASLHandshakeRequest()
	if !a.decodeSASL(h, rest, req, saslHandshakeMax) {
		return authStep{close: true}
	}
	resp := req.ResponseKind().(*kmsg.SASLHandshakeResponse)
	resp.SetVersion(h.version)
	resp.SupportedMechanisms = slices.Clone(a.cfg.Mechanisms)
	if !slices.Contains(a.cfg.Mechanisms, req.Mechanism) {
		resp.ErrorCode = kerr.UnsupportedSaslMechanism.Code
		withHeader(a.c.log.Info(), h).Str("mechanism", req.Mechanism).
			Msg("closing connection: unsupported SASL mechanism")
		return authStep{out: appendResponse(nil, h.correlationID, false, resp), close: true, fail: true}
	}
	exchange, err := a.cfg.Start(req.Mechanism)
	if err != nil {
		withHeader(a.c.log.Warn(), h).Err(err).Str("mechanism", req.Mechanism).
			Msg("closing connection: cannot start SASL exchange")
		return authStep{close: true}
	}
	a.mechanism, a.exchange = req.Mechanism, exchange
	a.state = saslAuthRaw
	if h.version >= 1 {
		a.state = saslAuthKafka
	}
	return authStep{out: appendResponse(nil, h.correlationID, false, resp)}
}

// rawToken handles a token of the v0 flow: the frame is the token and the
// answer is the server's token, size-prefixed, with no header.
func (a *saslAuth) rawToken(token []byte) authStep {
	challenge, done, err := a.exchange.Step(a.srv.baseCtx, token)
	if err != nil {
		a.c.log.Info().Err(err).Str("mechanism", a.mechanism).Msg("closing connection: SASL authentication failed")
		return authStep{close: true, fail: true}
	}
	out := make([]byte, 4, 4+len(challenge))
	out[0], out[1], out[2], out[3] = byte(len(challenge)>>24), byte(len(challenge)>>16), byte(len(challenge)>>8), byte(len(challenge))
	return authStep{out: append(out, challenge...), done: done}
}

func (a *saslAuth) authenticateRequest(h header, rest []byte) authStep {
	if h.key != saslAuthenticateKey {
		return a.illegalState(h, rest)
	}
	req := kmsg.NewPtrSASLAuthenticateRequest()
	if !a.decodeSASL(h, rest, req, saslAuthenticateMax) {
		return authStep{close: true}
	}
	resp := req.ResponseKind().(*kmsg.SASLAuthenticateResponse)
	resp.SetVersion(h.version)
	flexible := req.IsFlexible()
	challenge, done, err := a.exchange.Step(a.srv.baseCtx, req.SASLAuthBytes)
	if err != nil {
		msg := "Authentication failed during authentication due to invalid credentials with SASL mechanism " + a.mechanism
		var se *SASLError
		if errors.As(err, &se) {
			msg = se.Message
		}
		resp.ErrorCode, resp.ErrorMessage = kerr.SaslAuthenticationFailed.Code, &msg
		withHeader(a.c.log.Info(), h).Err(err).Str("mechanism", a.mechanism).
			Msg("closing connection: SASL authentication failed")
		return authStep{out: appendResponse(nil, h.correlationID, flexible, resp), close: true, fail: true}
	}
	resp.SASLAuthBytes = challenge
	return authStep{out: appendResponse(nil, h.correlationID, flexible, resp), done: done}
}

// illegalState answers a request other than SaslAuthenticate after a v1
// handshake. Kafka sends that request's error response with
// ILLEGAL_SASL_STATE and closes; the two keys a client can sensibly send
// here get that, any other key just the close.
func (a *saslAuth) illegalState(h header, rest []byte) authStep {
	withHeader(a.c.log.Info(), h).Msg("closing connection: unexpected request during SASL authentication")
	switch h.key {
	case saslHandshakeKey:
		req := kmsg.NewPtrSASLHandshakeRequest()
		if !a.decodeSASL(h, rest, req, saslHandshakeMax) {
			return authStep{close: true}
		}
		resp := req.ResponseKind().(*kmsg.SASLHandshakeResponse)
		resp.SetVersion(h.version)
		resp.ErrorCode = kerr.IllegalSaslState.Code
		return authStep{out: appendResponse(nil, h.correlationID, false, resp), close: true, fail: true}
	case apiVersionsKey:
		req := kmsg.NewPtrApiVersionsRequest()
		if !a.decodeSASL(h, rest, req, apiVersionsMax) {
			return authStep{close: true}
		}
		resp := req.ResponseKind().(*kmsg.ApiVersionsResponse)
		resp.SetVersion(h.version)
		resp.ErrorCode = kerr.IllegalSaslState.Code
		return authStep{out: appendResponse(nil, h.correlationID, false, resp), close: true, fail: true}
	}
	return authStep{close: true}
}

// serveSASLAfterAuth answers SaslHandshake and SaslAuthenticate on an
// authenticated connection, as KafkaApis does with re-authentication off:
// ILLEGAL_SASL_STATE, connection kept.
func (s *Server) serveSASLAfterAuth(c *conn, h header, rest []byte) ([]byte, bool) {
	a := &saslAuth{srv: s, c: c, cfg: s.sasl}
	var req kmsg.Request = kmsg.NewPtrSASLHandshakeRequest()
	maxVersion := saslHandshakeMax
	if h.key == saslAuthenticateKey {
		req, maxVersion = kmsg.NewPtrSASLAuthenticateRequest(), saslAuthenticateMax
	}
	if !a.decodeSASL(h, rest, req, maxVersion) {
		return nil, false
	}
	resp := req.ResponseKind()
	resp.SetVersion(h.version)
	switch r := resp.(type) {
	case *kmsg.SASLHandshakeResponse:
		r.ErrorCode = kerr.IllegalSaslState.Code
	case *kmsg.SASLAuthenticateResponse:
		msg := "SaslAuthenticate request received after successful authentication"
		r.ErrorCode, r.ErrorMessage = kerr.IllegalSaslState.Code, &msg
	}
	withHeader(c.log.Debug(), h).Msg("SASL request after authentication: ILLEGAL_SASL_STATE")
	return appendResponse(nil, h.correlationID, req.IsFlexible(), resp), true
}

// saslRanges are the SASL keys a SASL listener advertises.
func saslRanges() []VersionRange {
	return []VersionRange{
		{Key: saslHandshakeKey, Min: 0, Max: saslHandshakeMax},
		{Key: saslAuthenticateKey, Min: 0, Max: saslAuthenticateMax},
	}
}
