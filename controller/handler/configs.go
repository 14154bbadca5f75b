package handler

import (
	"context"
	"fmt"
	"sort"
	"strconv"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kzadmin/kzadmin/zkadmin"
	"github.com/kzadmin/kzadmin/znodes"
)

// Kafka's ConfigSource values (reference apis.md §9).
const (
	sourceTopic          int8 = 1
	sourceDynamicBroker  int8 = 2
	sourceDynamicDefault int8 = 3
	sourceStaticBroker   int8 = 4
	sourceDefault        int8 = 5
)

// configEntry is one config as DescribeConfigs and CreateTopics v5+ report
// it.
type configEntry struct {
	name   string
	value  *string
	source int8
	typ    int8 // Kafka's ConfigType (DescribeConfigs v3+)
	// sensitive configs are reported with null values.
	sensitive bool
	// readOnly: a broker config that cannot be changed dynamically
	// (DescribeConfigs v0's IsReadOnly).
	readOnly bool
	synonyms []kmsg.DescribeConfigsResponseResourceConfigConfigSynonym
	// doc is the documentation (DescribeConfigs v3+ with
	// IncludeDocumentation); nil where kzadmin has none.
	doc *string
}

// topicConfigEntries lists every topic config with its effective value,
// as ConfigHelper.createTopicConfigEntry does: the topic's override
// (source TOPIC_CONFIG), else the cluster-wide dynamic default of its
// broker synonym (DYNAMIC_DEFAULT_BROKER_CONFIG), else Kafka's default
// (DEFAULT_CONFIG). The synonyms run in that precedence order (see
// brokerSynonyms). Per-broker and static broker configs live on the
// brokers, which kzadmin cannot see, so they are never reported. No topic
// config is sensitive. The value, and the topic's own synonym, are shown
// as Kafka prints the parsed value (TopicConfigDef.Canonical: "+1000" is
// "1000"); the broker synonyms as stored, as Kafka shows them.
func topicConfigEntries(overrides, brokerDefaults map[string]string) []configEntry {
	defs := zkadmin.TopicConfigDefs()
	out := make([]configEntry, 0, len(defs))
	for _, d := range defs {
		e := configEntry{name: d.Name, typ: configType(d.Type), doc: strp(d.Doc())}
		if v, ok := overrides[d.Name]; ok {
			e.synonyms = append(e.synonyms, synonym(d.Name, d.Canonical(v), sourceTopic))
		}
		e.synonyms = append(e.synonyms, brokerSynonyms(d, brokerDefaults)...)
		e.value, e.source = strp(d.Default), sourceDefault
		if len(e.synonyms) > 0 {
			e.value, e.source = strp(d.Canonical(*e.synonyms[0].Value)), int8(e.synonyms[0].Source)
		}
		out = append(out, e)
	}
	return out
}

// brokerSynonyms is the broker layer of a topic config's synonyms as
// Kafka's ConfigHelper lists it: the cluster-wide dynamic default of the
// broker synonym, then the Kafka default of the broker config that gives
// it, with every entry before the synonym's own name dropped. Four broker
// synonyms have no Kafka default (null): the broker falls back on another
// config (log.retention.ms on log.retention.hours, ...), whose default is
// listed in its place. So with no dynamic default the list starts with
// that other config and is dropped whole: the topic config shows no
// synonym. The fallback configs are read-only (Kafka refuses to set them
// dynamically), so they never appear in the dynamic layer.
func brokerSynonyms(d zkadmin.TopicConfigDef, brokerDefaults map[string]string) []kmsg.DescribeConfigsResponseResourceConfigConfigSynonym {
	if d.BrokerSynonym == "" {
		return nil
	}
	var out []kmsg.DescribeConfigsResponseResourceConfigConfigSynonym
	if v, ok := brokerDefaults[d.BrokerSynonym]; ok {
		out = append(out, synonym(d.BrokerSynonym, v, sourceDynamicDefault))
	}
	name, value := brokerDefault(d)
	out = append(out, synonym(name, value, sourceDefault))
	for len(out) > 0 && out[0].Name != d.BrokerSynonym {
		out = out[1:]
	}
	return out
}

// brokerDefault is the broker config whose Kafka default stands for a
// topic config's broker synonym, and that default. For the four synonyms
// without a default of their own it is the config Kafka falls back on,
// whose default (in hours, or the flusher's interval) gives the same
// value as the topic config's default.
func brokerDefault(d zkadmin.TopicConfigDef) (name, value string) {
	switch d.BrokerSynonym {
	case "log.retention.ms": // log.retention.minutes has no default either
		return "log.retention.hours", "168"
	case "log.roll.ms":
		return "log.roll.hours", "168"
	case "log.roll.jitter.ms":
		return "log.roll.jitter.hours", "0"
	case "log.flush.interval.ms":
		return "log.flush.scheduler.interval.ms", d.Default
	}
	return d.BrokerSynonym, d.Default
}

func synonym(name, value string, source int8) kmsg.DescribeConfigsResponseResourceConfigConfigSynonym {
	s := kmsg.NewDescribeConfigsResponseResourceConfigConfigSynonym()
	s.Name, s.Value, s.Source = name, strp(value), kmsg.ConfigSource(source)
	return s
}

// configType maps zkadmin's types to Kafka's ConfigType codes.
func configType(t zkadmin.ConfigType) int8 {
	switch t {
	case zkadmin.TypeBoolean:
		return 1
	case zkadmin.TypeString:
		return 2
	case zkadmin.TypeInt:
		return 3
	case zkadmin.TypeLong:
		return 5
	case zkadmin.TypeDouble:
		return 6
	case zkadmin.TypeList:
		return 7
	}
	return 0
}

// brokerDefaults reads /config/brokers/<default>, the cluster-wide
// dynamic broker configs.
func (h *Handlers) brokerDefaults(ctx context.Context) (map[string]string, error) {
	cfg, _, err := h.admin.ReadEntityConfig(ctx, znodes.EntityBrokers, znodes.DefaultEntityName)
	return cfg, err
}

// createTopicsConfigs renders entries for a CreateTopics v5+ response.
func createTopicsConfigs(entries []configEntry) []kmsg.CreateTopicsResponseTopicConfig {
	out := make([]kmsg.CreateTopicsResponseTopicConfig, 0, len(entries))
	for _, e := range entries {
		c := kmsg.NewCreateTopicsResponseTopicConfig()
		c.Name, c.Value, c.Source = e.name, e.value, e.source
		out = append(out, c)
	}
	return out
}

// brokerEntity resolves a BROKER resource name of DescribeConfigs to its
// config entity, as Kafka's broker does for itself: "" is the
// cluster-wide default, this node's id is its own entity, and any other
// name is refused (clients send a broker's resource to that broker).
func (h *Handlers) brokerEntity(name string) (string, apiError) {
	return h.resolveBrokerEntity(name, "Broker id must be an integer, but it is: %s",
		"Unexpected broker id, expected %d or empty string, but received %s")
}

// resolveBrokerEntity is brokerEntity with the refusals' wording given:
// Kafka words them differently in DescribeConfigs and in the alter APIs.
// notNumber takes the name, otherNode this node's id and the name.
func (h *Handlers) resolveBrokerEntity(name, notNumber, otherNode string) (string, apiError) {
	if name == "" {
		return znodes.DefaultEntityName, errNone
	}
	id, err := strconv.ParseInt(name, 10, 32)
	if err != nil {
		return "", newAPIError(kerr.InvalidRequest.Code, fmt.Sprintf(notNumber, name))
	}
	if int32(id) != h.nodeID {
		return "", newAPIError(kerr.InvalidRequest.Code, fmt.Sprintf(otherNode, h.nodeID, name))
	}
	// The entity is the id as Kafka parses it: "03000" and "+3000" name
	// /config/brokers/3000.
	return strconv.Itoa(int(id)), errNone
}

// configResource checks an authorized resource of an alter request and
// returns the config entity it names, as ZkAdminManager does: unknown
// topics are refused with Kafka's message, and so is every type but TOPIC
// and BROKER (only CLIENT_METRICS gets this far).
func (h *Handlers) configResource(v *View, typ kmsg.ConfigResourceType, name string) (entityType, entity string, e apiError) {
	switch typ {
	case kmsg.ConfigResourceTypeTopic:
		switch {
		case name == "":
			return "", "", newAPIError(kerr.InvalidRequest.Code, "Default topic resources are not allowed.")
		case v.Live(name) == nil:
			return "", "", newAPIError(kerr.UnknownTopicOrPartition.Code, fmt.Sprintf("The topic '%s' does not exist.", name))
		}
		return znodes.EntityTopics, name, errNone
	case kmsg.ConfigResourceTypeBroker:
		entity, e := h.alterBrokerEntity(name)
		return znodes.EntityBrokers, entity, e
	}
	return "", "", newAPIError(kerr.InvalidRequest.Code, fmt.Sprintf(
		"AlterConfigs is only supported for topics and brokers, but resource type is %s", typ))
}

// configAuthz returns the resource an operation on a config resource is
// checked against, and the error a denial answers.
func configAuthz(typ kmsg.ConfigResourceType, name string) (Resource, int16) {
	if typ == kmsg.ConfigResourceTypeTopic {
		return TopicResource(name), kerr.TopicAuthorizationFailed.Code
	}
	return ClusterResource(), kerr.ClusterAuthorizationFailed.Code
}

// duplicateResources returns the indexes of resources named more than
// once (same type and name).
func duplicateResources(n int, key func(i int) string) map[int]bool {
	seen := map[string]int{}
	for i := 0; i < n; i++ {
		seen[key(i)]++
	}
	dups := map[int]bool{}
	for i := 0; i < n; i++ {
		if seen[key(i)] > 1 {
			dups[i] = true
		}
	}
	return dups
}

// diffConfig returns the alteration that turns before into after.
func diffConfig(before, after map[string]string) (set map[string]string, del []string) {
	set = map[string]string{}
	for k, v := range after {
		if old, ok := before[k]; !ok || old != v {
			set[k] = v
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			del = append(del, k)
		}
	}
	sort.Strings(del)
	return set, del
}
