package handler

// IncrementalAlterConfigs (key 44), v0-1, answered by every node
// (reference apis.md §9.3).
//
// Behaviour: as AlterConfigs (33_alter_configs.go) for resource types,
// duplicates, authorization, unknown topics and broker names, except that
// each resource carries operations on single keys:
//   - a key named twice in one resource: INVALID_REQUEST, "Error due to
//     duplicate config keys";
//   - a null value for any operation but DELETE: INVALID_REQUEST, "Null
//     value not supported for : k1, k2";
//   - APPEND or SUBTRACT on a config that is not a list: INVALID_CONFIG,
//     "Config value append is not allowed for config key: K" (or
//     "subtract");
//   - SET sets, DELETE removes the override (a no-op when there is none),
//     APPEND adds the list items not yet there to the current value (the
//     override, else the default), SUBTRACT removes items.
//
// Admin applies the sets and deletions onto the overrides it reads at
// write time and validates the result, so concurrent SETs and DELETEs of
// other keys are never lost. APPEND and SUBTRACT compute their value from
// the overrides read just before, like Kafka's broker.
//
// Version notes: v1+ flexible.

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

func (h *Handlers) incrementalAlterConfigs(ctx context.Context, req *wire.Request,
	r *kmsg.IncrementalAlterConfigsRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.IncrementalAlterConfigsResponse)
	result := func(res kmsg.IncrementalAlterConfigsRequestResource, e apiError) kmsg.IncrementalAlterConfigsResponseResource {
		rr := kmsg.NewIncrementalAlterConfigsResponseResource()
		rr.ResourceType, rr.ResourceName, rr.ErrorCode, rr.ErrorMessage = res.ResourceType, res.ResourceName, e.code, e.msg
		return rr
	}
	for _, res := range r.Resources {
		if res.ResourceType != kmsg.ConfigResourceTypeTopic && res.ResourceType != kmsg.ConfigResourceTypeBroker {
			e := newAPIError(kerr.InvalidRequest.Code, "IncrementalAlterConfigs serves TOPIC and BROKER resources only")
			for _, res := range r.Resources {
				resp.Resources = append(resp.Resources, result(res, e))
			}
			return resp
		}
	}
	dups := duplicateResources(len(r.Resources), func(i int) string {
		return resourceKey(r.Resources[i].ResourceType, r.Resources[i].ResourceName)
	})
	v := h.cluster.View()
	var denied []kmsg.IncrementalAlterConfigsResponseResource
	for i, res := range r.Resources {
		if dups[i] {
			resp.Resources = append(resp.Resources, result(res,
				newAPIError(kerr.InvalidRequest.Code, "Each resource must appear at most once.")))
			continue
		}
		authzRes, deniedCode := configAuthz(res.ResourceType, res.ResourceName)
		if !h.allows(ctx, req, OpAlterConfigs, authzRes) {
			denied = append(denied, result(res, codeOnly(deniedCode)))
			continue
		}
		resp.Resources = append(resp.Resources, result(res, h.alterIncrementally(ctx, v, res, r.ValidateOnly)))
	}
	resp.Resources = append(resp.Resources, denied...)
	return resp
}

// alterIncrementally checks and applies one resource's operations.
func (h *Handlers) alterIncrementally(ctx context.Context, v *View, res kmsg.IncrementalAlterConfigsRequestResource,
	dryRun bool) apiError {
	if e := checkIncrementalOps(res); e.code != 0 {
		return e
	}
	entityType, entity, e := h.configResource(v, res.ResourceType, res.ResourceName)
	if e.code != 0 {
		return e
	}
	current, _, err := h.admin.ReadEntityConfig(ctx, entityType, entity)
	if err != nil {
		return h.errorOf(err)
	}
	alt := zkadmin.ConfigAlteration{EntityType: entityType, EntityName: entity, Set: map[string]string{}, DryRun: dryRun}
	for _, c := range res.Configs {
		switch c.Op {
		case kmsg.IncrementalAlterConfigOpSet:
			alt.Set[c.Name] = *c.Value
		case kmsg.IncrementalAlterConfigOpDelete:
			if _, ok := current[c.Name]; ok {
				alt.Delete = append(alt.Delete, c.Name)
			}
		default:
			alt.Set[c.Name] = editList(listValue(entityType, current, c.Name), *c.Value,
				c.Op == kmsg.IncrementalAlterConfigOpAppend)
		}
	}
	if len(alt.Set) == 0 && len(alt.Delete) == 0 {
		return errNone // nothing to change (every DELETE was of an unset key)
	}
	if _, err := h.admin.AlterConfigs(ctx, alt); err != nil {
		return alterError(res.ResourceType, res.ResourceName, h.errorOf(err))
	}
	return errNone
}

// checkIncrementalOps makes the checks that need no read, in Kafka's order.
func checkIncrementalOps(res kmsg.IncrementalAlterConfigsRequestResource) apiError {
	seen := map[string]bool{}
	var nulls []string
	for _, c := range res.Configs {
		if seen[c.Name] {
			return newAPIError(kerr.InvalidRequest.Code, "Error due to duplicate config keys")
		}
		seen[c.Name] = true
		if c.Value == nil && c.Op != kmsg.IncrementalAlterConfigOpDelete {
			nulls = append(nulls, c.Name)
		}
	}
	if len(nulls) > 0 {
		return newAPIError(kerr.InvalidRequest.Code, "Null value not supported for : "+strings.Join(nulls, ", "))
	}
	for _, c := range res.Configs {
		switch c.Op {
		case kmsg.IncrementalAlterConfigOpSet, kmsg.IncrementalAlterConfigOpDelete:
		case kmsg.IncrementalAlterConfigOpAppend, kmsg.IncrementalAlterConfigOpSubtract:
			if !isListConfig(res.ResourceType, c.Name) {
				verb := "append"
				if c.Op == kmsg.IncrementalAlterConfigOpSubtract {
					verb = "subtract"
				}
				return newAPIError(kerr.InvalidConfig.Code,
					fmt.Sprintf("Config value %s is not allowed for config key: %s", verb, c.Name))
			}
		default:
			return newAPIError(kerr.InvalidRequest.Code, fmt.Sprintf("Unknown config operation %d", c.Op))
		}
	}
	return errNone
}

// isListConfig reports whether a topic config (or the broker synonym of
// one) is a LIST.
func isListConfig(typ kmsg.ConfigResourceType, name string) bool {
	for _, d := range zkadmin.TopicConfigDefs() {
		if (typ == kmsg.ConfigResourceTypeTopic && d.Name == name) ||
			(typ == kmsg.ConfigResourceTypeBroker && d.BrokerSynonym == name) {
			return d.Type == zkadmin.TypeList
		}
	}
	return false
}

// listValue is a list config's current value: the override, else, for a
// topic config, its default.
func listValue(entityType string, current map[string]string, name string) string {
	if v, ok := current[name]; ok {
		return v
	}
	for _, d := range zkadmin.TopicConfigDefs() {
		if (entityType == znodes.EntityTopics && d.Name == name) ||
			(entityType == znodes.EntityBrokers && d.BrokerSynonym == name) {
			return d.Default
		}
	}
	return ""
}

// editList appends the items of change not in value, or removes them.
func editList(value, change string, add bool) string {
	items := splitItems(value)
	for _, c := range splitItems(change) {
		present := slices.Contains(items, c)
		switch {
		case add && !present:
			items = append(items, c)
		case !add && present:
			items = removeItem(items, c)
		}
	}
	return strings.Join(items, ",")
}

func splitItems(s string) []string {
	var out []string
	for _, it := range strings.Split(s, ",") {
		if it = strings.TrimSpace(it); it != "" {
			out = append(out, it)
		}
	}
	return out
}

func removeItem(items []string, s string) []string {
	out := items[:0:0]
	for _, it := range items {
		if it != s {
			out = append(out, it)
		}
	}
	return out
}
