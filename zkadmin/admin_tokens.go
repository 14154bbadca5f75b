package zkadmin

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/kzadmin/kzadmin/security/tokens"
	"github.com/kzadmin/kzadmin/znodes"
)

// Delegation tokens, kept where Kafka's ZooKeeper-mode brokers keep them:
// /delegation_token/tokens/<id>, each write followed, in the same multi,
// by a notification /delegation_token/token_changes/token_change_<seq>
// holding the id, from which every broker refreshes its token cache. The
// rules (who may renew, lifetimes) are security/tokens'; this file reads
// and writes.

// StoredToken is a token as read, with the version of its znode.
type StoredToken struct {
	Token   znodes.DelegationToken
	Version int32
}

// TokenDecision decides what becomes of a token found by its HMAC: the
// token to write back, or remove; an error refuses (tokens.ErrExpired,
// ...) and writes nothing.
type TokenDecision func(t znodes.DelegationToken) (next znodes.DelegationToken, remove bool, err error)

// CreateDelegationToken stores a new token with its notification.
func (a *Admin) CreateDelegationToken(ctx context.Context, t znodes.DelegationToken) error {
	data, err := t.Encode()
	if err != nil {
		return fmt.Errorf("create delegation token %s: %w", t.ID, err)
	}
	path := znodes.DelegationTokenInfoPath(t.ID)
	plan := func(ctx context.Context, _ *Cluster) ([]Op, error) {
		ops, err := a.parentOps(ctx, path)
		if err != nil {
			return nil, err
		}
		note, err := a.tokenNotificationOps(ctx, t.ID)
		if err != nil {
			return nil, err
		}
		return append(append(ops, CreateOp(path, data, Persistent)), note...), nil
	}
	_, err = a.writeLoop(ctx, "create delegation token "+t.ID, ReadOptions{noCluster: true}, false, plan)
	return err
}

// ChangeDelegationToken finds the token whose HMAC under secret is mac,
// asks decide what becomes of it, and writes that (version-checked, with
// its notification), deciding again on a fresh read when a concurrent
// writer changed it first. It returns the token as decided, and whether it
// was removed. No such token is tokens.ErrNotFound; a token znode that
// does not decode is a KindMalformed error naming it, and is left as is.
func (a *Admin) ChangeDelegationToken(ctx context.Context, secret, mac []byte, decide TokenDecision) (znodes.DelegationToken, bool, error) {
	var decided znodes.DelegationToken
	var removed bool
	plan := func(ctx context.Context, _ *Cluster) ([]Op, error) {
		ids, _, err := a.zk.Children(ctx, znodes.DelegationTokensPath)
		if errors.Is(err, ErrNoNode) {
			return nil, tokens.ErrNotFound
		}
		if err != nil {
			return nil, fmt.Errorf("list delegation tokens: %w", err)
		}
		i := slices.IndexFunc(ids, func(id string) bool { return tokens.Matches(secret, id, mac) })
		if i < 0 {
			return nil, tokens.ErrNotFound
		}
		id := ids[i]
		path := znodes.DelegationTokenInfoPath(id)
		data, stat, err := a.zk.Get(ctx, path)
		if errors.Is(err, ErrNoNode) {
			return nil, tokens.ErrNotFound
		}
		if err != nil {
			return nil, fmt.Errorf("read delegation token %s: %w", id, err)
		}
		t, err := znodes.DecodeDelegationToken(id, data)
		if err != nil {
			return nil, malformed("delegation token "+id, "change delegation token "+id, err)
		}
		if decided, removed, err = decide(t); err != nil {
			return nil, err
		}
		var ops []Op
		if removed {
			ops = []Op{DeleteOp(path, stat.Version)}
		} else {
			if decided.ID != id {
				return nil, fmt.Errorf("change delegation token %s: the decision renamed it %q", id, decided.ID)
			}
			next, err := decided.Encode()
			if err != nil {
				return nil, err
			}
			ops = []Op{SetOp(path, next, stat.Version)}
		}
		note, err := a.tokenNotificationOps(ctx, id)
		if err != nil {
			return nil, err
		}
		return append(ops, note...), nil
	}
	_, err := a.writeLoop(ctx, "change delegation token", ReadOptions{noCluster: true}, false, plan)
	return decided, removed, err
}

// DelegationTokens reads every token, sorted by id. A token whose znode
// does not decode is left out and logged, as Kafka's brokers leave it out
// of their caches; one deleted while being read is left out too.
func (a *Admin) DelegationTokens(ctx context.Context) ([]StoredToken, error) {
	stored, bad, err := ReadDelegationTokens(ctx, a.zk)
	for _, e := range bad {
		a.opts.Logger.Warn().Err(e).Msg("a delegation token znode does not decode; leaving it out")
	}
	return stored, err
}

// ReadDelegationTokens reads every token under /delegation_token/tokens,
// sorted by id, and the decode errors of those it could not read (each
// naming its znode). No tokens znode means no tokens.
func ReadDelegationTokens(ctx context.Context, zk *Client) (stored []StoredToken, undecodable []error, err error) {
	ids, _, err := zk.Children(ctx, znodes.DelegationTokensPath)
	if errors.Is(err, ErrNoNode) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("list delegation tokens: %w", err)
	}
	slices.Sort(ids)
	paths := make([]string, len(ids))
	for i, id := range ids {
		paths[i] = znodes.DelegationTokenInfoPath(id)
	}
	for i, r := range zk.GetMany(ctx, paths, 0) {
		switch {
		case errors.Is(r.Err, ErrNoNode):
			continue
		case r.Err != nil:
			return nil, nil, fmt.Errorf("read delegation token %s: %w", ids[i], r.Err)
		}
		t, err := znodes.DecodeDelegationToken(ids[i], r.Data)
		if err != nil {
			undecodable = append(undecodable, err)
			continue
		}
		stored = append(stored, StoredToken{Token: t, Version: r.Stat.Version})
	}
	return stored, undecodable, nil
}

// TokenRemovalOps removes a token read at version, with its notification,
// as Kafka's removeToken does. The notification parent is assumed: a
// token exists, so its creator made it.
func TokenRemovalOps(id string, version int32) []Op {
	return []Op{
		DeleteOp(znodes.DelegationTokenInfoPath(id), version),
		CreateOp(znodes.TokenChangeSequencePath, []byte(id), PersistentSequential),
	}
}

// tokenNotificationOps creates the notification of a change to token id,
// with /delegation_token/token_changes when it is missing.
func (a *Admin) tokenNotificationOps(ctx context.Context, id string) ([]Op, error) {
	ops, err := a.parentOps(ctx, znodes.TokenChangeSequencePath)
	if err != nil {
		return nil, err
	}
	return append(ops, CreateOp(znodes.TokenChangeSequencePath, []byte(id), PersistentSequential)), nil
}
