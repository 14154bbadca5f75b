package znodes

import (
	"encoding/json"
	"fmt"
	"net/url"
	"unicode/utf8"
)

// EntityConfig is the payload of /config/<type>/<name> (topics, brokers,
// clients, users, ips, users/<u>/clients/<c>): {"version":1,"config":{...}}.
// The node always holds the complete set of overrides; writes replace it.
type EntityConfig struct {
	// Version is what was read; Encode always writes 1.
	Version int32
	// Config maps config name to value. Every value is a JSON string in
	// ZooKeeper, numbers included. nil when there are no overrides.
	Config map[string]string
	// Unknown holds top-level fields this package does not know.
	Unknown map[string]json.RawMessage
}

func configKnownFields() []string { return []string{"version", "config"} }

// DecodeEntityConfig decodes a config entity znode; entityType and
// entityName name the znode in errors.
//
// Like Kafka, it reads null or zero-length data, a JSON value that is not an
// object, and a missing, null or non-object "config" as "no overrides". A
// config value that is not a string is an error (Kafka throws on it).
// Unparsable JSON is reported as a *DecodeError although Kafka also treats
// it as no overrides; callers that want Kafka's leniency may ignore it.
func DecodeEntityConfig(entityType, entityName string, data []byte) (EntityConfig, error) {
	d := decoder{znode: ConfigEntityPath(entityType, entityName)}
	var c EntityConfig
	if len(data) == 0 {
		return c, nil
	}
	if utf8.Valid(data) && json.Valid(data) && kindOf(data) != kindObject {
		return c, nil
	}
	f, err := d.parse(data)
	if err != nil {
		return c, err
	}
	if c.Version, err = d.optionalInt32(f, "", "version", 0); err != nil {
		return c, err
	}
	if raw, ok := optional(f, "config"); ok && kindOf(raw) == kindObject {
		if c.Config, err = d.stringMap(sub("", "config"), raw); err != nil {
			return c, err
		}
	}
	c.Unknown = unknownFields(f, configKnownFields()...)
	return c, nil
}

// Encode writes {"version":1,"config":{...}} with config keys sorted (Kafka's
// own order comes from a Java hash map and is not significant).
func (c EntityConfig) Encode() ([]byte, error) {
	var w jsonWriter
	w.beginObject()
	w.intField("version", 1)
	w.key("config")
	w.stringMap(c.Config)
	if err := w.unknown("/config/<type>/<name>", c.Unknown, configKnownFields()...); err != nil {
		return nil, err
	}
	w.endObject()
	return w.bytes(), nil
}

// SanitizeEntityName encodes a user principal or client id for use as a
// znode name, as Kafka's Sanitizer.sanitize does: URL-encode the UTF-8 bytes,
// then write '*' as %2A and space as %20. In effect every byte other than
// ASCII letters, digits, '.', '-' and '_' becomes %XX (upper-case hex).
// Example: "CN=alice,O=Acme" becomes "CN%3Dalice%2CO%3DAcme". The default
// entity "<default>" is never sanitized; pass DefaultEntityName verbatim.
func SanitizeEntityName(name string) string {
	const hex = "0123456789ABCDEF"
	out := make([]byte, 0, len(name))
	for i := 0; i < len(name); i++ {
		c := name[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-' || c == '_' {
			out = append(out, c)
			continue
		}
		out = append(out, '%', hex[c>>4], hex[c&0xF])
	}
	return string(out)
}

// DesanitizeEntityName reverses SanitizeEntityName as Kafka's
// Sanitizer.desanitize (URLDecoder) does: %XX sequences are decoded and '+'
// becomes a space.
func DesanitizeEntityName(sanitized string) (string, error) {
	s, err := url.QueryUnescape(sanitized)
	if err != nil {
		return "", fmt.Errorf("desanitize entity name %q: %w", clip(sanitized), err)
	}
	return s, nil
}
