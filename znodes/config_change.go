package znodes

import (
	"fmt"
	"strings"
)

// ConfigChangeNotificationVersion is the version Encode writes.
const ConfigChangeNotificationVersion = 2

// ConfigChangeNotification is the payload of
// /config/changes/config_change_<seq>. It only says "re-read this entity";
// the config itself is always read from the entity znode.
//
// Version 2 (all 3.x writers): {"version":2,"entity_path":"<type>/<name>"}.
// Version 1 (legacy, read only):
// {"version":1,"entity_type":"topics"|"clients","entity_name":"<name>"}.
type ConfigChangeNotification struct {
	// Version is what was read (1 or 2); Encode always writes 2.
	Version int32
	// EntityType is one of the Entity* constants.
	EntityType string
	// EntityName is the sanitized entity name, e.g. "orders",
	// "<default>", or "alice/clients/app-1" for a user+client entity.
	EntityName string
}

// NewConfigChangeNotification builds the notification written after a
// change to /config/<entityType>/<sanitizedEntityName>.
func NewConfigChangeNotification(entityType, sanitizedEntityName string) ConfigChangeNotification {
	return ConfigChangeNotification{
		Version:    ConfigChangeNotificationVersion,
		EntityType: entityType,
		EntityName: sanitizedEntityName,
	}
}

// EntityPath returns "<type>/<name>", the version 2 entity_path.
func (n ConfigChangeNotification) EntityPath() string { return n.EntityType + "/" + n.EntityName }

// ConfigEntityPath returns the path of the entity znode to re-read.
func (n ConfigChangeNotification) ConfigEntityPath() string {
	return ConfigEntityPath(n.EntityType, n.EntityName)
}

// DecodeConfigChangeNotification decodes one change notification. child is
// the znode's name (e.g. "config_change_0000000003"), used only in error
// messages ("" when unknown). Kafka's checks apply: version 1 or 2; version
// 1 names a topics or clients entity; version 2's entity_path starts with a
// known entity type and a '/'. Brokers log and skip notifications that fail.
func DecodeConfigChangeNotification(child string, data []byte) (ConfigChangeNotification, error) {
	d := decoder{znode: notificationZnode(ConfigChangesPath, ConfigChangePrefix, child)}
	var n ConfigChangeNotification
	f, err := d.parse(data)
	if err != nil {
		return n, err
	}
	if n.Version, err = d.requiredInt32(f, "", "version"); err != nil {
		return n, err
	}
	switch n.Version {
	case 1:
		err = d.configChangeV1(f, &n)
	case 2:
		err = d.configChangeV2(f, &n)
	default:
		err = d.fail(sub("", "version"), "config change notification has an unsupported version %d", n.Version)
	}
	return n, err
}

func (d decoder) configChangeV1(f fields, n *ConfigChangeNotification) error {
	t, ok, err := d.optionalString(f, "", "entity_type")
	if err != nil {
		return err
	}
	if !ok || (t != EntityTopics && t != EntityClients) {
		return d.fail(sub("", "entity_type"), "version 1 config change notification must have 'entity_type' set to 'clients' or 'topics'")
	}
	name, ok, err := d.optionalString(f, "", "entity_name")
	if err != nil {
		return err
	}
	if !ok {
		return d.fail(sub("", "entity_name"), "version 1 config change notification does not specify 'entity_name'")
	}
	n.EntityType, n.EntityName = t, name
	return nil
}

func (d decoder) configChangeV2(f fields, n *ConfigChangeNotification) error {
	p, ok, err := d.optionalString(f, "", "entity_path")
	if err != nil {
		return err
	}
	if !ok {
		return d.fail(sub("", "entity_path"), "version 2 config change notification must specify 'entity_path'")
	}
	t, name, err := SplitEntityPath(p)
	if err != nil {
		return d.fail(sub("", "entity_path"), "%v", err)
	}
	n.EntityType, n.EntityName = t, name
	return nil
}

// SplitEntityPath splits a version 2 entity_path "<type>/<name>" at its
// first '/' and checks the type is one Kafka brokers handle.
func SplitEntityPath(entityPath string) (entityType, entityName string, err error) {
	t, name, found := strings.Cut(entityPath, "/")
	if !found || !contains(ConfigEntityTypes(), t) {
		return "", "", fmt.Errorf("entity_path %q must start with one of 'topics', 'clients', 'users', 'brokers', 'ips' and a '/'", clip(entityPath))
	}
	return t, name, nil
}

// Encode writes {"version":2,"entity_path":"<type>/<name>"}. An entity type
// Kafka brokers would reject is an error.
func (n ConfigChangeNotification) Encode() ([]byte, error) {
	if !contains(ConfigEntityTypes(), n.EntityType) {
		return nil, fmt.Errorf("encode %s<seq>: unknown entity type %q", ConfigChangeSequencePath, n.EntityType)
	}
	var w jsonWriter
	w.beginObject()
	w.intField("version", ConfigChangeNotificationVersion)
	w.strField("entity_path", n.EntityPath())
	w.endObject()
	return w.bytes(), nil
}
