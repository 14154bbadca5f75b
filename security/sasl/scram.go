package sasl

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/security/scram"
	"github.com/kzadmin/kzadmin/security/tokens"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// scramExchange adapts scram.Server to wire.SASLExchange: the messages
// Kafka shows the client become *wire.SASLError, the rest stay generic.
type scramExchange struct{ srv *scram.Server }

func (s scramExchange) Step(ctx context.Context, token []byte) ([]byte, bool, error) {
	resp, done, err := s.srv.Step(ctx, token)
	var ce *scram.ClientError
	if errors.As(err, &ce) {
		return nil, false, &wire.SASLError{Message: ce.Message}
	}
	return resp, done, err
}

func (s scramExchange) Principal() wire.Principal { return userPrincipal(s.srv.AuthorizationID()) }

// TokenAuthenticated implements wire.TokenExchange.
func (s scramExchange) TokenAuthenticated() bool { return s.srv.TokenAuthenticated() }

// ZNodeReader reads one znode; *zkadmin.Client implements it.
type ZNodeReader interface {
	Get(ctx context.Context, path string) ([]byte, zkadmin.Stat, error)
}

// DefaultLookupTimeout bounds one credential read from ZooKeeper.
const DefaultLookupTimeout = 10 * time.Second

// ZKCredentials finds SCRAM credentials where Kafka keeps them: the
// mechanism's key in the config of /config/users/<sanitized user name>.
type ZKCredentials struct {
	ZK ZNodeReader
	// Timeout bounds each read; zero means DefaultLookupTimeout.
	Timeout time.Duration
}

// Lookup implements scram.Lookup. A missing znode, an unreadable one and
// a config without the mechanism's key all mean "no credential", as in
// Kafka (which treats unparsable entity configs as empty).
func (z ZKCredentials) Lookup(ctx context.Context, m scram.Mechanism, user string) (scram.Credential, bool, error) {
	timeout := z.Timeout
	if timeout == 0 {
		timeout = DefaultLookupTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	name := znodes.SanitizeEntityName(user)
	path := znodes.ConfigEntityPath(znodes.EntityUsers, name)
	data, _, err := z.ZK.Get(ctx, path)
	if errors.Is(err, zkadmin.ErrNoNode) {
		return scram.Credential{}, false, nil
	}
	if err != nil {
		return scram.Credential{}, false, fmt.Errorf("read SCRAM credential of %q: %w", user, err)
	}
	cfg, err := znodes.DecodeEntityConfig(znodes.EntityUsers, name, data)
	if err != nil {
		return scram.Credential{}, false, nil
	}
	v, ok := cfg.Config[m.Name()]
	if !ok {
		return scram.Credential{}, false, nil
	}
	c, err := scram.ParseCredential(v)
	if err != nil {
		return scram.Credential{}, false, fmt.Errorf("%s: %s: %w", path, m, err)
	}
	return c, true, nil
}

// ZKTokens finds delegation tokens where Kafka keeps them,
// /delegation_token/tokens/<id>, for SCRAM's tokenauth: the credential is
// the one the token's HMAC under Secret gives as a password (base64, as
// Kafka's clients send it), at the mechanism's minimum iterations, as
// Kafka's token cache derives it.
type ZKTokens struct {
	ZK     ZNodeReader
	Secret []byte
	// Timeout bounds each read; zero means DefaultLookupTimeout.
	Timeout time.Duration
	// Now is the clock expiry is judged by; nil means time.Now.
	Now func() time.Time
}

// Lookup implements scram.TokenLookup. A missing or undecodable token, and
// one past its expiry, are not found: Kafka's brokers accept an expired
// token until the controller's sweep removes it; kzadmind does not.
func (z ZKTokens) Lookup(ctx context.Context, m scram.Mechanism, tokenID string) (scram.Credential, string, bool, error) {
	timeout := z.Timeout
	if timeout == 0 {
		timeout = DefaultLookupTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if strings.Contains(tokenID, "/") || tokenID == "" {
		return scram.Credential{}, "", false, nil
	}
	data, _, err := z.ZK.Get(ctx, znodes.DelegationTokenInfoPath(tokenID))
	if errors.Is(err, zkadmin.ErrNoNode) {
		return scram.Credential{}, "", false, nil
	}
	if err != nil {
		return scram.Credential{}, "", false, fmt.Errorf("read delegation token %q: %w", tokenID, err)
	}
	t, err := znodes.DecodeDelegationToken(tokenID, data)
	if err != nil {
		return scram.Credential{}, "", false, nil
	}
	now := time.Now
	if z.Now != nil {
		now = z.Now
	}
	if tokens.Expired(t, now().UnixMilli()) {
		return scram.Credential{}, "", false, nil
	}
	password := base64.StdEncoding.EncodeToString(tokens.HMAC(z.Secret, tokenID))
	c, err := scram.NewCredential(m, password, scram.MinIterations)
	if err != nil {
		return scram.Credential{}, "", false, err
	}
	return c, t.Owner.Name, true, nil
}
