package znodes

import (
	"fmt"
	"strings"
)

// ACL pattern types (Kafka's PatternType enum names). Literal patterns are
// stored under /kafka-acl, all others under /kafka-acl-extended.
const (
	PatternLiteral  = "LITERAL"
	PatternPrefixed = "PREFIXED"
)

// ACLEntry is one access control entry of a resource znode.
type ACLEntry struct {
	// Principal is "<type>:<name>", e.g. "User:alice".
	Principal string
	// PermissionType is PascalCase: "Allow" or "Deny".
	PermissionType string
	// Operation is PascalCase: "Read", "Write", "IdempotentWrite", ...
	Operation string
	// Host is the client host, "*" for any.
	Host string
}

// ResourceACLs is the payload of an ACL resource znode
// (/kafka-acl/<Type>/<name> or /kafka-acl-extended/<pattern>/<Type>/<name>):
// {"version":1,"acls":[{"principal":..,"permissionType":..,"operation":..,"host":..}]}.
// Updates are conditional on the znode's Stat.version.
type ResourceACLs struct {
	ACLs []ACLEntry
}

// DecodeResourceACLs decodes an ACL resource znode at path (used in errors).
// As in Kafka, null or zero-length data means no ACLs, the version must be
// 1, and each entry needs the four string fields, with a principal of the
// form "<type>:<name>".
func DecodeResourceACLs(path string, data []byte) (ResourceACLs, error) {
	d := decoder{znode: path}
	var r ResourceACLs
	if len(data) == 0 {
		return r, nil
	}
	f, err := d.parse(data)
	if err != nil {
		return r, err
	}
	version, err := d.requiredInt32(f, "", "version")
	if err != nil {
		return r, err
	}
	if version != 1 {
		return r, d.fail(sub("", "version"), "unsupported ACL version %d", version)
	}
	raw, err := d.required(f, "", "acls")
	if err != nil {
		return r, err
	}
	elems, err := d.array(sub("", "acls"), raw)
	if err != nil {
		return r, err
	}
	for i, e := range elems {
		entry, err := d.aclEntry(idx(sub("", "acls"), i), e)
		if err != nil {
			return r, err
		}
		r.ACLs = append(r.ACLs, entry)
	}
	return r, nil
}

func (d decoder) aclEntry(at string, raw []byte) (ACLEntry, error) {
	var e ACLEntry
	f, err := d.object(at, raw)
	if err != nil {
		return e, err
	}
	for _, field := range []struct {
		key string
		dst *string
	}{{"principal", &e.Principal}, {"permissionType", &e.PermissionType},
		{"operation", &e.Operation}, {"host", &e.Host}} {
		if *field.dst, err = d.requiredString(f, at, field.key); err != nil {
			return e, err
		}
	}
	if typ, _, ok := strings.Cut(e.Principal, ":"); !ok || typ == "" {
		return e, d.fail(sub(at, "principal"), "want \"<type>:<name>\", got %q", clip(e.Principal))
	}
	return e, nil
}

// Encode writes version 1 with entries in the given order.
func (r ResourceACLs) Encode() ([]byte, error) {
	var w jsonWriter
	w.beginObject()
	w.intField("version", 1)
	w.key("acls")
	w.beginArray()
	for _, e := range r.ACLs {
		if typ, _, ok := strings.Cut(e.Principal, ":"); !ok || typ == "" {
			return nil, fmt.Errorf("encode ACLs: principal %q is not \"<type>:<name>\"", e.Principal)
		}
		w.beginObject()
		w.strField("principal", e.Principal)
		w.strField("permissionType", e.PermissionType)
		w.strField("operation", e.Operation)
		w.strField("host", e.Host)
		w.endObject()
	}
	w.endArray()
	w.endObject()
	return w.bytes(), nil
}

// ACLChange is the resource named by an ACL change notification.
type ACLChange struct {
	// ResourceType is Kafka's ResourceType enum name, e.g. "TOPIC".
	ResourceType string
	Name         string
	// PatternType is PatternLiteral for /kafka-acl-changes notifications.
	PatternType string
}

// DecodeLiteralACLChange decodes a /kafka-acl-changes/acl_changes_<seq>
// notification: plain text "<RESOURCE_TYPE>:<name>", split at the first ':'.
func DecodeLiteralACLChange(data []byte) (ACLChange, error) {
	d := decoder{znode: ACLChangeSequencePath + "<seq>"}
	typ, name, ok := strings.Cut(string(data), ":")
	if !ok {
		return ACLChange{}, d.fail("", "expected a string in format ResourceType:ResourceName but got %q", clip(string(data)))
	}
	return ACLChange{ResourceType: typ, Name: name, PatternType: PatternLiteral}, nil
}

// EncodeLiteralACLChange writes "<RESOURCE_TYPE>:<name>".
func EncodeLiteralACLChange(c ACLChange) []byte { return []byte(c.ResourceType + ":" + c.Name) }

// DecodeExtendedACLChange decodes a /kafka-acl-extended-changes notification:
// {"version":1,"resourceType":"TOPIC","name":"foo-","patternType":"PREFIXED"}.
// Kafka parses it with Jackson databind, so unknown keys are rejected.
func DecodeExtendedACLChange(data []byte) (ACLChange, error) {
	d := decoder{znode: ExtendedACLChangeSequencePath + "<seq>"}
	var c ACLChange
	f, err := d.parse(data)
	if err != nil {
		return c, err
	}
	if err := d.rejectUnknown(f, "", "version", "resourceType", "name", "patternType"); err != nil {
		return c, err
	}
	version, err := d.optionalInt32(f, "", "version", 0)
	if err != nil {
		return c, err
	}
	if version > 1 {
		return c, d.fail(sub("", "version"), "ACL change event received for unsupported version %d", version)
	}
	if c.ResourceType, err = d.requiredString(f, "", "resourceType"); err != nil {
		return c, err
	}
	if c.Name, err = d.requiredString(f, "", "name"); err != nil {
		return c, err
	}
	c.PatternType, err = d.requiredString(f, "", "patternType")
	return c, err
}

// EncodeExtendedACLChange writes the version 1 extended change event.
func EncodeExtendedACLChange(c ACLChange) []byte {
	var w jsonWriter
	w.beginObject()
	w.intField("version", 1)
	w.strField("resourceType", c.ResourceType)
	w.strField("name", c.Name)
	w.strField("patternType", c.PatternType)
	w.endObject()
	return w.bytes()
}
