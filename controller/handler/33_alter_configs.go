package handler

// AlterConfigs (key 33), v0-2, the legacy full replacement, answered by
// every node (reference apis.md §9.2).
//
// Behaviour:
//   - A BROKER_LOGGER resource, or a type other than TOPIC and BROKER,
//     makes the whole request INVALID_REQUEST.
//   - A resource named twice: both entries INVALID_REQUEST, "Each resource
//     must appear at most once."
//   - ALTER_CONFIGS is checked on the topic, or the cluster for BROKER; a
//     denial answers TOPIC_/CLUSTER_AUTHORIZATION_FAILED with no message.
//     Authorized results come first, then denied ones, as in Kafka.
//   - TOPIC: "" is INVALID_REQUEST "Default topic resources are not
//     allowed."; a topic not in the controller's view is
//     UNKNOWN_TOPIC_OR_PARTITION "The topic 'T' does not exist.".
//   - BROKER: "" is the cluster-wide default (/config/brokers/<default>:
//     max.partitions and max.broker.partitions take effect on the next
//     write that checks them, at once); this node's id is its own entity;
//     any other name is INVALID_REQUEST.
//   - The given set replaces all overrides; entries with null values are
//     dropped. Admin validates the complete new set (INVALID_CONFIG with
//     its message) and writes it with a change notification. validateOnly
//     writes nothing.
//
// The replacement is computed against the overrides read just before
// Admin's write; a concurrent change in between can make Admin refuse a
// deletion of a key no longer set (INVALID_CONFIG), never lose a write.
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
	for _, res := range r.Resources {
		if res.ResourceType != kmsg.ConfigResourceTypeTopic && res.ResourceType != kmsg.ConfigResourceTypeBroker {
			e := newAPIError(kerr.InvalidRequest.Code, "AlterConfigs serves TOPIC and BROKER resources only")
			for _, res := range r.Resources {
				resp.Resources = append(resp.Resources, alterConfigsResult(res.ResourceType, res.ResourceName, e))
			}
			return resp
		}
	}
	dups := duplicateResources(len(r.Resources), func(i int) string {
		return resourceKey(r.Resources[i].ResourceType, r.Resources[i].ResourceName)
	})
	v := h.cluster.View()
	var denied []kmsg.AlterConfigsResponseResource
	for i, res := range r.Resources {
		if dups[i] {
			e := newAPIError(kerr.InvalidRequest.Code, "Each resource must appear at most once.")
			resp.Resources = append(resp.Resources, alterConfigsResult(res.ResourceType, res.ResourceName, e))
			continue
		}
		authzRes, deniedCode := configAuthz(res.ResourceType, res.ResourceName)
		if !h.allows(ctx, req, OpAlterConfigs, authzRes) {
			denied = append(denied, alterConfigsResult(res.ResourceType, res.ResourceName, codeOnly(deniedCode)))
			continue
		}
		e := h.replaceConfigs(ctx, v, res, r.ValidateOnly)
		resp.Resources = append(resp.Resources, alterConfigsResult(res.ResourceType, res.ResourceName, e))
	}
	resp.Resources = append(resp.Resources, denied...)
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
	before, _, err := h.admin.ReadEntityConfig(ctx, entityType, entity)
	if err != nil {
		return h.errorOf(err)
	}
	after := map[string]string{}
	for _, c := range res.Configs {
		if c.Value != nil {
			after[c.Name] = *c.Value
		}
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

// alterError is the answer to a refused alteration: a topic config value
// Kafka's LogConfig refuses is reported with the resource, as Kafka's
// ConfigAdminManager does ("Unknown topic config name" is not).
func alterError(typ kmsg.ConfigResourceType, name string, e apiError) apiError {
	if typ != kmsg.ConfigResourceTypeTopic || e.code != kerr.InvalidConfig.Code || e.msg == nil ||
		strings.HasPrefix(*e.msg, "Unknown topic config name") {
		return e
	}
	return newAPIError(e.code, fmt.Sprintf("Invalid config value for resource ConfigResource(type=TOPIC, name='%s'): %s", name, *e.msg))
}
