package scram

import (
	"context"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
)

// Lookup finds the stored credential of username for mechanism m. found is
// false when the user has none; err is for failures to look (ZooKeeper
// down), which fail the exchange the same way but are worth logging.
type Lookup func(ctx context.Context, m Mechanism, username string) (c Credential, found bool, err error)

// ClientError is a failure whose message Kafka sends to the client (a
// SaslAuthenticationException in Kafka). Every other error of Step must be
// reported to the client as a generic failure.
type ClientError struct{ Message string }

func (e *ClientError) Error() string { return e.Message }

// ErrAuthenticationFailed is wrapped by every failure of Step that is not a
// *ClientError: the unknown user, the wrong password, malformed messages.
// The wrapped text says which, for the server's log only.
var ErrAuthenticationFailed = errors.New("SCRAM authentication failed")

type serverState uint8

const (
	awaitClientFirst serverState = iota
	awaitClientFinal
	complete
	failed
)

// Server is the server side of one SCRAM exchange. It is not safe for
// concurrent use; one connection drives it.
type Server struct {
	mech   Mechanism
	lookup Lookup
	// tokens finds delegation tokens; nil refuses tokenauth.
	tokens TokenLookup
	// newNonce makes the server nonce; tests replace it to replay RFC
	// vectors.
	newNonce func() (string, error)

	state       serverState
	first       clientFirst
	serverFirst string
	cred        Credential
	// tokenAuth: the client authenticates with a delegation token
	// (tokenauth=true), owned by tokenOwner.
	tokenAuth  bool
	tokenOwner string
}

// TokenLookup finds the delegation token tokenID for mechanism m: the
// credential its HMAC gives as a password, and its owner's name. found is
// false for no such token (or an expired one).
type TokenLookup func(ctx context.Context, m Mechanism, tokenID string) (c Credential, owner string, found bool, err error)

// WithTokens lets the exchange authenticate delegation tokens
// (tokenauth=true), found by lookup. It returns s.
func (s *Server) WithTokens(lookup TokenLookup) *Server {
	s.tokens = lookup
	return s
}

// TokenAuthenticated reports whether the client authenticated with a
// delegation token.
func (s *Server) TokenAuthenticated() bool { return s.state == complete && s.tokenAuth }

// AuthorizationID is the name of the principal the client authenticated
// as, once Step reported done: the user, or a token's owner.
func (s *Server) AuthorizationID() string {
	if s.tokenAuth {
		return s.tokenOwner
	}
	return s.first.user
}

// NewServer starts an exchange for mechanism m; lookup finds credentials.
func NewServer(m Mechanism, lookup Lookup) *Server {
	return &Server{mech: m, lookup: lookup, newNonce: randomString}
}

// Mechanism is the exchange's mechanism.
func (s *Server) Mechanism() Mechanism { return s.mech }

// Username is the authenticated user once Step reported done, and the
// claimed one after the first message. It is the decoded SCRAM name, which
// Kafka uses as the principal's name (User:<name>).
func (s *Server) Username() string { return s.first.user }

// Step consumes one client message and returns the server's answer. done
// is true with the server-final message, when the client has proved its
// password. Any error ends the exchange; later calls fail.
func (s *Server) Step(ctx context.Context, msg []byte) (resp []byte, done bool, err error) {
	switch s.state {
	case awaitClientFirst:
		resp, err = s.onClientFirst(ctx, string(msg))
		if err == nil {
			s.state = awaitClientFinal
		}
	case awaitClientFinal:
		resp, err = s.onClientFinal(string(msg))
		if err == nil {
			s.state, done = complete, true
		}
	default:
		err = fmt.Errorf("%w: %s exchange already finished", ErrAuthenticationFailed, s.mech)
	}
	if err != nil {
		s.state = failed
		s.cred = Credential{}
		return nil, false, err
	}
	return resp, done, nil
}

func fail(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrAuthenticationFailed}, args...)...)
}

func (s *Server) onClientFirst(ctx context.Context, msg string) ([]byte, error) {
	cf, err := parseClientFirst(msg)
	if err != nil {
		return nil, fail("%v", err)
	}
	s.first = cf
	var cred Credential
	var found bool
	if cf.extensions["tokenauth"] == "true" {
		if s.tokens == nil {
			return nil, fail("delegation token authentication is not enabled")
		}
		var owner string
		cred, owner, found, err = s.tokens(ctx, s.mech, cf.user)
		switch {
		case err != nil:
			return nil, fail("delegation token %q could not be read: %v", cf.user, err)
		case !found:
			return nil, fail("Token Authentication failed: Invalid tokenId : %s", cf.user)
		}
		s.tokenAuth, s.tokenOwner = true, owner
	} else {
		cred, found, err = s.lookup(ctx, s.mech, cf.user)
		switch {
		case err != nil:
			return nil, fail("credentials could not be obtained for %q: %v", cf.user, err)
		case !found:
			return nil, fail("no %s credential for user %q", s.mech, cf.user)
		}
	}
	if cf.authzid != "" && cf.authzid != cf.user {
		return nil, &ClientError{Message: "Authentication failed: Client requested an authorization id that is different from username"}
	}
	if cred.Iterations < MinIterations {
		return nil, fail("iterations %d is less than the minimum %d for %s", cred.Iterations, MinIterations, s.mech)
	}
	nonce, err := s.newNonce()
	if err != nil {
		return nil, fail("server nonce: %v", err)
	}
	s.cred = cred
	s.serverFirst = "r=" + cf.nonce + nonce +
		",s=" + base64.StdEncoding.EncodeToString(cred.Salt) +
		",i=" + strconv.Itoa(cred.Iterations)
	return []byte(s.serverFirst), nil
}

func (s *Server) onClientFinal(msg string) ([]byte, error) {
	cf, err := parseClientFinal(msg)
	if err != nil {
		return nil, fail("%v", err)
	}
	if cf.channelBinding != base64.StdEncoding.EncodeToString([]byte(s.first.gs2Header)) {
		return nil, fail("channel binding does not match the GS2 header")
	}
	if cf.nonce != s.serverNonce() {
		return nil, fail("invalid client nonce in the final client message")
	}
	authMessage := []byte(s.first.bare + "," + s.serverFirst + "," + cf.withoutProof)
	// ClientKey = ClientProof XOR HMAC(StoredKey, AuthMessage); the proof
	// holds iff H(ClientKey) is the stored key.
	sig := s.mech.hmac(s.cred.StoredKey, authMessage)
	if len(cf.proof) != len(sig) {
		return nil, fail("invalid client credentials for user %q", s.first.user)
	}
	clientKey := make([]byte, len(sig))
	subtle.XORBytes(clientKey, cf.proof, sig)
	if subtle.ConstantTimeCompare(s.mech.hash(clientKey), s.cred.StoredKey) != 1 {
		return nil, fail("invalid client credentials for user %q", s.first.user)
	}
	serverSig := s.mech.hmac(s.cred.ServerKey, authMessage)
	return []byte("v=" + base64.StdEncoding.EncodeToString(serverSig)), nil
}

// serverNonce is the combined nonce sent in server-first: r=<value>.
func (s *Server) serverNonce() string {
	// serverFirst starts "r=<nonce>,s=": the nonce has no ','.
	v := s.serverFirst[len("r="):]
	for i := 0; i < len(v); i++ {
		if v[i] == ',' {
			return v[:i]
		}
	}
	return v
}
