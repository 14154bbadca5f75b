package handler

// IncrementalAlterConfigs (key 44), v0-1, answered by every node
// (reference apis.md §9.3).
//
// Behaviour: as AlterConfigs (33_alter_configs.go, configs_alter.go) for
// duplicated resources, preprocessing, authorization, unknown topics,
// broker names and the answer order, except that each resource carries
// operations on single keys:
//   - a key named twice in one resource: INVALID_REQUEST, "Error due to
//     duplicate config keys"; a null value for any operation but DELETE:
//     INVALID_REQUEST, "Null value not supported for : k1, k2" (both
//     before authorization);
//   - BROKER_LOGGER resources are answered in preprocessing, as a Kafka
//     node without Log4j loggers would (alterBrokerLogger);
//   - APPEND or SUBTRACT on a config that is not a list: INVALID_CONFIG,
//     "Config value append is not allowed for config key: K" (or
//     "subtract"), at the first such operation. Kafka checks this for a
//     BROKER resource in preprocessing, after refusing any unknown
//     operation ("Unknown operations type N"), so before authorization;
//     for a TOPIC resource after the "" check and before the topic's
//     existence;
//   - a BROKER resource's configs after the operations are then checked
//     in preprocessing, as Kafka does: configs Kafka does not take
//     dynamically (at that level) and bad values are INVALID_REQUEST
//     (configs_broker.go); a DELETE is never refused;
//   - SET sets, DELETE removes the override (a no-op when there is none),
//     APPEND adds the list items not yet there to the current value (the
//     override, else the default), SUBTRACT removes items. A BROKER
//     resource's rewrite also drops the stored configs a Kafka broker
//     ignores (configs_broker.go).
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

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/zkadmin"
)

func (h *Handlers) incrementalAlterConfigs(ctx context.Context, req *wire.Request,
	r *kmsg.IncrementalAlterConfigsRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.IncrementalAlterConfigsResponse)
	targets := make([]alterTarget, len(r.Resources))
	for i, res := range r.Resources {
		targets[i] = alterTarget{res.ResourceType, res.ResourceName}
	}
	v := h.cluster.View()
	pre := func(i int) (apiError, bool) { return h.preprocessIncremental(ctx, req, r.Resources[i]) }
	apply := func(i int) apiError { return h.alterIncrementally(ctx, v, r.Resources[i], r.ValidateOnly) }
	for i, e := range h.alterEach(ctx, req, targets, pre, apply) {
		rr := kmsg.NewIncrementalAlterConfigsResponseResource()
		rr.ResourceType, rr.ResourceName, rr.ErrorCode, rr.ErrorMessage = targets[i].typ, targets[i].name, e.code, e.msg
		resp.Resources = append(resp.Resources, rr)
	}
	return resp
}

// preprocessIncremental makes the checks Kafka makes on a resource before
// authorization (the file comment's), and says whether its answer is
// final.
func (h *Handlers) preprocessIncremental(ctx context.Context, req *wire.Request,
	res kmsg.IncrementalAlterConfigsRequestResource) (apiError, bool) {
	var names, nulls []string
	for _, c := range res.Configs {
		names = append(names, c.Name)
		if c.Value == nil && c.Op != kmsg.IncrementalAlterConfigOpDelete {
			nulls = append(nulls, c.Name)
		}
	}
	if e := checkAlterKeys(names, nulls); e.code != 0 {
		return e, true
	}
	if res.ResourceType == kmsg.ConfigResourceTypeBrokerLogger {
		return h.alterBrokerLogger(ctx, req, res), true
	}
	e := h.checkAlterType(res.ResourceType, res.ResourceName)
	if e.code == 0 && res.ResourceType == kmsg.ConfigResourceTypeBroker {
		if e = checkBrokerOps(res); e.code == 0 {
			e = h.preprocessBrokerIncremental(ctx, res)
		}
	}
	return e, e.code != 0
}

// alterIncrementally applies one authorized resource's operations.
func (h *Handlers) alterIncrementally(ctx context.Context, v *View, res kmsg.IncrementalAlterConfigsRequestResource,
	dryRun bool) apiError {
	if res.ResourceType == kmsg.ConfigResourceTypeBroker {
		return h.alterBrokerIncrementally(ctx, res, dryRun)
	}
	if res.ResourceType == kmsg.ConfigResourceTypeTopic {
		// Kafka refuses the default topic resource, then applies the
		// operations to the overrides, then looks for the topic.
		if res.ResourceName == "" {
			return newAPIError(kerr.InvalidRequest.Code, "Default topic resources are not allowed.")
		}
		if e := checkListOps(res); e.code != 0 {
			return e
		}
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
			alt.Set[c.Name] = editList(listValue(current, c.Name), *c.Value, c.Op == kmsg.IncrementalAlterConfigOpAppend)
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

// checkBrokerOps is the rest of Kafka's preprocessing of a BROKER
// resource: every operation must be known, then the list operations are
// checked.
func checkBrokerOps(res kmsg.IncrementalAlterConfigsRequestResource) apiError {
	for _, c := range res.Configs {
		if c.Op < kmsg.IncrementalAlterConfigOpSet || c.Op > kmsg.IncrementalAlterConfigOpSubtract {
			return newAPIError(kerr.InvalidRequest.Code, fmt.Sprintf("Unknown operations type %d", c.Op))
		}
	}
	return checkListOps(res)
}

// checkListOps refuses, in operation order, APPEND or SUBTRACT on a
// config that is not a list, and an unknown operation.
func checkListOps(res kmsg.IncrementalAlterConfigsRequestResource) apiError {
	for _, c := range res.Configs {
		switch c.Op {
		case kmsg.IncrementalAlterConfigOpSet, kmsg.IncrementalAlterConfigOpDelete:
		case kmsg.IncrementalAlterConfigOpAppend, kmsg.IncrementalAlterConfigOpSubtract:
			if !isListConfig(res.ResourceType, c.Name) {
				return newAPIError(kerr.InvalidConfig.Code, fmt.Sprintf(
					"Config value %s is not allowed for config key: %s", strings.ToLower(c.Op.String()), c.Name))
			}
		default:
			return newAPIError(kerr.InvalidRequest.Code, fmt.Sprintf("Unknown config operation %d", c.Op))
		}
	}
	return errNone
}

// isListConfig reports whether a topic config, or a broker config Kafka
// knows, is a LIST. (Kafka fails on an APPEND or SUBTRACT of a broker
// config it does not know, an UNKNOWN_SERVER_ERROR; kzadmin says why.)
func isListConfig(typ kmsg.ConfigResourceType, name string) bool {
	if typ == kmsg.ConfigResourceTypeBroker {
		return config.IsKafkaListBrokerConfig(name)
	}
	for _, d := range zkadmin.TopicConfigDefs() {
		if d.Name == name {
			return d.Type == zkadmin.TypeList
		}
	}
	return false
}

// listValue is a list topic config's current value: the override, else
// its default.
func listValue(current map[string]string, name string) string {
	if v, ok := current[name]; ok {
		return v
	}
	for _, d := range zkadmin.TopicConfigDefs() {
		if d.Name == name {
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
