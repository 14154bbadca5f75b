package handler

// DescribeConfigs (key 32), v0-4, answered by every node (reference
// apis.md §9.1).
//
// Behaviour per resource (authorized ones first, then the rest, as
// Kafka orders them):
//   - DESCRIBE_CONFIGS is checked on the topic, or on the cluster for
//     BROKER resources; a denial answers TOPIC_/CLUSTER_AUTHORIZATION_FAILED
//     with the code's default message.
//   - TOPIC: an invalid name is INVALID_TOPIC_EXCEPTION; a topic not in
//     the controller's view (or queued for deletion) is
//     UNKNOWN_TOPIC_OR_PARTITION; otherwise every topic config (or those
//     named) with its effective value and source: the topic's override,
//     else the cluster-wide dynamic default of its broker synonym, else
//     Kafka's default (see topicConfigEntries).
//   - BROKER "" is the cluster-wide dynamic defaults
//     (/config/brokers/<default>, where max.partitions and
//     max.broker.partitions live), source DYNAMIC_DEFAULT_BROKER_CONFIG.
//     BROKER <node.id> is this node's whole configuration, as a Kafka
//     broker describes its own: its dynamic configs
//     (/config/brokers/<id>, source DYNAMIC_BROKER_CONFIG) over those
//     defaults, and every key of kzadmind's own configuration, given
//     (STATIC_BROKER_CONFIG) or left at its default (DEFAULT_CONFIG);
//     the synonyms list the layers in that order. The keys kzadmind does
//     not have are not listed (a broker's static configs are the
//     broker's). Any other name is INVALID_REQUEST with Kafka's messages,
//     since clients send a broker's resource to it.
//   - BROKER_LOGGER: INVALID_REQUEST; kzadmin has no Log4j loggers.
//   - Any other resource type makes the whole request INVALID_REQUEST.
//
// Version notes: v0's IsDefault is always false, as from Kafka 3.x. v1+
// Source and synonyms (only with IncludeSynonyms). v3+ ConfigType, and
// with IncludeDocumentation each config's documentation, which kzadmin
// writes in its own words: a topic config's (zkadmin.TopicConfigDef.Doc),
// kzadmin's own broker keys' (config.KeyDoc) and a broker synonym's (its
// topic config's); any other broker config's stays null. v4+ flexible.

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/controller/wire"
	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

func (h *Handlers) describeConfigs(ctx context.Context, req *wire.Request, r *kmsg.DescribeConfigsRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.DescribeConfigsResponse)
	for _, res := range r.Resources {
		switch res.ResourceType {
		case kmsg.ConfigResourceTypeTopic, kmsg.ConfigResourceTypeBroker, kmsg.ConfigResourceTypeBrokerLogger:
		default:
			e := newAPIError(kerr.InvalidRequest.Code, fmt.Sprintf("Unsupported resource type %d", res.ResourceType))
			return describeConfigsError(r, e)
		}
	}
	v := h.cluster.View()
	var denied []kmsg.DescribeConfigsResponseResource
	for _, res := range r.Resources {
		rr := kmsg.NewDescribeConfigsResponseResource()
		rr.ResourceType, rr.ResourceName = res.ResourceType, res.ResourceName
		authzRes, deniedCode := configAuthz(res.ResourceType, res.ResourceName)
		if !h.allows(ctx, req, OpDescribeConfigs, authzRes) {
			e := withDefault(deniedCode)
			rr.ErrorCode, rr.ErrorMessage = e.code, e.msg
			rr.Configs = []kmsg.DescribeConfigsResponseResourceConfig{}
			denied = append(denied, rr)
			continue
		}
		entries, e := h.describeResource(ctx, v, res)
		rr.ErrorCode, rr.ErrorMessage = e.code, e.msg
		if e.code == 0 {
			rr.Configs = describeEntries(r, res.ConfigNames, entries)
		}
		// Kafka's results start with an empty message and an empty list
		// of configs, and only the failures it catches set a message.
		if rr.ErrorMessage == nil {
			rr.ErrorMessage = strp("")
		}
		if rr.Configs == nil {
			rr.Configs = []kmsg.DescribeConfigsResponseResourceConfig{}
		}
		resp.Resources = append(resp.Resources, rr)
	}
	resp.Resources = append(resp.Resources, denied...)
	return resp
}

// describeConfigsError is the whole-request error: every resource with it.
func describeConfigsError(r *kmsg.DescribeConfigsRequest, e apiError) *kmsg.DescribeConfigsResponse {
	resp := r.ResponseKind().(*kmsg.DescribeConfigsResponse)
	for _, res := range r.Resources {
		rr := kmsg.NewDescribeConfigsResponseResource()
		rr.ResourceType, rr.ResourceName = res.ResourceType, res.ResourceName
		rr.ErrorCode, rr.ErrorMessage = e.code, e.msg
		resp.Resources = append(resp.Resources, rr)
	}
	return resp
}

// describeResource returns a resource's config entries or its error.
func (h *Handlers) describeResource(ctx context.Context, v *View, res kmsg.DescribeConfigsRequestResource) ([]configEntry, apiError) {
	switch res.ResourceType {
	case kmsg.ConfigResourceTypeTopic:
		if err := znodes.ValidateTopicName(res.ResourceName); err != nil {
			return nil, newAPIError(kerr.InvalidTopicException.Code, err.Error())
		}
		if v.Live(res.ResourceName) == nil {
			return nil, codeOnly(kerr.UnknownTopicOrPartition.Code)
		}
		overrides, _, err := h.admin.ReadEntityConfig(ctx, znodes.EntityTopics, res.ResourceName)
		if err != nil {
			return nil, h.errorOf(err)
		}
		defaults, err := h.brokerDefaults(ctx)
		if err != nil {
			return nil, h.errorOf(err)
		}
		return topicConfigEntries(overrides, defaults), errNone
	case kmsg.ConfigResourceTypeBroker:
		entity, e := h.brokerEntity(res.ResourceName)
		if e.code != 0 {
			return nil, e
		}
		return h.brokerEntries(ctx, entity)
	}
	return nil, newAPIError(kerr.InvalidRequest.Code, "kzadmin has no broker loggers to describe")
}

// brokerEntries lists the broker configs of an entity: the dynamic
// defaults alone, or this node's whole configuration (its dynamic
// configs over those defaults, over its own keys' static values and
// defaults; a simulated broker answering through these handlers has no
// static values here).
func (h *Handlers) brokerEntries(ctx context.Context, entity string) ([]configEntry, apiError) {
	defaults, err := h.brokerDefaults(ctx)
	if err != nil {
		return nil, h.errorOf(err)
	}
	own := map[string]string{}
	static := map[string]config.Setting{}
	if entity != znodes.DefaultEntityName {
		if own, _, err = h.admin.ReadEntityConfig(ctx, znodes.EntityBrokers, entity); err != nil {
			return nil, h.errorOf(err)
		}
		for _, s := range h.settings {
			static[s.Name] = s
		}
	}
	var out []configEntry
	keys := map[string]bool{}
	for _, m := range []map[string]string{defaults, own} {
		for k := range m {
			keys[k] = true
		}
	}
	for k := range static {
		keys[k] = true
	}
	for _, k := range sortedNames(keys) {
		e := configEntry{name: k, typ: brokerConfigType(k), doc: brokerConfigDoc(k)}
		if v, ok := own[k]; ok {
			e.synonyms = append(e.synonyms, synonym(k, v, sourceDynamicBroker))
		}
		if v, ok := defaults[k]; ok {
			e.synonyms = append(e.synonyms, synonym(k, v, sourceDynamicDefault))
		}
		s, mine := static[k]
		if mine {
			if e.typ == 0 {
				e.typ = kafkaConfigType(s.Type)
			}
			if s.Static {
				e.synonyms = append(e.synonyms, synonym(k, s.Value, sourceStaticBroker))
			}
			if s.Default != "" {
				e.synonyms = append(e.synonyms, synonym(k, s.Default, sourceDefault))
			}
			// kzadmind refuses its static keys at its own id (they are
			// read at start-up), whatever Kafka's brokers would take.
			e.readOnly = !config.IsDynamic(k)
		}
		if len(e.synonyms) > 0 {
			e.value, e.source = e.synonyms[0].Value, int8(e.synonyms[0].Source)
		} else {
			e.source = sourceDefault // a key of kzadmind's left unset
		}
		if isSensitive(k) || (mine && s.Sensitive) || config.IsKafkaPasswordConfig(k) {
			e.value, e.sensitive = nil, true
			for i := range e.synonyms {
				e.synonyms[i].Value = nil
			}
		}
		out = append(out, e)
	}
	return out, errNone
}

// brokerConfigType is the type of a dynamic broker config kzadmin knows:
// its own limit keys are INT, a topic config's broker synonym has that
// config's type, anything else is unknown.
func brokerConfigType(k string) int8 {
	if config.IsDynamic(k) {
		switch k {
		case "max.partitions", "max.broker.partitions", "leader.imbalance.per.broker.percentage":
			return 3
		case "unclean.leader.election.enable", "unclean.recovery.manager.enabled", "auto.leader.rebalance.enable":
			return 1
		}
		return 2
	}
	for _, d := range zkadmin.TopicConfigDefs() {
		if d.BrokerSynonym == k {
			return configType(d.Type)
		}
	}
	return 0
}

// kafkaConfigType maps a ConfigDef type's name to its ConfigType code in
// DescribeConfigs (0 when unknown).
func kafkaConfigType(name string) int8 {
	switch name {
	case "BOOLEAN":
		return 1
	case "STRING":
		return 2
	case "INT":
		return 3
	case "SHORT":
		return 4
	case "LONG":
		return 5
	case "DOUBLE":
		return 6
	case "LIST":
		return 7
	case "CLASS":
		return 8
	case "PASSWORD":
		return 9
	}
	return 0
}

// brokerConfigDoc is the documentation of a dynamic broker config, where
// kzadmin has one: its own keys' (config.KeyDoc), and the topic config a
// broker synonym is the cluster-wide default of; nil for the others.
func brokerConfigDoc(k string) *string {
	if doc, ok := config.KeyDoc(k); ok && doc != "" {
		return &doc
	}
	for _, d := range zkadmin.TopicConfigDefs() {
		if d.BrokerSynonym == k {
			return strp("The cluster-wide default of the topic config " + d.Name + ". " + d.Doc())
		}
	}
	return nil
}

// isSensitive reports the broker configs Kafka never shows the value of.
func isSensitive(k string) bool {
	return strings.HasSuffix(k, ".password") || strings.HasSuffix(k, "sasl.jaas.config") ||
		strings.Contains(k, "ssl.keystore.key") || strings.HasSuffix(k, "password.encoder.secret") ||
		strings.HasSuffix(k, "ssl.keystore.certificate.chain") || strings.HasSuffix(k, "ssl.truststore.certificates")
}

// describeEntries renders the entries named (all when names is empty) at
// the request's version and options.
func describeEntries(r *kmsg.DescribeConfigsRequest, names []string, entries []configEntry) []kmsg.DescribeConfigsResponseResourceConfig {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	out := []kmsg.DescribeConfigsResponseResourceConfig{}
	for _, e := range entries {
		if len(want) > 0 && !want[e.name] {
			continue
		}
		c := kmsg.NewDescribeConfigsResponseResourceConfig()
		c.Name, c.Value, c.Source, c.IsSensitive = e.name, e.value, kmsg.ConfigSource(e.source), e.sensitive
		c.ReadOnly = e.readOnly
		c.ConfigType = kmsg.ConfigType(e.typ)
		if r.Version >= 1 && r.IncludeSynonyms {
			c.ConfigSynonyms = e.synonyms
		}
		if r.Version >= 3 && r.IncludeDocumentation {
			c.Documentation = e.doc
		}
		out = append(out, c)
	}
	return out
}

func sortedNames(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
