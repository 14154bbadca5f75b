package zkadmin

import (
	"sort"
	"strings"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/security/scram"
	"github.com/kzadmin/kzadmin/znodes"
)

// User entities (/config/users/<sanitized user>) hold a user's SCRAM
// credentials and quotas, as Kafka's AdminZkClient.changeUserOrUserClientIdConfig
// writes them: the entity name is sanitized (URL-encoded, '*' as %2A) in
// the path and in the change notification's entity_path, and the config is
// checked against DynamicConfig.User (SCRAM mechanisms plus the user and
// client quotas) or, for <default>, DynamicConfig.Client (quotas only).
// The SCRAM values are stored credentials
// ("salt=...,stored_key=...,server_key=...,iterations=..."), never
// passwords: the caller derives them (scram.ParsePasswordSpec), as
// kafka-configs does before it writes.

// userQuotaType returns the type of a user or client quota config Kafka
// allows on a user entity.
func userQuotaType(k string) (string, bool) {
	switch k {
	case "producer_byte_rate", "consumer_byte_rate":
		return "LONG", true
	case "request_percentage", "controller_mutation_rate":
		return "DOUBLE", true
	}
	return "", false
}

// UserConfigNames lists the config names a user entity takes, sorted.
func UserConfigNames() []string {
	names := []string{"consumer_byte_rate", "controller_mutation_rate", "producer_byte_rate", "request_percentage"}
	for _, m := range scram.Mechanisms() {
		names = append(names, m.Name())
	}
	sort.Strings(names)
	return names
}

// entityZNodeName is the name under /config/<type>/ of req's entity:
// user, client id and IP names are sanitized as Kafka's Sanitizer does;
// <default> and the other types' names are used as they are.
func entityZNodeName(entityType, name string) string {
	quota := entityType == znodes.EntityUsers || entityType == znodes.EntityClients || entityType == znodes.EntityIPs
	if quota && name != znodes.DefaultEntityName {
		return znodes.SanitizeEntityName(name)
	}
	return name
}

// ValidateUserConfig checks a user entity's complete config: only SCRAM
// credentials (not for <default>) and the quota configs, each value of its
// type. A SCRAM value must be a stored credential, so that a password
// handed over by mistake is refused rather than stored where brokers
// would fail to read it.
func ValidateUserConfig(name string, cfg map[string]string) error {
	resource := znodes.EntityUsers + " " + name
	for _, k := range sortedKeys(cfg) {
		v := cfg[k]
		if m, ok := scram.MechanismByName(k); ok {
			if name == znodes.DefaultEntityName {
				return adminErr(KindInvalidConfig, resource, "Unknown Dynamic Configuration '%s' (SCRAM credentials "+
					"belong to a named user, not <default>)", k)
			}
			if _, err := scram.ParseCredential(v); err != nil {
				return adminErr(KindInvalidConfig, resource, "%s: %v (want a stored credential; kzadmin configs derives "+
					"one from [iterations=<n>,]password=<password>)", m, err)
			}
			continue
		}
		typ, ok := userQuotaType(k)
		if !ok {
			return adminErr(KindInvalidConfig, resource, "Unknown Dynamic Configuration '%s'. Valid for users: %s",
				k, strings.Join(UserConfigNames(), ", "))
		}
		if !parsesAs(typ, v) {
			return adminErr(KindInvalidConfig, resource, "Invalid value %s for configuration %s: Not a number of type %s", v, k, typ)
		}
	}
	return nil
}

// parsesAs reports whether v parses as Kafka's ConfigDef type typ (LONG or
// DOUBLE), as Java parses it once trimmed.
func parsesAs(typ, v string) bool {
	if typ == "LONG" {
		_, ok := config.ParseJavaInteger(v, 64)
		return ok
	}
	_, ok := config.ParseJavaDouble(v)
	return ok
}
