// Package config holds kzadmin's typed configuration: one Config struct whose
// fields carry Kafka's key names, types and defaults, so an operator's broker
// server.properties reads the same way here.
//
// Default returns the defaults, Validate checks a Config however it was
// built, and Load layers a Kafka-style .properties file, KZADMIN_*
// environment variables and command-line flags over the defaults (in that
// order; later wins) with a fresh viper instance, then validates. Every bad
// value is refused with its key, the value and what is allowed:
//
//	config: unclean.recovery.strategy="Foo": must be one of None, Balanced, Aggressive
//
// Keys kzadmin does not know are not an error, since a broker's
// server.properties has many; Load lists them for the caller to log.
//
// Security keys (ssl.*, sasl.*, authorizer.class.name, super.users,
// allow.everyone.if.no.acl.found, kzadmin.zookeeper.digest, and the
// listener-prefixed listener.name.<l>.<key> forms from the file) are kept as
// given in Config.Props, read through Config.Property by the security
// package; values that are secrets are hidden in error messages. Every
// protocol is accepted on a listener: PLAINTEXT, SSL, SASL_PLAINTEXT and
// SASL_SSL (the SASL ones need sasl.enabled.mechanisms).
//
// Some keys are cluster-wide and dynamic (max.partitions,
// max.broker.partitions, unclean.leader.election.enable, ...): an operator can
// change them at run time in the znode /config/brokers/<default>.
// WithDynamic overlays that znode's map onto the static Config, as a pure
// function.
//
// Kafka's own broker config names are here too (kafkabroker_names.go): which
// names Kafka 3.9's brokers know and which they take dynamically, cluster-wide
// or per broker, and the type and validator of each dynamic one
// (kafkabroker_types.go), which kafkavalues.go applies as Kafka's ConfigDef
// parses a value. CheckKafkaBrokerConfigs applies Kafka's rules for dynamic
// broker configs with Kafka's messages, for kzadmind's alter APIs and the
// kzadmin CLI alike.
//
// The package keeps no mutable state of its own and never touches viper's
// global instance.
package config
