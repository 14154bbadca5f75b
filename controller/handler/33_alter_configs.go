package handler

// AlterConfigs (key 33), v0-2, the legacy full replacement, answered by
// every node (reference apis.md §9.2).
//
// Behaviour, per resource in request order (configs_alter.go has the
// steps both alter APIs share):
//   - A resource named twice: every copy INVALID_REQUEST.
//   - Before authorization: a config named twice, or any null value, is
//     INVALID_REQUEST ("Error due to duplicate config keys", "Null value
//     not supported for : k1, k2"); a BROKER resource must be "" or this
//     node's id, and its configs must be ones a Kafka broker takes
//     dynamically at that level, with valid values (configs_broker.go);
//     a type other than TOPIC, BROKER and CLIENT_METRICS (BROKER_LOGGER
//     included) is INVALID_REQUEST "Unknown resource type N" on its own.
//   - ALTER_CONFIGS on the topic, or the cluster for BROKER; a denial
//     answers TOPIC_/CLUSTER_AUTHORIZATION_FAILED with no message.
//   - TOPIC: "" is INVALID_REQUEST "Default topic resources are not
//     allowed."; a topic not in the controller's view is
//     UNKNOWN_TOPIC_OR_PARTITION "The topic 'T' does not exist.".
//   - BROKER: "" is the cluster-wide default (/config/brokers/<default>:
//     max.partitions and max.broker.partitions take effect on the next
//     write that checks them, at once); this node's id is its own entity.
//   - The given set replaces all overrides. Admin validates the complete
//     new set and writes it with a change notification; its refusal is
//     INVALID_CONFIG for a topic and INVALID_REQUEST for a broker (see
//     alterError). A broker's password configs are INVALID_CONFIG unless
//     validateOnly (configs_broker.go). validateOnly writes nothing.
//
// The replacement is computed against the overrides read just before
// Admin's write; a concurrent change in between can make Admin refuse a
// deletion of a key no longer set, never lose a write.
//
// Version notes: v1 is v0; v2+ flexible.

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/zkadmin"
)

func (h *Handlers) alterConfigs(ctx context.Context, req *wire.Request, r *kmsg.AlterConfigsRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.AlterConfigsResponse)
	targets := make([]alterTarget, len(r.Resources))
	for i, res := range r.Resources {
		targets[i] = alterTarget{res.ResourceType, res.ResourceName}
	}
	v := h.cluster.View()
	pre := func(i int) (apiError, bool) {
		res := r.Resources[i]
		var names, nulls []string
		for _, c := range res.Configs {
			names = append(names, c.Name)
			if c.Value == nil {
				nulls = append(nulls, c.Name)
			}
		}
		if e := checkAlterKeys(names, nulls); e.code != 0 {
			return e, true
		}
		e := h.checkAlterType(res.ResourceType, res.ResourceName)
		if e.code == 0 && res.ResourceType == kmsg.ConfigResourceTypeBroker {
			e = h.preprocessBrokerLegacy(res)
		}
		return e, e.code != 0
	}
	apply := func(i int) apiError { return h.replaceConfigs(ctx, v, r.Resources[i], r.ValidateOnly) }
	for i, e := range h.alterEach(ctx, req, targets, pre, apply) {
		resp.Resources = append(resp.Resources, alterConfigsResult(targets[i].typ, targets[i].name, e))
	}
	return resp
}

func alterConfigsResult(typ kmsg.ConfigResourceType, name string, e apiError) kmsg.AlterConfigsResponseResource {
	rr := kmsg.NewAlterConfigsResponseResource()
	rr.ResourceType, rr.ResourceName, rr.ErrorCode, rr.ErrorMessage = typ, name, e.code, e.msg
	return rr
}

// resourceKey identifies a config resource for the duplicate check.
func resourceKey(typ kmsg.ConfigResourceType, name string) string {
	return strconv.Itoa(int(typ)) + "/" + name
}

// replaceConfigs makes one resource's overrides exactly the given ones.
func (h *Handlers) replaceConfigs(ctx context.Context, v *View, res kmsg.AlterConfigsRequestResource, dryRun bool) apiError {
	entityType, entity, e := h.configResource(v, res.ResourceType, res.ResourceName)
	if e.code != 0 {
		return e
	}
	after := map[string]string{}
	for _, c := range res.Configs {
		after[c.Name] = *c.Value // preprocessing refused null values
	}
	if res.ResourceType == kmsg.ConfigResourceTypeBroker {
		if e, final := brokerPasswords(res.ResourceName, entity, after, dryRun); final {
			return e
		}
	}
	before, _, err := h.admin.ReadEntityConfig(ctx, entityType, entity)
	if err != nil {
		return h.errorOf(err)
	}
	set, del := diffConfig(before, after)
	alt := zkadmin.ConfigAlteration{EntityType: entityType, EntityName: entity, Set: set, Delete: del, DryRun: dryRun}
	if len(set) == 0 && len(del) == 0 {
		// Nothing changes, but the set must still be valid, as Kafka
		// validates it: hand Admin the whole set as a no-op rewrite.
		alt.Set = after
	}
	if _, err := h.admin.AlterConfigs(ctx, alt); err != nil {
		return alterError(res.ResourceType, res.ResourceName, h.errorOf(err))
	}
	return errNone
}

// alterError is the answer to a refused alteration. A topic config value
// Kafka's LogConfig refuses is reported with the resource, as Kafka's
// ZkAdminManager does ("Unknown topic config name" is not). A broker
// resource's new configs are validated in Kafka's preprocessing, which
// answers every refusal INVALID_REQUEST with the validation's message.
func alterError(typ kmsg.ConfigResourceType, name string, e apiError) apiError {
	if e.code != kerr.InvalidConfig.Code || e.msg == nil {
		return e
	}
	switch {
	case typ == kmsg.ConfigResourceTypeBroker:
		return newAPIError(kerr.InvalidRequest.Code, *e.msg)
	case typ != kmsg.ConfigResourceTypeTopic || strings.HasPrefix(*e.msg, "Unknown topic config name"):
		return e
	}
	return newAPIError(e.code, fmt.Sprintf("Invalid config value for resource ConfigResource(type=TOPIC, name='%s'): %s", name, *e.msg))
}
