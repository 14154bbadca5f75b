package wire

import (
	"errors"
	"fmt"
	"time"

	"github.com/rs/zerolog"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// process turns one request frame into the bytes of its response. It
// returns ok=false when the connection must close instead (the reason is
// logged here), and out=nil with ok=true when the handler chose not to
// answer. mute is the response's throttle time: the connection reads no
// further request until it has passed (mutedFor).
func (s *Server) process(c *conn, frame []byte) (out []byte, mute time.Duration, ok bool) {
	out, resp, ok := s.processResponse(c, frame)
	return out, mutedFor(resp), ok
}

// processResponse is process, also returning the handler's response (nil
// for those answered by the server itself).
func (s *Server) processResponse(c *conn, frame []byte) (out []byte, resp kmsg.Response, ok bool) {
	h, rest, err := parseHeaderStart(frame)
	if err != nil {
		c.log.Info().Err(err).Int("size", len(frame)).Msg("closing connection: bad request")
		return nil, nil, false
	}
	if h.key == apiVersionsKey {
		out, ok := s.serveApiVersions(c, h, rest)
		return out, nil, ok
	}
	route, found := s.mux.lookup(h.key)
	if !found && s.sasl != nil && (h.key == saslHandshakeKey || h.key == saslAuthenticateKey) {
		out, ok := s.serveSASLAfterAuth(c, h, rest)
		return out, nil, ok
	}
	if !found || !route.Contains(h.version) {
		// Kafka's SocketServer closes the connection without an answer
		// ("Received request api key ... which is not enabled").
		withHeader(c.log.Info(), h).Bool("key_registered", found).
			Msg("closing connection: unsupported api key or version")
		return nil, nil, false
	}
	req, flexible, err := decodeRequest(route, &h, rest)
	if err != nil {
		withHeader(c.log.Info(), h).Err(err).Msg("closing connection: undecodable request")
		return nil, nil, false
	}
	req.RemoteAddr = c.nc.RemoteAddr()
	req.Principal = c.principal
	req.Protocol, req.TokenAuthenticated = s.protocol(), c.tokenAuth

	resp, err = route.Handler.Handle(c.ctx, req)
	if err != nil {
		withHeader(c.log.Warn(), h).Str("client_id", req.ClientID).Err(err).
			Msg("closing connection: handler failed")
		return nil, nil, false
	}
	if resp == nil {
		withHeader(c.log.Debug(), h).Msg("request served without a response")
		return nil, nil, true
	}
	if resp.Key() != h.key {
		withHeader(c.log.Error(), h).Int16("response_key", resp.Key()).
			Msg("closing connection: handler answered with the wrong api key")
		return nil, nil, false
	}
	// The response must be encoded at the request's version; setting it
	// here spares every handler that line and its bug.
	resp.SetVersion(h.version)
	withHeader(c.log.Debug(), h).Str("client_id", req.ClientID).Msg("request served")
	return appendResponse(nil, h.correlationID, flexible, resp), resp, true
}

// mutedFor is how long the connection stays muted after resp: its
// throttle time. Kafka mutes a connection whose response was throttled (a
// quota, here the controller mutation quota), so that a client that does
// not wait the throttle time itself (KIP-219) is slowed down anyway.
func mutedFor(resp kmsg.Response) time.Duration {
	t, ok := resp.(kmsg.ThrottleResponse)
	if !ok {
		return 0
	}
	ms, _ := t.Throttle()
	return time.Duration(max(ms, 0)) * time.Millisecond
}

// decodeRequest parses the rest of the header and the body of a request
// whose key and version the route serves. flexible says which response
// header to use.
func decodeRequest(route Route, h *header, rest []byte) (req *Request, flexible bool, err error) {
	dec, custom := route.Decoders[h.version]
	var kreq kmsg.Request
	if custom {
		flexible = dec.Flexible
	} else {
		kreq = kmsg.RequestForKey(h.key) // non-nil: Register checked
		kreq.SetVersion(h.version)
		flexible = kreq.IsFlexible()
	}
	body, err := parseHeaderRest(h, rest, requestHeaderVersion(h.key, h.version, flexible))
	if err != nil {
		return nil, false, err
	}
	if custom {
		kreq, err = dec.Decode(body)
		if err == nil && kreq == nil {
			err = errors.New("decoder returned no request")
		}
	} else {
		err = kreq.ReadFrom(body)
	}
	if err != nil {
		return nil, false, fmt.Errorf("decode %s v%d body: %w", kmsg.NameForKey(h.key), h.version, err)
	}
	req = &Request{
		Key:           h.key,
		Version:       h.version,
		CorrelationID: h.correlationID,
		Body:          kreq,
	}
	if h.clientID != nil {
		req.ClientID = *h.clientID
	}
	return req, flexible, nil
}

// withHeader adds the request header's fields to a log event.
func withHeader(e *zerolog.Event, h header) *zerolog.Event {
	return e.Int16("key", h.key).
		Str("api", kmsg.NameForKey(h.key)).
		Int16("version", h.version).
		Int32("correlation_id", h.correlationID)
}
