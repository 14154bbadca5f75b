package config

// Setting is one of kzadmin's keys in a Config, as a Kafka broker
// describes its own configuration (DescribeConfigs of its own id).
type Setting struct {
	Name string
	// Value is the key's value as a properties file spells it; "" when
	// unset (a security key not given, say).
	Value string
	// Default is the value in Default().
	Default string
	// Static reports a value given at start-up (in the file, the
	// environment or a flag, or otherwise unlike the default) rather than
	// left at its default.
	Static bool
	// Sensitive values (passwords, private keys, JAAS configurations,
	// the ZooKeeper digest) must never be shown.
	Sensitive bool
	// Dynamic keys are overridable in /config/brokers.
	Dynamic bool
	// Type is the key's Kafka ConfigDef type: BOOLEAN, STRING, SHORT, INT,
	// LONG, LIST or PASSWORD.
	Type string
}

// Settings lists every key c knows, in documentation order. A key is
// static when its value differs from the default, or when sources (which
// layer set each key, Loaded.Sources; may be nil) says it was given, even
// at its default, as a Kafka broker counts a key in its server.properties.
func (c Config) Settings(sources map[string]Source) []Setting {
	def := Default()
	specs := keySpecs()
	out := make([]Setting, len(specs))
	for i, s := range specs {
		v, d := s.get(c), s.get(def)
		static := v != d || sources[s.name] != SourceDefault
		typ := s.typ
		if typ == "" {
			typ = "STRING"
		}
		out[i] = Setting{Name: s.name, Value: v, Default: d, Static: static,
			Sensitive: isSensitiveKey(s.name), Dynamic: s.dynamic, Type: typ}
	}
	return out
}
