package config

// Kafka's rules for dynamic broker configs (DynamicBrokerConfig in Kafka
// 3.9), over the names in kafkabroker_names.go. kzadmind applies them to
// the alter APIs' BROKER resources before authorization, as a Kafka broker
// does in ConfigAdminManager.preprocess, and zkadmin to what kzadmin
// configs --zookeeper adds, as kafka-configs --zookeeper does.

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// kafkaSets are the name lists as sets, built once.
type kafkaSets struct {
	known, dynamic, perBroker, security, clusterListener, list map[string]bool
}

var kafkaBrokerSets = sync.OnceValue(func() kafkaSets {
	set := func(lists ...[]string) map[string]bool {
		m := map[string]bool{}
		for _, l := range lists {
			for _, n := range l {
				m[n] = true
			}
		}
		return m
	}
	return kafkaSets{
		known:           set(kafkaBrokerConfigNames),
		dynamic:         set(kafkaClusterWideConfigNames, kafkaPerBrokerConfigNames),
		perBroker:       set(kafkaPerBrokerConfigNames),
		security:        set(kafkaListenerSecurityConfigNames),
		clusterListener: set(kafkaClusterLevelListenerConfigNames),
		list:            set(kafkaListConfigNames),
	}
})

// IsKafkaBrokerConfig reports whether Kafka 3.9's KafkaConfig defines
// name. Any other name is a custom config to a Kafka broker.
func IsKafkaBrokerConfig(name string) bool { return kafkaBrokerSets().known[name] }

// IsKafkaDynamicBrokerConfig reports whether a Kafka 3.9 broker lets
// AlterConfigs change name at run time (at some level).
func IsKafkaDynamicBrokerConfig(name string) bool { return kafkaBrokerSets().dynamic[name] }

// IsKafkaPerBrokerConfig reports whether name is dynamic only per broker,
// never at the cluster-wide default.
func IsKafkaPerBrokerConfig(name string) bool { return kafkaBrokerSets().perBroker[name] }

// IsKafkaListBrokerConfig reports whether name is a broker config of type
// LIST, which IncrementalAlterConfigs may APPEND to and SUBTRACT from.
func IsKafkaListBrokerConfig(name string) bool { return kafkaBrokerSets().list[name] }

// KafkaBrokerListDefault is the default of a dynamic LIST broker config
// ("" for the others, whose APPENDs a broker refuses anyway).
func KafkaBrokerListDefault(name string) string { return kafkaDynamicListDefaults[name] }

// IsKafkaPasswordConfig reports whether a Kafka broker treats name as a
// password, which it stores encrypted with password.encoder.secret: any
// name ending in a dynamic password config's name.
func IsKafkaPasswordConfig(name string) bool {
	return slices.ContainsFunc(kafkaPasswordConfigNames, func(p string) bool { return strings.HasSuffix(name, p) })
}

// kafkaListenerConfig matches a listener-prefixed config,
// listener.name.<listener>.<config>, as DynamicBrokerConfig's
// ListenerConfigRegex does.
var kafkaListenerConfig = regexp.MustCompile(`^listener\.name\.[^.]*\.(.*)$`)

// KafkaBaseConfigName is name without its listener prefix, if it has one:
// Kafka checks a listener config's value as its base config's.
func KafkaBaseConfigName(name string) string {
	if m := kafkaListenerConfig.FindStringSubmatch(name); m != nil {
		return m[1]
	}
	return name
}

// kafkaNonDynamic reports whether a broker refuses to take name
// dynamically. kzadmin's own dynamic keys (auto.leader.rebalance.enable,
// ...) are exempt: kzadmind, the controller, reads them from
// /config/brokers/<default>, although Kafka's brokers call them static.
func kafkaNonDynamic(name string) bool {
	return IsKafkaBrokerConfig(name) && !IsKafkaDynamicBrokerConfig(name) && !IsDynamic(name)
}

// kafkaPerBrokerOnly reports whether the cluster-wide default refuses
// name: a per-broker config, or a listener-prefixed config other than the
// three listener configs Kafka takes cluster-wide.
func kafkaPerBrokerOnly(name string) bool {
	if IsKafkaPerBrokerConfig(name) {
		return true
	}
	m := kafkaListenerConfig.FindStringSubmatch(name)
	return m != nil && !kafkaBrokerSets().clusterListener[m[1]]
}

// CheckKafkaBrokerConfigs makes the checks of Kafka's
// DynamicBrokerConfig.validateConfigs on the configs (values) one change
// of a broker entity would leave it with, named in the order the change
// gives them (the order decides how Kafka's message lists them), at a
// broker's entity (perBroker) or at the cluster-wide default. In Kafka's
// order: known configs that are not dynamic ("Cannot update these
// configs dynamically"), SSL configs without a listener prefix, then the
// values (validateConfigTypes: each listener-prefixed config checked as
// its base config, with the types and validators of
// kafkabroker_types.go), then, at the default, configs only a broker
// takes. The error carries Kafka's message.
func CheckKafkaBrokerConfigs(names []string, values map[string]string, perBroker bool) error {
	order := brokerPropsOrder(names)
	if bad := filterNames(order, kafkaNonDynamic); len(bad) > 0 {
		return errors.New("Cannot update these configs dynamically: " + scalaSetString(bad))
	}
	// Kafka goes through its own set of SSL configs here, so the order
	// is that set's.
	if bad := filterNames(order, func(n string) bool { return kafkaBrokerSets().security[n] }); len(bad) > 0 {
		return errors.New("These security configs can be dynamically updated only per-listener using the listener prefix: " +
			scalaMutableHashSetString(bad))
	}
	if err := parseKafkaBrokerValues(kafkaBaseValues(names, values)); err != nil {
		return err
	}
	if perBroker {
		return nil
	}
	// Kafka lists the per-broker configs, then the listener-prefixed ones.
	bad := filterNames(order, IsKafkaPerBrokerConfig)
	bad = append(bad, filterNames(order, func(n string) bool { return kafkaPerBrokerOnly(n) && !IsKafkaPerBrokerConfig(n) })...)
	if len(bad) > 0 {
		return errors.New("Cannot update these configs at default cluster level, broker id must be specified: " +
			scalaSetString(bad))
	}
	return nil
}

// KafkaDroppedBrokerConfigs returns the names of a broker entity's
// stored configs (values) that a Kafka broker ignores, and drops when
// IncrementalAlterConfigs rewrites the entity
// (DynamicBrokerConfig.fromPersistentProps): values its types and
// validators refuse, known configs that are not dynamic, SSL configs
// without a listener prefix, at the default the configs only a broker
// takes, and password configs, which a broker without
// password.encoder.secret (kzadmind has none) cannot decode.
func KafkaDroppedBrokerConfigs(names []string, values map[string]string, perBroker bool) []string {
	badValue := kafkaBadValues(names, values)
	return filterNames(names, func(n string) bool {
		return badValue[n] || kafkaNonDynamic(n) || kafkaBrokerSets().security[n] ||
			(!perBroker && kafkaPerBrokerOnly(n)) || IsKafkaPasswordConfig(n)
	})
}

func filterNames(names []string, keep func(string) bool) []string {
	var out []string
	for _, n := range names {
		if keep(n) {
			out = append(out, n)
		}
	}
	return out
}
