package handler

// BROKER resources of AlterConfigs and IncrementalAlterConfigs, as a Kafka
// 3.9 broker takes them (ConfigAdminManager.preprocess and
// validateBrokerConfigChange, DynamicBrokerConfig.validate and
// fromPersistentProps, ZkAdminManager.alterBrokerConfigs):
//   - Before authorization, after the resource name's check, the configs
//     the entity would hold are checked: for AlterConfigs the request's;
//     for IncrementalAlterConfigs the stored ones a broker keeps (see
//     below) with the operations applied. Kafka's rules come first
//     (config.CheckKafkaBrokerConfigs): a config Kafka knows but does not
//     take dynamically, "Cannot update these configs dynamically:
//     Set(log.retention.hours)"; an SSL config without a listener prefix;
//     a bad value; at the default (""), a config only a broker takes,
//     "Cannot update these configs at default cluster level, broker id
//     must be specified: Set(listeners)". A value is checked with the type
//     and validator Kafka's ConfigDef gives the config (a listener-prefixed
//     one as its base config), "Invalid value abc for configuration
//     log.cleaner.threads: Not a number of type INT". kzadmin's own rules
//     follow. Every refusal is INVALID_REQUEST with the message, names
//     listed as Kafka lists them. A DELETE is never refused: it removes
//     the config, and Kafka checks what remains.
//   - After authorization, a password config (a name ending in
//     ssl.keystore.password, sasl.jaas.config, ...) is INVALID_CONFIG:
//     Kafka stores it encrypted with password.encoder.secret, which
//     kzadmind, like a broker without one, does not have. validate_only
//     stops before that, so it succeeds.
//   - IncrementalAlterConfigs drops from the entity the stored configs a
//     Kafka broker ignores (config.KafkaDroppedBrokerConfigs: by name, or
//     for a value its type or validator refuses), as Kafka's rewrite of
//     the entity does.

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// checkBrokerConfigs is preprocessing's check of the configs a BROKER
// resource would hold, named in the order Kafka's broker sees them.
func (h *Handlers) checkBrokerConfigs(name string, names []string, cfg map[string]string) apiError {
	entity, e := h.alterBrokerEntity(name)
	if e.code != 0 {
		return e
	}
	if err := zkadmin.CheckBrokerConfigChange(entity, names, cfg); err != nil {
		return alterError(kmsg.ConfigResourceTypeBroker, name, h.errorOf(err))
	}
	return errNone
}

// preprocessBrokerLegacy checks the configs of a BROKER resource of
// AlterConfigs, which replace the stored ones, in request order.
func (h *Handlers) preprocessBrokerLegacy(res kmsg.AlterConfigsRequestResource) apiError {
	names := make([]string, 0, len(res.Configs))
	cfg := make(map[string]string, len(res.Configs))
	for _, c := range res.Configs {
		names = append(names, c.Name)
		cfg[c.Name] = *c.Value // preprocessing refused null values
	}
	return h.checkBrokerConfigs(res.ResourceName, names, cfg)
}

// preprocessBrokerIncremental checks the configs a BROKER resource of
// IncrementalAlterConfigs would hold after its operations, which Kafka
// computes from the stored configs before it authorizes anything.
func (h *Handlers) preprocessBrokerIncremental(ctx context.Context, res kmsg.IncrementalAlterConfigsRequestResource) apiError {
	_, bc, e := h.brokerOpsOnStored(ctx, res)
	if e.code != 0 {
		return e
	}
	return h.checkBrokerConfigs(res.ResourceName, bc.names, bc.after)
}

// brokerOpsOnStored applies a BROKER resource's operations to the configs
// of its entity as stored now, and returns the entity and the change.
func (h *Handlers) brokerOpsOnStored(ctx context.Context, res kmsg.IncrementalAlterConfigsRequestResource) (string, brokerChange, apiError) {
	entity, e := h.alterBrokerEntity(res.ResourceName)
	if e.code != 0 {
		return "", brokerChange{}, e
	}
	current, _, err := h.admin.ReadEntityConfig(ctx, znodes.EntityBrokers, entity)
	if err != nil {
		return "", brokerChange{}, h.errorOf(err)
	}
	return entity, applyBrokerOps(entity, current, res.Configs), errNone
}

// brokerChange is a BROKER resource's operations applied to its stored
// configs.
type brokerChange struct {
	// names lists the configs of after: the kept ones, then the ones the
	// operations add, in operation order (as a Properties fills in).
	names []string
	after map[string]string
	// set is what the operations set; del the stored configs to remove,
	// deleted by an operation or ignored by Kafka.
	set map[string]string
	del []string
	// dropped are the stored configs removed because a Kafka broker
	// ignores them (not reset by an operation), for the log.
	dropped []string
}

// applyBrokerOps applies IncrementalAlterConfigs operations (already
// checked) to a broker entity's stored configs as Kafka does: it keeps
// the stored configs a broker does not ignore, then applies each
// operation; APPEND and SUBTRACT start from the Kafka default when the
// config is not set.
func applyBrokerOps(entity string, current map[string]string,
	ops []kmsg.IncrementalAlterConfigsRequestResourceConfig) brokerChange {
	bc := brokerChange{after: map[string]string{}, set: map[string]string{}}
	stored := make([]string, 0, len(current))
	for k := range current {
		stored = append(stored, k)
	}
	sort.Strings(stored)
	dropped := config.KafkaDroppedBrokerConfigs(stored, current, entity != znodes.DefaultEntityName)
	for _, k := range stored {
		if !slices.Contains(dropped, k) {
			bc.after[k] = current[k]
		}
	}
	for _, c := range ops {
		switch c.Op {
		case kmsg.IncrementalAlterConfigOpSet:
			bc.set[c.Name] = *c.Value
		case kmsg.IncrementalAlterConfigOpDelete:
			delete(bc.after, c.Name)
			if _, ok := current[c.Name]; ok && !slices.Contains(dropped, c.Name) {
				bc.del = append(bc.del, c.Name)
			}
			continue
		default:
			base, ok := bc.after[c.Name]
			if !ok {
				base = config.KafkaBrokerListDefault(c.Name)
			}
			bc.set[c.Name] = editList(base, *c.Value, c.Op == kmsg.IncrementalAlterConfigOpAppend)
		}
		bc.after[c.Name] = bc.set[c.Name]
	}
	for _, k := range dropped {
		if _, reset := bc.set[k]; !reset {
			bc.del = append(bc.del, k)
			bc.dropped = append(bc.dropped, k)
		}
	}
	bc.names = brokerNames(stored, bc.after, ops)
	return bc
}

// brokerNames orders the names of after: stored ones first (their stored
// order is lost, sorted stands in), then the ones the operations add.
func brokerNames(stored []string, after map[string]string, ops []kmsg.IncrementalAlterConfigsRequestResourceConfig) []string {
	var names []string
	for _, k := range stored {
		if _, ok := after[k]; ok && !slices.Contains(names, k) {
			names = append(names, k)
		}
	}
	for _, c := range ops {
		if _, ok := after[c.Name]; ok && !slices.Contains(names, c.Name) {
			names = append(names, c.Name)
		}
	}
	return names
}

// alterBrokerIncrementally writes an authorized BROKER resource's
// operations, computed again on the configs stored now.
func (h *Handlers) alterBrokerIncrementally(ctx context.Context, res kmsg.IncrementalAlterConfigsRequestResource, dryRun bool) apiError {
	entity, bc, e := h.brokerOpsOnStored(ctx, res)
	if e.code != 0 {
		return e
	}
	if e, final := brokerPasswords(res.ResourceName, entity, bc.after, dryRun); final {
		return e
	}
	if len(bc.set) == 0 && len(bc.del) == 0 {
		return errNone // nothing to change (every DELETE was of an unset key)
	}
	alt := zkadmin.ConfigAlteration{EntityType: znodes.EntityBrokers, EntityName: entity, Set: bc.set, Delete: bc.del,
		DryRun: dryRun}
	if _, err := h.admin.AlterConfigs(ctx, alt); err != nil {
		return alterError(res.ResourceType, res.ResourceName, h.errorOf(err))
	}
	if len(bc.dropped) > 0 && !dryRun {
		// Kafka's rewrite drops them silently; say which went.
		h.log.Warn().Str("entity", znodes.EntityBrokers+"/"+entity).Strs("configs", bc.dropped).
			Msg("removed stored broker configs that Kafka's brokers ignore (not dynamic, or a value their types refuse)")
	}
	return errNone
}

// brokerPasswords is Kafka's answer to password configs in a BROKER
// resource's new configs, after authorization and validation: with
// validate_only Kafka stops before encrypting them (success); otherwise
// it needs password.encoder.secret, which kzadmind does not have, and the
// cluster-wide default takes none at all. It says whether its answer is
// final.
func brokerPasswords(name, entity string, after map[string]string, dryRun bool) (apiError, bool) {
	found := false
	for k := range after {
		found = found || config.IsKafkaPasswordConfig(k)
	}
	switch {
	case !found:
		return errNone, false
	case dryRun:
		return errNone, true
	}
	reason := "Password encoder secret not configured"
	if entity == znodes.DefaultEntityName {
		reason = "Password config can be defined only at broker level"
	}
	return newAPIError(kerr.InvalidConfig.Code, fmt.Sprintf(
		"Invalid config value for resource ConfigResource(type=BROKER, name='%s'): %s", name, reason)), true
}
