package zkbackend

import (
	"context"
	"errors"
	"sort"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// quotaEntityConfigs reads /config/<type>/<sanitized name> of the named
// users, client ids or IPs, or of every one with a znode when none are
// named. Names are shown desanitized, as kafka-configs shows them; SCRAM
// values are shown as stored (salted keys, never passwords).
func (b *Backend) quotaEntityConfigs(ctx context.Context, entityType string, names []string) ([]backend.EntityConfig, error) {
	if len(names) == 0 {
		kids, _, err := b.zk.Children(ctx, znodes.ConfigEntityTypePath(entityType))
		if err != nil && !errors.Is(err, zkadmin.ErrNoNode) {
			return nil, err
		}
		for _, k := range kids {
			n, err := znodes.DesanitizeEntityName(k)
			if err != nil || k == znodes.DefaultEntityName {
				n = k
			}
			names = append(names, n)
		}
		sort.Strings(names)
	}
	out := make([]backend.EntityConfig, 0, len(names))
	for _, n := range names {
		zn := n
		if n != znodes.DefaultEntityName {
			zn = znodes.SanitizeEntityName(n)
		}
		cfg, _, err := b.admin.ReadEntityConfig(ctx, entityType, zn)
		var de *znodes.DecodeError
		if err != nil && !errors.As(err, &de) {
			return nil, err
		}
		out = append(out, backend.EntityConfig{EntityType: entityType, Name: n, Overrides: cfg, Err: err})
	}
	return out, nil
}

// DescribeUserClientConfigs reads /config/users/<user>/clients/<client id>.
func (b *Backend) DescribeUserClientConfigs(ctx context.Context, user, client string) (backend.EntityConfig, error) {
	zname := func(n string) string {
		if n == znodes.DefaultEntityName {
			return n
		}
		return znodes.SanitizeEntityName(n)
	}
	cfg, _, err := b.admin.ReadEntityConfig(ctx, znodes.EntityUsers, znodes.UserClientEntityName(zname(user), zname(client)))
	var de *znodes.DecodeError
	if err != nil && !errors.As(err, &de) {
		return backend.EntityConfig{}, err
	}
	return backend.EntityConfig{EntityType: znodes.EntityUsers, Name: user, Client: client, Overrides: cfg, Err: err}, nil
}
