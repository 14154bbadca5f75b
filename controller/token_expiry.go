package controller

import (
	"context"
	"errors"
	"time"

	"github.com/kzadmin/kzadmin/security/tokens"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// Delegation-token expiry: Kafka's active controller, when tokens are on
// (delegation.token.secret.key), removes the expired tokens from
// /delegation_token/tokens every delegation.token.expiry.check.interval.ms,
// starting at failover (reference controller.md §1.4 step 14). Brokers
// keep accepting a token until it is removed, so with kzadmind as the
// controller the sweep is kzadmind's duty.
//
// It runs beside the event loop, not on it: it touches nothing of the
// controller's state, only znodes no other controller duty reads. Each
// removal is fenced by the controller epoch, so a deposed controller
// removes nothing, and checks the version read, so a token renewed
// meanwhile stays. A token znode that does not decode is never removed.

// startTokenExpiry starts the sweep for leadership ls when tokens are on.
// When they are off here but the cluster holds tokens (its brokers have
// the secret), it says so once: kzadmind then neither serves the token
// APIs nor removes expired tokens, which brokers keep accepting.
func (c *Controller) startTokenExpiry(ls *leaderState) {
	if c.conf.DelegationTokenSecret() == "" {
		ls.wg.Go(func() { c.warnTokensWithoutSecret(ls.ctx) })
		return
	}
	every := c.conf.DelegationTokenExpiryCheckInterval
	ls.wg.Go(func() {
		t := time.NewTimer(0)
		defer t.Stop()
		for {
			select {
			case <-ls.ctx.Done():
				return
			case <-t.C:
			}
			if errors.Is(c.expireTokens(ls.ctx, ls.zkVersion, time.Now()), zkadmin.ErrControllerMoved) {
				return
			}
			t.Reset(every)
		}
	})
}

// expireTokens removes the tokens expired at now, each with its change
// notification, behind the epoch fence. It returns ErrControllerMoved
// once the fence fails; other failures are logged and left to the next
// sweep.
func (c *Controller) expireTokens(ctx context.Context, epochZkVersion int32, now time.Time) error {
	stored, undecodable, err := zkadmin.ReadDelegationTokens(ctx, c.zk)
	if err != nil {
		c.log.Warn().Err(err).Msg("delegation token expiry: reading the tokens failed; trying again at the next check")
		return err
	}
	for _, e := range undecodable {
		c.log.Warn().Err(e).Msg("delegation token expiry: a token znode does not decode; leaving it")
	}
	for _, st := range stored {
		t := st.Token
		if !tokens.Expired(t, now.UnixMilli()) {
			continue
		}
		_, err := c.zk.FencedMulti(ctx, epochZkVersion, zkadmin.TokenRemovalOps(t.ID, st.Version)...)
		switch {
		case errors.Is(err, zkadmin.ErrControllerMoved):
			return err
		case err != nil:
			c.log.Warn().Err(err).Str("token_id", t.ID).Msg("delegation token expiry: removal failed; trying again at the next check")
			continue
		}
		c.log.Info().Str("token_id", t.ID).Str("owner", t.Owner.String()).Int64("expiry_ms", t.ExpiryMs).
			Int64("max_ms", t.MaxMs).Msg("removed an expired delegation token")
	}
	return nil
}

// warnTokensWithoutSecret logs a warning when the cluster holds delegation
// tokens while this controller has no delegation.token.secret.key.
func (c *Controller) warnTokensWithoutSecret(ctx context.Context) {
	ids, _, err := c.zk.Children(ctx, znodes.DelegationTokensPath)
	if err != nil || len(ids) == 0 {
		return // no tokens (or no way to tell): nothing to say
	}
	c.log.Warn().Int("tokens", len(ids)).Msg("the cluster holds delegation tokens but delegation.token.secret.key is not set: " +
		"kzadmind answers the token APIs DELEGATION_TOKEN_AUTH_DISABLED and, as the controller, cannot remove expired " +
		"tokens, which brokers keep accepting; set the brokers' secret here too")
}
