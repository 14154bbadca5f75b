package config

import (
	"sort"
	"strings"
)

// Limits is the partition-limit view of a Config: the two caps every
// creation path checks (design brief §4). Unlimited means no cap.
type Limits struct {
	// MaxBrokerPartitions caps the partition replicas on one broker.
	MaxBrokerPartitions int32
	// MaxPartitions caps the partitions in the cluster.
	MaxPartitions int32
}

// Limits returns c's partition limits.
func (c Config) Limits() Limits {
	return Limits{MaxBrokerPartitions: c.MaxBrokerPartitions, MaxPartitions: c.MaxPartitions}
}

// IsUnlimited reports whether neither limit is set.
func (l Limits) IsUnlimited() bool {
	return l.MaxBrokerPartitions == Unlimited && l.MaxPartitions == Unlimited
}

// DynamicKeys returns the keys WithDynamic applies, sorted.
func DynamicKeys() []string {
	var out []string
	for _, s := range keySpecs() {
		if s.dynamic {
			out = append(out, s.name)
		}
	}
	sort.Strings(out)
	return out
}

// IsDynamic reports whether key is one WithDynamic applies.
func IsDynamic(key string) bool {
	s, ok := lookupSpec(key)
	return ok && s.dynamic
}

// WithDynamic overlays the cluster-wide dynamic broker defaults (the config
// map of the znode /config/brokers/<default>) onto c, as Kafka's brokers
// overlay them onto server.properties. It is pure: c is not changed. Call it
// on the static Config (from Load) each time the znode changes, not on the
// previous result, so a key removed from the znode falls back to its static
// value.
//
// Only the dynamic keys (DynamicKeys) are applied. Other keys in m (Kafka
// stores broker settings such as log.retention.ms there too) are ignored.
//
// Each value is parsed and checked on its own. A bad one is skipped, keeping
// c's value for that key, and reported; like Kafka, which drops an invalid
// dynamic config from ZooKeeper with an error rather than refusing the rest.
// So the returned Config is always usable: it holds every valid value, and
// the error (nil, or *ValueErrors joined, in key order) lists the skipped
// ones for the caller to log.
func (c Config) WithDynamic(m map[string]string) (Config, error) {
	out := c
	var errs []*ValueError
	for _, s := range keySpecs() {
		raw, ok := m[s.name]
		if !ok || !s.dynamic {
			continue
		}
		trial := out
		if reason := s.apply(&trial, raw); reason != "" {
			errs = append(errs, &ValueError{Key: s.name, Value: raw, Reason: reason,
				Origin: "/config/brokers/<default>"})
			continue
		}
		out = trial
	}
	return out, joinValueErrors(errs)
}

// ValidateDynamic checks a map meant for /config/brokers/<default> before it
// is written (by `kzadmin configs --entity-default`): each of kzadmin's
// dynamic keys must hold a valid value, and kzadmin's static keys (node.id,
// zookeeper.connect, ...) are refused, since writing them there would do
// nothing. Keys kzadmin does not know pass: Kafka's brokers read their own
// dynamic defaults (log.retention.ms, ...) from the same znode.
func ValidateDynamic(m map[string]string) error {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var errs []*ValueError
	for _, k := range keys {
		s, known := lookupSpec(k)
		if !known {
			continue
		}
		if !s.dynamic {
			errs = append(errs, &ValueError{Key: k, Value: m[k], Reason: "cannot be changed at run time; " +
				"set it in the properties file (dynamic keys: " + strings.Join(DynamicKeys(), ", ") + ")"})
			continue
		}
		c := Default()
		if r := s.apply(&c, m[k]); r != "" {
			errs = append(errs, &ValueError{Key: k, Value: m[k], Reason: r})
		}
	}
	return joinValueErrors(errs)
}
