package handler

import (
	"context"
	"errors"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/mutationquota"
)

// MutationRates is an Admin that reads the controller_mutation_rate
// quotas covering a user and client id (*zkadmin.Admin does); with it the
// handlers enforce KIP-599's controller mutation quota on CreateTopics,
// CreatePartitions and DeleteTopics, as a ZooKeeper-mode broker does.
type MutationRates interface {
	ControllerMutationRates(ctx context.Context, user, clientID string) (mutationquota.Rates, error)
}

// Versions from which the quota is strict (THROTTLING_QUOTA_EXCEEDED);
// older versions are only told the throttle time.
const (
	createTopicsStrictFrom     = 6
	deleteTopicsStrictFrom     = 5
	createPartitionsStrictFrom = 3
)

// mutationQuota is the request's controller mutation quota; nil, which
// admits everything, when no quota covers the requester. Quotas that
// cannot be read admit everything too (logged): a ZooKeeper failure then
// fails the mutation itself.
func (h *Handlers) mutationQuota(ctx context.Context, req *wire.Request, version, strictFrom int16) *mutationquota.Quota {
	if h.rates == nil || h.mutations == nil {
		return nil
	}
	user := req.Principal.Name
	rates, err := h.rates.ControllerMutationRates(ctx, user, req.ClientID)
	if err != nil {
		h.log.Warn().Err(err).Str("user", user).Str("client_id", req.ClientID).
			Msg("controller mutation quotas partly unreadable; using those read")
	}
	limit, ok := mutationquota.Resolve(user, req.ClientID, rates)
	return h.mutations.For(limit, ok, version >= strictFrom)
}

// admit is q's Record for zkadmin's Admit hooks, nil without a quota.
func admit(q *mutationquota.Quota) func(int) error {
	if q == nil {
		return nil
	}
	return q.Record
}

// throttleOf is the response's throttle time: the quota's, when it was
// exceeded.
func throttleOf(q *mutationquota.Quota) int32 { return q.ThrottleMillis() }

// throttledError answers a mutation the quota refused, as Kafka does.
func throttledError(err error) (apiError, bool) {
	var te *mutationquota.ThrottledError
	if !errors.As(err, &te) {
		return apiError{}, false
	}
	return newAPIError(kerr.ThrottlingQuotaExceeded.Code, te.Error()), true
}
