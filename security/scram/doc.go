// Package scram is Kafka's SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 5802,
// RFC 7677) as a ZooKeeper-mode broker speaks and stores it: the stored
// credential format of /config/users/<user>, credential generation, and the
// server side of the authentication exchange.
//
// # Stored credentials
//
// A user's entity config holds one key per mechanism, "SCRAM-SHA-256" and
// "SCRAM-SHA-512", whose value is Kafka's ScramCredentialUtils string:
//
//	salt=<base64>,stored_key=<base64>,server_key=<base64>,iterations=<n>
//
// with standard, padded base64. Kafka splits each pair at its first '=', so
// padding in the values is fine, and requires exactly these four keys.
//
// Generation follows Kafka's ScramFormatter: the password is used as its
// UTF-8 bytes (no SASLprep), SaltedPassword = PBKDF2-HMAC(password, salt,
// iterations), StoredKey = H(HMAC(SaltedPassword, "Client Key")) and
// ServerKey = HMAC(SaltedPassword, "Server Key"). Kafka's salt is the UTF-8
// text of a random 130-bit number in base 36; NewCredential makes the same.
// Both mechanisms need at least 4096 iterations; Kafka's admin API refuses
// more than 16384, which is kept here for generation.
//
// # The exchange
//
// Server runs one conversation: client-first, server-first, client-final,
// server-final. It behaves as Kafka's ScramSaslServer: only the "n" GS2 flag
// (no channel binding), the tokenauth extension authenticates a delegation
// token when the server has a TokenLookup (WithTokens; the SCRAM user is
// the token id, the password the base64 of its HMAC, and the principal
// the token's owner) and is refused otherwise, an unknown user fails at the first
// message, and a credential below the mechanism's minimum iterations is
// refused. Errors whose text Kafka shows the client are *ClientError; any
// other error must be reported to the client only as a generic failure,
// since it may reveal whether the user exists.
package scram
