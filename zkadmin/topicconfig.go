package zkadmin

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kzadmin/kzadmin/config"
)

// ValidValues describes the values d accepts, as kafka-configs --help
// shows them: "[-1,...]", "[0,...,1]", "[compact, delete]".
func (d TopicConfigDef) ValidValues() string {
	switch {
	case len(d.enum) > 0:
		return "[" + strings.Join(d.enum, ", ") + "]"
	case d.min != nil && d.max != nil:
		return "[" + fmtBound(*d.min) + ",...," + fmtBound(*d.max) + "]"
	case d.min != nil:
		return "[" + fmtBound(*d.min) + ",...]"
	case d.Type == TypeBoolean:
		return "[true, false]"
	}
	return ""
}

func fmtBound(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// Validate checks one value as Kafka's ConfigDef does (parse by type, then
// the validator) and returns Kafka's message, "Invalid value x for
// configuration y: reason", or "".
func (d TopicConfigDef) Validate(v string) string {
	reason := d.reason(v)
	if reason == "" {
		return ""
	}
	shown := v
	if d.Type == TypeList && d.check != nil && d.check(v) == reason {
		// The throttled-replica lists, the only list configs with a check
		// of their own: Kafka's validator gets the parsed list, which the
		// message prints as Java does ("[a, b]"), and starts its reason
		// with the config's name.
		shown = "[" + strings.Join(splitList(v), ", ") + "]"
		reason = d.Name + " " + reason
	}
	return fmt.Sprintf("Invalid value %s for configuration %s: %s", shown, d.Name, reason)
}

// Canonical is a valid value as Kafka's DescribeConfigs and CreateTopics
// show it: parsed and printed again (ConfigDef.convertToString), so
// " 1000 " and "+1000" show as "1000", "TRUE" as "true", the double "1"
// as "1.0", and a list without the blanks around its commas. ZooKeeper
// keeps the value as given. A value that does not parse is returned as
// given.
func (d TopicConfigDef) Canonical(v string) string {
	t := config.JavaTrim(v)
	switch d.Type {
	case TypeBoolean:
		if strings.EqualFold(t, "true") || strings.EqualFold(t, "false") {
			return strings.ToLower(t)
		}
	case TypeInt, TypeLong:
		if n, ok := config.ParseJavaInteger(t, d.Type.bits()); ok {
			return strconv.FormatInt(n, 10)
		}
	case TypeDouble:
		if f, ok := config.ParseJavaDouble(t); ok {
			return config.FormatJavaDouble(f)
		}
	case TypeList:
		return strings.Join(splitList(v), ",")
	case TypeString:
		return t
	}
	return v
}

func (d TopicConfigDef) reason(v string) string {
	switch d.Type {
	case TypeBoolean:
		t := config.JavaTrim(v)
		if !strings.EqualFold(t, "true") && !strings.EqualFold(t, "false") {
			return "Expected value to be either true or false"
		}
	case TypeInt, TypeLong, TypeDouble:
		n, ok := parseNumber(d.Type, v)
		if !ok {
			return "Not a number of type " + d.Type.String()
		}
		if d.min != nil && n < *d.min {
			return "Value must be at least " + fmtBound(*d.min)
		}
		if d.max != nil && n > *d.max {
			return "Value must be no more than " + fmtBound(*d.max)
		}
	case TypeString:
		if len(d.enum) > 0 && !contains(d.enum, config.JavaTrim(v)) {
			return "String must be one of: " + strings.Join(d.enum, ", ")
		}
	case TypeList:
		for _, item := range splitList(v) {
			if len(d.enum) > 0 && !contains(d.enum, item) {
				return "String must be one of: " + strings.Join(d.enum, ", ")
			}
		}
	}
	if d.check != nil {
		return d.check(v)
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ValidateTopicConfig checks a topic's complete set of overrides as Kafka's
// LogConfig.validate does: every name must be a topic config ("Unknown
// topic config name: x"), every value must parse and pass its validator,
// and the values must agree with each other (min.compaction.lag.ms <=
// max.compaction.lag.ms; with remote storage, no compaction and local
// retention within total retention). Missing keys take Kafka's defaults.
// The error is an *AdminError of KindInvalidConfig.
func ValidateTopicConfig(topic string, cfg map[string]string) error {
	names := make([]string, 0, len(cfg))
	for k := range cfg {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		d, ok := LookupTopicConfig(k)
		if !ok {
			return adminErr(KindInvalidConfig, topic, "Unknown topic config name: %s", k)
		}
		if msg := d.Validate(cfg[k]); msg != "" {
			return adminErr(KindInvalidConfig, topic, "%s", msg)
		}
	}
	if msg := crossCheck(cfg); msg != "" {
		return adminErr(KindInvalidConfig, topic, "%s", msg)
	}
	return nil
}

// value returns the effective value of a validated key.
func value(cfg map[string]string, name string) string {
	if v, ok := cfg[name]; ok {
		return config.JavaTrim(v)
	}
	d, _ := LookupTopicConfig(name)
	return d.Default
}

func longValue(cfg map[string]string, name string) int64 {
	return javaLong(value(cfg, name))
}

// crossCheck is LogConfig.validateValues and, for tiered topics,
// validateTopicLogConfigValues, with Kafka's messages.
func crossCheck(cfg map[string]string) string {
	minLag, maxLag := longValue(cfg, "min.compaction.lag.ms"), longValue(cfg, "max.compaction.lag.ms")
	if minLag > maxLag {
		return fmt.Sprintf("conflict topic config setting min.compaction.lag.ms (%d) > max.compaction.lag.ms (%d)", minLag, maxLag)
	}
	if !strings.EqualFold(value(cfg, "remote.storage.enable"), "true") {
		return ""
	}
	if contains(splitList(value(cfg, "cleanup.policy")), "compact") {
		return "Remote log storage is unsupported for the compacted topics"
	}
	for _, pair := range [][2]string{{"local.retention.ms", "retention.ms"}, {"local.retention.bytes", "retention.bytes"}} {
		local, total := longValue(cfg, pair[0]), longValue(cfg, pair[1])
		if local != -2 && total != -1 && local > total {
			return fmt.Sprintf("Invalid value %d for configuration %s: Value must not be more than %s property value: %d",
				local, pair[0], pair[1], total)
		}
	}
	return ""
}
