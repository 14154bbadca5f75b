package wire

import (
	"errors"
	"fmt"

	"github.com/rs/zerolog"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// process turns one request frame into the bytes of its response. It
// returns ok=false when the connection must close instead (the reason is
// logged here), and out=nil with ok=true when the handler chose not to
// answer.
func (s *Server) process(c *conn, frame []byte) (out []byte, ok bool) {
	h, rest, err := parseHeaderStart(frame)
	if err != nil {
		c.log.Info().Err(err).Int("size", len(frame)).Msg("closing connection: bad request")
		return nil, false
	}
	if h.key == apiVersionsKey {
		return s.serveApiVersions(c, h, rest)
	}
	route, found := s.mux.lookup(h.key)
	if !found && s.sasl != nil && (h.key == saslHandshakeKey || h.key == saslAuthenticateKey) {
		return s.serveSASLAfterAuth(c, h, rest)
	}
	if !found || !route.Contains(h.version) {
		// Kafka's SocketServer closes the connection without an answer
		// ("Received request api key ... which is not enabled").
		withHeader(c.log.Info(), h).Bool("key_registered", found).
			Msg("closing connection: unsupported api key or version")
		return nil, false
	}
	req, flexible, err := decodeRequest(route, &h, rest)
	if err != nil {
		withHeader(c.log.Info(), h).Err(err).Msg("closing connection: undecodable request")
		return nil, false
	}
	req.RemoteAddr = c.nc.RemoteAddr()
	req.Principal = c.principal
	req.Protocol, req.TokenAuthenticated = s.protocol(), c.tokenAuth

	resp, err := route.Handler.Handle(c.ctx, req)
	if err != nil {
		withHeader(c.log.Warn(), h).Str("client_id", req.ClientID).Err(err).
			Msg("closing connection: handler failed")
		return nil, false
	}
	if resp == nil {
		withHeader(c.log.Debug(), h).Msg("request served without a response")
		return nil, true
	}
	if resp.Key() != h.key {
		withHeader(c.log.Error(), h).Int16("response_key", resp.Key()).
			Msg("closing connection: handler answered with the wrong api key")
		return nil, false
	}
	// The response must be encoded at the request's version; setting it
	// here spares every handler that line and its bug.
	resp.SetVersion(h.version)
	withHeader(c.log.Debug(), h).Str("client_id", req.ClientID).Msg("request served")
	return appendResponse(nil, h.correlationID, flexible, resp), true
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
