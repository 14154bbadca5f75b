package handler

// CreateDelegationToken (38) v0-3, RenewDelegationToken (39) v0-2,
// ExpireDelegationToken (40) v0-2 and DescribeDelegationToken (41) v0-3,
// served by every kzadmind as every ZooKeeper-mode broker serves them: the
// Java AdminClient sends them to whichever listed node is least loaded,
// and brokers list kzadmind.
//
// Behaviour, in Kafka's order (KafkaApis and DelegationTokenManagerZk):
//   - A request over PLAINTEXT, over SSL without a client certificate
//     (User:ANONYMOUS), or from a connection that itself authenticated
//     with a token is answered DELEGATION_TOKEN_REQUEST_NOT_ALLOWED.
//   - Create: a token for another owner needs CREATE_TOKENS on User
//     <owner> (else DELEGATION_TOKEN_AUTHORIZATION_FAILED); a renewer that
//     is not a User is INVALID_PRINCIPAL_TYPE; without
//     delegation.token.secret.key, DELEGATION_TOKEN_AUTH_DISABLED. A
//     refusal still names the owner and requester, with -1 timestamps.
//   - Renew and expire find the token by its HMAC (not found:
//     DELEGATION_TOKEN_NOT_FOUND); only its owner or a renewer may change
//     it (DELEGATION_TOKEN_OWNER_MISMATCH); an expired token is
//     DELEGATION_TOKEN_EXPIRED, except that expiring with a negative
//     period removes any token at once.
//   - Describe: an empty owner list answers no tokens; each token is shown
//     to its owner and renewers, and to whoever may DESCRIBE the token or
//     DESCRIBE_TOKENS of its owner.
//
// The tokens live in /delegation_token/tokens (zkadmin/admin_tokens.go);
// the rules are security/tokens'.
//
// Deliberate differences: describe lists tokens sorted by id (Kafka's
// order comes from a hash map); an owner name given without its type is
// INVALID_REQUEST (Kafka fails on it with UNKNOWN_SERVER_ERROR); a token
// znode that does not decode fails a renew or expire of it with
// UNKNOWN_SERVER_ERROR and is left in place, and is left out of describe
// (Kafka leaves it out of its cache, so renew and expire answer
// DELEGATION_TOKEN_NOT_FOUND).

import (
	"context"
	"errors"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/security/tokens"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// TokenAdmin keeps delegation tokens; *zkadmin.Admin implements it.
// Without one, the delegation-token APIs are not served.
type TokenAdmin interface {
	CreateDelegationToken(ctx context.Context, t znodes.DelegationToken) error
	ChangeDelegationToken(ctx context.Context, secret, mac []byte, decide zkadmin.TokenDecision) (znodes.DelegationToken, bool, error)
	DelegationTokens(ctx context.Context) ([]zkadmin.StoredToken, error)
}

// Resource types and operations the token APIs check, with Kafka's codes.
const (
	ResourceDelegationToken ResourceType = 6
	ResourceUser            ResourceType = 7
	OpCreateTokens          Operation    = 13
	OpDescribeTokens        Operation    = 14
)

// tokenSettings are the token settings of h's configuration.
func (h *Handlers) tokenSettings() tokens.Settings {
	return tokens.Settings{
		Secret:        []byte(h.cfg.DelegationTokenSecret()),
		MaxLifetimeMs: h.cfg.DelegationTokenMaxLifetime.Milliseconds(),
		RenewTimeMs:   h.cfg.DelegationTokenExpiryTime.Milliseconds(),
	}
}

// tokenRequestAllowed is Kafka's allowTokenRequests.
func tokenRequestAllowed(req *wire.Request) bool {
	switch {
	case req.TokenAuthenticated, req.Protocol == wire.ProtocolPlaintext, req.Protocol == "":
		return false
	case req.Protocol == wire.ProtocolSSL && req.Principal == wire.AnonymousPrincipal():
		return false
	}
	return true
}

func tokenPrincipal(p wire.Principal) znodes.TokenPrincipal {
	return znodes.TokenPrincipal{Type: p.Type, Name: p.Name}
}

// tokenCode is the code of a token operation's failure.
func (h *Handlers) tokenCode(err error) int16 {
	switch {
	case errors.Is(err, tokens.ErrNotFound):
		return kerr.DelegationTokenNotFound.Code
	case errors.Is(err, tokens.ErrOwnerMismatch):
		return kerr.DelegationTokenOwnerMismatch.Code
	case errors.Is(err, tokens.ErrExpired):
		return kerr.DelegationTokenExpired.Code
	case errors.Is(err, tokens.ErrDisabled):
		return kerr.DelegationTokenAuthDisabled.Code
	}
	var ae *zkadmin.AdminError
	if errors.As(err, &ae) && ae.Kind == zkadmin.KindMalformed {
		h.log.Warn().Err(err).Msg("delegation tokens")
		return kerr.UnknownServerError.Code
	}
	return h.errorOf(err).code
}

func (h *Handlers) createDelegationToken(ctx context.Context, req *wire.Request, r *kmsg.CreateDelegationTokenRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.CreateDelegationTokenResponse)
	requester := tokenPrincipal(req.Principal)
	owner := requester
	ownerTypeMissing := false
	if r.OwnerPrincipalName != nil && *r.OwnerPrincipalName != "" {
		owner = znodes.TokenPrincipal{Name: *r.OwnerPrincipalName}
		if r.OwnerPrincipalType != nil {
			owner.Type = *r.OwnerPrincipalType
		} else {
			ownerTypeMissing = true
		}
	}
	resp.PrincipalType, resp.PrincipalName = owner.Type, owner.Name
	resp.TokenRequesterPrincipalType, resp.TokenRequesterPrincipalName = requester.Type, requester.Name
	refuse := func(code int16) kmsg.Response {
		resp.ErrorCode = code
		resp.IssueTimestamp, resp.ExpiryTimestamp, resp.MaxTimestamp = -1, -1, -1
		resp.HMAC = []byte{}
		return resp
	}
	var renewers []znodes.TokenPrincipal
	for _, rn := range r.Renewers {
		renewers = append(renewers, znodes.TokenPrincipal{Type: rn.PrincipalType, Name: rn.PrincipalName})
	}
	switch {
	case !tokenRequestAllowed(req):
		return refuse(kerr.DelegationTokenRequestNotAllowed.Code)
	case ownerTypeMissing:
		return refuse(kerr.InvalidRequest.Code)
	case owner != requester && !h.allows(ctx, req, OpCreateTokens, Resource{Type: ResourceUser, Name: owner.String()}):
		return refuse(kerr.DelegationTokenAuthorizationFailed.Code)
	}
	for _, rn := range renewers {
		if rn.Type != "User" {
			return refuse(kerr.InvalidPrincipalType.Code)
		}
	}
	s := h.tokenSettings()
	if !s.Enabled() {
		return refuse(kerr.DelegationTokenAuthDisabled.Code)
	}
	id, err := tokens.NewID()
	if err != nil {
		return refuse(kerr.UnknownServerError.Code)
	}
	t := tokens.New(s, id, owner, requester, renewers, r.MaxLifetimeMillis, h.now().UnixMilli())
	if err := h.tokens.CreateDelegationToken(ctx, t); err != nil {
		h.log.Warn().Err(err).Str("owner", owner.String()).Msg("create delegation token")
		return refuse(h.tokenCode(err))
	}
	resp.IssueTimestamp, resp.ExpiryTimestamp, resp.MaxTimestamp = t.IssueMs, t.ExpiryMs, t.MaxMs
	resp.TokenID, resp.HMAC = t.ID, tokens.HMAC(s.Secret, t.ID)
	h.log.Info().Str("token_id", t.ID).Str("owner", owner.String()).Msg("created a delegation token")
	return resp
}

// changeToken runs a renew or an expire: the refusals every change gets,
// then decide on the token mac names. It returns the code and the expiry
// timestamp to answer.
func (h *Handlers) changeToken(ctx context.Context, req *wire.Request, mac []byte,
	decide func(s tokens.Settings, t znodes.DelegationToken, p znodes.TokenPrincipal, nowMs int64) (znodes.DelegationToken, bool, error)) (int16, int64) {
	if !tokenRequestAllowed(req) {
		return kerr.DelegationTokenRequestNotAllowed.Code, -1
	}
	s := h.tokenSettings()
	if !s.Enabled() {
		return kerr.DelegationTokenAuthDisabled.Code, -1
	}
	p, nowMs := tokenPrincipal(req.Principal), h.now().UnixMilli()
	t, removed, err := h.tokens.ChangeDelegationToken(ctx, s.Secret, mac, func(t znodes.DelegationToken) (znodes.DelegationToken, bool, error) {
		return decide(s, t, p, nowMs)
	})
	switch {
	case err != nil:
		return h.tokenCode(err), -1
	case removed:
		h.log.Info().Str("token_id", t.ID).Str("by", p.String()).Msg("expired a delegation token")
		return 0, nowMs
	}
	return 0, t.ExpiryMs
}

func (h *Handlers) renewDelegationToken(ctx context.Context, req *wire.Request, r *kmsg.RenewDelegationTokenRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.RenewDelegationTokenResponse)
	resp.ErrorCode, resp.ExpiryTimestamp = h.changeToken(ctx, req, r.HMAC,
		func(s tokens.Settings, t znodes.DelegationToken, p znodes.TokenPrincipal, nowMs int64) (znodes.DelegationToken, bool, error) {
			t, err := tokens.Renew(s, t, p, r.RenewTimeMillis, nowMs)
			return t, false, err
		})
	return resp
}

func (h *Handlers) expireDelegationToken(ctx context.Context, req *wire.Request, r *kmsg.ExpireDelegationTokenRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.ExpireDelegationTokenResponse)
	resp.ErrorCode, resp.ExpiryTimestamp = h.changeToken(ctx, req, r.HMAC,
		func(_ tokens.Settings, t znodes.DelegationToken, p znodes.TokenPrincipal, nowMs int64) (znodes.DelegationToken, bool, error) {
			return tokens.Expire(t, p, r.ExpiryPeriodMillis, nowMs)
		})
	return resp
}

func (h *Handlers) describeDelegationToken(ctx context.Context, req *wire.Request, r *kmsg.DescribeDelegationTokenRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.DescribeDelegationTokenResponse)
	s := h.tokenSettings()
	switch {
	case !tokenRequestAllowed(req):
		resp.ErrorCode = kerr.DelegationTokenRequestNotAllowed.Code
		return resp
	case !s.Enabled():
		resp.ErrorCode = kerr.DelegationTokenAuthDisabled.Code
		return resp
	case r.Owners != nil && len(r.Owners) == 0:
		return resp
	}
	f := tokens.Filter{
		Requester: tokenPrincipal(req.Principal),
		MayDescribeToken: func(id string) bool {
			return h.allows(ctx, req, OpDescribe, Resource{Type: ResourceDelegationToken, Name: id})
		},
		MayDescribeOwner: func(o znodes.TokenPrincipal) bool {
			return h.allows(ctx, req, OpDescribeTokens, Resource{Type: ResourceUser, Name: o.String()})
		},
	}
	if r.Owners != nil {
		f.Owners = []znodes.TokenPrincipal{}
		for _, o := range r.Owners {
			f.Owners = append(f.Owners, znodes.TokenPrincipal{Type: o.PrincipalType, Name: o.PrincipalName})
		}
	}
	stored, err := h.tokens.DelegationTokens(ctx)
	if err != nil {
		resp.ErrorCode = h.tokenCode(err)
		return resp
	}
	for _, st := range stored {
		t := st.Token
		if !f.Shows(t) {
			continue
		}
		d := kmsg.NewDescribeDelegationTokenResponseTokenDetail()
		d.PrincipalType, d.PrincipalName = t.Owner.Type, t.Owner.Name
		d.TokenRequesterPrincipalType, d.TokenRequesterPrincipalName = t.Requester.Type, t.Requester.Name
		d.IssueTimestamp, d.ExpiryTimestamp, d.MaxTimestamp = t.IssueMs, t.ExpiryMs, t.MaxMs
		d.TokenID, d.HMAC = t.ID, tokens.HMAC(s.Secret, t.ID)
		for _, rn := range t.Renewers {
			d.Renewers = append(d.Renewers, kmsg.DescribeDelegationTokenResponseTokenDetailRenewer{PrincipalType: rn.Type, PrincipalName: rn.Name})
		}
		resp.TokenDetails = append(resp.TokenDetails, d)
	}
	return resp
}

// now is the handlers' clock (Options.Clock).
func (h *Handlers) now() time.Time {
	if h.clock != nil {
		return h.clock()
	}
	return time.Now()
}
