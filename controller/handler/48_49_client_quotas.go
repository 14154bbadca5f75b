package handler

// DescribeClientQuotas (48) and AlterClientQuotas (49), v0-1, answered by
// every kzadmind, active or standby, as every ZooKeeper-mode broker
// answers them: brokers list kzadmind in Metadata, and the Java
// AdminClient sends both to any listed node, so kafka-configs
// --bootstrap-server --entity-type users|clients|ips would otherwise fail
// whenever it picked kzadmind.
//
// Behaviour, in Kafka's order:
//   - DESCRIBE_CONFIGS on the cluster to describe, ALTER_CONFIGS to alter,
//     else CLUSTER_AUTHORIZATION_FAILED (top-level for describe, on every
//     entry for alter).
//   - Then the Admin (zkadmin: Kafka's znodes under /config/users,
//     /config/clients and /config/ips, with their change notifications).
//
// Deliberate differences, all in what Kafka answers with an internal
// error: an unknown match type, a SCRAM key given as a quota, and a quota
// znode whose value is not a number get a message saying so; alter
// answers one entry per request entry, in request order (Kafka keeps one
// per distinct entity, in hash order); describe lists users, client ids,
// both, then IPs, each sorted by name (Kafka's order is a hash map's).

import (
	"context"
	"errors"
	"maps"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/zkadmin"
)

// QuotaAdmin reads and writes client quotas; *zkadmin.Admin implements it.
// Without one (an Admin that lacks these methods), the quota APIs are not
// served.
type QuotaAdmin interface {
	DescribeClientQuotas(ctx context.Context, f zkadmin.QuotaFilter) ([]zkadmin.QuotaEntry, error)
	AlterClientQuotas(ctx context.Context, entity zkadmin.QuotaEntity, changes []zkadmin.QuotaChange, dryRun bool) error
}

func (h *Handlers) describeClientQuotas(ctx context.Context, req *wire.Request, r *kmsg.DescribeClientQuotasRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.DescribeClientQuotasResponse)
	if !h.allows(ctx, req, OpDescribeConfigs, ClusterResource()) {
		resp.ErrorCode = kerr.ClusterAuthorizationFailed.Code
		return resp
	}
	resp.Entries = []kmsg.DescribeClientQuotasResponseEntry{}
	f := zkadmin.QuotaFilter{Strict: r.Strict}
	for _, c := range r.Components {
		fc := zkadmin.QuotaFilterComponent{EntityType: c.EntityType, Match: zkadmin.QuotaMatch(c.MatchType)}
		if c.Match != nil {
			fc.Name = *c.Match
		}
		f.Components = append(f.Components, fc)
	}
	entries, err := h.quotas.DescribeClientQuotas(ctx, f)
	if err != nil {
		e := h.quotaError(err)
		resp.ErrorCode, resp.ErrorMessage, resp.Entries = e.code, e.msg, nil
		return resp
	}
	resp.ErrorMessage = strp("") // Kafka's default, never set on success
	for _, en := range entries {
		out := kmsg.NewDescribeClientQuotasResponseEntry()
		for _, p := range en.Entity {
			ent := kmsg.NewDescribeClientQuotasResponseEntryEntity()
			ent.Type = p.Type
			if !p.Default {
				ent.Name = strp(p.Name)
			}
			out.Entity = append(out.Entity, ent)
		}
		for _, k := range slices.Sorted(maps.Keys(en.Values)) {
			v := kmsg.NewDescribeClientQuotasResponseEntryValue()
			v.Key, v.Value = k, en.Values[k]
			out.Values = append(out.Values, v)
		}
		resp.Entries = append(resp.Entries, out)
	}
	return resp
}

func (h *Handlers) alterClientQuotas(ctx context.Context, req *wire.Request, r *kmsg.AlterClientQuotasRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.AlterClientQuotasResponse)
	resp.Entries = make([]kmsg.AlterClientQuotasResponseEntry, len(r.Entries))
	if !h.allows(ctx, req, OpAlterConfigs, ClusterResource()) {
		e := withDefault(kerr.ClusterAuthorizationFailed.Code)
		for i, en := range r.Entries {
			out := &resp.Entries[i]
			*out = kmsg.NewAlterClientQuotasResponseEntry()
			out.ErrorCode, out.ErrorMessage = e.code, e.msg
			for _, p := range en.Entity {
				ent := kmsg.NewAlterClientQuotasResponseEntryEntity()
				ent.Type, ent.Name = p.Type, p.Name
				out.Entity = append(out.Entity, ent)
			}
		}
		return resp
	}
	for i, en := range r.Entries {
		entity := quotaEntityOf(en.Entity)
		changes := make([]zkadmin.QuotaChange, len(en.Ops))
		for k, op := range en.Ops {
			changes[k] = zkadmin.QuotaChange{Key: op.Key, Value: op.Value, Remove: op.Remove}
		}
		e := h.quotaError(h.quotas.AlterClientQuotas(ctx, entity, changes, r.ValidateOnly))
		out := &resp.Entries[i]
		*out = kmsg.NewAlterClientQuotasResponseEntry()
		out.ErrorCode, out.ErrorMessage = e.code, e.msg
		for _, p := range entity {
			ent := kmsg.NewAlterClientQuotasResponseEntryEntity()
			ent.Type = p.Type
			if !p.Default {
				ent.Name = strp(p.Name)
			}
			out.Entity = append(out.Entity, ent)
		}
	}
	return resp
}

// quotaEntityOf is the entity of a request entry as Kafka reads it into a
// hash map: a type given twice keeps its last name, and the parts come
// out in that map's order, which is the order Kafka's answer lists them
// in: with two or three parts the map has four buckets, and the hashes
// of "client-id", "user" and "ip" fall in buckets 0, 1 and 3. Other types
// follow as given (such an entity is refused anyway).
func quotaEntityOf(parts []kmsg.AlterClientQuotasRequestEntryEntity) zkadmin.QuotaEntity {
	rank := map[string]int{zkadmin.QuotaClientID: 0, zkadmin.QuotaUser: 1, zkadmin.QuotaIP: 2}
	last := map[string]int{}
	for i, p := range parts {
		last[p.Type] = i
	}
	var known, other zkadmin.QuotaEntity
	slots := make([]*zkadmin.QuotaEntityPart, len(rank))
	for i, p := range parts {
		if last[p.Type] != i {
			continue
		}
		qp := zkadmin.QuotaEntityPart{Type: p.Type, Default: p.Name == nil}
		if p.Name != nil {
			qp.Name = *p.Name
		}
		if r, ok := rank[p.Type]; ok {
			slots[r] = &qp
		} else {
			other = append(other, qp)
		}
	}
	for _, s := range slots {
		if s != nil {
			known = append(known, *s)
		}
	}
	return append(known, other...)
}

// quotaError is the answer for a quota Admin error: a malformed znode
// answers UNKNOWN_SERVER_ERROR, as Kafka does, but with the message
// naming the znode, which is no secret and the only way an operator
// learns which one to fix.
func (h *Handlers) quotaError(err error) apiError {
	var ae *zkadmin.AdminError
	if errors.As(err, &ae) && ae.Kind == zkadmin.KindMalformed {
		h.log.Warn().Err(err).Msg("client quotas")
		return apiError{code: kerr.UnknownServerError.Code, msg: strp(ae.Message)}
	}
	return h.errorOf(err)
}
