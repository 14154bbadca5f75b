package scram

import (
	"context"
	"errors"
	"testing"

	fscram "github.com/twmb/franz-go/pkg/sasl/scram"
)

// TestServerTokenAuth: with tokenauth=true the SCRAM user is a token id
// and the password the token's HMAC; the principal is the token's owner.
// Without a TokenLookup, or for an unknown token, the exchange fails; a
// token's id never logs in as a user, nor a user as a token.
func TestServerTokenAuth(t *testing.T) {
	const id, hmacB64, owner = "tokenid-0123456789abcd", "aG1hYy1hcy1iYXNlNjQ=", "alice"
	tokensFound := func(_ context.Context, m Mechanism, tokenID string) (Credential, string, bool, error) {
		if tokenID != id {
			return Credential{}, "", false, nil
		}
		c, err := NewCredential(m, hmacB64, MinIterations)
		return c, owner, err == nil, err
	}
	users := users(t, map[string]string{"alice": "alice-secret"})
	for _, m := range Mechanisms() {
		s, err := exchangeWith(t, NewServer(m, users).WithTokens(tokensFound), fscram.Auth{User: id, Pass: hmacB64, IsToken: true})
		if err != nil || !s.TokenAuthenticated() || s.AuthorizationID() != owner {
			t.Fatalf("%s: token login: %v, token=%v, id=%q", m, err, s.TokenAuthenticated(), s.AuthorizationID())
		}
		s, err = exchangeWith(t, NewServer(m, users).WithTokens(tokensFound), fscram.Auth{User: "alice", Pass: "alice-secret"})
		if err != nil || s.TokenAuthenticated() || s.AuthorizationID() != "alice" {
			t.Fatalf("%s: user login beside tokens: %v, token=%v, id=%q", m, err, s.TokenAuthenticated(), s.AuthorizationID())
		}
		for name, tc := range map[string]struct {
			srv  *Server
			auth fscram.Auth
		}{
			"tokens off":      {NewServer(m, users), fscram.Auth{User: id, Pass: hmacB64, IsToken: true}},
			"unknown token":   {NewServer(m, users).WithTokens(tokensFound), fscram.Auth{User: "other", Pass: hmacB64, IsToken: true}},
			"wrong HMAC":      {NewServer(m, users).WithTokens(tokensFound), fscram.Auth{User: id, Pass: "wrong", IsToken: true}},
			"token as a user": {NewServer(m, users).WithTokens(tokensFound), fscram.Auth{User: id, Pass: hmacB64}},
			"user as a token": {NewServer(m, users).WithTokens(tokensFound), fscram.Auth{User: "alice", Pass: "alice-secret", IsToken: true}},
		} {
			s, err := exchangeWith(t, tc.srv, tc.auth)
			if !errors.Is(err, ErrAuthenticationFailed) || s.TokenAuthenticated() {
				t.Errorf("%s: %s: err %v, token=%v; want an authentication failure", m, name, err, s.TokenAuthenticated())
			}
		}
	}
}
