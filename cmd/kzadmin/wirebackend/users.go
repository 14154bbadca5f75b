package wirebackend

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/security/scram"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// Users, client ids and IPs over the wire, as kafka-configs
// --bootstrap-server handles them: quotas through DescribeClientQuotas and
// AlterClientQuotas, a user's SCRAM credentials through
// DescribeUserScramCredentials and AlterUserScramCredentials. A credential
// shows as "iterations=<n>": the API never returns the stored keys, which
// --zookeeper shows.

// quotaTypes maps the CLI's entity types to the quota APIs' names.
var quotaTypes = map[string]string{znodes.EntityUsers: zkadmin.QuotaUser, znodes.EntityClients: zkadmin.QuotaClientID,
	znodes.EntityIPs: zkadmin.QuotaIP}

// describeQuotaEntityConfigs returns the quotas of the named client ids or
// IPs; no names means every one with a quota.
func (b *Backend) describeQuotaEntityConfigs(ctx context.Context, entityType string, names []string) ([]backend.EntityConfig, error) {
	quotas, err := b.entityQuotas(ctx, quotaTypes[entityType], names)
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		names = slices.Sorted(maps.Keys(quotas))
	}
	out := make([]backend.EntityConfig, 0, len(names))
	for _, n := range names {
		out = append(out, backend.EntityConfig{EntityType: entityType, Name: n, Overrides: quotas[n]})
	}
	return out, nil
}

// describeUserConfigs returns each named user's quotas and credentials;
// no names means every user with either.
func (b *Backend) describeUserConfigs(ctx context.Context, names []string) ([]backend.EntityConfig, error) {
	quotas, err := b.entityQuotas(ctx, zkadmin.QuotaUser, names)
	if err != nil {
		return nil, err
	}
	creds, err := b.userCredentials(ctx, names)
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		names = slices.Sorted(maps.Keys(quotas))
		for u := range creds {
			if _, ok := quotas[u]; !ok {
				names = append(names, u)
			}
		}
		slices.Sort(names)
	}
	out := make([]backend.EntityConfig, 0, len(names))
	for _, n := range names {
		var overrides map[string]string
		for _, m := range []map[string]string{quotas[n], creds[n]} {
			for k, v := range m {
				if overrides == nil {
					overrides = map[string]string{}
				}
				overrides[k] = v
			}
		}
		out = append(out, backend.EntityConfig{EntityType: znodes.EntityUsers, Name: n, Overrides: overrides})
	}
	return out, nil
}

// entityQuotas describes the quotas of the named entities of one quota
// type alone (a user without a client id, say), or of every one of the
// type; <default> is the type's default entity.
func (b *Backend) entityQuotas(ctx context.Context, quotaType string, names []string) (map[string]map[string]string, error) {
	var filters []kmsg.DescribeClientQuotasRequestComponent
	if len(names) == 0 {
		c := kmsg.NewDescribeClientQuotasRequestComponent()
		c.EntityType, c.MatchType = quotaType, kmsg.QuotasMatchTypeAny
		filters = append(filters, c)
	}
	for _, n := range names {
		filters = append(filters, quotaMatch(quotaType, n))
	}
	out := map[string]map[string]string{}
	for _, c := range filters {
		req := kmsg.NewPtrDescribeClientQuotasRequest()
		req.Strict, req.Components = true, []kmsg.DescribeClientQuotasRequestComponent{c}
		resp, err := responseAs[*kmsg.DescribeClientQuotasResponse](b.controllerRequest(ctx, req))
		if err != nil {
			return nil, err
		}
		if err := codeError(quotaType, resp.ErrorCode, resp.ErrorMessage); err != nil {
			return nil, err
		}
		for _, e := range resp.Entries {
			if len(e.Entity) != 1 || e.Entity[0].Type != quotaType {
				continue
			}
			name := backend.DefaultEntity
			if e.Entity[0].Name != nil {
				name = *e.Entity[0].Name
			}
			for _, v := range e.Values {
				if out[name] == nil {
					out[name] = map[string]string{}
				}
				out[name][v.Key] = quotaText(v.Key, v.Value)
			}
		}
	}
	return out, nil
}

// quotaText prints a quota as kafka-configs --zookeeper would have stored
// it: an integer for a LONG or INT quota, Java's form for a DOUBLE.
func quotaText(key string, v float64) string {
	if typ, _ := zkadmin.QuotaKeyType(key); typ == "LONG" || typ == "INT" {
		if v >= math.MaxInt64 { // the double nearest Long.MAX_VALUE, Kafka's "no limit"
			return strconv.FormatInt(math.MaxInt64, 10)
		}
		return strconv.FormatInt(int64(v), 10)
	}
	return config.FormatJavaDouble(v)
}

// userCredentials describes the named users' SCRAM credentials (none for
// <default>, which cannot have any), or every user's.
func (b *Backend) userCredentials(ctx context.Context, names []string) (map[string]map[string]string, error) {
	req := kmsg.NewPtrDescribeUserSCRAMCredentialsRequest()
	for _, n := range names {
		if n != backend.DefaultEntity {
			u := kmsg.NewDescribeUserSCRAMCredentialsRequestUser()
			u.Name = n
			req.Users = append(req.Users, u)
		}
	}
	if len(names) > 0 && len(req.Users) == 0 {
		return nil, nil
	}
	resp, err := responseAs[*kmsg.DescribeUserSCRAMCredentialsResponse](b.controllerRequest(ctx, req))
	if err != nil {
		return nil, err
	}
	if err := codeError("users", resp.ErrorCode, resp.ErrorMessage); err != nil {
		return nil, err
	}
	out := map[string]map[string]string{}
	for _, r := range resp.Results {
		if r.ErrorCode == kerr.ResourceNotFound.Code {
			continue // no credentials
		}
		if err := codeError("user "+r.User, r.ErrorCode, r.ErrorMessage); err != nil {
			return nil, err
		}
		for _, c := range r.CredentialInfos {
			if out[r.User] == nil {
				out[r.User] = map[string]string{}
			}
			out[r.User][scram.Mechanism(c.Mechanism).Name()] = "iterations=" + strconv.Itoa(int(c.Iterations))
		}
	}
	return out, nil
}

// alterQuotaEntityConfigs changes a client id's or an IP's quotas, as
// alterUserConfigs changes a user's.
func (b *Backend) alterQuotaEntityConfigs(ctx context.Context, req backend.AlterConfigsRequest) (*backend.AlterConfigsResult, error) {
	describe := func(ctx context.Context) (map[string]string, error) {
		got, err := b.describeQuotaEntityConfigs(ctx, req.EntityType, []string{req.Name})
		if err != nil {
			return nil, err
		}
		return got[0].Overrides, nil
	}
	return b.alterQuotasOrCredentials(ctx, req, describe, func(ctx context.Context) error { return b.alterEntityQuotas(ctx, req) })
}

// alterUserConfigs changes a user's quotas or SCRAM credentials, not both
// at once (as kafka-configs --bootstrap-server refuses it): each API call
// is atomic, two would not be. Deleting a config the user does not have is
// refused, as with --zookeeper. A dry run validates quotas on the server
// (validateOnly); a credential change has no such mode, so --dry-run is
// refused for it, as for the other APIs without one.
func (b *Backend) alterUserConfigs(ctx context.Context, req backend.AlterConfigsRequest) (*backend.AlterConfigsResult, error) {
	resource := "user " + req.Name
	scramDeletes, quotaDeletes := splitScram(req.Delete)
	credentials := len(req.Scram) > 0 || len(scramDeletes) > 0
	switch {
	case credentials && (len(req.Set) > 0 || len(quotaDeletes) > 0):
		return nil, &UsageError{Msg: "cannot alter both quota and SCRAM credential configs of a user in one command over " +
			"--bootstrap-server (two requests would not be atomic); run two commands"}
	case credentials && req.Name == backend.DefaultEntity:
		return nil, codeError(resource, kerr.InvalidConfig.Code, strPtr("SCRAM credentials belong to a named user, not <default>"))
	case credentials && req.DryRun:
		return nil, noDryRun("configs alter of SCRAM credentials", "AlterUserScramCredentials")
	}
	describe := func(ctx context.Context) (map[string]string, error) {
		got, err := b.describeUserConfigs(ctx, []string{req.Name})
		if err != nil {
			return nil, err
		}
		return got[0].Overrides, nil
	}
	return b.alterQuotasOrCredentials(ctx, req, describe, func(ctx context.Context) error {
		if credentials {
			return b.alterUserScram(ctx, req, scramDeletes)
		}
		return b.alterEntityQuotas(ctx, req)
	})
}

// alterQuotasOrCredentials reads an entity's configs (describe), refuses
// deleting one it does not have, as --zookeeper does, makes the change
// (alter) and reads the result; a dry run's result is computed.
func (b *Backend) alterQuotasOrCredentials(ctx context.Context, req backend.AlterConfigsRequest,
	describe func(context.Context) (map[string]string, error), alter func(context.Context) error) (*backend.AlterConfigsResult, error) {
	resource := quotaResource(req)
	if req.Name == "" {
		return nil, codeError(resource, kerr.InvalidRequest.Code, strPtr("The entity name for "+req.EntityType+" must not be empty"))
	}
	out := &backend.AlterConfigsResult{Writes: backend.Writes{DryRun: req.DryRun}}
	err := b.retry(ctx, func(ctx context.Context) error {
		var err error
		if out.Before, err = describe(ctx); err != nil {
			return err
		}
		var missing []string
		for _, k := range req.Delete {
			if _, ok := out.Before[k]; !ok {
				missing = append(missing, k)
			}
		}
		if len(missing) > 0 {
			return codeError(resource, kerr.InvalidConfig.Code, strPtr("Invalid config(s): "+strings.Join(missing, ",")))
		}
		if err := alter(ctx); err != nil {
			return err
		}
		if req.DryRun {
			out.After = applied(out.Before, req)
			return nil
		}
		out.After, err = describe(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// splitScram separates the SCRAM mechanism names from the quota names.
func splitScram(names []string) (scramNames, others []string) {
	for _, n := range names {
		if _, ok := scram.MechanismByName(n); ok {
			scramNames = append(scramNames, n)
		} else {
			others = append(others, n)
		}
	}
	return scramNames, others
}

// alterEntityQuotas sends one AlterClientQuotas entry for the user, client
// id or IP.
func (b *Backend) alterEntityQuotas(ctx context.Context, req backend.AlterConfigsRequest) error {
	resource := quotaResource(req)
	entry := kmsg.NewAlterClientQuotasRequestEntry()
	entry.Entity = quotaEntity(quotaTypes[req.EntityType], req.Name)
	if req.Client != "" {
		entry.Entity = append(entry.Entity, quotaEntity(zkadmin.QuotaClientID, req.Client)...)
	}
	for _, k := range slices.Sorted(maps.Keys(req.Set)) {
		v, ok := config.ParseJavaDouble(req.Set[k])
		if !ok {
			return codeError(resource, kerr.InvalidConfig.Code, strPtr(fmt.Sprintf("Invalid value %s for configuration %s: Not a number", req.Set[k], k)))
		}
		op := kmsg.NewAlterClientQuotasRequestEntryOp()
		op.Key, op.Value = k, v
		entry.Ops = append(entry.Ops, op)
	}
	for _, k := range req.Delete {
		op := kmsg.NewAlterClientQuotasRequestEntryOp()
		op.Key, op.Remove = k, true
		entry.Ops = append(entry.Ops, op)
	}
	kreq := kmsg.NewPtrAlterClientQuotasRequest()
	kreq.Entries, kreq.ValidateOnly = append(kreq.Entries, entry), req.DryRun
	resp, err := responseAs[*kmsg.AlterClientQuotasResponse](b.controllerRequest(ctx, kreq))
	if err != nil {
		return err
	}
	if err := answerCount("AlterClientQuotas", len(resp.Entries), 1); err != nil {
		return err
	}
	return codeError(resource, resp.Entries[0].ErrorCode, resp.Entries[0].ErrorMessage)
}

// alterUserScram sends the user's credential upsertions and deletions in
// one AlterUserScramCredentials.
func (b *Backend) alterUserScram(ctx context.Context, req backend.AlterConfigsRequest, deletes []string) error {
	resource := "user " + req.Name
	kreq := kmsg.NewPtrAlterUserSCRAMCredentialsRequest()
	for _, name := range slices.Sorted(maps.Keys(req.Scram)) {
		m, _ := scram.MechanismByName(name)
		sp := req.Scram[name]
		u := kmsg.NewAlterUserSCRAMCredentialsRequestUpsertion()
		u.Name, u.Mechanism, u.Iterations, u.Salt, u.SaltedPassword = req.Name, int8(m), int32(sp.Iterations), sp.Salt, sp.Salted
		kreq.Upsertions = append(kreq.Upsertions, u)
	}
	for _, name := range deletes {
		m, _ := scram.MechanismByName(name)
		d := kmsg.NewAlterUserSCRAMCredentialsRequestDeletion()
		d.Name, d.Mechanism = req.Name, int8(m)
		kreq.Deletions = append(kreq.Deletions, d)
	}
	resp, err := responseAs[*kmsg.AlterUserSCRAMCredentialsResponse](b.controllerRequest(ctx, kreq))
	if err != nil {
		return err
	}
	if err := answerCount("AlterUserScramCredentials", len(resp.Results), 1); err != nil {
		return err
	}
	r := resp.Results[0]
	if r.User != req.Name {
		return errors.New("AlterUserScramCredentials answered for user " + strconv.Quote(r.User) + ", not " + strconv.Quote(req.Name))
	}
	return codeError(resource, r.ErrorCode, r.ErrorMessage)
}

// quotaResource names an entity in messages: "user alice", "client app",
// "user alice, client app".
func quotaResource(req backend.AlterConfigsRequest) string {
	r := strings.TrimSuffix(req.EntityType, "s") + " " + req.Name
	if req.Client != "" {
		r += ", client " + req.Client
	}
	return r
}

// quotaEntity is one part of an AlterClientQuotas entity; <default> is the
// type's default (a null name).
func quotaEntity(quotaType, name string) []kmsg.AlterClientQuotasRequestEntryEntity {
	ent := kmsg.NewAlterClientQuotasRequestEntryEntity()
	ent.Type = quotaType
	if name != backend.DefaultEntity {
		ent.Name = strPtr(name)
	}
	return []kmsg.AlterClientQuotasRequestEntryEntity{ent}
}

// quotaMatch is a strict DescribeClientQuotas component matching name
// exactly, or the type's default.
func quotaMatch(quotaType, name string) kmsg.DescribeClientQuotasRequestComponent {
	c := kmsg.NewDescribeClientQuotasRequestComponent()
	c.EntityType, c.MatchType = quotaType, kmsg.QuotasMatchTypeExact
	if name == backend.DefaultEntity {
		c.MatchType = kmsg.QuotasMatchTypeDefault
	} else {
		c.Match = strPtr(name)
	}
	return c
}

// DescribeUserClientConfigs describes a user's quotas for one client id.
func (b *Backend) DescribeUserClientConfigs(ctx context.Context, user, client string) (backend.EntityConfig, error) {
	out := backend.EntityConfig{EntityType: znodes.EntityUsers, Name: user, Client: client}
	err := b.retry(ctx, func(ctx context.Context) error {
		var err error
		out.Overrides, err = b.userClientQuotas(ctx, user, client)
		return err
	})
	return out, err
}

// userClientQuotas reads the quotas of exactly the user and client id.
func (b *Backend) userClientQuotas(ctx context.Context, user, client string) (map[string]string, error) {
	req := kmsg.NewPtrDescribeClientQuotasRequest()
	req.Strict = true
	req.Components = []kmsg.DescribeClientQuotasRequestComponent{quotaMatch(zkadmin.QuotaUser, user),
		quotaMatch(zkadmin.QuotaClientID, client)}
	resp, err := responseAs[*kmsg.DescribeClientQuotasResponse](b.controllerRequest(ctx, req))
	if err != nil {
		return nil, err
	}
	if err := codeError("user "+user+", client "+client, resp.ErrorCode, resp.ErrorMessage); err != nil {
		return nil, err
	}
	var out map[string]string
	for _, e := range resp.Entries {
		if len(e.Entity) != 2 {
			continue
		}
		for _, v := range e.Values {
			if out == nil {
				out = map[string]string{}
			}
			out[v.Key] = quotaText(v.Key, v.Value)
		}
	}
	return out, nil
}

// alterUserClientConfigs changes a user's quotas for one client id; SCRAM
// credentials belong to the user alone.
func (b *Backend) alterUserClientConfigs(ctx context.Context, req backend.AlterConfigsRequest) (*backend.AlterConfigsResult, error) {
	if scramDeletes, _ := splitScram(req.Delete); len(req.Scram) > 0 || len(scramDeletes) > 0 {
		return nil, &UsageError{Msg: "SCRAM credentials belong to a user, not to a user's client id: drop --client"}
	}
	if req.EntityType != znodes.EntityUsers {
		return nil, &UsageError{Msg: "a client id narrows a user's quotas only, not " + req.EntityType}
	}
	describe := func(ctx context.Context) (map[string]string, error) {
		return b.userClientQuotas(ctx, req.Name, req.Client)
	}
	return b.alterQuotasOrCredentials(ctx, req, describe, func(ctx context.Context) error { return b.alterEntityQuotas(ctx, req) })
}
