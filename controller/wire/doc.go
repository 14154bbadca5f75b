// Package wire is kzadmind's Kafka-protocol listener: it accepts TCP
// connections, reads Kafka request frames, answers ApiVersions itself and
// hands every other request to the Handler registered for its API key on a
// Mux.
//
// The package speaks franz-go's kmsg vocabulary and declares no protocol
// structs of its own. Requests are decoded with kmsg.RequestForKey and
// ReadFrom and responses are encoded with AppendTo. A version kmsg cannot
// decode (ElectLeaders v3, say) is served by a Decoder registered with the
// key's Route; the decoded value and the handler's response are then the
// handler's own types implementing kmsg.Request and kmsg.Response.
//
// # Protocol rules kept
//
//   - Frames are an int32 size followed by that many bytes. A negative size or
//     one above Config.MaxRequestSize (socket.request.max.bytes, 100 MiB by
//     default) closes the connection before the body is read.
//   - The request header version follows from the key and version: v0 for
//     ControlledShutdown v0, v2 (client id plus tagged fields) for flexible
//     versions, v1 otherwise. A null client id is treated as "".
//   - The response header is v1 (tagged fields) for flexible versions and v0
//     otherwise, except ApiVersions, which always answers with header v0
//     (KIP-511).
//   - A key that is not registered, or a version outside the registered
//     range, closes the connection without a response, as Kafka's
//     SocketServer does. ApiVersions is the exception: an unsupported version
//     gets a v0 body with UNSUPPORTED_VERSION and [{18, 0, max}], and the
//     connection stays open so the client can retry with that max.
//   - Bytes left over after a body decodes are ignored, as kmsg's ReadFrom
//     ignores them; a body too short for its fields closes the connection.
//   - A connection with no request for Config.IdleTimeout
//     (connections.max.idle.ms, 10 minutes by default) is closed.
//
// # Security
//
// With Config.TLS the listener speaks TLS (SSL, SASL_SSL): the handshake
// runs first on the connection's goroutine and Config.TLSPrincipal names
// the principal from the peer certificate. With Config.SASL the
// connection must authenticate (SaslHandshake, SaslAuthenticate) before
// any request but ApiVersions is served; sasl.go lists the rules kept.
// Handlers' contexts carry the client address (ClientAddr) for the
// authorizer's host matching.
//
// # Goroutines and ordering
//
// Serve runs one accept loop per listener; each connection has exactly one
// goroutine, owned by the Server and counted in its WaitGroup. That
// goroutine reads a request, runs its handler, writes the response and only
// then reads the next request. This is Kafka's "muted channel": one request
// in flight per connection, so responses leave in request order by
// construction, while different connections are served concurrently.
//
// Server.mu guards the listener and connection sets, the shutdown flag and
// each connection's idle/active state; it is never held across I/O or a
// handler call. Mux has its own RWMutex, taken only to look a route up.
//
// Shutdown closes the listeners, closes the connections that are idle
// (waiting for the first byte of a request), and lets active ones finish
// their current request and write its response before they close
// themselves. If its context ends first, the remaining connections are
// closed and the handlers' contexts cancelled.
package wire
