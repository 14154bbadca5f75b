package sasl

import (
	"context"
	"crypto/subtle"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kzadmin/kzadmin/controller/wire"
)

// MechanismPlain is the PLAIN mechanism's name.
const MechanismPlain = "PLAIN"

// plainExchange is Kafka's PlainSaslServer: one client message,
// [authzid] NUL authcid NUL passwd (RFC 4616), answered with an empty
// token. Every failure is one Kafka shows the client.
type plainExchange struct {
	users map[string]string
	user  string
}

// newPlain starts a PLAIN exchange over users (name to password).
func newPlain(users map[string]string) *plainExchange { return &plainExchange{users: users} }

func clientErr(msg string) error { return &wire.SASLError{Message: msg} }

func (p *plainExchange) Step(_ context.Context, token []byte) ([]byte, bool, error) {
	if p.user != "" {
		return nil, false, errors.New("PLAIN exchange already complete")
	}
	if !utf8.Valid(token) {
		return nil, false, clientErr("Invalid SASL/PLAIN response: not UTF-8")
	}
	// Kafka splits at up to three NULs and wants exactly three parts.
	parts := strings.SplitN(string(token), "\x00", 4)
	if len(parts) != 3 {
		return nil, false, clientErr("Invalid SASL/PLAIN response: expected 3 tokens, got " + strconv.Itoa(len(parts)))
	}
	authzid, user, password := parts[0], parts[1], parts[2]
	switch {
	case user == "":
		return nil, false, clientErr("Authentication failed: username not specified")
	case password == "":
		return nil, false, clientErr("Authentication failed: password not specified")
	}
	want, ok := p.users[user]
	// Compare even for an unknown user, so timing says nothing about
	// which users exist.
	if !ok {
		want = "\x00unknown user"
	}
	if subtle.ConstantTimeCompare([]byte(want), []byte(password)) != 1 || !ok {
		return nil, false, clientErr("Authentication failed: Invalid username or password")
	}
	if authzid != "" && authzid != user {
		return nil, false, clientErr("Authentication failed: Client requested an authorization id that is different from username")
	}
	p.user = user
	return []byte{}, true, nil
}

func (p *plainExchange) Principal() wire.Principal { return userPrincipal(p.user) }

func userPrincipal(name string) wire.Principal { return wire.Principal{Type: "User", Name: name} }
