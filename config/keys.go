package config

import (
	"math"
	"time"
)

// keySpec describes one config key: how to read it into a Config, how to
// render it back, and what values are allowed.
type keySpec struct {
	name    string
	doc     string
	dynamic bool
	// prop marks a security key held as given in Config.Props.
	prop bool
	// typ is the key's Kafka ConfigDef type ("INT", "BOOLEAN", ...); ""
	// is STRING.
	typ string
	// get renders the key's value in c the way a properties file spells it.
	get func(c Config) string
	// set parses s into c. Its error is the reason only ("must be ...").
	set func(c *Config, s string) error
	// check returns the reason the key's value in c is refused, or "".
	// It sees the whole Config for rules such as "required outside dev".
	check func(c Config) string
}

// KeyInfo describes a key for help texts and docs.
type KeyInfo struct {
	Name    string // Kafka's key, e.g. "zookeeper.connect"
	Env     string // its environment variable, e.g. "KZADMIN_ZOOKEEPER_CONNECT"
	Doc     string
	Default string // the value in Default(), as a properties file spells it
	Dynamic bool   // overridable in /config/brokers/<default>
}

// Keys describes every key Config knows, in documentation order.
func Keys() []KeyInfo {
	def := Default()
	specs := keySpecs()
	out := make([]KeyInfo, len(specs))
	for i, s := range specs {
		out[i] = KeyInfo{Name: s.name, Env: EnvName(s.name), Doc: s.doc, Default: s.get(def), Dynamic: s.dynamic}
	}
	return out
}

// KeyDoc returns the documentation of a key Config knows.
func KeyDoc(name string) (string, bool) {
	s, ok := lookupSpec(name)
	return s.doc, ok
}

// apply parses raw into c and checks it, returning the reason it is refused
// or "".
func (s keySpec) apply(c *Config, raw string) string {
	if err := s.set(c, raw); err != nil {
		return err.Error()
	}
	if s.check != nil {
		return s.check(*c)
	}
	return ""
}

// lookupSpec returns the spec of a key.
func lookupSpec(name string) (keySpec, bool) {
	for _, s := range keySpecs() {
		if s.name == name {
			return s, true
		}
	}
	return keySpec{}, false
}

func boolKey(name, doc string, dynamic bool, field func(*Config) *bool) keySpec {
	return keySpec{
		name: name, doc: doc, dynamic: dynamic, typ: "BOOLEAN",
		get: func(c Config) string {
			if *field(&c) {
				return "true"
			}
			return "false"
		},
		set: func(c *Config, s string) error {
			b, err := parseBool(s)
			*field(c) = b
			return err
		},
	}
}

func int32Key(name, doc string, dynamic bool, min, max int64, field func(*Config) *int32) keySpec {
	return keySpec{
		name: name, doc: doc, dynamic: dynamic, typ: "INT",
		get: func(c Config) string { return formatInt(int64(*field(&c))) },
		set: func(c *Config, s string) error {
			n, err := parseInt(s, 32)
			if err != nil {
				return err
			}
			*field(c) = int32(n)
			return nil
		},
		check: func(c Config) string {
			if n := int64(*field(&c)); n < min || n > max {
				return rangeReason(n, min, max)
			}
			return ""
		},
	}
}

// durationKey is a key counted in unit (ms or s) held as a time.Duration.
// bits is Kafka's type width: 32 for INT keys, 64 for LONG ones (capped so
// the Duration cannot overflow).
func durationKey(name, doc string, dynamic bool, unit time.Duration, bits int, min int64,
	field func(*Config) *time.Duration) keySpec {
	max, typ := int64(math.MaxInt32), "INT"
	if bits == 64 {
		max, typ = math.MaxInt64/int64(unit), "LONG"
	}
	return keySpec{
		name: name, doc: doc, dynamic: dynamic, typ: typ,
		get: func(c Config) string { return formatDuration(*field(&c), unit) },
		set: func(c *Config, s string) error {
			n, err := parseInt(s, bits)
			if err != nil {
				return err
			}
			if n > max {
				return errorf("must be at most %d", max)
			}
			*field(c) = time.Duration(n) * unit
			return nil
		},
		check: func(c Config) string {
			n := int64(*field(&c) / unit)
			if n < min || n > max {
				return rangeReason(n, min, max)
			}
			return ""
		},
	}
}

// keySpecs lists every key in documentation order. It is a function so the
// table cannot be changed at run time.
func keySpecs() []keySpec {
	var specs []keySpec
	specs = append(specs, identityKeys()...)
	specs = append(specs, zooKeeperKeys()...)
	specs = append(specs, listenerKeys()...)
	specs = append(specs, securityKeys()...)
	specs = append(specs, zooKeeperTLSKeys()...)
	specs = append(specs, tokenKeys()...)
	specs = append(specs, quotaKeys()...)
	specs = append(specs, topicKeys()...)
	specs = append(specs, leaderKeys()...)
	specs = append(specs, serviceKeys()...)
	return specs
}
