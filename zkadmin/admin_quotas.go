package zkadmin

import (
	"context"
	"errors"
	"fmt"
	"net"

	"github.com/kzadmin/kzadmin/znodes"
)

// DescribeClientQuotas lists the quotas of the entities f selects, as a
// ZooKeeper-mode broker answers DescribeClientQuotas: only entities with at
// least one quota, users before client ids, then both, then IPs. A filter
// Kafka refuses is an *AdminError (INVALID_REQUEST, or UNSUPPORTED_VERSION
// for a custom entity type); so is a quota value that is not a number
// (KindMalformed), since Kafka fails the whole request on one too.
func (a *Admin) DescribeClientQuotas(ctx context.Context, f QuotaFilter) ([]QuotaEntry, error) {
	p, err := planQuotaFilter(f)
	if err != nil {
		return nil, err
	}
	cands, err := a.quotaCandidates(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("describe client quotas: %w", err)
	}
	paths := make([]string, len(cands))
	for i, c := range cands {
		paths[i] = c.path
	}
	var out []QuotaEntry
	for i, r := range a.zk.GetMany(ctx, paths, 0) {
		c := cands[i]
		// Unmatched entities are skipped before they are decoded, so that
		// one malformed znode fails only the filters that select it.
		if errors.Is(r.Err, ErrNoNode) || !c.ip && (!p.matchesQuota(p.user, c.user) || !p.matchesQuota(p.client, c.client)) {
			continue
		}
		if r.Err != nil {
			return nil, fmt.Errorf("describe client quotas: %w", r.Err)
		}
		entityType, name, _ := znodes.ParseConfigEntityPath(c.path)
		cfg, err := znodes.DecodeEntityConfig(entityType, name, r.Data)
		if err != nil {
			return nil, malformed(c.path, "describe client quotas", err).withCode(CodeUnknownServerError)
		}
		values, err := quotaValues(c.path, c.ip, cfg.Config)
		if err != nil {
			return nil, err
		}
		if len(values) == 0 {
			continue
		}
		out = append(out, QuotaEntry{Entity: c.entity, Values: values})
	}
	sortQuotaEntries(out)
	return out, nil
}

// quotaCandidate is an entity a filter reads.
type quotaCandidate struct {
	entity       QuotaEntity
	user, client quotaName
	ip           bool
	path         string
}

// quotaCandidates lists the entities p reads (quotaReads), each with its
// config znode.
func (a *Admin) quotaCandidates(ctx context.Context, p quotaFilterPlan) ([]quotaCandidate, error) {
	r := p.reads()
	var out []quotaCandidate
	single := func(entityType, partType string, scope quotaScope) error {
		if !scope.read {
			return nil
		}
		names := []string{}
		if scope.only != nil {
			if *scope.only != "" { // an empty name matches nothing
				names = append(names, *scope.only)
			}
		} else {
			var err error
			if names, err = a.configChildren(ctx, znodes.ConfigEntityTypePath(entityType)); err != nil {
				return err
			}
		}
		for _, n := range names {
			part, qn := desanitizedPart(partType, n)
			c := quotaCandidate{entity: QuotaEntity{part}, path: znodes.ConfigEntityPath(entityType, n)}
			switch partType {
			case QuotaUser:
				c.user = qn
			case QuotaClientID:
				c.client = qn
			default:
				c.ip = true
			}
			out = append(out, c)
		}
		return nil
	}
	if err := single(znodes.EntityUsers, QuotaUser, r.users); err != nil {
		return nil, err
	}
	if err := single(znodes.EntityClients, QuotaClientID, r.clients); err != nil {
		return nil, err
	}
	both, err := a.userClientNames(ctx, r.userClients)
	if err != nil {
		return nil, err
	}
	for _, uc := range both {
		up, uq := desanitizedPart(QuotaUser, uc[0])
		cp, cq := desanitizedPart(QuotaClientID, uc[1])
		out = append(out, quotaCandidate{entity: QuotaEntity{up, cp}, user: uq, client: cq,
			path: znodes.ConfigEntityPath(znodes.EntityUsers, znodes.UserClientEntityName(uc[0], uc[1]))})
	}
	if err := single(znodes.EntityIPs, QuotaIP, r.ips); err != nil {
		return nil, err
	}
	return out, nil
}

// userClientNames lists the user and client id znode names of the
// user+client entities in scope.
func (a *Admin) userClientNames(ctx context.Context, scope quotaScope) ([][2]string, error) {
	if !scope.read {
		return nil, nil
	}
	if scope.only != nil {
		user, client, _ := znodes.ParseUserClientEntityName(*scope.only)
		if user == "" || client == "" {
			return nil, nil
		}
		return [][2]string{{user, client}}, nil
	}
	users, err := a.configChildren(ctx, znodes.ConfigEntityTypePath(znodes.EntityUsers))
	if err != nil {
		return nil, err
	}
	dirs := make([]string, len(users))
	for i, u := range users {
		dirs[i] = znodes.ConfigEntityPath(znodes.EntityUsers, u) + "/" + znodes.EntityClients
	}
	var out [][2]string
	for i, r := range a.zk.ChildrenMany(ctx, dirs, 0) {
		if errors.Is(r.Err, ErrNoNode) {
			continue
		}
		if r.Err != nil {
			return nil, r.Err
		}
		for _, c := range sortedCopy(r.Children) {
			out = append(out, [2]string{users[i], c})
		}
	}
	return out, nil
}

// configChildren lists a znode's children, sorted; none when it is absent.
func (a *Admin) configChildren(ctx context.Context, path string) ([]string, error) {
	kids, _, err := a.zk.Children(ctx, path)
	if errors.Is(err, ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return sortedCopy(kids), nil
}

// AlterClientQuotas applies changes, in order, to one entity's quotas, as
// a ZooKeeper-mode broker does for an entry of AlterClientQuotas: the
// entity and the changes are checked, the complete new config is
// validated, and then the config znode and its change notification are
// written in one multi (nothing with dryRun). An entity left with no
// quotas and no children loses its znode, as in Kafka (and so do a user's
// "clients" znode and the user's own znode when nothing else holds them).
// Unlike Kafka, a config znode that does not decode is refused rather than
// overwritten, and a concurrent writer's change is re-read rather than
// lost.
func (a *Admin) AlterClientQuotas(ctx context.Context, entity QuotaEntity, changes []QuotaChange, dryRun bool) error {
	resource := entity.String()
	l, err := locateQuotaEntity(entity)
	if err != nil {
		return err
	}
	if l.ip {
		if err := checkIPEntity(ctx, l, resource); err != nil {
			return err
		}
	}
	plan := func(ctx context.Context, _ *Cluster) ([]Op, error) {
		before, version, err := a.quotaConfig(ctx, l.entityType, l.name, resource)
		if err != nil {
			return nil, err
		}
		after, err := applyQuotaChanges(l, resource, before, changes)
		if err != nil {
			return nil, err
		}
		if err := validateQuotaConfig(l, resource, after); err != nil {
			return nil, err
		}
		return a.entityConfigOps(ctx, l, after, version)
	}
	_, err = a.writeLoop(ctx, "alter client quotas of "+resource, ReadOptions{noCluster: true}, dryRun, plan)
	return err
}

// quotaConfig reads an entity's config and its znode version (-1 when
// absent), refusing one that does not decode.
func (a *Admin) quotaConfig(ctx context.Context, entityType, name, resource string) (map[string]string, int32, error) {
	cfg, version, err := a.ReadEntityConfig(ctx, entityType, name)
	var de *znodes.DecodeError
	if errors.As(err, &de) {
		return nil, 0, malformed(resource, "alter "+resource, err)
	}
	return cfg, version, err
}

// entityConfigOps writes a quota entity's (or a user's) complete config
// and its change notification. An empty config is written only when the
// znode has children; otherwise the znode is removed, with the parents
// Kafka's AdminZkClient removes with it (tryCleanQuotaNodes), or, when it
// never existed, nothing but the notification is written.
func (a *Admin) entityConfigOps(ctx context.Context, l quotaLocation, cfg map[string]string, version int32) ([]Op, error) {
	var ops []Op
	var err error
	if len(cfg) == 0 && version >= 0 {
		ops, err = a.quotaCleanupOps(ctx, l, version)
	} else if len(cfg) > 0 {
		var data []byte
		if data, err = (znodes.EntityConfig{Config: cfg}).Encode(); err == nil {
			ops, err = a.putOp(ctx, l.path(), data, version)
		}
	}
	if err != nil {
		return nil, err
	}
	note, err := a.notificationOps(ctx, l.entityType, l.name)
	if err != nil {
		return nil, err
	}
	return append(ops, note...), nil
}

// quotaCleanupOps removes an entity znode whose config became empty, or
// empties it when it has children. A user+client entity also takes the
// user's "clients" znode when it was its only client, and then the user
// znode when that held nothing else and no config. Every delete checks
// the version read, and fails on a child created meanwhile, so a
// concurrent writer's znodes are never removed (writeLoop re-plans).
func (a *Admin) quotaCleanupOps(ctx context.Context, l quotaLocation, version int32) ([]Op, error) {
	kids, _, err := a.zk.Children(ctx, l.path())
	if err != nil {
		return nil, err
	}
	if len(kids) > 0 {
		data, err := znodes.EntityConfig{}.Encode()
		if err != nil {
			return nil, err
		}
		return []Op{SetOp(l.path(), data, version)}, nil
	}
	ops := []Op{DeleteOp(l.path(), version)}
	if !l.userClient {
		return ops, nil
	}
	user, client, _ := znodes.ParseUserClientEntityName(l.name)
	clientsDir := znodes.ConfigEntityPath(znodes.EntityUsers, user) + "/" + znodes.EntityClients
	clients, st, err := a.zk.Children(ctx, clientsDir)
	if err != nil || len(clients) != 1 || clients[0] != client {
		return ops, ignoreNoNode(err)
	}
	ops = append(ops, DeleteOp(clientsDir, st.Version))
	userPath := znodes.ConfigEntityPath(znodes.EntityUsers, user)
	userKids, _, err := a.zk.Children(ctx, userPath)
	if err != nil || len(userKids) != 1 || userKids[0] != znodes.EntityClients {
		return ops, ignoreNoNode(err)
	}
	userCfg, userVersion, err := a.ReadEntityConfig(ctx, znodes.EntityUsers, user)
	if err != nil || len(userCfg) > 0 || userVersion < 0 {
		var de *znodes.DecodeError
		if errors.As(err, &de) {
			err = nil // not ours to remove
		}
		return ops, ignoreNoNode(err)
	}
	return append(ops, DeleteOp(userPath, userVersion)), nil
}

// ignoreNoNode drops ErrNoNode: a parent already gone needs no removal.
func ignoreNoNode(err error) error {
	if errors.Is(err, ErrNoNode) {
		return nil
	}
	return err
}

// checkIPEntity accepts <default>, an IP address, or a host name that
// resolves, as Kafka's DynamicConfig.Ip.isValidIpEntity does. Like Kafka,
// it checks the sanitized name, the one brokers read back from the znode:
// an IPv6 address, whose colons sanitizing encodes, is refused, where
// accepting it would leave brokers a name they cannot resolve.
func checkIPEntity(ctx context.Context, l quotaLocation, resource string) error {
	if l.name == znodes.DefaultEntityName || net.ParseIP(l.name) != nil {
		return nil
	}
	if addrs, err := net.DefaultResolver.LookupHost(ctx, l.name); err == nil && len(addrs) > 0 {
		return nil
	}
	return adminErr(KindInvalidRequest, resource, "%s is not a valid IP or resolvable host.", l.name)
}
