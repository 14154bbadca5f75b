// Package kafkaconn is kzadmin's one client-side Kafka connection: the
// replica-log prober, the broker simulator's broker-to-controller channel
// and the SASL client exchange all speak to a Kafka peer through it.
//
// A Conn carries one request at a time over a net.Conn the caller dialled
// (plain TCP, TLS, or after SASL: the dialers live elsewhere). For each
// request it frames the header as Kafka's clients do (header v0 for
// ControlledShutdown v0, v2 for flexible versions, v1 otherwise; the same
// bytes as kmsg's RequestFormatter but for ControlledShutdown v0, which
// that drops), bounds the wait by a per-request timeout and the context
// (cancelling the context unblocks the socket at once), reads one
// size-prefixed frame no larger than the configured maximum, checks the
// correlation id, skips the response header's tagged fields where there
// are some (not for ApiVersions, which answers with header v0 at every
// version, KIP-511), and decodes the body into the request's response type.
//
// Negotiate runs ApiVersions as Kafka clients do (v3, then v0 when the
// peer answers UNSUPPORTED_VERSION in the v0 shape older brokers use), and
// PickVersion then chooses the highest version of a key both sides speak.
//
// Any error leaves the connection in an unknown state: the caller closes
// it. Errors name the request, its version and the peer; a response too
// large and a correlation id mismatch are typed (*ResponseSizeError,
// *CorrelationError), as is a key the peer does not serve in the range
// asked (*VersionError). A Conn is not safe for concurrent use.
package kafkaconn
