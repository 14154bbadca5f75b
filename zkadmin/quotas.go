package zkadmin

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/kzadmin/kzadmin/config"
	"github.com/kzadmin/kzadmin/security/scram"
	"github.com/kzadmin/kzadmin/znodes"
)

// Client quotas as Kafka's ZooKeeper-mode brokers keep them for
// DescribeClientQuotas and AlterClientQuotas (ZkAdminManager):
//
//	user               /config/users/<sanitized user>
//	client id          /config/clients/<sanitized client id>
//	user and client id /config/users/<sanitized user>/clients/<sanitized client id>
//	ip                 /config/ips/<sanitized ip>
//
// Any name may be the <default> entity. This file is the pure part: which
// znode an entity is, what an alteration makes of its config, and which
// entities a filter selects. admin_quotas.go reads and writes.

// The quota entity types, as the wire and ClientQuotaEntity name them.
const (
	QuotaUser     = "user"
	QuotaClientID = "client-id"
	QuotaIP       = "ip"
)

// ipConnectionRate is the one quota an IP entity takes (an INT, at least 0).
const ipConnectionRate = "connection_creation_rate"

// QuotaEntityPart is one type and name of a quota entity. Default is the
// <default> entity, a null name on the wire.
type QuotaEntityPart struct {
	Type    string
	Name    string
	Default bool
}

// QuotaEntity is a client quota entity: a user, a client id, both, or an
// IP. Describe answers list the user before the client id.
type QuotaEntity []QuotaEntityPart

// String names the entity for messages, e.g. "user=alice,client-id=<default>".
func (e QuotaEntity) String() string {
	parts := make([]string, len(e))
	for i, p := range e {
		n := p.Name
		if p.Default {
			n = znodes.DefaultEntityName
		}
		parts[i] = p.Type + "=" + n
	}
	return strings.Join(parts, ",")
}

// QuotaChange sets one quota (Value) or removes it (Remove).
type QuotaChange struct {
	Key    string
	Value  float64
	Remove bool
}

// quotaLocation is where an entity's quotas live: /config/<entityType>/<name>,
// name sanitized ("<u>/clients/<c>" for a user and client id).
type quotaLocation struct {
	entityType string
	name       string
	// userClient: a user and client id; namedUser: a user other than
	// <default> alone, the one entity that may also hold SCRAM credentials.
	userClient, namedUser bool
	ip                    bool
}

// quotaLocationOf is where a users, clients or ips entity named znodeName
// (sanitized) lives; quota is false for the other entity types.
func quotaLocationOf(entityType, znodeName string) (l quotaLocation, quota bool) {
	l = quotaLocation{entityType: entityType, name: znodeName}
	switch entityType {
	case znodes.EntityUsers:
		l.namedUser = znodeName != znodes.DefaultEntityName
	case znodes.EntityIPs:
		l.ip = true
	case znodes.EntityClients:
	default:
		return l, false
	}
	return l, true
}

// path is the entity's config znode.
func (l quotaLocation) path() string { return znodes.ConfigEntityPath(l.entityType, l.name) }

// sanitizedQuotaName is how Kafka names an entity's znode: <default>, or the
// name sanitized.
func sanitizedQuotaName(p QuotaEntityPart) string {
	if p.Default {
		return znodes.DefaultEntityName
	}
	return znodes.SanitizeEntityName(p.Name)
}

// locateQuotaEntity checks an entity as ZkAdminManager does and says where
// its quotas live. A type given twice counts once, the last one winning, as
// in the map Kafka builds from the request.
func locateQuotaEntity(e QuotaEntity) (quotaLocation, error) {
	resource := e.String()
	if len(e) == 0 {
		return quotaLocation{}, adminErr(KindInvalidRequest, resource, "Invalid empty client quota entity")
	}
	var user, client, ip *QuotaEntityPart
	for i := range e {
		p := &e[i]
		switch p.Type {
		case QuotaUser:
			user = p
		case QuotaClientID:
			client = p
		case QuotaIP:
			ip = p
		default:
			return quotaLocation{}, adminErr(KindInvalidRequest, resource, "Unhandled client quota entity type: %s", p.Type)
		}
		if !p.Default && p.Name == "" {
			return quotaLocation{}, adminErr(KindInvalidRequest, resource, "Empty %s not supported", p.Type)
		}
	}
	switch {
	case ip != nil && (user != nil || client != nil):
		return quotaLocation{}, adminErr(KindInvalidRequest, resource,
			"Invalid quota entity combination, IP entity should not be used with user/client ID entity.")
	case ip != nil:
		return quotaLocation{entityType: znodes.EntityIPs, name: sanitizedQuotaName(*ip), ip: true}, nil
	case user != nil && client != nil:
		return quotaLocation{entityType: znodes.EntityUsers, userClient: true,
			name: znodes.UserClientEntityName(sanitizedQuotaName(*user), sanitizedQuotaName(*client))}, nil
	case user != nil:
		return quotaLocation{entityType: znodes.EntityUsers, name: sanitizedQuotaName(*user), namedUser: !user.Default}, nil
	default:
		return quotaLocation{entityType: znodes.EntityClients, name: sanitizedQuotaName(*client)}, nil
	}
}

// quotaKeyType is Kafka's ConfigDef type of a quota an entity at l takes.
func quotaKeyType(l quotaLocation, key string) (string, bool) {
	if l.ip {
		return "INT", key == ipConnectionRate
	}
	return userQuotaType(key)
}

// applyQuotaChanges returns before with changes applied in order, each
// value stored as Kafka stores it: a DOUBLE as Java prints it, a LONG or
// INT as an integer, refused when the value is not one (within 1e-6).
// before is not modified.
func applyQuotaChanges(l quotaLocation, resource string, before map[string]string, changes []QuotaChange) (map[string]string, error) {
	after := make(map[string]string, len(before)+len(changes))
	for k, v := range before {
		after[k] = v
	}
	for _, c := range changes {
		if c.Remove {
			delete(after, c.Key)
			continue
		}
		typ, ok := quotaKeyType(l, c.Key)
		if !ok {
			msg := "Invalid configuration key " + c.Key
			if _, isScram := scram.MechanismByName(c.Key); isScram && l.entityType == znodes.EntityUsers {
				// Kafka fails here with an internal error (the key is a
				// STRING config); say what to use instead.
				msg += ": SCRAM credentials are set with AlterUserScramCredentials, not as a quota"
			}
			return nil, adminErr(KindInvalidRequest, resource, "%s", msg)
		}
		switch typ {
		case "DOUBLE":
			after[c.Key] = config.FormatJavaDouble(c.Value)
		default:
			const epsilon = 1e-6
			n := javaCast(c.Value+epsilon, math.MinInt64, math.MaxInt64)
			if typ == "INT" {
				n = javaCast(c.Value+epsilon, math.MinInt32, math.MaxInt32)
			}
			if math.Abs(float64(n)-c.Value) > epsilon || math.IsNaN(c.Value) {
				return nil, adminErr(KindInvalidRequest, resource, "Configuration %s must be a %s value", c.Key, typ)
			}
			after[c.Key] = fmt.Sprint(n)
		}
	}
	return after, nil
}

// javaCast converts as Java's (long) and (int) casts do, to the range
// [lo, hi] of the target type: NaN is 0 and values beyond it saturate.
func javaCast(f float64, lo, hi int64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= float64(hi):
		return hi
	case f <= float64(lo):
		return lo
	}
	return int64(f)
}

// validateQuotaConfig checks an entity's complete config before it is
// written, as Kafka's DynamicConfig validation does: every key one the
// entity takes (a named user also holds SCRAM credentials, which are left
// as they are), and every quota value of its type. Kafka answers these
// with an internal error; they can only come from a znode someone else
// wrote, and kzadmin refuses to rewrite it rather than drop the key.
func validateQuotaConfig(l quotaLocation, resource string, cfg map[string]string) error {
	for _, k := range sortedKeys(cfg) {
		v := cfg[k]
		if _, isScram := scram.MechanismByName(k); isScram && l.namedUser {
			continue
		}
		typ, ok := quotaKeyType(l, k)
		if !ok {
			return adminErr(KindInvalidConfig, resource, "%s holds %q, which is not a quota of this entity; "+
				"remove it before altering the entity's quotas", l.path(), k)
		}
		if typ == "INT" {
			n, ok := config.ParseJavaInteger(v, 32)
			if !ok {
				return adminErr(KindInvalidConfig, resource, "Invalid value %s for configuration %s: Not a number of type INT", v, k)
			}
			if n < 0 {
				return adminErr(KindInvalidConfig, resource, "Invalid value %s for configuration %s: Value must be at least 0", v, k)
			}
			continue
		}
		if !parsesAs(typ, v) {
			return adminErr(KindInvalidConfig, resource, "Invalid value %s for configuration %s: Not a number of type %s", v, k, typ)
		}
	}
	return nil
}

// QuotaMatch says what a filter component matches.
type QuotaMatch int8

// The match kinds, with the wire's codes.
const (
	QuotaMatchExact   QuotaMatch = 0 // the entity named Name
	QuotaMatchDefault QuotaMatch = 1 // the <default> entity
	QuotaMatchAny     QuotaMatch = 2 // any entity of the type, <default> included
)

// QuotaFilterComponent restricts one entity type.
type QuotaFilterComponent struct {
	EntityType string
	Match      QuotaMatch
	Name       string // for QuotaMatchExact
}

// QuotaFilter selects entities: each component restricts its type; with
// Strict, entities with a type no component names are left out.
type QuotaFilter struct {
	Components []QuotaFilterComponent
	Strict     bool
}

// QuotaEntry is one entity's quotas.
type QuotaEntry struct {
	Entity QuotaEntity
	Values map[string]float64
}

// quotaFilterPlan is a checked filter: the component of each type (nil
// when absent).
type quotaFilterPlan struct {
	user, client, ip *QuotaFilterComponent
	strict           bool
}

// planQuotaFilter checks a filter as ZkAdminManager does.
func planQuotaFilter(f QuotaFilter) (quotaFilterPlan, error) {
	p := quotaFilterPlan{strict: f.Strict}
	for i := range f.Components {
		c := &f.Components[i]
		var slot **QuotaFilterComponent
		switch c.EntityType {
		case QuotaUser:
			slot = &p.user
		case QuotaClientID:
			slot = &p.client
		case QuotaIP:
			slot = &p.ip
		case "":
			return p, adminErr(KindInvalidRequest, "", "Unexpected empty filter component entity type")
		default:
			return p, adminErr(KindInvalidRequest, "", "Custom entity type '%s' not supported", c.EntityType).
				withCode(CodeUnsupportedVersion)
		}
		if *slot != nil {
			what := c.EntityType
			if what == QuotaClientID {
				what = "client"
			}
			return p, adminErr(KindInvalidRequest, "", "Duplicate %s filter component entity type", what)
		}
		if c.Match < QuotaMatchExact || c.Match > QuotaMatchAny {
			return p, adminErr(KindInvalidRequest, "", "Unexpected match type: %d", c.Match)
		}
		*slot = c
	}
	if p.ip != nil && (p.user != nil || p.client != nil) {
		return p, adminErr(KindInvalidRequest, "", "Invalid entity filter component combination, IP filter "+
			"component should not be used with user or clientId filter component.")
	}
	return p, nil
}

// quotaName is an entity name as a filter sees it: absent, <default>, or a
// name.
type quotaName struct {
	set, def bool
	name     string
}

// exact reports whether c names one entity (a name or <default>).
func exact(c *QuotaFilterComponent) bool {
	return c != nil && (c.Match == QuotaMatchExact || c.Match == QuotaMatchDefault)
}

// matchesQuota is Kafka's test of an entity's name of one type against
// that type's component.
func (p quotaFilterPlan) matchesQuota(c *QuotaFilterComponent, n quotaName) bool {
	switch {
	case c == nil:
		return !n.set || !p.strict
	case c.Match == QuotaMatchAny:
		return n.set
	case c.Match == QuotaMatchDefault:
		return n.set && n.def
	default:
		return n.set && !n.def && n.name == c.Name
	}
}

// exactName is the znode name of an exact component.
func exactName(c *QuotaFilterComponent) string {
	if c.Match == QuotaMatchDefault {
		return znodes.DefaultEntityName
	}
	return znodes.SanitizeEntityName(c.Name)
}

// quotaScope is what a filter reads of one kind of entity: nothing, one
// znode (only), or all of them.
type quotaScope struct {
	read bool
	only *string // the znode name under /config/<type>/; nil: all
}

func allOf() quotaScope              { return quotaScope{read: true} }
func onlyOne(name string) quotaScope { return quotaScope{read: true, only: &name} }

// quotaReads says which entities a filter reads, as Kafka decides: one
// entity where the components name it, all of a kind where they may match
// some, none where they cannot.
type quotaReads struct {
	users, clients, userClients, ips quotaScope
}

func (p quotaFilterPlan) reads() quotaReads {
	var r quotaReads
	excludeUser := p.strict && p.user == nil
	excludeClient := p.strict && p.client == nil
	if p.ip == nil {
		switch {
		case exact(p.user) && excludeClient:
			r.users = onlyOne(exactName(p.user))
		case !excludeUser && !exact(p.client):
			r.users = allOf()
		}
		switch {
		case excludeUser && exact(p.client):
			r.clients = onlyOne(exactName(p.client))
		case !exact(p.user) && !excludeClient:
			r.clients = allOf()
		}
		switch {
		case exact(p.user) && exact(p.client):
			r.userClients = onlyOne(znodes.UserClientEntityName(exactName(p.user), exactName(p.client)))
		case !excludeUser && !excludeClient:
			r.userClients = allOf()
		}
	}
	if p.user == nil && p.client == nil {
		switch {
		case exact(p.ip):
			r.ips = onlyOne(exactName(p.ip))
		case p.ip != nil || !p.strict:
			r.ips = allOf()
		}
	}
	return r
}

// quotaValues keeps the quota keys of cfg (the user and client ones, or
// an IP's), as numbers; a value that is not one is a malformed znode.
func quotaValues(path string, ip bool, cfg map[string]string) (map[string]float64, error) {
	var out map[string]float64
	for k, v := range cfg {
		_, keep := userQuotaType(k)
		if ip {
			keep = k == ipConnectionRate
		}
		if !keep {
			continue
		}
		f, ok := config.ParseJavaDouble(v)
		if !ok {
			return nil, adminErr(KindMalformed, path, "cannot describe client quotas: %s holds %s=%q, which is not a number",
				path, k, v).withCode(CodeUnknownServerError)
		}
		if out == nil {
			out = map[string]float64{}
		}
		out[k] = f
	}
	return out, nil
}

// desanitizedPart is the entity part of a znode name: <default>, or the
// name desanitized (kept as it is when it does not decode, as a name
// someone else wrote).
func desanitizedPart(typ, znodeName string) (QuotaEntityPart, quotaName) {
	if znodeName == znodes.DefaultEntityName {
		return QuotaEntityPart{Type: typ, Default: true}, quotaName{set: true, def: true}
	}
	n, err := znodes.DesanitizeEntityName(znodeName)
	if err != nil {
		n = znodeName
	}
	return QuotaEntityPart{Type: typ, Name: n}, quotaName{set: true, name: n}
}

// sortQuotaEntries orders entries users first, then client ids, then
// users with client ids, then IPs, each by name with <default> first:
// Kafka's order is a hash map's, which carries no meaning.
func sortQuotaEntries(es []QuotaEntry) {
	rank := func(e QuotaEntity) int {
		switch {
		case len(e) == 2:
			return 2
		case e[0].Type == QuotaUser:
			return 0
		case e[0].Type == QuotaClientID:
			return 1
		}
		return 3
	}
	key := func(p QuotaEntityPart) string {
		if p.Default {
			return ""
		}
		return "\x00" + p.Name
	}
	sort.SliceStable(es, func(i, j int) bool {
		a, b := es[i].Entity, es[j].Entity
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra < rb
		}
		for k := range a {
			if ka, kb := key(a[k]), key(b[k]); ka != kb {
				return ka < kb
			}
		}
		return false
	})
}

// QuotaKeyType is Kafka's ConfigDef type (LONG, DOUBLE or INT) of a
// client quota key: the user and client ones, and an IP's
// connection_creation_rate.
func QuotaKeyType(key string) (string, bool) {
	if key == ipConnectionRate {
		return "INT", true
	}
	return userQuotaType(key)
}
