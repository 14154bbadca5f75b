package zkadmin

import (
	"context"
	"errors"
	"fmt"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/mutationquota"
	"github.com/kzadmin/kzadmin/znodes"
)

// controllerMutationRateKey is KIP-599's quota: partitions created or
// deleted per second.
const controllerMutationRateKey = "controller_mutation_rate"

// ControllerMutationRates reads the controller_mutation_rate quotas of the
// entities that may cover a user (the principal's name) and a client id,
// for mutationquota.Resolve. The znodes are read with watches and answered
// from them while they hold (WatchedReader), so that a request after the
// first of a user and client id costs no ZooKeeper request.
//
// A quota znode that does not decode, or whose rate is not a number, is
// left out, as Kafka's broker keeps no quota it cannot read; the error
// names it.
func (a *Admin) ControllerMutationRates(ctx context.Context, user, clientID string) (mutationquota.Rates, error) {
	w, err := a.zk.Watched(ctx)
	if err != nil {
		return mutationquota.Rates{}, fmt.Errorf("read controller mutation quotas: %w", err)
	}
	u, c, def := znodes.SanitizeEntityName(user), znodes.SanitizeEntityName(clientID), znodes.DefaultEntityName
	type source struct {
		entityType, name string
		into             **float64
	}
	var r mutationquota.Rates
	sources := []source{
		{znodes.EntityUsers, znodes.UserClientEntityName(u, c), &r.UserClient},
		{znodes.EntityUsers, znodes.UserClientEntityName(u, def), &r.UserDefaultClient},
		{znodes.EntityUsers, u, &r.User},
		{znodes.EntityUsers, znodes.UserClientEntityName(def, c), &r.DefaultUserClient},
		{znodes.EntityUsers, znodes.UserClientEntityName(def, def), &r.DefaultUserDefaultClient},
		{znodes.EntityUsers, def, &r.DefaultUser},
		{znodes.EntityClients, c, &r.Client},
		{znodes.EntityClients, def, &r.DefaultClient},
	}
	if clientID == "" {
		sources = []source{sources[2], sources[5]} // no client id: the user's own levels (Resolve)
	}
	paths := make([]string, len(sources))
	for i, s := range sources {
		paths[i] = znodes.ConfigEntityPath(s.entityType, s.name)
	}
	var errs []error
	for i, res := range w.GetOrExistsMany(ctx, paths, a.opts.MaxInFlight) {
		switch {
		case errors.Is(res.Err, ErrNoNode):
			continue
		case res.Err != nil:
			return mutationquota.Rates{}, fmt.Errorf("read controller mutation quotas: %w", res.Err)
		}
		cfg, err := znodes.DecodeEntityConfig(sources[i].entityType, sources[i].name, res.Data)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		v, ok := cfg.Config[controllerMutationRateKey]
		if !ok {
			continue
		}
		f, ok := config.ParseJavaDouble(v)
		if !ok {
			errs = append(errs, fmt.Errorf("%s: %s=%q is not a number", paths[i], controllerMutationRateKey, v))
			continue
		}
		*sources[i].into = &f
	}
	return r, errors.Join(errs...)
}
