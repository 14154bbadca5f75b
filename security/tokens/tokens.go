// Package tokens holds Kafka's delegation-token rules, without I/O: how a
// token is made, renewed, expired and shown, and how its HMAC (the token's
// password) derives from its id and the cluster's shared secret.
//
// A ZooKeeper-mode Kafka cluster keeps tokens in
// /delegation_token/tokens/<id> (znodes.DelegationToken) and never stores
// their HMACs: every broker holding delegation.token.secret.key derives the
// HMAC of an id itself (HmacSHA512 keyed with the secret's UTF-8 bytes over
// the id's UTF-8 bytes), so a token kzadmind makes works on every broker
// that shares the secret.
package tokens

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/kzadmin/kzadmin/znodes"
)

// Kafka's defaults for the lifetimes (delegation.token.max.lifetime.ms,
// delegation.token.expiry.time.ms, delegation.token.expiry.check.interval.ms).
const (
	DefaultMaxLifetimeMs         int64 = 7 * 24 * 60 * 60 * 1000
	DefaultRenewTimeMs           int64 = 24 * 60 * 60 * 1000
	DefaultExpiryCheckIntervalMs int64 = 60 * 60 * 1000
)

// Settings are a cluster's delegation-token settings.
type Settings struct {
	// Secret is delegation.token.secret.key; tokens are disabled without
	// one. Every broker must have the same.
	Secret []byte
	// MaxLifetimeMs caps a token's life from its issue.
	MaxLifetimeMs int64
	// RenewTimeMs is how long a new or renewed token lives when the
	// request does not say.
	RenewTimeMs int64
}

// Enabled reports whether tokens are on (Kafka's tokenAuthEnabled).
func (s Settings) Enabled() bool { return len(s.Secret) > 0 }

// The refusals of the lifecycle rules; the API maps each to its code.
var (
	ErrDisabled      = errors.New("delegation token authentication is disabled: no delegation.token.secret.key")
	ErrNotFound      = errors.New("delegation token not found")
	ErrOwnerMismatch = errors.New("the principal is neither the owner nor a renewer of the delegation token")
	ErrExpired       = errors.New("delegation token has expired")
)

// NewID makes a token id as Kafka does: a random (version 4) UUID's 16
// bytes in URL-safe base64 without padding, 22 characters.
func NewID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("new delegation token id: %w", err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// HMAC is the token's password: HmacSHA512 keyed with the secret over the
// id.
func HMAC(secret []byte, id string) []byte {
	m := hmac.New(sha512.New, secret)
	m.Write([]byte(id))
	return m.Sum(nil)
}

// Matches reports whether mac is the HMAC of id under secret, in constant
// time.
func Matches(secret []byte, id string, mac []byte) bool {
	return hmac.Equal(HMAC(secret, id), mac)
}

// New is the token a create request makes at nowMs: its maximum life is
// the request's (maxLifetimeMs), capped by the settings, or the settings'
// when the request gives none (<= 0); it expires at the renew time unless
// its maximum comes first.
func New(s Settings, id string, owner, requester znodes.TokenPrincipal, renewers []znodes.TokenPrincipal,
	maxLifetimeMs, nowMs int64) znodes.DelegationToken {
	life := s.MaxLifetimeMs
	if maxLifetimeMs > 0 {
		life = min(maxLifetimeMs, s.MaxLifetimeMs)
	}
	maxMs := nowMs + life
	return znodes.DelegationToken{
		Version: znodes.DelegationTokenVersion, ID: id, Owner: owner, Requester: requester,
		Renewers: slices.Clone(renewers), IssueMs: nowMs, MaxMs: maxMs, ExpiryMs: min(maxMs, nowMs+s.RenewTimeMs),
	}
}

// Expired reports whether t is past its expiry or its maximum at nowMs.
func Expired(t znodes.DelegationToken, nowMs int64) bool {
	return t.MaxMs < nowMs || t.ExpiryMs < nowMs
}

// OwnerOrRenewer reports whether p owns t or may renew it: who may renew
// or expire t (DelegationTokenManagerZk.allowedToRenew). The requester, when
// not the owner, is not one of them.
func OwnerOrRenewer(t znodes.DelegationToken, p znodes.TokenPrincipal) bool {
	return p == t.Owner || slices.Contains(t.Renewers, p)
}

// Renew is t renewed by p at nowMs for periodMs (negative: the settings'
// renew time), never past its maximum.
func Renew(s Settings, t znodes.DelegationToken, p znodes.TokenPrincipal, periodMs, nowMs int64) (znodes.DelegationToken, error) {
	if !OwnerOrRenewer(t, p) {
		return t, ErrOwnerMismatch
	}
	if Expired(t, nowMs) {
		return t, ErrExpired
	}
	if periodMs < 0 {
		periodMs = s.RenewTimeMs
	}
	t.ExpiryMs = min(t.MaxMs, later(nowMs, periodMs))
	return t, nil
}

// Expire is t's expiry moved by p at nowMs to periodMs from now, never
// past its maximum. A negative period removes the token at once (remove),
// even an expired one; otherwise an expired token is refused.
func Expire(t znodes.DelegationToken, p znodes.TokenPrincipal, periodMs, nowMs int64) (next znodes.DelegationToken, remove bool, err error) {
	if !OwnerOrRenewer(t, p) {
		return t, false, ErrOwnerMismatch
	}
	if periodMs < 0 {
		return t, true, nil
	}
	if Expired(t, nowMs) {
		return t, false, ErrExpired
	}
	t.ExpiryMs = min(t.MaxMs, later(nowMs, periodMs))
	return t, false, nil
}

// Filter decides which tokens a describe shows, as Kafka's filterToken:
// owners, when set, keeps the tokens one of them owns, requested or renews;
// of those, the requester sees the ones it owns, requested or renews, and
// the others when it may describe the token (DESCRIBE on DelegationToken
// <id>) or the owner's tokens (DESCRIBE_TOKENS on User <owner>).
//
// Both questions are Kafka 3.9's TokenInformation.ownerOrRenewer, which
// (since KIP-373, Kafka 3.3) counts the token's requester too; renewing and
// expiring do not (DelegationTokenManagerZk.allowedToRenew, OwnerOrRenewer).
type Filter struct {
	Requester znodes.TokenPrincipal
	// Owners nil means every owner.
	Owners []znodes.TokenPrincipal
	// MayDescribeToken and MayDescribeOwner are the two authorization
	// checks; nil denies.
	MayDescribeToken func(id string) bool
	MayDescribeOwner func(owner znodes.TokenPrincipal) bool
}

// Shows reports whether the describe shows t.
func (f Filter) Shows(t znodes.DelegationToken) bool {
	if f.Owners != nil && !slices.ContainsFunc(f.Owners, func(o znodes.TokenPrincipal) bool { return involved(t, o) }) {
		return false
	}
	if involved(t, f.Requester) {
		return true
	}
	return f.MayDescribeToken != nil && f.MayDescribeToken(t.ID) ||
		f.MayDescribeOwner != nil && f.MayDescribeOwner(t.Owner)
}

// involved is Kafka 3.9's TokenInformation.ownerOrRenewer: p owns t,
// requested it, or may renew it.
func involved(t znodes.DelegationToken, p znodes.TokenPrincipal) bool {
	return p == t.Requester || OwnerOrRenewer(t, p)
}

// later is nowMs+periodMs, held at the largest long instead of wrapping: a
// client asking for Long.MAX_VALUE gets its token's maximum, where Kafka's
// sum wraps negative and expires the token instead.
func later(nowMs, periodMs int64) int64 {
	if periodMs > math.MaxInt64-nowMs {
		return math.MaxInt64
	}
	return nowMs + periodMs
}
